# Schema version 2 kept one `point` row per point; version 3 keeps points in
# blocks behind a `point` view; version 4 records which process runs a sweep
# (pid_host, pid_start_ticks, pid_boot_id). A real version 2 file (made here
# by turning a new one back, with the released DDL) is refused, unchanged, by
# the reading commands, which never write; `runner migrate` (or any writing
# command) upgrades it in one transaction, and it shows the same points; new
# points get new ids; resume still knows which points are done. A version 3
# file is upgraded in place by a writing command (resume); version 5 gains
# version 8's shard columns. The indexes `runner sweeps` reads (sweep_list,
# sweep_by_name) name columns older versions lack, so a file turned back
# here drops them first ($OLD_INDEXES); the step after version 9 adds them.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
# The schema version this runner writes, as it reports it.
V=$(runner_schema)
OLD_INDEXES="DROP INDEX IF EXISTS sweep_list; DROP INDEX IF EXISTS sweep_by_name;"

script=$(write_script grid.lua <<'LUA'
sweep("testkit", {x = {1, 2, 3}, fail = {false, true}, rows = 2}, {print = false})
sweep("testkit", {x = linspace(0, 1, 1500), rows = 1}, {print = false})
LUA
)
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 1
expect_sql "SELECT count(*), sum(status = 'ok') FROM point" "1506|1503"
POINTS="SELECT id, sweep_id, section_id, ordinal, params_json, identity, seed, status,
    coalesce(error, ''), started_at, duration_s, row_count FROM point ORDER BY id"
sql "$POINTS" >"$TMP/before.txt"

# The version 2 catalog's point table, as released (and the sweep table
# without version 4's columns).
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
BEGIN;
$OLD_INDEXES
ALTER TABLE sweep DROP COLUMN pid_host;
ALTER TABLE sweep DROP COLUMN pid_start_ticks;
ALTER TABLE sweep DROP COLUMN pid_boot_id;
CREATE TABLE point_v2 (
    id              INTEGER PRIMARY KEY,
    sweep_id        INTEGER NOT NULL REFERENCES sweep(id),
    section_id      INTEGER NOT NULL REFERENCES section(id),
    ordinal         INTEGER NOT NULL,
    params_json     TEXT NOT NULL,
    identity        TEXT NOT NULL,
    seed            INTEGER NOT NULL,
    status          TEXT NOT NULL
        CHECK (status = 'ok' OR status = 'failed' OR status = 'crashed'
               OR status = 'timeout'),
    error           TEXT,
    started_at      TEXT NOT NULL,
    duration_s      REAL NOT NULL,
    row_count       INTEGER NOT NULL
);
INSERT INTO point_v2 SELECT id, sweep_id, section_id, ordinal, params_json, identity, seed,
    status, error, started_at, duration_s, row_count FROM point;
DROP VIEW point;
DROP TABLE point_block;
DROP TABLE point_index;
DELETE FROM sqlite_stat1;
ALTER TABLE point_v2 RENAME TO point;
CREATE INDEX point_by_section ON point(section_id, ordinal);
PRAGMA user_version = 2;
COMMIT;"
expect_sql "SELECT type FROM sqlite_master WHERE name = 'point'" "table"
expect_equal "version 2 points" "$(sql "$POINTS")" "$(cat "$TMP/before.txt")"

# Readers refuse it without writing a byte, and name the command that upgrades.
sqlite3 -batch "$DB" "PRAGMA journal_mode = DELETE" >/dev/null
sha=$(sha256sum <"$DB")
for command in sweeps "show 1" "report 1 -o $TMP/r.html" "plot 1 --x x --y y -o $TMP/p.svg"; do
    run "$RUNNER" $command --db "$DB"
    expect_status 2
    expect_stderr "runner: $DB: database schema version 2 is older than this runner's ($V); reading commands never change it: upgrade it with 'runner migrate' (or any writing command: sweep, resume, notify), or read it with an older runner"
    expect_equal "$command: the version 2 file's bytes" "$(sha256sum <"$DB")" "$sha"
    for f in "$DB-wal" "$DB-shm" "$DB-journal"; do
        [ -e "$f" ] && fail "$command left $f beside the version 2 file"
    done
