# Shards and merge (docs/slurm.md): `runner sweep --shard I/N` runs each
# point in exactly one shard, whatever --jobs; `runner merge` of 1, 2 and 7
# shards equals a single-process run in every table (compared with SQL,
# ordered by point); merging again changes nothing; shards that do not
# belong together are refused naming the field; missing and unfinished
# shards are named with the points they lack; a killed shard resumes.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

script=$(write_script sharded.lua <<'LUA'
sweep("testkit", { x = linspace(0, 1, 150), rows = {0, 1, 3}, label = {"a", "b"} },
      { print = false })
sweep("testkit", { x = {1, 2, 3}, fail = {false, true} }, { print = false, title = "failing" })
sweep("speedup", { workers = {1, 2, 4, 8}, jitter = {0.5, 2}, trials = 200 }, { print = false })
LUA
)
"$RUNNER" sweep "$script" --db "$TMP/single.db" --quiet --jobs 1 2>/dev/null
[ $? = 1 ] || fail "the single-process run should end with 3 failed points (exit 1)"

# dump DB: every table of the newest sweep as a single-process run defines
# it, ordered by section and point: what a merge must reproduce. Ids are
# compared too (both files hold one sweep); times and provenance are not.
dump() {
    sqlite3 -batch "$1" "
SELECT 'sweep', script_sha256, script_text, seed, overrides_json, options_json, runner_version, status FROM sweep;
SELECT 'plugin', plugin, plugin_version, so_sha256 FROM sweep_plugin ORDER BY plugin;
SELECT 'section', id, ordinal, plugin, title, script_line, point_count FROM section ORDER BY ordinal;
SELECT 'point', p.id, p.section_id, c.ordinal, p.ordinal, p.params_json, p.identity, p.seed, p.status, p.error, p.row_count FROM point AS p JOIN section AS c ON c.id = p.section_id ORDER BY c.ordinal, p.ordinal;
SELECT 'counts', sum(point_count), sum(ok_count) FROM point_block;
SELECT 'index', id, status FROM point_index ORDER BY id;
SELECT 'once', * FROM point_once ORDER BY section_id, ordinal;
SELECT 'once derived', count(*) FROM (SELECT b.section_id, json_extract(p.value, '\$[1]'), json_extract(p.value, '\$[0]') FROM point_block AS b, json_each(b.points) AS p EXCEPT SELECT * FROM point_once);
SELECT 'testkit', * FROM testkit ORDER BY row_id;
SELECT 'speedup', * FROM speedup ORDER BY row_id;
SELECT 'column', * FROM plugin_column ORDER BY plugin, name;"
}
dump "$TMP/single.db" >"$TMP/single.txt"
# Each point's key (point_once), as the writer gives it, is the one its
# block holds; a merge's are compared with these below.
grep -qx "once derived|0" "$TMP/single.txt" || fail "the reference run's keys differ from its blocks"
[ "$(grep -c "^point" "$TMP/single.txt")" = 914 ] || fail "the reference run has $(grep -c "^point" "$TMP/single.txt") points, not 914"

for n in 1 2 7; do
    i=1
    shards=""
    while [ $i -le $n ]; do
        # Alternate --jobs: a point's shard does not depend on it.
        "$RUNNER" sweep "$script" --db "$TMP/n$n-$i.db" --shard "$i/$n" --quiet --jobs $((i % 2 + 1)) 2>/dev/null
        # Resuming reruns the failed points: stored again, after the others
        # (their blocks out of point order), which the merge puts back.
        [ $n = 2 ] && "$RUNNER" sweep "$script" --db "$TMP/n$n-$i.db" --shard "$i/$n" --resume --quiet 2>/dev/null
        shards="$shards $TMP/n$n-$i.db"
        i=$((i + 1))
    done
    DB="$TMP/n$n-1.db"
    expect_sql "SELECT shard_index, shard_count FROM sweep" "1|$n"
    # Every point in exactly one shard.
    total=0
    for f in $shards; do
        total=$((total + $(sqlite3 "$f" "SELECT count(*) FROM point")))
    done
    expect_equal "points over $n shards" "$total" 914
    # Point o of section c is shard 1 + (o + o / N + c - 1) % N's (docs/slurm.md,
    # "Which shard runs a point"), and each shard says it chose so.
    i=1
    for f in $shards; do
        expect_equal "shard $i/$n's points outside its share" "$(sqlite3 "$f" "SELECT count(*) FROM point AS p JOIN section AS c ON c.id = p.section_id WHERE (p.ordinal + p.ordinal / $n + c.ordinal - 1) % $n <> $i - 1")|$(sqlite3 "$f" "SELECT shard_by FROM sweep")" "0|ordinal"
        i=$((i + 1))
    done
    run "$RUNNER" merge "$TMP/out$n.db" $shards
    expect_status 1
    expect_stderr "runner: merged $n shards into sweep 1 in $TMP/out$n.db: 914 points, 1211 rows"
    dump "$TMP/out$n.db" >"$TMP/out$n.txt"
    cmp -s "$TMP/single.txt" "$TMP/out$n.txt" ||
        fail "merge of $n shards differs from one process: $(diff "$TMP/single.txt" "$TMP/out$n.txt" | head -5)"
    DB="$TMP/out$n.db"
    expect_sql "SELECT shard_index IS NULL, shard_count, status FROM sweep" "1|$n|failed"
