# Plugins that break the ABI's rules at run time (tests/fixtures/evil.c,
# docs/plugin-abi.md "Threads" and docs/guarantees.md "Plugins"):
# exit() in runner's process marks the sweep failed, names the plugin and
# the point and exits 4; _exit() cannot be caught, and --isolate contains
# both as crashed points; host calls from a thread of the plugin's own fail
# the point instead of corrupting the heap.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/evil"
ISOLATE_HINT="run untrusted plugins with --isolate"

# --- exit(0) during a point: marked, told, exit status 4 ----------------------
script=$(write_script exit0.lua <<'LUA'
sweep("evil", { x = {1, 2, 3}, mode = {"ok", "exit0"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1
expect_status 4
expect_stderr "runner: plugin evil called exit(0) during point 1 {\"x\":1.0,\"mode\":\"exit0\"}; the sweep is marked failed; $ISOLATE_HINT"
expect_sql "SELECT status, ended_at IS NOT NULL FROM sweep" "failed|1"
# The point before it was stored (the batch in flight is committed).
expect_sql "SELECT ordinal, status FROM point" "0|ok"
expect_sql "SELECT x, y FROM evil" "1.0|1.0"

# With --jobs 2 the writer may be inside the store: the mark waits for it.
rm -f "$DB"*
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2
expect_status 4
expect_stderr_contains "runner: plugin evil called exit(0) during point "
expect_stderr_contains "; the sweep is marked failed; $ISOLATE_HINT"
expect_sql "SELECT status, ended_at IS NOT NULL FROM sweep" "failed|1"

# exit(0) in two workers at the same moment: the first to report ends the
# process; the other's exit() must not end it first with status 0 (it did,
# about one run in a hundred, before the handler was registered per thread).
rm -f "$DB"*
script=$(write_script exit_together.lua <<'LUA'
sweep("evil", { x = {1, 2}, mode = "exit0_together" }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2
expect_status 4
expect_stderr_contains "runner: plugin evil called exit(0) during point "
expect_sql "SELECT status FROM sweep" "failed"

# exit(0) from a thread the plugin started: the point is not known.
rm -f "$DB"*
script=$(write_script foreign_exit.lua <<'LUA'
sweep("evil", { x = {1, 2}, mode = {"ok", "foreign_exit"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2
expect_status 4
expect_stderr "runner: plugin evil called exit(0) from a thread of its own while points ran; the sweep is marked failed; $ISOLATE_HINT"
expect_sql "SELECT status FROM sweep" "failed"

# --- _exit(7) runs no handler: runner ends with 7, as after a crash ----------
rm -f "$DB"*
script=$(write_script exit7.lua <<'LUA'
sweep("evil", { x = {1, 2}, mode = {"ok", "exit7"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1
expect_status 7
expect_sql "SELECT status FROM sweep" "running"

# --- --isolate: exit() and _exit() in the child are crashed points -----------
rm -f "$DB"*
script=$(write_script isolated.lua <<'LUA'
sweep("evil", { x = {1, 2}, mode = {"ok", "exit0", "exit7"} }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2 --isolate
expect_status 1
expect_sql "SELECT group_concat(status || ':' || coalesce(error, ''), ' / ') FROM (SELECT status, error FROM point WHERE ordinal < 3 ORDER BY ordinal)" \
    "ok: / crashed:the point's process exited with status 0 before reporting / crashed:the point's process exited with status 7 before reporting"
expect_stderr_contains "runner: evil point 2 {\"x\":1.0,\"mode\":\"exit7\"} crashed: the point's process exited with status 7 before reporting"
expect_sql "SELECT status FROM sweep" "failed"
expect_sql "SELECT x, y FROM evil ORDER BY x" "1.0|1.0
2.0|2.0"

# --- emit_row from a thread of the plugin's own, five times with --jobs 2 ----
FOREIGN="evil called emit_row from a thread runner did not start; host calls that use a point are allowed only from the thread running its run() (docs/plugin-abi.md)"
script=$(write_script foreign.lua <<'LUA'
sweep("evil", { x = {1, 2, 3, 4, 5, 6, 7, 8}, mode = {"ok", "foreign_thread_emit"} },
      { print = false })
LUA
)
for attempt in 1 2 3 4 5; do
    rm -f "$DB"*
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2
    expect_status 1
    expect_sql "SELECT count(*), count(DISTINCT error) FROM point WHERE status = 'failed' AND params_json LIKE '%foreign%'" "8|1"
    expect_sql "SELECT DISTINCT error FROM point WHERE status = 'failed'" "$FOREIGN"
    expect_sql "SELECT count(*) FROM point WHERE status = 'ok' AND params_json LIKE '%\"ok\"%'" "8"
    # Every ok point holds exactly its own row, y = x.
    expect_sql "SELECT count(*), sum(y = x) FROM evil" "8|8"
    expect_sql "SELECT status FROM sweep" "failed"
done

# --- a point kept by the plugin and used after its run() returned ------------
# Its thread calls emit_row while the same worker runs its next point: that
# point fails (its slot was written to from outside), the others keep their rows.
# The others are after_keep: they start once the point is kept, so the other
# worker cannot run them all first and leave the keeping worker idle.
script=$(write_script after.lua <<'LUA'
sweep("evil", { zip { x = {1, 2, 3, 4, 5, 6, 7, 8},
                      mode = {"emit_after_return", "after_keep", "after_keep", "after_keep",
                              "after_keep", "after_keep", "after_keep", "after_keep"} } },
      { print = false })
LUA
)
for attempt in 1 2 3 4 5; do
    rm -f "$DB"*
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2
    expect_status 1
    expect_sql "SELECT count(*), min(ordinal) > 0 FROM point WHERE status = 'failed'" "1|1"
    expect_sql "SELECT DISTINCT error FROM point WHERE status = 'failed'" "$FOREIGN"
    expect_sql "SELECT count(*), sum(y = x) FROM evil" "7|7"
done
finish