done
expect_sql "PRAGMA user_version" "2"

# runner migrate upgrades it; then readers read it.
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_equal "migrate says" "$(cat "$TMP/out")" "$DB: upgraded to schema version $V"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_equal "migrate again says" "$(cat "$TMP/out")" "$DB: already at schema version $V"
run "$RUNNER" sweeps --db "$DB"
expect_status 0
expect_stdout_contains "1503"
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM pragma_table_info('sweep')
    WHERE name IN ('pid_host', 'pid_start_ticks', 'pid_boot_id')" "3"
expect_sql "SELECT type FROM sqlite_master WHERE name = 'point'" "view"
expect_sql "SELECT count(*) FROM point_block" "3"
expect_equal "points after the upgrade" "$(sql "$POINTS")" "$(cat "$TMP/before.txt")"
expect_sql "SELECT count(*) FROM testkit r LEFT JOIN point p ON p.id = r.point_id
    WHERE p.id IS NULL OR p.sweep_id <> r.sweep_id" "0"

# Resume reruns the failed points only: the ok points stay as they were,
# the failed ones come back with new ids (after every old one).
run "$RUNNER" resume 1 --db "$DB"
expect_status 1
expect_sql "SELECT count(*), sum(status = 'ok') FROM point" "1506|1503"
expect_sql "SELECT count(*) FROM point WHERE status <> 'ok' AND id <= 1506" "0"
expect_sql "SELECT count(*) FROM testkit" "1506"
expect_equal "ok points kept" "$(sql "$POINTS" | grep '|ok|')" "$(grep '|ok|' "$TMP/before.txt")"

# A sweep whose every point failed: the rerun points never take back an id
# the failed ones had (their emptied blocks keep the ids spent).
all_fail=$(write_script all_fail.lua <<'LUA'
sweep("testkit", {x = {1, 2, 3}, fail = true}, {print = false})
LUA
)
run "$RUNNER" sweep "$all_fail" --db "$DB"
expect_status 1
spent=$(sql "SELECT max(last_point_id) FROM point_block")
failed_ids=$(sql "SELECT group_concat(id) FROM point WHERE sweep_id = 2")
run "$RUNNER" resume 2 --db "$DB"
expect_status 1
expect_sql "SELECT count(*) FROM point WHERE sweep_id = 2" "3"
expect_sql "SELECT count(*) FROM point WHERE sweep_id = 2 AND id <= $spent" "0"
expect_equal "failed ids before the resume" "$failed_ids" "$((spent - 2)),$((spent - 1)),$spent"

# A version 3 file, its sweep left running by a runner killed before version
# 4: resume (a writing command) upgrades it in place, takes the sweep over
# (its pid 999999999 is no process) and records which process it is.
run "$RUNNER" sweep "$all_fail" --db "$DB"
expect_status 1
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
UPDATE sweep SET status = 'running', ended_at = NULL, pid = 999999999 WHERE id = 3;
$OLD_INDEXES
ALTER TABLE sweep DROP COLUMN pid_host;
ALTER TABLE sweep DROP COLUMN pid_start_ticks;
ALTER TABLE sweep DROP COLUMN pid_boot_id;
PRAGMA user_version = 3;"
run "$RUNNER" show 3 --db "$DB"
expect_status 2
expect_stderr_contains "database schema version 3 is older than this runner's ($V)"
run "$RUNNER" resume 3 --db "$DB"
expect_status 1
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT status, pid_host = host, pid_start_ticks > 0, length(pid_boot_id)
    FROM sweep WHERE id = 3" "failed|1|1|36"
expect_sql "SELECT count(*) FROM sweep WHERE pid_boot_id IS NULL" "2"