done

# A shard is walked block by block when its keys (point_once), by
# ordinal, name ever larger point ids; a damaged shard whose keys say so
# while its blocks do not (n2-1 was resumed: its rerun points come last) is
# refused by the walk, with the file named.
cp "$TMP/n2-1.db" "$TMP/damaged.db"
sqlite3 "$TMP/damaged.db" "UPDATE point_once SET point_id = ordinal + 1000000"
run "$RUNNER" merge "$TMP/damaged-out.db" "$TMP/damaged.db" "$TMP/n2-2.db"
expect_status 2
expect_stderr_contains "runner: $TMP/damaged.db: its point blocks do not hold its points in the order its keys (point_once) say: the file is damaged; run that shard again"

# Merging again is harmless.
run "$RUNNER" merge "$TMP/out7.db" $shards
expect_status 1
expect_stderr "runner: merge: sweep 1 in $TMP/out7.db already holds these 7 shards; nothing to do"
dump "$TMP/out7.db" >"$TMP/again.txt"
cmp -s "$TMP/single.txt" "$TMP/again.txt" || fail "merging again changed out7.db"

# A merge cut short (its sweep left 'running') is redone from the start.
sqlite3 "$TMP/out2.db" "UPDATE sweep SET status = 'running'; DELETE FROM speedup WHERE row_id > 1200"
run "$RUNNER" merge "$TMP/out2.db" "$TMP/n2-1.db" "$TMP/n2-2.db"
expect_status 1
dump "$TMP/out2.db" >"$TMP/redone.txt"
cmp -s "$TMP/single.txt" "$TMP/redone.txt" || fail "an unfinished merge was not redone"

# Into a database holding other sweeps: the merged sweep comes after them.
cp "$TMP/single.db" "$TMP/both.db"
run "$RUNNER" merge "$TMP/both.db" "$TMP/n2-1.db" "$TMP/n2-2.db"
expect_status 1
DB="$TMP/both.db"
expect_sql "SELECT count(*) FROM (SELECT testkit.x, testkit.y, testkit.row_index, p.ordinal FROM testkit JOIN point AS p ON p.id = testkit.point_id WHERE testkit.sweep_id = 2 EXCEPT SELECT testkit.x, testkit.y, testkit.row_index, p.ordinal FROM testkit JOIN point AS p ON p.id = testkit.point_id WHERE testkit.sweep_id = 1)" "0"
expect_sql "SELECT min(id) FROM point WHERE sweep_id = 2" "915"

# --reuse in shards: a point's reused_from names a point of the shard's own
# file. The merge maps it to the point OUT holds with the same identity and
# seed (here from the merge of the shards' first sweep), which is what one
# process running both sweeps records; where OUT holds none, NULL.
reuse=$(write_script reuse.lua <<'LUA'
sweep("speedup", { workers = {1, 2, 4, 8}, jitter = {0.5, 2}, trials = 200 }, { print = false })
sweep("testkit", { x = linspace(0, 1, 20), rows = {0, 2} }, { print = false })
LUA
)
for flag in "" --reuse; do
    for i in 1 2 3; do
        "$RUNNER" sweep "$reuse" --shard $i/3 --db "$TMP/reuse$i.db" --quiet $flag 2>/dev/null
    done
    "$RUNNER" merge "$TMP/reused.db" "$TMP/reuse1.db" "$TMP/reuse2.db" "$TMP/reuse3.db" 2>/dev/null ||
        fail "merging the shards ${flag:-without --reuse} failed"
    "$RUNNER" sweep "$reuse" --db "$TMP/reuse-single.db" --quiet $flag 2>/dev/null
