# runner slurm at scale (issue 29, docs/slurm.md "1,000 nodes"): the sweep
# options reach the array's command line (--jobs also as --cpus-per-task);
# the script and its --set values are checked as a dry run before anything
# is written; an array larger than the cluster's MaxArraySize (a stand-in
# scontrol prints the configuration) is refused, saying what to do; and
# --merge-fanout's three scripts, run by hand as Slurm would run them,
# merge a tree of partial merges equal to one process. (test_slurm.sh
# submits to a real controller.)
. tests/e2e/lib.sh
skip_without sh "no /bin/sh"
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
script=$(write_script grid.lua <<'LUA'
local o = options{ n = 30 }
sweep("testkit", { x = linspace(0, 1, o.n), rows = {0, 2} }, { print = false })
if runner.shard then return printf("%s\n", runner.shard.note) end
LUA
)
mkdir "$TMP/bin"
cat >"$TMP/bin/scontrol" <<'EOF'
#!/bin/sh
[ "$1 $2" = "show config" ] || exit 1
echo "Configuration data as of 2026-01-01T00:00:00"
echo "MaxArraySize            = 11"
echo "MaxJobCount             = 10000"
EOF
chmod +x "$TMP/bin/scontrol"

# More shards than the cluster's arrays take: refused, nothing written.
run env PATH="$TMP/bin:$PATH" "$RUNNER" slurm "$script" --shards 11 --db-dir "$TMP/big"
expect_status 2
expect_stderr "runner: slurm: --shards 11 is more than this cluster's job arrays take (MaxArraySize 11, scontrol show config: task indexes up to 10); use --shards 10 or fewer (each shard then runs more points), or ask the admins to raise MaxArraySize"
[ ! -e "$TMP/big" ] || fail "runner slurm wrote $(ls "$TMP/big") after refusing"
# A scontrol that does not answer is not waited for long, nor believed.
printf '#!/bin/sh\nexec sleep 60\n' >"$TMP/bin/scontrol"
run env PATH="$TMP/bin:$PATH" "$RUNNER" slurm "$script" --shards 11 --db-dir "$TMP/slow"
expect_status 0

# The script and --set are checked first: a bad --set or a grid above
# --max-points per shard writes nothing.
run "$RUNNER" slurm "$script" --shards 4 --db-dir "$TMP/bad" --set m=3
expect_status 2
expect_stderr "runner: $script:1: --set m: the script has no option 'm' (did you mean 'n'?)
runner: slurm: $script fails as a shard (above); nothing was written"
[ ! -e "$TMP/bad" ] || fail "runner slurm wrote $(ls "$TMP/bad") after a bad --set"
run "$RUNNER" slurm "$script" --shards 4 --db-dir "$TMP/bad" --set n=1000 --max-points 400
expect_status 2
expect_stderr_contains "testkit: the grid has 2000 points, about 500 in each of 4 shards, more than --max-points 400"
[ ! -e "$TMP/bad" ] || fail "runner slurm wrote $(ls "$TMP/bad") after a grid over --max-points"

# The sweep's options reach every task's command line.
run "$RUNNER" slurm "$script" --shards 5 --db-dir "$TMP/jobs" --db "$TMP/merged.db" --set n=40 \
    --jobs 3 --isolate --point-timeout 2.5 --reuse --max-points 600 --seed 7 --merge-fanout 2
expect_status 0
expect_stdout_contains "wrote $TMP/jobs/grid.array.sbatch, $TMP/jobs/grid.partial.sbatch (3 partial merges of 2 shards) and $TMP/jobs/grid.merge.sbatch; submit them with"
array="$TMP/jobs/grid.array.sbatch"
grep -qx "#SBATCH --cpus-per-task=3" "$array" || fail "no --cpus-per-task for --jobs 3: $(cat "$array")"
grep -qF -- "--quiet \$resume --seed 7 --jobs 3 --max-points 600 --isolate --point-timeout 2.5 --reuse --set 'n=40'" "$array" ||
    fail "the array's command line lacks the options: $(grep sweep "$array")"
grep -qx "#SBATCH --array=1-3" "$TMP/jobs/grid.partial.sbatch" || fail "the partial merges are no array of 3"
for f in "$array" "$TMP/jobs/grid.partial.sbatch" "$TMP/jobs/grid.merge.sbatch"; do
    sh -n "$f" || fail "$f is no valid shell script"
done

# Run by hand as Slurm would: every shard, the partial merges, the merge.
# (--isolate and --reuse run as written; the rows are the same.)
for i in 1 2 3 4 5; do
    SLURM_ARRAY_TASK_ID=$i sh "$array" >/dev/null 2>&1 || fail "shard task $i failed"
done
for j in 1 2 3; do
    SLURM_ARRAY_TASK_ID=$j sh "$TMP/jobs/grid.partial.sbatch" 2>"$TMP/err" || fail "partial merge $j failed: $(cat "$TMP/err")"
done
expect_stderr "runner: merged 1 inputs (a partial merge) into sweep 1 in $TMP/jobs/partial-3.db: $(sqlite3 "$TMP/jobs/shard-5.db" "SELECT count(*) FROM point") points, $(sqlite3 "$TMP/jobs/shard-5.db" "SELECT count(*) FROM testkit") rows"
run sh "$TMP/jobs/grid.merge.sbatch"
expect_status 0
expect_stderr "runner: merged 3 shards into sweep 1 in $TMP/merged.db: 80 points, 80 rows"
"$RUNNER" sweep "$script" --db "$TMP/single.db" --set n=40 --seed 7 --quiet >/dev/null 2>&1
for q in "SELECT id, ordinal, params_json, identity, seed, status FROM point ORDER BY id" \
         "SELECT * FROM testkit ORDER BY row_id"; do
    expect_equal "a tree merge vs one process: $q" \
        "$(sqlite3 "$TMP/merged.db" "$q")" "$(sqlite3 "$TMP/single.db" "$q")"
done
DB="$TMP/merged.db"
expect_sql "SELECT count(*), group_concat(shard_index, ','), sum(rows) FROM merge_source" "5|1,2,3,4,5|80"

# Rerun into the same directory with another --set: each task refuses to
# mix the two grids, naming what differs.
"$RUNNER" slurm "$script" --shards 5 --db-dir "$TMP/jobs" --db "$TMP/merged.db" --set n=50 --seed 7 >/dev/null
run env SLURM_ARRAY_TASK_ID=2 sh "$array"
expect_status 2
expect_stderr "runner: $TMP/jobs/shard-2.db: the shard's database holds sweep 1 (shard 2/5) made with --set n=40; this run has --set n=50: use a new --db-dir (runner slurm) or remove $TMP/jobs/shard-2.db"
finish
