# Merges at scale (issue 29, docs/slurm.md "1,000 nodes"): 1,000 shards
# merge under `ulimit -n 1024`; inputs beyond the descriptor limit are
# merged in parts and the result equals a direct merge; partial merges are
# inputs of a bigger merge; merge_source names every shard's host; no
# -wal/-shm is left beside a shard; a refusal lists shards one per line;
# --resume with other --set values or seed is refused; --max-points bounds
# a shard's own points.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

script=$(write_script grid.lua <<'LUA'
sweep("testkit", { x = linspace(0, 1, 150), rows = {0, 1, 3}, label = {"a", "b"} },
      { print = false })
sweep("testkit", { x = {1, 2, 3}, fail = {false, true} }, { print = false, title = "failing" })
LUA
)
for i in 1 2 3 4 5 6 7; do
    "$RUNNER" sweep "$script" --db "$TMP/n$i.db" --shard "$i/7" --quiet --jobs 1 2>/dev/null
done
shards="$TMP/n1.db $TMP/n2.db $TMP/n3.db $TMP/n4.db $TMP/n5.db $TMP/n6.db $TMP/n7.db"
dump() {
    sqlite3 -batch "$1" "
SELECT 'point', p.id, p.section_id, p.ordinal, p.params_json, p.identity, p.seed, p.status, p.error, p.row_count, p.reused_from FROM point AS p ORDER BY p.id;
SELECT 'index', id, status FROM point_index ORDER BY id;
SELECT 'testkit', * FROM testkit ORDER BY row_id;
SELECT 'sweep', status, shard_index, shard_count FROM sweep;"
}
run "$RUNNER" merge "$TMP/direct.db" $shards
expect_status 1
expect_stderr "runner: merged 7 shards into sweep 1 in $TMP/direct.db: 906 points, 1203 rows"
dump "$TMP/direct.db" >"$TMP/direct.txt"

# Each shard's host, process and rows; the rows add up to the merge's.
DB="$TMP/direct.db"
expect_sql "SELECT count(*), count(DISTINCT shard_index), sum(rows), sum(points), min(host) = max(host) FROM merge_source WHERE sweep_id = 1" "7|7|1203|906|1"
expect_sql "SELECT host, pid, path, source_sweep_id FROM merge_source WHERE shard_index = 3" \
    "$(sqlite3 "$TMP/n3.db" "SELECT coalesce(pid_host, host), pid FROM sweep")|$TMP/n3.db|1"
# Nothing left beside the shards (a reader's -wal and -shm).
for f in $shards; do
    [ -e "$f-wal" ] || [ -e "$f-shm" ] && fail "merge left $f-wal or $f-shm"
done

# More shards than descriptors: merged in parts beside OUT, equal to the
# direct merge; no part file stays.
run sh -c "ulimit -n 20 && exec \"$RUNNER\" merge \"$TMP/parts.db\" $shards"
expect_status 1
expect_stderr "runner: merged 7 shards into sweep 1 in $TMP/parts.db: 906 points, 1203 rows (in parts: more shards than open files allow)"
dump "$TMP/parts.db" >"$TMP/parts.txt"
cmp -s "$TMP/direct.txt" "$TMP/parts.txt" ||
    fail "a merge in parts differs from the direct one: $(diff "$TMP/direct.txt" "$TMP/parts.txt" | head -5)"
ls "$TMP" | grep -q "part-" && fail "part files left: $(ls "$TMP" | grep part-)"
DB="$TMP/parts.db"
expect_sql "SELECT count(*), sum(rows), group_concat(path = '$TMP/n' || shard_index || '.db', '') FROM merge_source" "7|1203|1111111"
# Too few descriptors for even two shards: said, with the limit.
run sh -c "ulimit -n 17 && exec \"$RUNNER\" merge \"$TMP/few.db\" $shards"
expect_status 2
expect_stderr_contains "runner: merge: too few file descriptors to read two shards at once (the limit is"

# Partial merges (runner slurm --merge-fanout's) are inputs of the final one.
p1_points=0 p1_rows=0
for f in "$TMP/n1.db" "$TMP/n2.db" "$TMP/n3.db"; do
    p1_points=$((p1_points + $(sqlite3 "$f" "SELECT count(*) FROM point")))
    p1_rows=$((p1_rows + $(sqlite3 "$f" "SELECT count(*) FROM testkit")))