done
for q in "SELECT id, section_id, ordinal, params_json, identity, seed, reused_from, row_count FROM point WHERE sweep_id = 2 ORDER BY id" \
         "SELECT * FROM testkit WHERE sweep_id = 2 ORDER BY row_id"; do
    expect_equal "merged --reuse shards vs one process: $q" \
        "$(sqlite3 "$TMP/reused.db" "$q")" "$(sqlite3 "$TMP/reuse-single.db" "$q")"
done
DB="$TMP/reused.db"
expect_sql "SELECT count(*) FROM point AS p JOIN point AS q ON q.id = p.reused_from WHERE p.sweep_id = 2 AND q.sweep_id = 1 AND q.identity = p.identity AND q.seed = p.seed" 48
run "$RUNNER" merge "$TMP/reuse-fresh.db" "$TMP/reuse1.db" "$TMP/reuse2.db" "$TMP/reuse3.db"
expect_status 0
DB="$TMP/reuse-fresh.db"
expect_sql "SELECT count(*), count(reused_from) FROM point" "48|0"

# A shipped script shards: under --shard it stores its points and prints,
# instead of its summary (which reads rows), where the summary comes from;
# 3 shards merged equal one process. An adaptive one stays refused.
for i in 1 2 3; do
    run "$RUNNER" sweep scripts/jitter.lua --shard $i/3 --db "$TMP/jitter$i.db"
    expect_status 0
    expect_stdout_contains "shard $i/3: the summary needs every shard's rows: 'runner merge' the shards, then 'runner show' or 'runner report' the merged sweep"
    grep -q "workers deliver" "$TMP/out" && fail "shard $i/3 of jitter.lua printed a summary from its own rows"
done
run "$RUNNER" merge "$TMP/jitter.db" "$TMP/jitter1.db" "$TMP/jitter2.db" "$TMP/jitter3.db"
expect_status 0
"$RUNNER" sweep scripts/jitter.lua --db "$TMP/jitter-single.db" --quiet >/dev/null 2>&1
for q in "SELECT id, section_id, ordinal, params_json, identity, seed, status FROM point ORDER BY id" \
         "SELECT * FROM speedup ORDER BY row_id"; do
    expect_equal "jitter.lua in 3 shards vs one process: $q" \
        "$(sqlite3 "$TMP/jitter.db" "$q")" "$(sqlite3 "$TMP/jitter-single.db" "$q")"
done
run "$RUNNER" sweep scripts/knee.lua --shard 1/2 --db "$TMP/knee.db" --quiet
expect_status 2
expect_stderr_contains "scripts/knee.lua:27: search.bisect: an adaptive search decides from every point's rows; run it without --shard (one process, --jobs or MPI)"

# Missing shards, and the points they would have held.
run "$RUNNER" merge "$TMP/missing.db" "$TMP/n7-1.db" "$TMP/n7-3.db" "$TMP/n7-4.db" "$TMP/n7-5.db" "$TMP/n7-6.db" "$TMP/n7-7.db"
expect_status 2
lacking=$(sqlite3 "$TMP/n7-2.db" "SELECT count(*) FROM point")
first=$(sqlite3 "$TMP/n7-2.db" "SELECT group_concat(ordinal, ', ') FROM (SELECT p.ordinal FROM point AS p JOIN section AS c ON c.id = p.section_id WHERE c.ordinal = 1 ORDER BY p.ordinal LIMIT 10)")
expect_stderr_contains "runner: merge: cannot merge yet ($lacking points missing; nothing was written):
  shard 2/7: missing (no database given holds it)
  section 1 lacks points $first and "
[ -e "$TMP/missing.db" ] && [ "$(sqlite3 "$TMP/missing.db" "SELECT count(*) FROM sweep")" != 0 ] &&
    fail "a refused merge wrote a sweep"

