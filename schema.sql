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
    -- Schema version 4: which process pid is, beyond its number, so that a
    -- pid reused after a reboot is not taken for the runner (NULL: unknown).
    pid_host        TEXT,                          -- host it runs on
    pid_start_ticks INTEGER,                       -- its start, clock ticks after boot (/proc)
    pid_boot_id     TEXT,                          -- that host's boot (kernel boot_id)
    seed            INTEGER NOT NULL,
    started_at      TEXT NOT NULL,                 -- UTC, ISO 8601
    ended_at        TEXT,
    status          TEXT NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'ok', 'failed', 'interrupted', 'error')),
    -- Sharded sweeps (docs/slurm.md): `--shard I/N` ran only shard I of N
    -- (shard_index I, shard_count N); `runner merge` writes shard_index NULL,
    -- shard_count N. Both NULL for an ordinary sweep.
    shard_index     INTEGER,
    shard_count     INTEGER,
    -- Schema version 9: what people call it (runner rename, tag, note).
    name            TEXT,                          -- NULL: unnamed; not unique (a selector
                                                   --   picks the newest of that name)
    note            TEXT,                          -- free text; NULL: none
    -- Schema version 12: liveness by lease (docs/guarantees.md: Liveness).
    -- The process running the sweep renews lease_renewed_at every
    -- lease_period_s; readers on any host call the sweep interrupted once
    -- 3 periods have passed without a renewal. NULL: no lease (an older row).
    lease_renewed_at REAL,                         -- Unix s of the last renewal
    lease_period_s  REAL,                          -- the renewal period in seconds
    -- The scheduler ids of that process from SLURM_JOB_ID and
    -- SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID and SLURM_STEP_ID; NULL
    -- outside Slurm. No comma or quote in these comments and none after the
    -- last column: the DROP COLUMN of SQLite (tests turn files back with it)
    -- looks for the comma before the last column in the text.
    slurm_job_id    TEXT,
    slurm_array_job_id TEXT,
    slurm_array_task_id TEXT,
    slurm_step_id   TEXT,
    -- Schema version 20: fencing (docs/guarantees.md: Fencing). Each claim
    -- of the sweep (its start and each resume or requeue) adds one to
    -- owner_epoch and a batch of points commits only while the epoch its
    -- writer claimed is still this one. owner_claimed_at: Unix s of the
    -- last claim
    owner_epoch     INTEGER NOT NULL DEFAULT 0,
    owner_claimed_at REAL,
    -- Schema version 23: how a shard chose its points (docs/slurm.md):
    -- 'ordinal' (this runner: from its section and ordinal); NULL for a
    -- shard an older runner made (from its identity), or no shard
    shard_by        TEXT
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