# Version 5 indexes the points (point_index) and the view joins through it.
# A version 3 file (its view as released, no index) is upgraded in place.
sql "$POINTS" >"$TMP/before5.txt"
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
BEGIN;
DROP VIEW point;
DROP TABLE point_index;
DELETE FROM sqlite_stat1;
CREATE VIEW point AS
SELECT json_extract(p.value, '\$[0]') AS id, b.sweep_id AS sweep_id, b.section_id AS section_id,
       json_extract(p.value, '\$[1]') AS ordinal,
       json_patch(b.params_base, json_extract(p.value, '\$[2]')) AS params_json,
       json_extract(p.value, '\$[3]') AS identity, json_extract(p.value, '\$[4]') AS seed,
       json_extract(p.value, '\$[5]') AS status, json_extract(p.value, '\$[6]') AS error,
       strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(p.value, '\$[7]') / 1000.0, 'unixepoch')
           AS started_at,
       json_extract(p.value, '\$[8]') / 1e9 AS duration_s, json_extract(p.value, '\$[9]') AS row_count
FROM point_block AS b, json_each(b.points) AS p;
PRAGMA user_version = 3;
COMMIT;"
expect_equal "version 3 points" "$(sql "$POINTS")" "$(cat "$TMP/before5.txt")"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_equal "points after the upgrade to 5" "$(sql "$POINTS")" "$(cat "$TMP/before5.txt")"
expect_sql "SELECT count(*), sum(status = 'ok') FROM point_index WHERE id IN (SELECT id FROM point)" \
    "$(wc -l <"$TMP/before5.txt" | tr -d ' ')|$(grep -c '|ok|' "$TMP/before5.txt")"
expect_sql "SELECT status FROM point WHERE id = 2" "$(grep '^2|' "$TMP/before5.txt" | cut -d'|' -f8)"
plan=$(sql "EXPLAIN QUERY PLAN SELECT status FROM point WHERE id = 2")
case $plan in
*"SEARCH i USING INTEGER PRIMARY KEY"*) ;;
*) fail "a lookup by id does not go through point_index: $plan" ;;
esac

# Version 6 shows where a --reuse point came from (the view's reused_from).
# A version 5 file (the view without it) is upgraded in place; a point
# stored before reads NULL there, a reused one the point it copied.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
BEGIN;
DROP VIEW point;
CREATE VIEW point AS
SELECT i.id AS id, b.sweep_id AS sweep_id, b.section_id AS section_id,
       json_extract(p.value, '\$[1]') AS ordinal,
       json_patch(b.params_base, json_extract(p.value, '\$[2]')) AS params_json,
       json_extract(p.value, '\$[3]') AS identity, json_extract(p.value, '\$[4]') AS seed,
       i.status AS status, json_extract(p.value, '\$[6]') AS error,
       strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(p.value, '\$[7]') / 1000.0, 'unixepoch')
           AS started_at,
       json_extract(p.value, '\$[8]') / 1e9 AS duration_s, json_extract(p.value, '\$[9]') AS row_count
FROM point_block AS b, json_each(b.points) AS p, point_index AS i
WHERE i.block_id = b.id AND i.id = json_extract(p.value, '\$[0]');
PRAGMA user_version = 5;
COMMIT;"
expect_sql "SELECT count(*) FROM pragma_table_info('point') WHERE name = 'reused_from'" "0"
run "$RUNNER" sweep "$all_fail" --db "$DB" --reuse
expect_status 1
expect_sql "PRAGMA user_version" "$V"
expect_equal "points after the upgrade to 6" "$(sql "$POINTS" | head -n "$(wc -l <"$TMP/before5.txt")")" \
    "$(cat "$TMP/before5.txt")"
expect_sql "SELECT count(*), count(reused_from) FROM point" "$(($(wc -l <"$TMP/before5.txt") + 3))|0"
run "$RUNNER" sweep "$script" --db "$DB" --reuse
expect_status 1
expect_stderr_contains "1503 points ok, 3 failed, 1503 reused"
expect_sql "SELECT count(*) FROM point AS p JOIN point AS q ON q.id = p.reused_from
    WHERE p.sweep_id = (SELECT max(id) FROM sweep) AND q.sweep_id = 1 AND q.identity = p.identity" "1503"

# Command experiments (issue 14) add sweep_command, artifact_blob and
# artifact: a file without them (version 6) gets them in place, rows kept.
sqlite3 -batch "$DB" "DROP TABLE artifact; DROP TABLE artifact_blob; DROP TABLE sweep_command;
PRAGMA user_version = 6;"
points_before=$(sql "$POINTS")
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM sqlite_master WHERE name IN ('artifact', 'artifact_blob',
    'sweep_command', 'artifact_by_sweep', 'artifact_by_blob')" "5"
