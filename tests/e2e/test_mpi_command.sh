# Command experiments under MPI (docs/mpi.md, docs/command-experiments.md):
# with mpirun -np 3 a command's points run on the worker ranks, which build
# the command from rank 0's declaration; the stored points, rows and
# stdout/stderr artifacts equal a --jobs 1 run's, a point that exits
# non-zero or passes the command's timeout is stored as on one process, and
# a worker that cannot find the program stops the run before any point; a
# worker killed with SIGKILL while it runs a command's point ends the sweep
# `interrupted` with the points done stored, as for a plugin's point
# (test_mpi_failures.sh), and --resume completes it.
# Skipped (77) without mpirun or MPI support; under make test a failure.
. tests/e2e/lib.sh
. tests/e2e/mpi_lib.sh

# Each point prints one row and writes, in a file kept as an artifact, the
# MPI rank that ran it (empty without MPI) and its host. x = 7 exits 3; x =
# 9 sleeps past the command's timeout.
script=$(write_script square.lua <<'LUA'
command "square" {
  argv = { [[printf '{{"y": %s, "seed": "%s"}}\n' {x} {seed}
printf '%s %s\n' "$OMPI_COMM_WORLD_RANK" "$(hostname)" > rank.txt
if [ {x} -eq 7 ]; then echo "seven is not allowed" >&2; exit 3; fi
[ {x} -ne 9 ] || exec sleep 30]] },
  shell = true,
  params = { x = { type = "integer", min = 0, max = 100 } },
  columns = { { name = "y", type = "integer" }, { name = "seed", type = "text" } },
  artifacts = { "rank.txt" },
  timeout = 1,
}
sweep("square", { x = range(1, 12) }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/one.db" --jobs 1 --quiet
expect_status 1
run mpirun --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$TMP/mpi.db" --quiet
if grep -q "built without MPI" "$TMP/err"; then
    skip_missing "MPI support" "runner was built without MPI (RUNNER_MPI=OFF, or no libopenmpi-dev)"
fi
[ "$status" = 1 ] || fail "mpirun -np 3 exited $status, not 1 (two points fail): $(cat "$TMP/err")"
expect_stderr_contains 'runner: square point 6 {"x":7} failed: square: exited with status 3; stderr: seven is not allowed'
expect_stderr_contains 'runner: square point 8 {"x":9} timed out: square: timed out after 1 s; its process group was killed'
# The worker ranks ran the points, not rank 0 (which said so before).
if grep -q "its points run on rank 0" "$TMP/err"; then
    fail "the command's points ran on rank 0: $(cat "$TMP/err")"
fi
DB="$TMP/mpi.db"
ranks=$(sql "SELECT group_concat(r, ' ') FROM (SELECT DISTINCT r FROM (SELECT substr(CAST(b.content AS TEXT), 1, instr(CAST(b.content AS TEXT), ' ') - 1) AS r FROM artifact AS a JOIN artifact_blob AS b USING (sha256) WHERE a.name = 'rank.txt') ORDER BY r)")
expect_equal "the ranks that ran the points" "$ranks" "1 2"
expect_sql "SELECT count(*) FROM artifact WHERE name = 'rank.txt'" "12"
hosts=$(sql "SELECT DISTINCT substr(CAST(b.content AS TEXT), instr(CAST(b.content AS TEXT), ' ') + 1) FROM artifact AS a JOIN artifact_blob AS b USING (sha256) WHERE a.name = 'rank.txt'")
expect_equal "the host that ran the points" "$hosts" "$(hostname)"
# The same points, rows and output as one process.
expect_sql "SELECT status, count(*) FROM point GROUP BY status ORDER BY status" "failed|1
ok|10
timeout|1"
compare_rows "SELECT id, sweep_id, section_id, ordinal, params_json, identity, seed, status, error, row_count FROM point ORDER BY id" "$TMP/one.db" "$DB" "points"
compare_rows "SELECT row_id, point_id, x, y, seed, exit_status FROM square ORDER BY row_id" "$TMP/one.db" "$DB" "rows"
compare_rows "SELECT point_id, name, sha256, bytes FROM artifact WHERE name IN ('stdout', 'stderr') ORDER BY point_id, name" "$TMP/one.db" "$DB" "stdout and stderr artifacts"
expect_sql "SELECT count(*) FROM square WHERE y = x" "10"
expect_sql "SELECT error FROM point WHERE ordinal = 8" "square: timed out after 1 s; its process group was killed"

# A worker that does not find the program stops the run before any point,
# naming the rank, its host and the command.
mkdir "$TMP/bin"
printf '#!/bin/sh\necho "{\\"y\\": $1}"\n' >"$TMP/bin/echo_y"
chmod +x "$TMP/bin/echo_y"
script=$(write_script here_only.lua <<'LUA'
command "echo_y" {
  argv = { "echo_y", "{x}" },
  params = { x = { type = "integer" } },
  columns = { { name = "y", type = "integer" } },
}
sweep("echo_y", { x = range(1, 4) }, { print = false })
LUA
)
run mpirun --oversubscribe -np 2 sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then PATH="'"$TMP"'/bin:$PATH"; fi; exec "$0" "$@"' \
    "$RUNNER" sweep "$script" --db "$TMP/missing.db" --quiet
expect_status 2
expect_stderr_contains "runner: rank 1 on $(hostname): command 'echo_y': program 'echo_y' not found in "
expect_stderr_contains "; every rank needs the same programs (the same file at the same path or on PATH)"
DB="$TMP/missing.db"
expect_sql "SELECT status, (SELECT count(*) FROM point) FROM sweep" "error|0"
# With the program on every rank's PATH --resume finishes it there.
run env PATH="$TMP/bin:$PATH" mpirun --oversubscribe -np 2 "$RUNNER" sweep "$script" --db "$DB" --resume --quiet
expect_status 0
expect_sql "SELECT group_concat(y, ' ') FROM (SELECT y FROM echo_y ORDER BY row_id)" "1 2 3 4"

# A worker killed with SIGKILL in the middle of a point. mpirun
# --enable-recovery keeps the job going when a process dies (as srun did
# across nodes), so rank 0's own liveness check is what ends it.
export RUNNER_MPI_LIVENESS_S=4
script=$(write_script nap.lua <<'LUA'
command "nap" {
  argv = { [[sleep 0.25; printf '{{"y": %s}}\n' {x}]] },
  shell = true,
  params = { x = { type = "integer" } },
  columns = { { name = "y", type = "integer" } },
}
sweep("nap", { x = range(1, 30) }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/nap_one.db" --jobs 4 --quiet
expect_status 0
DB="$TMP/nap.db"
mpirun --enable-recovery --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$DB" --quiet \
    >"$TMP/nap.out" 2>"$TMP/nap.err" &
launcher=$!
wait_until "two command points stored" \
    '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 2 ] || ! alive $launcher'
killed=""
for pid in $(pgrep -P "$launcher"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then
        kill -KILL "$pid" && killed=$pid
    fi
done
[ -n "$killed" ] || fail "no rank 1 to kill (mpirun: $(cat "$TMP/nap.err"))"
wait_until "mpirun to end after its worker was killed" '! alive $launcher' || kill -TERM "$launcher"
wait_exit $launcher
grep -qx "runner: rank 1 on $(hostname) sent nothing for 4 s (its process is gone, stopped or cut off); ending the sweep, the points done are stored" \
    "$TMP/nap.err" || fail "rank 0 did not name the dead worker: $(grep runner: "$TMP/nap.err")"
run "$RUNNER" sweeps --db "$DB" --format csv
expect_equal "the sweep whose worker was killed" "$(cut -d, -f1,5 "$TMP/out" | tail -1)" "1,interrupted"
n=$(sql "SELECT count(*) FROM point")
[ "$n" -ge 2 ] && [ "$n" -lt 30 ] || fail "$n points stored (expected some, not all 30)"
expect_sql "SELECT count(*) FROM point AS p JOIN nap AS r ON r.point_id = p.id WHERE p.status = 'ok' AND r.y = r.x" "$n"
run mpirun --oversubscribe -np 3 "$RUNNER" sweep "$script" --db "$DB" --resume --quiet
expect_status 0
expect_stderr_contains "already stored"
compare_rows "SELECT ordinal, params_json, identity, seed, status, row_count FROM point ORDER BY ordinal" "$TMP/nap_one.db" "$DB" "the resumed command sweep's points"
compare_rows "SELECT x, y, exit_status FROM nap ORDER BY x" "$TMP/nap_one.db" "$DB" "the resumed command sweep's rows"
# Every run comes back to rank 0 with its point (command_run): the same
# runs, warm-ups and printed values as one process stores.
runs=$(write_script runs.lua <<'LUA'
command "twice" { argv = { "sh", "-c", "echo v={x}" },
  params = { x = { type = "integer", min = 0, max = 100 } },
  columns = { { name = "v", type = "integer" } }, output = "keyvalue", repeats = 3, warmup = 1 }
sweep("twice", { x = range(1, 4) }, { print = false })
LUA
)
run "$RUNNER" sweep "$runs" --db "$TMP/runs_one.db" --jobs 1 --quiet
expect_status 0
run mpirun --oversubscribe -np 3 "$RUNNER" sweep "$runs" --db "$TMP/runs_mpi.db" --quiet
expect_status 0
compare_rows "SELECT point_id, run, warmup, exit_status, run_values FROM command_run ORDER BY point_id, run" "$TMP/runs_one.db" "$TMP/runs_mpi.db" "the runs"
DB="$TMP/runs_mpi.db"
expect_sql "SELECT count(*), sum(warmup), count(run_values) FROM command_run" "16|4|16"
finish
