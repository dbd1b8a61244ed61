# A merge keeps its WAL bounded (docs/performance/merge.md): runner
# checkpoints and starts the WAL over once it holds 16,384 pages (64 MiB),
# as a sweep does. A statement of the merge left open across its commits
# kept the connection's read snapshot, so every checkpoint failed and the
# WAL grew past the size of the whole output (92 MiB beside 76 MiB here):
# a merge of 10 GB of shards needed 10 GB more beside it. 200,000 one-row
# points in 4 shards; the WAL's size is read while the merge runs.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"

script=$(write_script grid.lua <<'LUA'
sweep("speedup", { workers = range(1, 1000), jitter = linspace(0.5, 2, 200) },
      { print = false, keep_rows = false })
LUA
)
for i in 1 2 3 4; do
    "$RUNNER" sweep "$script" --db "$TMP/s$i.db" --shard "$i/4" --quiet --jobs 1 ||
        fail "shard $i did not run"
done
"$RUNNER" merge "$TMP/out.db" "$TMP"/s1.db "$TMP"/s2.db "$TMP"/s3.db "$TMP"/s4.db \
    >"$TMP/out" 2>"$TMP/err" &
merge=$!
peak=0
while kill -0 "$merge" 2>/dev/null; do
    size=$(stat -c %s "$TMP/out.db-wal" 2>/dev/null || echo 0)
    [ "$size" -gt "$peak" ] && peak=$size
done
wait "$merge"
status=$?
expect_status 0
expect_stderr "runner: merged 4 shards into sweep 1 in $TMP/out.db: 200000 points, 200000 rows"
DB="$TMP/out.db"
expect_sql "SELECT count(*), count(DISTINCT point_id) FROM speedup" "200000|200000"
# The output is larger than the WAL's bound, so an unbounded WAL shows.
[ "$(stat -c %s "$TMP/out.db")" -gt $((68 << 20)) ] || fail "the output is too small to tell"
# 64 MiB of pages, their frame headers and one block's commit past it.
[ "$peak" -le $((68 << 20)) ] || fail "the merge's WAL reached $peak bytes (bound: 64 MiB)"
[ "$peak" -gt 0 ] || fail "the WAL was never seen"
finish