expect_equal "points after adding the artifact tables" "$(sql "$POINTS")" "$points_before"
# The step after that names sweeps (name, note, sweep_tag) and keeps id
# high-water marks (id_high_water). A file of the version before whose
# newest sweep was deleted by hand (its sections and points left behind) is
# upgraded in place: the marks start above every id still referred to, so
# the next sweep takes a new id and none of the leftover rows.
gone=$(sql "SELECT max(id) FROM sweep")
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
BEGIN;
DROP TRIGGER sweep_high_water;
DROP TRIGGER section_high_water;
DROP TRIGGER point_high_water;
DROP TABLE id_high_water;
DROP TABLE sweep_tag;
DROP INDEX point_block_by_sweep;
$OLD_INDEXES
ALTER TABLE sweep DROP COLUMN name;
ALTER TABLE sweep DROP COLUMN note;
DELETE FROM sweep WHERE id = $gone;
PRAGMA user_version = 8;
COMMIT;"
left_sections=$(sql "SELECT count(*) FROM section WHERE sweep_id = $gone")
max_section=$(sql "SELECT max(id) FROM section")
max_point=$(sql "SELECT max(id) FROM point_index")
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM pragma_table_info('sweep') WHERE name IN ('name', 'note')" "2"
expect_sql "SELECT group_concat(kind || '=' || last_id, ' ') FROM
    (SELECT * FROM id_high_water ORDER BY kind)" \
    "point=$max_point section=$max_section sweep=$gone"
run "$RUNNER" sweep "$all_fail" --db "$DB" --name after_upgrade --tag migrated
expect_status 1
expect_sql "SELECT id, name FROM sweep WHERE id >= $gone" "$((gone + 1))|after_upgrade"
expect_sql "SELECT count(*) FROM section WHERE sweep_id = $gone" "$left_sections"
expect_sql "SELECT min(id) > $max_section FROM section WHERE sweep_id = $((gone + 1))" "1"
expect_sql "SELECT min(id) > $max_point FROM point WHERE sweep_id = $((gone + 1))" "1"
expect_sql "SELECT tag FROM sweep_tag WHERE sweep_id = $((gone + 1))" "migrated"

# Version 8 records a sharded sweep's shard (sweep.shard_index and
# shard_count): a version 7 file is upgraded in place, its sweeps unsharded.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
ALTER TABLE sweep DROP COLUMN shard_index;
ALTER TABLE sweep DROP COLUMN shard_count;
PRAGMA user_version = 7;"
points_before=$(sql "$POINTS")
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) = count(*) - count(shard_index), count(shard_count) FROM sweep" "1|0"
expect_equal "points after the upgrade to 8" "$(sql "$POINTS")" "$points_before"

# `runner sweeps` and name selectors read indexes, not the sweep rows (each
# holds its script's text): sweep_list covers the list's columns, in id
# order; sweep_by_name finds a name. A new file has them from the start.
# A version 9 file (the last before them) lacks only indexes: readers read
# it as it is, without writing (the same list, slower), and `runner
# migrate` upgrades it in place: the same list, now read from the index.
INDEXES="SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
    WHERE type = 'index' AND name IN ('sweep_list', 'sweep_by_name') ORDER BY name)"
