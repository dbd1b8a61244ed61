# fencing_lib.sh: what test_fencing.sh and test_fencing_lock.sh share,
# sourced after lib.sh: the hostname namespaces that play two hosts, and a
# sweep of 40 command points of which one waits at a gate.

unset SLURM_JOB_ID SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID SLURM_STEP_ID
if ! unshare --uts true 2>/dev/null; then
    skip_missing "unshare --uts" "fencing: needs root for a hostname namespace (unshare --uts)"
fi

# on_host NAME CMD...: CMD with hostname NAME.
on_host() {
    host=$1
    shift
    unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
}

# gated_sweep N NAME: $script, a sweep NAME.lua of 40 points (i = 0..39,
# each printing its square) whose point N, while $TMP/gate.on exists,
# touches $TMP/started.N and waits for $TMP/go; then the one-process
# reference run of it into $TMP/ref.db.
gated_sweep() {
    cat >"$TMP/point.sh" <<SH
#!/bin/sh
if [ "\$1" = $1 ] && [ -e "$TMP/gate.on" ]; then
    touch "$TMP/started.$1"
    while [ ! -e "$TMP/go" ]; do sleep 0.02; done
fi
echo "{\"sq\": \$((\$1 * \$1))}"
SH
    chmod +x "$TMP/point.sh"
    script=$(write_script "$2.lua" <<LUA
command "sq" { argv = { "$TMP/point.sh", "{i}" },
  params = { i = { type = "integer", min = 0, max = 100 } },
  columns = { { name = "sq", type = "integer" } } }
sweep("sq", { i = range(0, 39) }, { print = false })
LUA
)
    run "$RUNNER" sweep "$script" --db "$TMP/ref.db" --quiet --jobs 1
    expect_status 0
}
