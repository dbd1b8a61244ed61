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
        -- Written as ORs, not IN (...): SQLite evaluates an IN list with a
        -- temporary index per inserted row, a quarter of a point's cost.
        CHECK (status = 'ok' OR status = 'failed' OR status = 'crashed'
               OR status = 'timeout'),
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

-- Webhook summaries (docs/webhooks.md): written in the transaction that
-- closes the sweep, then delivered; undelivered rows wait for `runner
-- notify`. There is deliberately no URL column: chat webhook URLs embed
-- tokens, so the URL comes from --webhook or RUNNER_WEBHOOK_URL each time.
CREATE TABLE IF NOT EXISTS outbox (
    id              INTEGER PRIMARY KEY,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    created_at      TEXT NOT NULL,                 -- UTC, ISO 8601
    format          TEXT NOT NULL CHECK (format IN ('generic', 'slack')),
    body            TEXT NOT NULL,                 -- the exact bytes sent (and signed)
    idempotency_key TEXT NOT NULL UNIQUE,          -- runner-<sweep>-<id>-<body sha256 prefix>
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_status     INTEGER,                       -- HTTP status of the last attempt; NULL: no answer
    last_error      TEXT,                          -- why the last attempt failed (URL never included)
    delivered_at    TEXT,                          -- NULL while pending
    next_attempt_at TEXT                           -- not before (a receiver's Retry-After); NULL: any time
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(delivered_at, id);