fresh_db=$DB
DB="$TMP/fresh.db"
run "$RUNNER" sweep "$all_fail" --db "$DB"
expect_status 1
expect_sql "$INDEXES" "sweep_by_name sweep_list"
DB=$fresh_db
run "$RUNNER" rename 4 indexed --db "$DB"
expect_status 0
run "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
cp "$TMP/out" "$TMP/list_before.csv"
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); $OLD_INDEXES PRAGMA user_version = 9;
PRAGMA journal_mode = DELETE;" >/dev/null
sha=$(sha256sum <"$DB")
run "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
expect_equal "the version 9 file's list" "$(cat "$TMP/out")" "$(cat "$TMP/list_before.csv")"
run "$RUNNER" show indexed --db "$DB"
expect_status 0
expect_equal "sweeps, show: the version 9 file's bytes" "$(sha256sum <"$DB")" "$sha"
expect_sql "PRAGMA user_version" "9"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "$INDEXES" "sweep_by_name sweep_list"
run "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
expect_equal "the list after the upgrade" "$(cat "$TMP/out")" "$(cat "$TMP/list_before.csv")"
run "$RUNNER" show indexed --db "$DB"
expect_status 0
plan=$(sql "EXPLAIN QUERY PLAN SELECT id, name, script_path, status, pid, host, pid_host,
    pid_start_ticks, pid_boot_id, started_at, ended_at, overrides_json FROM sweep ORDER BY id")
case $plan in
*"SCAN sweep USING COVERING INDEX sweep_list"*) ;;
*) fail "the list's columns are not read from sweep_list: $plan" ;;
esac
plan=$(sql "EXPLAIN QUERY PLAN SELECT id FROM sweep WHERE name = 'indexed' ORDER BY id DESC")
case $plan in
*"USING COVERING INDEX sweep_by_name (name=?)"*) ;;
*) fail "a name is not looked up in sweep_by_name: $plan" ;;
esac

# Version 11 adds the fit tables (runner fit, docs/analysis.md). A version
# 10 file lacks only tables no reading command reads: readers read it as it
# is, without writing; a writing command (runner fit among them) upgrades it
# in place, rows kept, and stores its fit.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP TABLE fit_residual;
DROP TABLE fit_param; DROP TABLE fit; DELETE FROM sqlite_sequence WHERE name = 'fit';
PRAGMA user_version = 10; PRAGMA journal_mode = DELETE;" >/dev/null
points_before=$(sql "$POINTS")
sha=$(sha256sum <"$DB")
run "$RUNNER" show indexed --db "$DB"
expect_status 0
expect_equal "show: the version 10 file's bytes" "$(sha256sum <"$DB")" "$sha"
# runner answers lists the answers of the tables the file has (no fit).
run "$RUNNER" answers 1 --db "$DB"
expect_status 0
expect_equal "answers of a version 10 file" "$(cat "$TMP/out")" \
    "sweep 1 has no stored answers (runner fit, pareto, sensitivity and diff --stat store theirs)"
expect_equal "answers: the version 10 file's bytes" "$(sha256sum <"$DB")" "$sha"
run "$RUNNER" fit 1 --db "$DB" --x x --y y --model linear
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM sqlite_master WHERE name IN ('fit', 'fit_param', 'fit_residual',
    'fit_by_section')" "4"
expect_sql "SELECT model, x_column, y_column, n, excluded FROM fit" "linear|x|y|$(sql "SELECT count(*)
    FROM testkit WHERE section_id = (SELECT id FROM section WHERE sweep_id = 1 AND ordinal = 1)")|0"
expect_equal "points after the upgrade to 11" "$(sql "$POINTS")" "$points_before"

# Version 16 adds command_run (every run of a command point with repeats).
# A version 15 file lacks only that table: readers read it as it is (no
# runs), and a write adds it, the points' rows kept.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP TABLE command_run;
PRAGMA user_version = 15; PRAGMA journal_mode = DELETE;" >/dev/null
points_before=$(sql "$POINTS")
sha=$(sha256sum <"$DB")
run "$RUNNER" show indexed --runs --db "$DB" --format csv
expect_status 0
expect_equal "show --runs: the version 15 file's bytes" "$(sha256sum <"$DB")" "$sha"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM sqlite_master WHERE name = 'command_run'" "1"
expect_equal "points after the upgrade to 16" "$(sql "$POINTS")" "$points_before"
# Version 17 adds sweep_machine (the machine a sweep ran on): a version 16
# file is read as it is (its sweeps recorded no machine), and upgraded by a
# writing command.
sqlite3 -batch "$DB" "DROP TABLE sweep_machine; PRAGMA user_version = 16;" >/dev/null
run "$RUNNER" show 1 --provenance --db "$DB"
expect_status 0
expect_stdout_contains "  (none)  not recorded: a runner before schema 17 ran it"
expect_sql "PRAGMA user_version" "16"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM sqlite_master WHERE name = 'sweep_machine'" "1"
# Version 20 fences a sweep's writers and stores each point once (issue
# 36): a version 19 file that holds a point twice (a writer paused past its
# lease under an older runner) keeps every row; point_once names the first
# copy of each point, and the later copy stays for a person to look at.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP TRIGGER IF EXISTS point_once_insert;
DROP TRIGGER IF EXISTS point_once_delete; DROP TRIGGER IF EXISTS point_once_update;
DROP TABLE IF EXISTS point_once;
ALTER TABLE sweep DROP COLUMN owner_claimed_at; ALTER TABLE sweep DROP COLUMN owner_epoch;
INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count,
    ok_count, params_base, points)