done
run "$RUNNER" merge --partial "$TMP/p1.db" "$TMP/n1.db" "$TMP/n2.db" "$TMP/n3.db"
expect_status 1
expect_stderr "runner: merged 3 inputs (a partial merge) into sweep 1 in $TMP/p1.db: $p1_points points, $p1_rows rows"
"$RUNNER" merge --partial "$TMP/p2.db" "$TMP/n4.db" "$TMP/n5.db" 2>/dev/null
run "$RUNNER" merge "$TMP/tree.db" "$TMP/p1.db" "$TMP/p2.db" "$TMP/n6.db" "$TMP/n7.db"
expect_status 1
dump "$TMP/tree.db" >"$TMP/tree.txt"
cmp -s "$TMP/direct.txt" "$TMP/tree.txt" ||
    fail "a merge of partial merges differs from the direct one: $(diff "$TMP/direct.txt" "$TMP/tree.txt" | head -5)"
DB="$TMP/tree.db"
expect_sql "SELECT count(*), sum(rows), group_concat(path = '$TMP/n' || shard_index || '.db', '') FROM merge_source" "7|1203|1111111"
run "$RUNNER" merge "$TMP/twice.db" "$TMP/p1.db" "$TMP/n2.db"
expect_status 2
expect_stderr "runner: merge: $TMP/p1.db and $TMP/n2.db both hold shard 2/7"

# A refusal: one line per shard missing or not done, with host and state,
# and the files not there.
sqlite3 "$TMP/n5.db" "UPDATE sweep SET status = 'running', pid = 999999999, pid_start_ticks = 1"
run "$RUNNER" merge "$TMP/no.db" "$TMP/n1.db" "$TMP/n3.db" "$TMP/n4.db" "$TMP/n5.db" "$TMP/n6.db" "$TMP/gone.db"
expect_status 2
host5=$(sqlite3 "$TMP/n5.db" "SELECT coalesce(pid_host, host) FROM sweep")
expect_stderr_contains "runner: merge: cannot merge yet ("
expect_stderr_contains "
  $TMP/gone.db: no such database
  shard 2/7: missing (no database given holds it)
  shard 5/7: interrupted (sweep 1 in $TMP/n5.db, host $host5, pid 999999999)
  shard 7/7: missing (no database given holds it)
  section 1 lacks points "
[ -e "$TMP/no.db" ] && [ "$(sqlite3 "$TMP/no.db" "SELECT count(*) FROM sweep")" != 0 ] &&
    fail "a refused merge wrote a sweep"
sqlite3 "$TMP/n5.db" "UPDATE sweep SET status = 'ok'"

# A shard's database resumed with other --set values (runner slurm's array
# always adds --resume): refused, where it used to mix two grids in one
# sweep and the merge said "cannot merge yet: (null)".
opts=$(write_script opts.lua <<'LUA'
local o = options{ n = 40 }
sweep("testkit", { x = linspace(0, 1, o.n) }, { print = false })
LUA
)
"$RUNNER" sweep "$opts" --db "$TMP/o1.db" --shard 1/2 --set n=40 --quiet 2>/dev/null
run "$RUNNER" sweep "$opts" --db "$TMP/o1.db" --shard 1/2 --set n=60 --resume --quiet
expect_status 2
expect_stderr "runner: $TMP/o1.db: the shard's database holds sweep 1 (shard 1/2) made with --set n=40; this run has --set n=60: use a new --db-dir (runner slurm) or remove $TMP/o1.db"
run "$RUNNER" sweep "$opts" --db "$TMP/o1.db" --shard 1/2 --set n=40 --seed 9 --resume --quiet
expect_status 2
expect_stderr "runner: $TMP/o1.db: the shard's database holds sweep 1 (shard 1/2) made with --seed 0; this run has --seed 9: use a new --db-dir (runner slurm) or remove $TMP/o1.db"
"$RUNNER" sweep "$opts" --db "$TMP/single-o.db" --set n=40 --quiet 2>/dev/null
run "$RUNNER" sweep "$opts" --db "$TMP/single-o.db" --resume --quiet
expect_status 2
expect_stderr "runner: $TMP/single-o.db: sweep 1 was made with --set n=40; this run has no --set: 'runner resume 1' finishes it as it began, or drop --resume to start a new sweep"
run "$RUNNER" sweep "$opts" --db "$TMP/o1.db" --shard 1/2 --set n=40 --resume --quiet
expect_status 0
# A shard mixed by an older runner: the merge names the section, not "(null)".
# (Since schema 19 point_once refuses such a file's second points: the
# older runner is played by dropping its trigger first.)
"$RUNNER" sweep "$opts" --db "$TMP/o2.db" --shard 2/2 --set n=40 --quiet 2>/dev/null
"$RUNNER" sweep "$opts" --db "$TMP/mixed.db" --shard 2/2 --set n=60 --quiet 2>/dev/null
sqlite3 "$TMP/o2.db" "DROP TRIGGER point_once_insert; ATTACH '$TMP/mixed.db' AS m; INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id, point_count, ok_count, params_base, points) SELECT 1, 1, first_point_id + 1000, last_point_id + 1000, point_count, ok_count, params_base, points FROM m.point_block"
run "$RUNNER" merge "$TMP/o.db" "$TMP/o1.db" "$TMP/o2.db"
expect_status 2
expect_stderr_contains "  section 1: the shards hold "
grep -q "(null)" "$TMP/err" && fail "the refusal says (null): $(cat "$TMP/err")"

