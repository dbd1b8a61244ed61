#!/bin/sh
# runner merge's storage rate against a single-process sweep's, measured in
# the same run (docs/performance.md, docs/slurm.md): the speedup grid of
# WORKERS x JITTERS points (one row each) is run once by one process
# (--jobs 1) and once as SHARDS shards that runner merge then joins; rates
# are rows per second of wall time and of CPU time, best of REPEAT. The
# target: merge stores at least 0.8 of the single process's rate.
# Beside it, two SQLite floors (issue 36), the sqlite3 shell writing into
# a file of the shards' schema (tables, indexes, triggers) with ATTACH ...
# INSERT INTO ... SELECT, WAL and synchronous = NORMAL (as runner opens its
# files). Both copy a shard's point keys (point_once) as rows before its
# blocks, as runner's writers give them, so the trigger derives none from
# the blocks' JSON (which would cost them 0.3-0.6 CPU-s more):
#   copy     each shard's point blocks and rows as they are, a transaction
#            a shard: new row ids in shard order, the shards' own point ids
#            (rows no merge may store: point ids repeat across shards);
#   ordered  the same blocks, and the rows the merge stores: every shard
#            attached at once, each shard point's merged id numbered from
#            the shards' point_once (by ordinal), the rows sorted by it
#            (SHARDS <= 10, SQLite's attach limit). Checked equal to the
#            merge's rows, row ids and point ids included (EXCEPT both
#            ways). Its blocks are copied, not renumbered: a floor.
# The target: the merge's rate per CPU-second at least 0.8 of the ordered
# floor's, the one that stores the same rows; the copy's ratio is printed
# too.
#   bench/bench_merge.sh [BUILD_DIR] (env: WORKERS JITTERS SHARDS REPEAT)
set -eu
build=${1:-build}
runner=$(realpath "$build/runner")
workers=${WORKERS:-1000} jitters=${JITTERS:-200} shards=${SHARDS:-4} repeat=${REPEAT:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-merge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'sweep("speedup", {workers = range(1, %s), jitter = linspace(0.5, 2, %s)},\n      {print = false, keep_rows = false})\n' \
    "$workers" "$jitters" >"$tmp/grid.lua"
rows=$((workers * jitters))

# timed WHAT CMD...: runs CMD, prints "wall cpu" seconds.
timed() {
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
        [ $? -eq 1 ] || { cat "$tmp/err" >&2; exit 1; }
    }
    # The last line: time writes "Command exited with non-zero status 1" first.
    awk 'END { printf "%s %.3f\n", $1, $2 + $3 }' "$tmp/time"
}
best_single_wall=0 best_single_cpu=0 best_merge_wall=0 best_merge_cpu=0
best_floor_wall=0 best_floor_cpu=0 best_ordered_wall=0 best_ordered_cpu=0
ordered=1
[ "$shards" -le 10 ] || {
    ordered=0
    echo "bench_merge: the ordered floor attaches every shard at once: SHARDS <= 10 (SQLite's limit)" >&2
}
# floor_sql: the floor's statements: the schema of shard 1 (tables and
# indexes), then each shard's point_block and speedup rows, new ids (a
# table's columns but its integer primary key).
floor_sql() {
    echo "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
    sqlite3 "$tmp/shard-1.db" .schema | grep -v '^CREATE TABLE sqlite_'
    cols_point_block=$(sqlite3 "$tmp/shard-1.db" "SELECT group_concat('\"' || name || '\"') FROM pragma_table_info('point_block') WHERE pk = 0")
    cols_speedup=$(sqlite3 "$tmp/shard-1.db" "SELECT group_concat('\"' || name || '\"') FROM pragma_table_info('speedup') WHERE pk = 0")
    k=1
    while [ $k -le "$shards" ]; do
        echo "ATTACH '$tmp/shard-$k.db' AS s; BEGIN;"
        echo "INSERT INTO main.point_once SELECT * FROM s.point_once;"
        echo "INSERT INTO main.point_block ($cols_point_block) SELECT $cols_point_block FROM s.point_block;"
        echo "INSERT INTO main.speedup ($cols_speedup) SELECT $cols_speedup FROM s.speedup;"
        echo "COMMIT; DETACH s;"
        k=$((k + 1))
    done
}
# each_shard SELECT: SELECT for each shard k (%K), joined by UNION ALL.
each_shard() {
    k=1
    while [ $k -le "$shards" ]; do
        [ $k -gt 1 ] && echo "UNION ALL"
        echo "$1" | sed "s/%K/$k/g"
        k=$((k + 1))
    done
}
# ordered_sql: the ordered floor's statements (see the top).
ordered_sql() {
    echo "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
    sqlite3 "$tmp/shard-1.db" .schema | grep -v '^CREATE TABLE sqlite_'
    cols_point_block=$(sqlite3 "$tmp/shard-1.db" "SELECT group_concat('\"' || name || '\"') FROM pragma_table_info('point_block') WHERE pk = 0")
    cols_speedup=$(sqlite3 "$tmp/shard-1.db" "SELECT group_concat('\"' || name || '\"') FROM pragma_table_info('speedup') WHERE pk = 0")
    results=$(sqlite3 "$tmp/shard-1.db" "SELECT group_concat('r.\"' || name || '\"') FROM pragma_table_info('speedup') WHERE pk = 0 AND name NOT IN ('sweep_id', 'section_id', 'point_id')")
    k=1
    while [ $k -le "$shards" ]; do
        echo "ATTACH '$tmp/shard-$k.db' AS s$k;"
        k=$((k + 1))
    done
    echo "CREATE TEMP TABLE map (shard INTEGER, point_id INTEGER, merged_id INTEGER, PRIMARY KEY (shard, point_id)) WITHOUT ROWID;"
    echo "INSERT INTO temp.map SELECT shard, point_id, row_number() OVER (ORDER BY section_id, ordinal) FROM ("
    each_shard "SELECT %K AS shard, section_id, ordinal, point_id FROM s%K.point_once"
    echo ");"
    k=1
    while [ $k -le "$shards" ]; do
        echo "BEGIN; INSERT INTO main.point_once SELECT * FROM s$k.point_once;"
        echo "INSERT INTO main.point_block ($cols_point_block) SELECT $cols_point_block FROM s$k.point_block; COMMIT;"
        k=$((k + 1))
    done
    echo "BEGIN; INSERT INTO main.speedup ($cols_speedup) SELECT r.sweep_id, r.section_id, m.merged_id, $results FROM ("
    each_shard "SELECT %K AS shard, * FROM s%K.speedup"
    echo ") AS r JOIN temp.map AS m ON m.shard = r.shard AND m.point_id = r.point_id ORDER BY m.merged_id, r.row_id; COMMIT;"
}
rate() { awk -v n="$rows" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'; }
i=1
while [ $i -le "$repeat" ]; do
    rm -f "$tmp"/*.db*
    set -- $(timed "$runner" sweep "$tmp/grid.lua" --db "$tmp/single.db" --jobs 1 --quiet)
    single_wall=$(rate "$1") single_cpu=$(rate "$2")
    k=1
    while [ $k -le "$shards" ]; do
        "$runner" sweep "$tmp/grid.lua" --db "$tmp/shard-$k.db" --shard "$k/$shards" --jobs 1 --quiet 2>/dev/null
        k=$((k + 1))
    done
    set -- $(timed "$runner" merge "$tmp/merged.db" "$tmp"/shard-*.db)
    merge_wall=$(rate "$1") merge_cpu=$(rate "$2")
    floor_sql >"$tmp/floor.sql"
    set -- $(timed sqlite3 -bail "$tmp/floor.db" ".read $tmp/floor.sql")
    floor_wall=$(rate "$1") floor_cpu=$(rate "$2")
    [ "$(sqlite3 "$tmp/floor.db" "SELECT count(*) FROM speedup")" = "$rows" ] || {
        echo "bench_merge: the floor's copy lacks rows" >&2
        exit 1
    }
    ordered_wall=0 ordered_cpu=0
    if [ "$ordered" = 1 ]; then
        ordered_sql >"$tmp/ordered.sql"
        set -- $(timed sqlite3 -bail "$tmp/ordered.db" ".read $tmp/ordered.sql")
        ordered_wall=$(rate "$1") ordered_cpu=$(rate "$2")
        differ=$(sqlite3 "$tmp/ordered.db" "ATTACH '$tmp/merged.db' AS m;
            SELECT (SELECT count(*) FROM (SELECT * FROM main.speedup EXCEPT SELECT * FROM m.speedup))
                 + (SELECT count(*) FROM (SELECT * FROM m.speedup EXCEPT SELECT * FROM main.speedup))")
        [ "$differ" = 0 ] || {
            echo "bench_merge: the ordered floor's rows differ from the merge's ($differ)" >&2
            exit 1
        }
        rm -f "$tmp"/ordered.db*
    fi
    echo "run $i: single $single_wall rows/s ($single_cpu per CPU-s), merge of $shards shards $merge_wall rows/s ($merge_cpu per CPU-s), SQLite copy $floor_wall rows/s ($floor_cpu per CPU-s), SQLite ordered $ordered_wall rows/s ($ordered_cpu per CPU-s)"
    best_ordered_wall=$(max "$best_ordered_wall" "$ordered_wall")
    best_ordered_cpu=$(max "$best_ordered_cpu" "$ordered_cpu")
    best_floor_wall=$(max "$best_floor_wall" "$floor_wall")
    best_floor_cpu=$(max "$best_floor_cpu" "$floor_cpu")
    best_single_wall=$(max "$best_single_wall" "$single_wall")
    best_single_cpu=$(max "$best_single_cpu" "$single_cpu")
    best_merge_wall=$(max "$best_merge_wall" "$merge_wall")
    best_merge_cpu=$(max "$best_merge_cpu" "$merge_cpu")
    i=$((i + 1))
done
[ "$(sqlite3 "$tmp/merged.db" "SELECT count(*) FROM speedup")" = "$rows" ] || {
    echo "bench_merge: the merged database lacks rows" >&2
    exit 1
}
awk -v sw="$best_single_wall" -v sc="$best_single_cpu" -v mw="$best_merge_wall" -v mc="$best_merge_cpu" 'BEGIN {
    r = mw / sw; c = mc / sc
    printf "merge / single-process storage rate: %.2f by wall clock, %.2f per CPU-second (target 0.8): %s\n",
        r, c, (r >= 0.8 ? "PASS" : "MISS")
}'
awk -v fw="$best_floor_wall" -v fc="$best_floor_cpu" -v mw="$best_merge_wall" -v mc="$best_merge_cpu" 'BEGIN {
    printf "merge / SQLite copy (shard order and ids, not the merge'"'"'s rows): %.2f by wall clock, %.2f per CPU-second\n",
        mw / fw, mc / fc
}'
if [ "$ordered" = 1 ]; then
    awk -v fw="$best_ordered_wall" -v fc="$best_ordered_cpu" -v mw="$best_merge_wall" -v mc="$best_merge_cpu" 'BEGIN {
    r = mw / fw; c = mc / fc
    printf "merge / SQLite ordered (the same rows: ATTACH ... INSERT INTO ... SELECT ... ORDER BY): %.2f by wall clock, %.2f per CPU-second (target 0.8): %s\n",
        r, c, (c >= 0.8 ? "PASS" : "MISS")
}'
fi