SELECT sweep_id, section_id, 90001, 90001, 1, 1, params_base,
    json_array(json_set(json_extract(points, '\$[0]'), '\$[0]', 90001))
FROM point_block ORDER BY id LIMIT 1;
INSERT INTO point_index (id, block_id, status) VALUES (90001, last_insert_rowid(), 'ok');
PRAGMA user_version = 19; PRAGMA journal_mode = DELETE;" >/dev/null
blocks_before=$(sql "SELECT count(*) FROM point_block")
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT count(*) FROM point_block" "$blocks_before"
expect_sql "SELECT count(*) = (SELECT count(*) FROM point) - 1 FROM point_once" "1"
# The query docs/schema.md gives for the later copies finds the one made.
expect_sql "SELECT p.id FROM point AS p JOIN point_once AS o ON o.section_id = p.section_id
    AND o.ordinal = p.ordinal WHERE o.point_id <> p.id" "90001"
expect_sql "SELECT owner_epoch FROM sweep ORDER BY id LIMIT 1" "0"

# Version 22 keeps answers by their question (issue 38): a version 21
# file's answers get their question from their columns and no rows key
# ("unknown" stale); asking the same again on the same rows is answered by
# the stored one, which then records its rows key.
run "$RUNNER" pareto 1 --min x --max y --db "$DB"
expect_status 0
pareto_id=$(sql "SELECT max(id) FROM pareto")
section_1=$(sql "SELECT id FROM section WHERE sweep_id = 1 AND ordinal = 1")
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE);
INSERT INTO sensitivity (sweep_id, section_id, y_column, base_samples, excluded, bootstrap, seed,
    confidence, created_at) VALUES (1, $section_1, 'y', 10, 0, 1000, 7, 0.95, '2026-12-01T00:00:00Z');
ALTER TABLE fit DROP COLUMN rows_key; ALTER TABLE fit DROP COLUMN question;
ALTER TABLE pareto DROP COLUMN rows_key; ALTER TABLE pareto DROP COLUMN question;
ALTER TABLE sensitivity DROP COLUMN rows_key; ALTER TABLE sensitivity DROP COLUMN question;
ALTER TABLE stat_diff DROP COLUMN rows_key; ALTER TABLE stat_diff DROP COLUMN question;
PRAGMA user_version = 21; PRAGMA journal_mode = DELETE;" >/dev/null
# A reader reads the version 21 file as it is (temporary views add the
# columns), its bytes untouched.
sha=$(sha256sum <"$DB")
run "$RUNNER" answers 1 --db "$DB" --format csv
expect_status 0
expect_stdout_contains "pareto,$pareto_id,1,\"front: min x, max y\","
expect_stdout_contains "sensitivity,1,1,\"y y, bootstrap 1000, seed 7\",2026-12-01T00:00:00Z,unknown"
expect_stdout_contains "fit,1,1,linear: y on x,"
expect_equal "answers: the version 21 file's bytes" "$(sha256sum <"$DB")" "$sha"
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT DISTINCT question, rows_key IS NULL FROM fit" "linear: y on x|1"
expect_sql "SELECT question, rows_key IS NULL FROM pareto" "min x, max y|1"
expect_sql "SELECT question FROM sensitivity" "y y, bootstrap 1000, seed 7"
run "$RUNNER" answers 1 --db "$DB" --format csv
expect_status 0
expect_stdout_contains "pareto,$pareto_id,1,\"front: min x, max y\","
expect_stdout_contains ",unknown"
run "$RUNNER" pareto 1 --min x --max y --db "$DB"
expect_status 0
expect_stdout_contains "as stored in pareto $pareto_id, which read the same rows"
expect_sql "SELECT count(*), rows_key IS NOT NULL FROM pareto" "1|1"

