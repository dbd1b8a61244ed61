#!/bin/sh
# What copying the merge's result rows inside SQLite would cost (issue 36,
# docs/performance/merge.md): the speedup grid of WORKERS x JITTERS points
# (one row each) as SHARDS shards, whose `speedup` rows the sqlite3 shell
# copies into a file of the shards' schema, a transaction a shard, WAL:
#   floor       INSERT ... SELECT, new ids (bench_merge.sh's floor, rows only)
#   join_final  INSERT ... SELECT joined with a temporary map (shard point id
#               -> merged point id, merged first row id, the shard's first
#               row id): the row ids runner merge gives, so each shard's
#               rows land between the earlier shards' (out of order)
#   join_order  the same join, new ids (rows interleaved by shard: not the
#               ids runner merge must give, for comparison)
#   join_all    one statement over every shard attached at once (SHARDS <=
#               the sqlite3 shell's attach limit), the joins' UNION ALL
#               sorted by merged row id: runner merge's ids, in order
# and runner merge of the same shards; CPU seconds (user + sys) of each,
# with the load average. The map is built before the timing (a merge would
# build it from the point blocks it reads anyway).
#   bench/bench_merge_rowcopy.sh [BUILD_DIR] (env: WORKERS JITTERS SHARDS)
set -eu
build=${1:-build}
runner=$(realpath "$build/runner")
workers=${WORKERS:-1000} jitters=${JITTERS:-200} shards=${SHARDS:-4}
d=$(mktemp -d "${TMPDIR:-/tmp}/bench-rowcopy.XXXXXX")
trap 'rm -rf "$d"' EXIT
printf 'sweep("speedup", {workers = range(1, %s), jitter = linspace(0.5, 2, %s)},\n      {print = false, keep_rows = false})\n' \
    "$workers" "$jitters" >"$d/grid.lua"
k=1
while [ $k -le "$shards" ]; do
    "$runner" sweep "$d/grid.lua" --db "$d/shard-$k.db" --shard "$k/$shards" --jobs 1 --quiet 2>/dev/null
    k=$((k + 1))
done
columns() { # columns WHERE PREFIX: speedup's columns but row_id
    sqlite3 "$d/shard-1.db" "SELECT group_concat('$2\"' || name || '\"') FROM pragma_table_info('speedup') WHERE pk = 0 $1"
}
union=""
cols=$(columns "" "") rcols=$(columns "AND name <> 'point_id'" "r.") ncols=$(columns "AND name <> 'point_id'" "")
# The map: every shard point's merged point id and merged first row id
# (the prefix sum of row counts in point order), and its first row id in
# its shard.
{
    echo "CREATE TABLE pts (shard, spid, ordinal, nrows, sfirst);"
    k=1
    while [ $k -le "$shards" ]; do
        echo "ATTACH '$d/shard-$k.db' AS s;"
        echo "CREATE TEMP TABLE f$k AS SELECT point_id AS pid, min(row_id) AS m FROM s.speedup GROUP BY point_id;"
        echo "CREATE INDEX temp.f${k}_pid ON f$k (pid);"
        echo "INSERT INTO pts SELECT $k, p.value ->> 0, p.value ->> 1, p.value ->> 9,"
        echo " (SELECT m FROM temp.f$k WHERE pid = p.value ->> 0) FROM s.point_block AS b, json_each(b.points) AS p;"
        echo "DETACH s;"
        k=$((k + 1))
    done
    echo "CREATE TABLE map AS SELECT shard, spid, ordinal + 1 AS newpid, 1 + coalesce(sum(nrows) OVER"
    echo " (ORDER BY ordinal ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS first, sfirst FROM pts;"
} >"$d/map.sql"
sqlite3 "$d/map.db" ".read $d/map.sql"
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$d/time"; }
for mode in floor join_final join_order join_all; do
    rm -f "$d"/out.db*
    {
        echo "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
        sqlite3 "$d/shard-1.db" .schema | grep -v '^CREATE TABLE sqlite_'
        k=1
        [ $mode != join_all ] || echo "ATTACH '$d/map.db' AS map;"
        while [ $mode = join_all ] && [ $k -le "$shards" ]; do
            echo "ATTACH '$d/shard-$k.db' AS s$k;"
            echo "CREATE TEMP TABLE map$k (spid INTEGER PRIMARY KEY, newpid, first, sfirst);"
            echo "INSERT INTO temp.map$k SELECT spid, newpid, first, sfirst FROM map.map WHERE shard = $k;"
            [ $k -eq 1 ] || union="$union UNION ALL"
            union="$union SELECT m.first + (r.row_id - m.sfirst) AS rid, m.newpid, $rcols FROM s$k.speedup AS r JOIN temp.map$k AS m ON m.spid = r.point_id"
            k=$((k + 1))
        done
        [ $mode = join_all ] && echo "BEGIN; INSERT INTO main.speedup (row_id, point_id, $ncols) SELECT * FROM ($union) ORDER BY rid; COMMIT;"
        while [ $mode != join_all ] && [ $k -le "$shards" ]; do
            echo "ATTACH '$d/shard-$k.db' AS s; ATTACH '$d/map.db' AS m; BEGIN;"
            echo "CREATE TEMP TABLE map$k (spid INTEGER PRIMARY KEY, newpid, first, sfirst);"
            echo "INSERT INTO temp.map$k SELECT spid, newpid, first, sfirst FROM m.map WHERE shard = $k;"
            case $mode in
            floor) echo "INSERT INTO main.speedup ($cols) SELECT $cols FROM s.speedup;" ;;
            join_final) echo "INSERT INTO main.speedup (row_id, point_id, $ncols) SELECT m.first + (r.row_id - m.sfirst), m.newpid, $rcols FROM s.speedup AS r JOIN temp.map$k AS m ON m.spid = r.point_id ORDER BY r.row_id;" ;;
            join_order) echo "INSERT INTO main.speedup (point_id, $ncols) SELECT m.newpid, $rcols FROM s.speedup AS r JOIN temp.map$k AS m ON m.spid = r.point_id ORDER BY r.row_id;" ;;
            esac
            echo "COMMIT; DETACH s; DETACH m;"
            k=$((k + 1))
        done
    } >"$d/$mode.sql"
    /usr/bin/time -f "%U %S" -o "$d/time" sqlite3 -bail "$d/out.db" ".read $d/$mode.sql" >/dev/null
    echo "$mode: rows copied $(cpu) CPU-s, $(sqlite3 "$d/out.db" 'SELECT count(*) FROM speedup') rows in $(sqlite3 "$d/out.db" 'PRAGMA page_count') pages (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
/usr/bin/time -f "%U %S" -o "$d/time" "$runner" merge "$d/merged.db" "$d"/shard-*.db >/dev/null 2>&1
echo "runner merge (blocks, index, catalog and rows): $(cpu) CPU-s (load $(cut -d' ' -f1-3 /proc/loadavg))"
