# Parallel points: rows, their order and their ids are identical for any
# --jobs, Monte Carlo included (each point's stream comes from its identity).
. tests/e2e/lib.sh
script=$(write_script grid.lua <<'LUA'
sweep("straggler", { workers = {1, 8, 64, 512}, trials = 2000, seed = range(1, 10) }, { print = false })
sweep("speedup", { workers = powers_of_two(1, 1024), jitter = linspace(0.5, 2, 7) }, { print = false })
LUA
)
for jobs in 1 2 4; do
    run "$RUNNER" sweep "$script" --db "$TMP/jobs$jobs.db" --jobs $jobs --quiet
    expect_status 0
done
for t in straggler speedup; do
    for jobs in 2 4; do
        a=$(sqlite3 "$TMP/jobs1.db" "SELECT * FROM $t ORDER BY row_id" | sha256sum)
        b=$(sqlite3 "$TMP/jobs$jobs.db" "SELECT * FROM $t ORDER BY row_id" | sha256sum)
        [ "$a" = "$b" ] || fail "$t rows differ between --jobs 1 and --jobs $jobs"
    done
done
DB="$TMP/jobs4.db"
expect_sql "SELECT count(*) FROM point" "117"

# Points cheaper than storing them: the writer lets fewer workers claim
# points (it chooses again every 2048 points written), then tries one worker
# and none (the writer running the points itself) and keeps the faster; the
# rows, the point records and their order stay those of --jobs 1 whichever
# it ran (20 000 points: several choices).
script=$(write_script tiny.lua <<'LUA'
sweep("speedup", { workers = range(1, 1000), jitter = linspace(0.5, 2, 20) }, { print = false, keep_rows = false })
LUA
)
for jobs in 1 2 4; do
    run "$RUNNER" sweep "$script" --db "$TMP/tiny$jobs.db" --jobs $jobs --quiet
    expect_status 0
done
for jobs in 2 4; do
    for query in "SELECT * FROM speedup ORDER BY row_id" \
        "SELECT id, ordinal, identity, seed, params_json, status FROM point ORDER BY id"; do
        a=$(sqlite3 "$TMP/tiny1.db" "$query" | sha256sum)
        b=$(sqlite3 "$TMP/tiny$jobs.db" "$query" | sha256sum)
        [ "$a" = "$b" ] || fail "tiny points differ between --jobs 1 and --jobs $jobs: $query"
    done
done
DB="$TMP/tiny4.db"
expect_sql "SELECT count(*) FROM point WHERE status = 'ok'" "20000"
run "$RUNNER" sweep "$script" --db "$DB" --jobs 0
expect_status 2
expect_stderr "runner: --jobs 0: expected a number of threads between 1 and 1024; see 'runner --help'"
finish