# --max-points bounds a shard's own points (about the grid's / N).
big=$(write_script big.lua <<'LUA'
sweep("testkit", { x = linspace(0, 1, 3000) }, { print = false })
LUA
)
run "$RUNNER" sweep "$big" --db "$TMP/big.db" --shard 1/4 --max-points 1000 --quiet
expect_status 0
run "$RUNNER" sweep "$big" --db "$TMP/big2.db" --shard 1/2 --max-points 1000 --quiet
expect_status 2
expect_stderr "runner: $big:1: testkit: the grid has 3000 points, about 1500 in each of 2 shards, more than --max-points 1000"
run "$RUNNER" sweep "$big" --db "$TMP/big3.db" --max-points 1000 --quiet
expect_status 2
expect_stderr "runner: $big:1: testkit: the grid has 3000 points, more than --max-points 1000"

# 1,000 shards under `ulimit -n 1024` (3 descriptors a shard used to fail
# at about 340, "unable to open database file"). A grid of 12 points: the
# shards holding them are run; every other shard is one empty shard's
# database copied with its index changed (what that shard would hold).
tiny=$(write_script tiny.lua <<'LUA'
sweep("testkit", { x = linspace(0, 1, 12) }, { print = false })
LUA
)
"$RUNNER" sweep "$tiny" --db "$TMP/tiny-single.db" --quiet 2>/dev/null
mkdir "$TMP/k"
held=" "
# Point o of section 1 is shard 1 + (o + o / N) % N's (docs/slurm.md,
# "Which shard runs a point").
for o in $(sqlite3 "$TMP/tiny-single.db" "SELECT ordinal FROM point"); do
    held="$held$(((o + o / 1000) % 1000 + 1)) "
done
empty=1
while case "$held" in *" $empty "*) true ;; *) false ;; esac; do empty=$((empty + 1)); done
"$RUNNER" sweep "$tiny" --db "$TMP/k/shard-$empty.db" --shard "$empty/1000" --quiet 2>/dev/null
sqlite3 "$TMP/k/shard-$empty.db" "PRAGMA journal_mode = DELETE; PRAGMA page_size = 1024; VACUUM" >/dev/null
[ "$(sqlite3 "$TMP/k/shard-$empty.db" "SELECT count(*) FROM point")" = 0 ] ||
    fail "shard $empty/1000 should hold no point"
: >"$TMP/copies.sql"
echo "PRAGMA synchronous = OFF;" >"$TMP/copies.sql"
i=1
while [ $i -le 1000 ]; do
    case "$held" in
    *" $i "*) "$RUNNER" sweep "$tiny" --db "$TMP/k/shard-$i.db" --shard "$i/1000" --quiet 2>/dev/null ;;
    *) [ $i != $empty ] &&
           echo "VACUUM INTO '$TMP/k/shard-$i.db'; ATTACH '$TMP/k/shard-$i.db' AS s; PRAGMA s.synchronous = OFF; PRAGMA s.journal_mode = OFF; UPDATE s.sweep SET shard_index = $i; DETACH s;" >>"$TMP/copies.sql" ;;
    esac
    i=$((i + 1))
done
# One sqlite3 for every copy: a process per file costs a minute on a loaded machine.
sqlite3 "$TMP/k/shard-$empty.db" <"$TMP/copies.sql" >/dev/null || fail "the copies could not be made"
list=""
i=1
while [ $i -le 1000 ]; do list="$list $TMP/k/shard-$i.db"; i=$((i + 1)); done
run sh -c "ulimit -n 1024 && exec \"$RUNNER\" merge \"$TMP/thousand.db\" $list"
expect_status 0
# More than 500 inputs go in parts, which bounds the merge's memory.
expect_stderr "runner: merged 1000 shards into sweep 1 in $TMP/thousand.db: 12 points, 12 rows (in parts of at most 500 shards, which bounds its memory)"
DB="$TMP/thousand.db"
expect_sql "SELECT count(*), count(DISTINCT shard_index), sum(points) FROM merge_source" "1000|1000|12"
for q in "SELECT id, ordinal, params_json, identity, seed, status FROM point ORDER BY id" \
         "SELECT * FROM testkit ORDER BY row_id"; do
    expect_equal "1000 shards merged vs one process: $q" \
        "$(sqlite3 "$TMP/thousand.db" "$q")" "$(sqlite3 "$TMP/tiny-single.db" "$q")"
done
left=$(ls "$TMP/k" | grep -c -e '-wal$' -e '-shm$')
expect_equal "-wal/-shm files left beside 1000 shards" "$left" 0
finish