# Version 24: the writers give each block's keys (point_once) before the
# block, and the trigger derives them only for a block whose first point
# has none: a version 23 file's trigger derived every block's. A file
# turned back to 23 (its trigger as released) is upgraded; its keys, old
# and new, equal what the blocks hold; a block another program inserts
# still gets its keys; a second row set for a point still fails.
sqlite3 -batch "$DB" "PRAGMA wal_checkpoint(TRUNCATE); DROP TRIGGER point_once_insert;
CREATE TRIGGER point_once_insert AFTER INSERT ON point_block BEGIN
 INSERT INTO point_once (section_id, ordinal, point_id)
  SELECT NEW.section_id, json_extract(value, '\$[1]'), json_extract(value, '\$[0]')
  FROM json_each(NEW.points); END;
PRAGMA user_version = 23;" >/dev/null
run "$RUNNER" migrate --db "$DB"
expect_status 0
expect_sql "PRAGMA user_version" "$V"
expect_sql "SELECT sql LIKE '%WHEN NOT EXISTS%' FROM sqlite_master WHERE name = 'point_once_insert'" "1"
run "$RUNNER" sweep "$script" --db "$DB"
expect_status 1
# (This file holds a point twice from an older runner, above: only the new
# sweep's sections are compared.)
new_sweep=$(sql "SELECT max(id) FROM sweep")
KEYS="SELECT b.section_id, json_extract(p.value, '\$[1]'), json_extract(p.value, '\$[0]')
    FROM point_block AS b, json_each(b.points) AS p WHERE b.sweep_id = $new_sweep"
ONCE="SELECT * FROM point_once WHERE section_id IN (SELECT id FROM section WHERE sweep_id = $new_sweep)"
expect_sql "SELECT (SELECT count(*) FROM ($KEYS EXCEPT $ONCE)) + (SELECT count(*) FROM ($ONCE EXCEPT $KEYS)),
    (SELECT count(*) FROM ($ONCE))" "0|$(sql "SELECT sum(point_count) FROM point_block WHERE sweep_id = $new_sweep")"
# Another program's block: its keys derived from its JSON.
section=$(sql "SELECT max(id) FROM section")
sql "INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count,
    ok_count, params_base, points) VALUES (1, $section, 900001, 900002, 2, 2, '{}',
    '[[900001,900001,{},\"x\",0,\"ok\",null,0,0,0],[900002,900002,{},\"x\",0,\"ok\",null,0,0,0]]')" >/dev/null
expect_sql "SELECT group_concat(ordinal || ':' || point_id) FROM point_once WHERE point_id > 900000" \
    "900001:900001,900002:900002"
# The same points again, under other ids: refused on the keys.
run sqlite3 -batch "$DB" "INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id,
    point_count, ok_count, params_base, points) VALUES (1, $section, 900003, 900003, 1, 1, '{}',
    '[[900003,900001,{},\"x\",0,\"ok\",null,0,0,0]]')"
expect_stderr_contains "UNIQUE constraint failed: point_once.section_id, point_once.ordinal"
sql "DELETE FROM point_block WHERE first_point_id > 900000" >/dev/null
expect_sql "SELECT count(*) FROM point_once WHERE point_id > 900000" "0"

# Opening a current file again changes nothing.
sum1=$(sql "SELECT group_concat(id || ':' || points_hash, ',') FROM
    (SELECT id, length(points) AS points_hash FROM point_block ORDER BY id)")
run "$RUNNER" sweeps --db "$DB"
expect_status 0
expect_equal "blocks unchanged" "$(sql "SELECT group_concat(id || ':' || points_hash, ',') FROM
    (SELECT id, length(points) AS points_hash FROM point_block ORDER BY id)")" "$sum1"
finish