# Shards that do not belong together: exit 2, naming the field.
"$RUNNER" sweep "$script" --db "$TMP/seed1.db" --shard 2/2 --seed 1 --quiet 2>/dev/null
run "$RUNNER" merge "$TMP/bad.db" "$TMP/n2-1.db" "$TMP/seed1.db"
expect_status 2
expect_stderr "runner: merge: $TMP/seed1.db does not belong with $TMP/n2-1.db: the sweep seed differs (1, not 0)"
run "$RUNNER" merge "$TMP/bad.db" "$TMP/n2-1.db" "$TMP/n7-2.db"
expect_status 2
expect_stderr "runner: merge: $TMP/n7-2.db does not belong with $TMP/n2-1.db: the shard count differs (7, not 2)"
"$RUNNER" sweep "$script" --db "$TMP/set.db" --shard 2/2 --quiet --set nothing=1 >/dev/null 2>&1
sed 's/150/151/' "$script" >"$TMP/other.lua"
"$RUNNER" sweep "$TMP/other.lua" --db "$TMP/other.db" --shard 2/2 --quiet 2>/dev/null
run "$RUNNER" merge "$TMP/bad.db" "$TMP/n2-1.db" "$TMP/other.db"
expect_status 2
expect_stderr_contains "runner: merge: $TMP/other.db does not belong with $TMP/n2-1.db: the script SHA-256 differs ("
run "$RUNNER" merge "$TMP/bad.db" "$TMP/n2-1.db" "$TMP/n2-1.db"
expect_status 2
expect_stderr "runner: merge: $TMP/n2-1.db and $TMP/n2-1.db both hold shard 1/2"
run "$RUNNER" merge "$TMP/bad.db" "$TMP/single.db"
expect_status 2
expect_stderr "runner: $TMP/single.db holds no sharded sweep (run 'runner sweep SCRIPT --shard I/N --db $TMP/single.db')"
run "$RUNNER" merge "$TMP/n2-1.db" "$TMP/n2-1.db" "$TMP/n2-2.db"
expect_status 2
expect_stderr "runner: merge: $TMP/n2-1.db is a shard: write the merge to another file"
run "$RUNNER" merge "$TMP/bad.db"
expect_status 2
expect_stderr "runner: merge needs OUT.db and the shards' databases (e.g. runner merge results.db shard-*.db); see 'runner --help'"
[ -e "$TMP/bad.db" ] && [ "$(sqlite3 "$TMP/bad.db" "SELECT count(*) FROM sweep")" != 0 ] &&
    fail "a refused merge wrote a sweep"

# A shard an older runner made chose its points by identity (sweep.shard_by
# NULL, schema 20): resuming it or merging it with this runner's shards is
# refused, saying what to do; nothing is written.
cp "$TMP/n2-2.db" "$TMP/old2.db"
sqlite3 "$TMP/old2.db" "UPDATE sweep SET shard_by = NULL, status = 'interrupted'"
run "$RUNNER" sweep "$script" --db "$TMP/old2.db" --shard 2/2 --resume --quiet
expect_status 2
expect_stderr "runner: $TMP/old2.db: sweep 1 is shard 2/2 as an older runner chose it (points by identity, not ordinal); finish it with that runner, or run every shard again with this one into new databases"
DB="$TMP/old2.db"
# Nothing changed: not claimed (its epoch), no point added.
expect_sql "SELECT status, owner_epoch, (SELECT count(*) FROM point) FROM sweep" "interrupted|$(sqlite3 "$TMP/n2-2.db" "SELECT owner_epoch, (SELECT count(*) FROM point) FROM sweep")"
run "$RUNNER" merge "$TMP/mixed.db" "$TMP/n2-1.db" "$TMP/old2.db"
expect_status 2
expect_stderr "runner: merge: $TMP/old2.db does not belong with $TMP/n2-1.db: $TMP/old2.db was made by an older runner, which chose a shard's points by identity, not by ordinal; rerun that shard with this runner (runner sweep SCRIPT --shard I/N) and merge again"
[ -e "$TMP/mixed.db" ] && [ "$(sqlite3 "$TMP/mixed.db" "SELECT count(*) FROM sweep")" != 0 ] &&
    fail "a refused merge wrote a sweep"