-- Finished points, in blocks: one row holds the points of one section that
-- one batch committed (up to a thousand), as a JSON array, because a table
-- row per point cost as much as the result rows themselves (see
-- docs/performance.md). Read points through the `point` view below; query
-- this table for counts, which it keeps per block.
CREATE TABLE IF NOT EXISTS point_block (
    id              INTEGER PRIMARY KEY,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL REFERENCES section(id),
    first_point_id  INTEGER NOT NULL,          -- every point id in the block is in
    last_point_id   INTEGER NOT NULL,          --   first_point_id .. last_point_id
    point_count     INTEGER NOT NULL,
    ok_count        INTEGER NOT NULL,          -- points with status 'ok'
    params_base     TEXT NOT NULL,             -- canonical parameters (the block's first
                                               --   point's) that each point's params patch
    -- One array per point, in the order the view's columns name them:
    -- [id, ordinal, params, identity, seed, status, error, started_at_ms,
    --  duration_ns, row_count], and reused_from (a point id) after them when
    -- --reuse copied the point instead of running it. params holds only the parameters that differ
    -- from params_base; started_at_ms is Unix time in milliseconds and
    -- duration_ns the point's wall time in nanoseconds.
    points          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS point_block_by_section ON point_block(section_id, first_point_id);
CREATE INDEX IF NOT EXISTS point_block_by_last_id ON point_block(last_point_id);

-- Where each point is: one row per point, written with its block in the same
-- statement batch, so the view can find a point by id, or the points that
-- are not ok, without expanding every block. A point --resume removed from
-- its block keeps its row here; the view joins both, so it never shows.
CREATE TABLE IF NOT EXISTS point_index (
    id              INTEGER PRIMARY KEY,       -- point id
    block_id        INTEGER NOT NULL,          -- point_block.id holding it
    status          TEXT NOT NULL              -- as in the block
);
-- Partial indexes: empty while every point is ok, so they cost nothing then.
-- SQLite uses one only for a query that says the same (status <> 'ok', or
-- status = 'failed', ...): one per way of asking.
CREATE INDEX IF NOT EXISTS point_index_not_ok ON point_index(status) WHERE status <> 'ok';
CREATE INDEX IF NOT EXISTS point_index_failed ON point_index(id) WHERE status = 'failed';
CREATE INDEX IF NOT EXISTS point_index_crashed ON point_index(id) WHERE status = 'crashed';
CREATE INDEX IF NOT EXISTS point_index_timeout ON point_index(id) WHERE status = 'timeout';

-- One row per parameter combination of a section: its canonical parameters,
-- identity (SHA-256 of plugin, version, params, seed), seed (signed 64-bit),
-- status ('ok', 'failed', 'crashed', 'timeout'), error, start (UTC, ISO 8601),
-- duration in s, and how many result rows it stored (result tables point back
-- with point_id = id). json_extract, not ->>, so older sqlite3 shells can
-- read the file. SQLite picks the join order: by point_index for `id = ?` or
-- `status <> 'ok'`, by point_block otherwise (the sqlite_stat1 rows below
-- tell it that point_index is the big one).
CREATE VIEW IF NOT EXISTS point AS
SELECT i.id AS id,
       b.sweep_id AS sweep_id,
       b.section_id AS section_id,
       json_extract(p.value, '$[1]') AS ordinal,
       json_patch(b.params_base, json_extract(p.value, '$[2]')) AS params_json,
       json_extract(p.value, '$[3]') AS identity,
       json_extract(p.value, '$[4]') AS seed,
       i.status AS status,
       json_extract(p.value, '$[6]') AS error,
       strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(p.value, '$[7]') / 1000.0, 'unixepoch')
           AS started_at,
       json_extract(p.value, '$[8]') / 1e9 AS duration_s,
       json_extract(p.value, '$[9]') AS row_count,
       -- Schema version 6: the point whose rows --reuse copied; NULL: computed.
       json_extract(p.value, '$[10]') AS reused_from
FROM point_block AS b, json_each(b.points) AS p, point_index AS i
WHERE i.block_id = b.id AND i.id = json_extract(p.value, '$[0]');

-- Planner statistics, fixed ratios rather than measured: without them
-- SQLite guesses both tables the same size and may read the view through
-- point_index for a full scan, expanding a whole block per point. ANALYZE
-- replaces them with real counts, which keep the same proportions.
ANALYZE sqlite_schema;
INSERT INTO sqlite_stat1 (tbl, idx, stat)
SELECT * FROM (VALUES ('point_block', NULL, '1000'),
                      ('point_block', 'point_block_by_section', '1000 100 1'),
                      ('point_block', 'point_block_by_last_id', '1000 1'),
                      ('point_index', NULL, '1000000'),
                      ('point_index', 'point_index_not_ok', '1000 100'),
                      ('point_index', 'point_index_failed', '1000 1'),
                      ('point_index', 'point_index_crashed', '1000 1'),
                      ('point_index', 'point_index_timeout', '1000 1'))
WHERE NOT EXISTS (SELECT 1 FROM sqlite_stat1 WHERE tbl IN ('point_block', 'point_index'));
ANALYZE sqlite_schema;

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

-- Command experiments (docs/command-experiments.md). What each command of
-- a sweep ran: its argv template, whether through /bin/sh, and the program
-- resolved and hashed (sweep_plugin holds the same path and SHA-256).
CREATE TABLE IF NOT EXISTS sweep_command (
    sweep_id          INTEGER NOT NULL REFERENCES sweep(id),
    command           TEXT NOT NULL,
    argv_template     TEXT NOT NULL,                 -- JSON array, {name} unsubstituted
    shell             INTEGER NOT NULL,              -- 1: argv_template[0] ran under /bin/sh -c
    executable        TEXT NOT NULL,
    executable_sha256 TEXT NOT NULL,
    PRIMARY KEY (sweep_id, command)
);
-- A point's artifacts (stdout, stderr, declared files), written in the
-- transaction that stores the point; contents deduplicated by SHA-256.
CREATE TABLE IF NOT EXISTS artifact_blob (
    sha256          TEXT PRIMARY KEY,
    bytes           INTEGER NOT NULL,
    content         BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS artifact (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    point_id        INTEGER NOT NULL,                -- point.id
    name            TEXT NOT NULL,
    sha256          TEXT NOT NULL REFERENCES artifact_blob(sha256),
    bytes           INTEGER NOT NULL,
    PRIMARY KEY (point_id, name)
);
CREATE INDEX IF NOT EXISTS artifact_by_sweep ON artifact(sweep_id, point_id);
CREATE INDEX IF NOT EXISTS artifact_by_blob ON artifact(sha256);

-- Schema version 8: tags, and ids that are never given twice. An older
-- sweep table gets name and note from the migration step (ALTER TABLE), and
-- this script runs on it before that step: nothing here may name them.
-- So the indexes over them, `sweep_list` (every column `runner sweeps`
-- reads, in id order) and `sweep_by_name`, are made by a step of their own
-- in core/store/store_migrate.c (schema 10), which a new file runs too.

-- Tags of a sweep (`runner sweep --tag T`, `runner tag SWEEP +T -T`).
CREATE TABLE IF NOT EXISTS sweep_tag (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    tag             TEXT NOT NULL,
    PRIMARY KEY (sweep_id, tag)
);
CREATE INDEX IF NOT EXISTS sweep_tag_by_tag ON sweep_tag(tag, sweep_id);

-- The highest sweep, section and point id ever given. New ids start above
-- it, so a sweep removed by `runner rm` or by hand (DELETE FROM sweep ...)
-- never hands its id, and with it any row it left behind, to a new sweep.
-- The triggers keep it up to date whoever inserts.
CREATE TABLE IF NOT EXISTS id_high_water (
    kind            TEXT PRIMARY KEY CHECK (kind IN ('sweep', 'section', 'point')),
    last_id         INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS sweep_high_water AFTER INSERT ON sweep BEGIN
    INSERT INTO id_high_water (kind, last_id) VALUES ('sweep', NEW.id)
    ON CONFLICT (kind) DO UPDATE SET last_id = max(last_id, excluded.last_id);
END;
CREATE TRIGGER IF NOT EXISTS section_high_water AFTER INSERT ON section BEGIN
    INSERT INTO id_high_water (kind, last_id) VALUES ('section', NEW.id)
    ON CONFLICT (kind) DO UPDATE SET last_id = max(last_id, excluded.last_id);
END;
CREATE TRIGGER IF NOT EXISTS point_high_water AFTER INSERT ON point_block BEGIN
    INSERT INTO id_high_water (kind, last_id) VALUES ('point', NEW.last_point_id)
    ON CONFLICT (kind) DO UPDATE SET last_id = max(last_id, excluded.last_id);
END;

-- `runner sweeps` counts points per sweep from the blocks' counts: this
-- index covers that query, so it never reads the blocks' points.
CREATE INDEX IF NOT EXISTS point_block_by_sweep ON point_block(sweep_id, point_count, ok_count);

-- Schema version 11: fits (`runner fit`, docs/analysis.md). One row per
-- fitted group: a model y = f(x; parameters) fitted by least squares to
-- the rows of one section (one group of them under --by). Fitting reads
-- the section and adds rows here; it never changes a stored row.
-- AUTOINCREMENT: a fit's id is never given again after `runner rm`.
CREATE TABLE IF NOT EXISTS fit (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL REFERENCES section(id),
    model           TEXT NOT NULL,                 -- amdahl, gustafson, usl, walkthrough,
                                                   --   alpha-beta, power, linear
    formula         TEXT NOT NULL,                 -- y as a function of x: base/x + J*x/(x+1)
    x_column        TEXT NOT NULL,                 -- the section's columns fitted
    y_column        TEXT NOT NULL,
    x_unit          TEXT NOT NULL DEFAULT '',      -- their units, as the section records them
    y_unit          TEXT NOT NULL DEFAULT '',
    by_column       TEXT,                          -- --by; NULL: every row in one fit
    by_value,                                      -- this group's value of by_column (typed
                                                   --   as stored: no declared type); NULL: no --by
    weight_column   TEXT,                          -- --weights: each y's standard deviation,
                                                   --   in y_unit; NULL: unweighted
    n               INTEGER NOT NULL,              -- rows fitted (fit_residual holds them)
    excluded        INTEGER NOT NULL,              -- rows left out: NaN, inf or NULL in x, y or
                                                   --   the weight, or a weight <= 0
    dof             INTEGER NOT NULL,              -- degrees of freedom, n - parameters
    r2              REAL,                          -- 1 - RSS/TSS (weighted with the weights);
                                                   --   NULL when y does not vary
    rss             REAL NOT NULL,                 -- residual sum of squares: y_unit^2, or
                                                   --   chi-square (dimensionless) when weighted
    residual_sd     REAL NOT NULL,                 -- sqrt(rss / dof): y_unit when unweighted
    confidence      REAL NOT NULL,                 -- of the intervals in fit_param: 0.95
    iterations      INTEGER NOT NULL,              -- trust-region iterations to converge
    created_at      TEXT NOT NULL,                 -- UTC in ISO 8601
    -- Schema version 22 (issue 38: answers kept). The question in words
    -- and the key of the rows read (store_rows_key). NULL: stored before.
    -- No comma or quote in these comments (DROP COLUMN: see sweep).
    question        TEXT,
    rows_key        TEXT
);
CREATE INDEX IF NOT EXISTS fit_by_section ON fit(sweep_id, section_id);

-- A fit's parameters, then the quantities derived from them (the speedup
-- ceiling, the USL peak), each with its standard error and confidence
-- interval (Student t with dof degrees of freedom; the delta method for
-- derived ones). NULL where undefined (a ceiling when J is 0).
CREATE TABLE IF NOT EXISTS fit_param (
    fit_id          INTEGER NOT NULL REFERENCES fit(id),
    position        INTEGER NOT NULL,              -- 1, 2, ...: parameters first
    name            TEXT NOT NULL,                 -- base, J, sigma, kappa, ceiling, ...
    kind            TEXT NOT NULL CHECK (kind IN ('param', 'derived')),
    value           REAL,
    stderr          REAL,                          -- standard error, in unit
    ci_low          REAL,                          -- value -/+ t(dof) stderr
    ci_high         REAL,
    unit            TEXT NOT NULL DEFAULT '',      -- from x_unit and y_unit: s, s/bytes, ...
    doc             TEXT NOT NULL DEFAULT '',
    -- Schema version 19 (issue 35): how ci_low, ci_high were made: wald,
    -- log (a quantity > 0) or logit (a fraction); docs/analysis.md
    interval        TEXT NOT NULL DEFAULT 'wald',
    PRIMARY KEY (fit_id, position)
) WITHOUT ROWID;

-- Each fitted row: where it is stored (the result table's row_id and its
-- point), its x and y, the model's value there and the residual y - fitted
-- (in y_unit, never weighted).
CREATE TABLE IF NOT EXISTS fit_residual (
    fit_id          INTEGER NOT NULL REFERENCES fit(id),
    row_id          INTEGER NOT NULL,              -- row_id in the section's result table
    point_id        INTEGER NOT NULL,              -- point.id of that row
    x               REAL NOT NULL,
    y               REAL NOT NULL,
    fitted          REAL NOT NULL,
    residual        REAL NOT NULL,
    PRIMARY KEY (fit_id, row_id)
) WITHOUT ROWID;

-- Schema version 13: answers as rows (docs/analysis.md). `runner
-- sensitivity`, `runner pareto` and `runner diff --stat` add a head row
-- and its detail rows here, one transaction each; nothing else changes.
-- AUTOINCREMENT: an answer's id is never given again after `runner rm`.

-- Sobol indices of one output over a Saltelli design (design.saltelli).
CREATE TABLE IF NOT EXISTS sensitivity (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL REFERENCES section(id),
    y_column        TEXT NOT NULL,                 -- the output analysed
    y_unit          TEXT NOT NULL DEFAULT '',
    base_samples    INTEGER NOT NULL,              -- blocks used (each d + 2 points)
    excluded        INTEGER NOT NULL,              -- blocks left out: NaN, inf or NULL y
    bootstrap       INTEGER NOT NULL,              -- resamples behind the intervals
    seed            INTEGER NOT NULL,              -- of the resampling (as signed 64 bits)
    confidence      REAL NOT NULL,                 -- of the intervals: 0.95
    y_mean          REAL,                          -- over the A and B points, in y_unit
    y_variance      REAL,                          -- in y_unit^2
    created_at      TEXT NOT NULL,                 -- UTC in ISO 8601
    -- Schema version 22 (issue 38: answers kept). The question in words
    -- and the key of the rows read (store_rows_key). NULL: stored before.
    -- No comma or quote in these comments (DROP COLUMN: see sweep).
    question        TEXT,
    rows_key        TEXT
);
CREATE INDEX IF NOT EXISTS sensitivity_by_section ON sensitivity(sweep_id, section_id);

-- One parameter's first-order (Saltelli 2010) and total (Jansen) index,
-- each with its percentile-bootstrap interval. Dimensionless shares of
-- y's variance; NULL where undefined.
CREATE TABLE IF NOT EXISTS sensitivity_index (
    sensitivity_id  INTEGER NOT NULL REFERENCES sensitivity(id),
    position        INTEGER NOT NULL,              -- 1, 2, ...: parameters by name
    parameter       TEXT NOT NULL,
    unit            TEXT NOT NULL DEFAULT '',      -- the parameter's unit
    first_order     REAL,
    first_low       REAL,
    first_high      REAL,
    total           REAL,
    total_low       REAL,
    total_high      REAL,
    PRIMARY KEY (sensitivity_id, position)
) WITHOUT ROWID;

-- A trade-off front: the section's rows no other row beats on every
-- objective.
CREATE TABLE IF NOT EXISTS pareto (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL REFERENCES section(id),
    rows            INTEGER NOT NULL,              -- rows considered
    excluded        INTEGER NOT NULL,              -- of those, rows with a NaN objective
    front_size      INTEGER NOT NULL,              -- rows on the front (pareto_member)
    created_at      TEXT NOT NULL,
    -- Schema version 22 (issue 38: answers kept). The question in words
    -- and the key of the rows read (store_rows_key). NULL: stored before.
    -- No comma or quote in these comments (DROP COLUMN: see sweep).
    question        TEXT,
    rows_key        TEXT
);
CREATE INDEX IF NOT EXISTS pareto_by_section ON pareto(sweep_id, section_id);

CREATE TABLE IF NOT EXISTS pareto_objective (
    pareto_id       INTEGER NOT NULL REFERENCES pareto(id),
    position        INTEGER NOT NULL,              -- 1, 2, ...: as given
    column_name     TEXT NOT NULL,
    unit            TEXT NOT NULL DEFAULT '',
    direction       TEXT NOT NULL CHECK (direction IN ('min', 'max')),
    PRIMARY KEY (pareto_id, position)
) WITHOUT ROWID;

-- The front's rows: row_id in the section's result table, and its point.
CREATE TABLE IF NOT EXISTS pareto_member (
    pareto_id       INTEGER NOT NULL REFERENCES pareto(id),
    row_id          INTEGER NOT NULL,
    point_id        INTEGER NOT NULL,
    PRIMARY KEY (pareto_id, row_id)
) WITHOUT ROWID;

-- diff --stat: two sweeps' repeats compared point by point.
CREATE TABLE IF NOT EXISTS stat_diff (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    sweep_a         INTEGER NOT NULL REFERENCES sweep(id),
    sweep_b         INTEGER NOT NULL REFERENCES sweep(id),
    tolerance_s     REAL NOT NULL,                 -- --tolerance (0: none)
    confidence      REAL NOT NULL,                 -- of the ratio intervals: 0.95
    compared        INTEGER NOT NULL,              -- points compared
    past_tolerance  INTEGER NOT NULL,              -- significant changes past the tolerance
    created_at      TEXT NOT NULL,
    -- Schema version 22 (issue 38: answers kept). The question in words
    -- and the key of the rows read (store_rows_key). NULL: stored before.
    -- No comma or quote in these comments (DROP COLUMN: see sweep).
    question        TEXT,
    rows_key        TEXT
);
CREATE INDEX IF NOT EXISTS stat_diff_by_sweeps ON stat_diff(sweep_a, sweep_b);

-- One compared column at one matched point.
CREATE TABLE IF NOT EXISTS stat_diff_row (
    stat_diff_id    INTEGER NOT NULL REFERENCES stat_diff(id),
    position        INTEGER NOT NULL,              -- 1, 2, ...: as printed
    plugin          TEXT NOT NULL,
    section_a       INTEGER,                       -- the point's section in each sweep
    section_b       INTEGER,
    point           TEXT NOT NULL,                 -- the point's parameters, as printed
    column_name     TEXT NOT NULL,
    unit            TEXT NOT NULL DEFAULT '',      -- of the means and sds
    n_a             INTEGER NOT NULL,
    mean_a          REAL,
    sd_a            REAL,
    n_b             INTEGER NOT NULL,
    mean_b          REAL,
    sd_b            REAL,
    ratio           REAL,                          -- mean_b / mean_a (welch), median_b / median_a
    ratio_low       REAL,                          -- its 95 % interval (welch: delta method on
    ratio_high      REAL,                          -- log ratio; bootstrap: percentile; mwu: NULL)
    p_value         REAL,                          -- of the test, two-sided
    verdict         TEXT NOT NULL,                 -- faster, slower, higher, lower, no change
    -- Schema version 19 (issue 35, robust comparison): the test and the
    -- outliers by Tukey's fences (NULL where only a summary was stored).
    test            TEXT NOT NULL DEFAULT 'welch', -- welch, mwu or bootstrap
    mild_a          INTEGER,
    severe_a        INTEGER,
    mild_b          INTEGER,
    severe_b        INTEGER,
    PRIMARY KEY (stat_diff_id, position)
) WITHOUT ROWID;

-- Schema version 14: a merged sweep's sources (runner merge, docs/slurm.md): one row per shard
-- it holds, with where that shard ran, read from the shard's own sweep row.
-- A merge of merged files (partial merges, runner slurm --merge-fanout)
-- copies its inputs' rows, so the final file names every shard's host.
CREATE TABLE IF NOT EXISTS merge_source (
    sweep_id            INTEGER NOT NULL REFERENCES sweep(id),
    shard_index         INTEGER NOT NULL,          -- I of --shard I/N
    shard_count         INTEGER NOT NULL,          -- N
    host                TEXT,                      -- the host that last ran the shard
    pid                 INTEGER,                   -- its process there
    slurm_job_id        TEXT,                      -- when the shard's sweep row records them
    slurm_array_task_id TEXT,
    path                TEXT NOT NULL,             -- the shard's database, as merge was given it
    source_sweep_id     INTEGER NOT NULL,          -- the shard's sweep id in that file
    points              INTEGER NOT NULL,          -- points stored by the shard
    rows                INTEGER,                   -- result rows copied from it
    status              TEXT NOT NULL,             -- the shard sweep's status: ok or failed
    started_at          TEXT,
    ended_at            TEXT,
    PRIMARY KEY (sweep_id, shard_index)
) WITHOUT ROWID;

-- Schema version 15: the curve of a fit whose model is a Lua function
-- (fit{model = function(x, p) ... end}): nothing can evaluate it later, so
-- the fit stores it, 200 x spread over the fitted ones (log-spaced when
-- x > 0 spans a factor of 10), for plots and the dashboard. A built-in
-- model's curve is drawn from its formula and has no rows here.
CREATE TABLE IF NOT EXISTS fit_curve (
    fit_id          INTEGER NOT NULL REFERENCES fit(id),
    position        INTEGER NOT NULL,              -- 1, 2, ...: in order of x
    x               REAL NOT NULL,                 -- in x_unit
    fitted          REAL,                          -- the model at x, y_unit; NULL: not finite
    ci_low          REAL,                          -- the curve's pointwise confidence band
    ci_high         REAL,                          --   (fit.confidence); NULL where undefined
    PRIMARY KEY (fit_id, position)
) WITHOUT ROWID;

-- Schema version 16: every run of a command point (repeats, warmup), one
-- row each, written in the batch that stores the point. The point's result
-- row keeps the summary (wall_s the mean of the measured runs, wall_sd,
-- wall_min, wall_median, wall_max, wall_runs); these are the runs behind
-- it, for `runner show --runs`, `export --runs` and `diff --stat`. A point
-- with one run and no warm-up has none. An older file keeps its summaries.
CREATE TABLE IF NOT EXISTS command_run (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    point_id        INTEGER NOT NULL,              -- point.id
    run             INTEGER NOT NULL,              -- 1, 2, ...: in the order they ran, warm-ups first
    warmup          INTEGER NOT NULL,              -- 1: a warm-up run, not in the summary
    wall_s          REAL NOT NULL,
    user_s          REAL NOT NULL,                 -- CPU time of the run and its children
    sys_s           REAL NOT NULL,
    max_rss_kib     INTEGER NOT NULL,              -- peak resident set (getrusage)
    voluntary_switches   INTEGER NOT NULL,         -- context switches: waits (I/O, sleep)
    involuntary_switches INTEGER NOT NULL,         --   and preemptions (the scheduler)
    exit_status     INTEGER NOT NULL,              -- -1: ended by a signal
    run_values      TEXT,                          -- JSON object of the declared columns of
                                                   --   the one row this run printed; NULL:
                                                   --   none or several
    PRIMARY KEY (sweep_id, point_id, run)
) WITHOUT ROWID;
-- Schema version 17: the machine a sweep ran on (docs/schema.md,
-- "sweep_machine"): one row per fact, read from /proc and /sys when the
-- sweep began (base/machine.c), load_end when it ended. A key and a value,
-- so a later runner records more facts without a schema step; rowid keeps
-- the order they were recorded in, which is the order they are shown in.
CREATE TABLE IF NOT EXISTS sweep_machine (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    field           TEXT NOT NULL,                 -- cpu_model, governor, turbo, ...
    value           TEXT NOT NULL,                 -- as read; 'unknown' when it could not be
    UNIQUE (sweep_id, field)
);

-- Schema version 18: what happened during a point (docs/command-experiments.md,
-- "Series during a point"). A series value is one (name, step, value) a
-- command printed as a progress line, a plugin reported with host->series,
-- or runner sampled from the point's process tree (names sys.*, gpuN.*).
-- Rows name their point by (section_id, ordinal), as the point table does,
-- because they are written while the point runs, before it has an id.
CREATE TABLE IF NOT EXISTS series (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL,              -- section.id
    ordinal         INTEGER NOT NULL,              -- point.ordinal in that section
    name            TEXT NOT NULL,                 -- loss, sys.cpu_cores, gpu0.util_pct, ...
    step            REAL NOT NULL,                 -- the program's step; sys.*: the sample number
    value           REAL,                          -- NULL: not finite
    t_s             REAL NOT NULL                  -- seconds since the point began
);
CREATE INDEX IF NOT EXISTS series_by_sweep ON series(sweep_id, name, section_id, ordinal);

-- One row per point that ran with --sample-interval above 0: its resources,
-- apart from the point row, whose columns stay those of the plugin.
-- A command point: its whole process tree over all its runs; a plugin
-- point (10 ms or longer): the thread that ran it.
CREATE TABLE IF NOT EXISTS point_system (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL,
    ordinal         INTEGER NOT NULL,
    wall_s          REAL NOT NULL,                 -- the runs' (the plugin's) wall time
    cpu_s           REAL NOT NULL,                 -- user + system CPU time
    cpu_cores_mean  REAL,                          -- cpu_s / wall_s
    cpu_cores_peak  REAL,                          -- the largest sampled interval; NULL: none
    rss_peak_bytes  INTEGER,                       -- the tree's largest sampled RSS or the
                                                   --   largest process's, whichever is more
    read_bytes      INTEGER,                       -- storage I/O of the tree (NULL: plugin)
    written_bytes   INTEGER,
    samples         INTEGER NOT NULL,              -- sampled intervals
    PRIMARY KEY (sweep_id, section_id, ordinal)
) WITHOUT ROWID;

-- Schema version 21 (issue 38): what the script printed with printf (its
-- findings: "=> ceiling T1/J = 15.5x ..."), one row per non-empty line in
-- the order printed, so the dashboard's sweep page can lead with them. A
-- resumed sweep's script prints again: its lines replace the earlier ones.
-- At most 500 lines of 1000 bytes are kept (docs/schema.md).
CREATE TABLE IF NOT EXISTS sweep_printed (
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    position        INTEGER NOT NULL,              -- 1, 2, ...: as printed
    line            TEXT NOT NULL,                 -- without its newline
    PRIMARY KEY (sweep_id, position)
) WITHOUT ROWID;
