-- runner's catalog: the single source of the schema, compiled into the
-- binary. The version is PRAGMA user_version (set by the store after this
-- script runs). Result rows live in one table per plugin, named after it,
-- created from the plugin's metadata (see docs/schema.md).

-- One `runner sweep SCRIPT` run and its provenance.
CREATE TABLE IF NOT EXISTS sweep (
    id              INTEGER PRIMARY KEY,
    script_path     TEXT NOT NULL,
    script_text     TEXT NOT NULL,
    script_sha256   TEXT NOT NULL,
    options_json    TEXT NOT NULL DEFAULT '{}',   -- option values used
    overrides_json  TEXT NOT NULL DEFAULT '{}',   -- --set NAME=VALUE given
    runner_version  TEXT NOT NULL,
    git_commit      TEXT,                          -- NULL outside a git repo
    host            TEXT NOT NULL,
    command_line    TEXT NOT NULL,
    pid             INTEGER,                       -- process running it (to spot dead ones)
    seed            INTEGER NOT NULL,
    started_at      TEXT NOT NULL,                 -- UTC, ISO 8601
    ended_at        TEXT,
    status          TEXT NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'ok', 'failed', 'interrupted', 'error'))
);

-- Each plugin a sweep used, with the exact shared object.
CREATE TABLE IF NOT EXISTS sweep_plugin (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    plugin          TEXT NOT NULL,
    plugin_version  TEXT NOT NULL,
    so_path         TEXT NOT NULL,
    so_sha256       TEXT NOT NULL,
    PRIMARY KEY (sweep_id, plugin)
);

-- One `sweep "plugin" {...}` call inside a script.
CREATE TABLE IF NOT EXISTS section (
    id              INTEGER PRIMARY KEY,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    ordinal         INTEGER NOT NULL,          -- 1, 2, ... within the sweep
    plugin          TEXT NOT NULL,
    title           TEXT,
    script_line     INTEGER,
    point_count     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS section_by_sweep ON section(sweep_id, ordinal);

-- One parameter combination of one section.
CREATE TABLE IF NOT EXISTS point (
    id              INTEGER PRIMARY KEY,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL REFERENCES section(id),
    ordinal         INTEGER NOT NULL,          -- 0, 1, ... within the section
    params_json     TEXT NOT NULL,             -- canonical parameters
    identity        TEXT NOT NULL,             -- SHA-256 of plugin, version, params, seed
    seed            INTEGER NOT NULL,          -- the point's random seed (as signed 64-bit)
    status          TEXT NOT NULL
        CHECK (status IN ('ok', 'failed', 'crashed', 'timeout')),
    error           TEXT,
    started_at      TEXT NOT NULL,
    duration_s      REAL NOT NULL,
    row_count       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS point_by_section ON point(section_id, ordinal);

-- Units and docs of every result-table column, so the plain sqlite3 shell
-- (and runner show) can say what a number means.
CREATE TABLE IF NOT EXISTS plugin_column (
    plugin          TEXT NOT NULL,
    name            TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('param', 'output')),
    type            TEXT NOT NULL CHECK (type IN ('integer', 'real', 'text', 'boolean')),
    unit            TEXT NOT NULL DEFAULT '',
    doc             TEXT NOT NULL DEFAULT '',
    position        INTEGER NOT NULL,
    PRIMARY KEY (plugin, name)
);