# --shard's own checks.
for given in 0/4 5/4 4 a/b 1/0; do
    run "$RUNNER" sweep "$script" --db "$TMP/x.db" --shard "$given"
    expect_status 2
done
expect_stderr "runner: --shard 1/0: expected I/N, shard I of N (1 <= I <= N <= 100000); see 'runner --help'"
run "$RUNNER" sweep "$script" --db "$TMP/x.db" --shard 0/4
expect_stderr "runner: --shard 0/4: shards count from 1 (with Slurm, --array=1-4); see 'runner --help'"
run "$RUNNER" sweep "$script" --db "$TMP/x.db" --shard 5/4
expect_stderr "runner: --shard 5/4: there is no shard 5 of 4; see 'runner --help'"

# A script that reads a section's rows (an adaptive search) is refused.
adaptive=$(write_script adaptive.lua <<'LUA'
local rows = sweep("speedup", { workers = {1, 2, 4} }, { print = false })
print(#rows)
LUA
)
run "$RUNNER" sweep "$adaptive" --db "$TMP/adaptive.db" --shard 1/2 --quiet
expect_status 2
expect_stderr_contains "runner: $adaptive:2: this sweep runs shard 1/2: a section's rows are only this shard's, so a script that reads them (an adaptive search, a grid made from rows) cannot be sharded; run it without --shard (docs/slurm.md)"

# A shard killed mid-way: merge names it; --resume (same --shard) finishes it.
slow=$(write_script slow.lua <<'LUA'
sweep("speedup", { workers = range(1, 120), jitter = {0.5, 2}, trials = 20000 }, { print = false })
LUA
)
"$RUNNER" sweep "$slow" --db "$TMP/slow1.db" --shard 1/2 --quiet --jobs 1 2>/dev/null
"$RUNNER" sweep "$slow" --db "$TMP/slow2.db" --shard 2/2 --quiet --jobs 1 2>/dev/null &
pid=$!
wait_until "shard 2's first committed point" \
    '[ "$(db_count "$TMP/slow2.db" "SELECT count(*) FROM point")" -ge 1 ] || ! alive $pid'
kill -9 $pid
wait_exit $pid 2>/dev/null
run "$RUNNER" merge "$TMP/slow.db" "$TMP/slow1.db" "$TMP/slow2.db"
expect_status 2
# One line per shard: the state a reader shows (this host proves the
# process gone: interrupted, not running), where and who ran it.
expect_stderr_contains "  shard 2/2: interrupted (sweep 1 in $TMP/slow2.db, host $(hostname), pid $pid)"
expect_stderr_contains "  section 1 lacks points "
run "$RUNNER" sweep "$slow" --db "$TMP/slow2.db" --resume --quiet
expect_status 2
expect_stderr "runner: $TMP/slow2.db: sweep 1 ran shard 2/2; resume it with --shard 2/2 (or 'runner resume 1')"
run "$RUNNER" sweep "$slow" --db "$TMP/slow2.db" --resume --shard 1/2 --quiet
expect_status 2
expect_stderr "runner: $TMP/slow2.db: sweep 1 ran shard 2/2, not 1/2; each shard resumes in its own database"
run "$RUNNER" sweep "$slow" --db "$TMP/slow2.db" --resume --shard 2/2 --quiet
expect_status 0
run "$RUNNER" merge "$TMP/slow.db" "$TMP/slow1.db" "$TMP/slow2.db"
expect_status 0
"$RUNNER" sweep "$slow" --db "$TMP/slow-single.db" --quiet 2>/dev/null
for t in point speedup; do
    cols="p.ordinal, p.params_json, p.identity, p.seed, p.status"
    [ $t = speedup ] && cols="p.ordinal, r.workers, r.jitter, r.speedup"
    q="SELECT $cols FROM point AS p $( [ $t = speedup ] && echo 'JOIN speedup AS r ON r.point_id = p.id') ORDER BY p.ordinal"
    a=$(sqlite3 "$TMP/slow.db" "$q" | sha256sum)
    b=$(sqlite3 "$TMP/slow-single.db" "$q" | sha256sum)
    expect_equal "resumed shard merged: $t" "$a" "$b"
done
finish
