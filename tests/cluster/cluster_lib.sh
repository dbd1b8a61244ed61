# cluster_lib.sh: what the tests of tests/cluster/ share, sourced after
# each has taken /tmp/runner-cluster.lock: the checks that skip where no
# cluster can be made, a cluster of three nodes (n1 n2 n3, cluster.sh) up
# and torn down on exit, and the helpers that ask Slurm and compare a
# database with one process's. Sets CL (the cluster's directory), RUNNER
# (absolute), RUNNER_PLUGIN_PATH (the good fixtures) and a lease of 1 s.
. tests/e2e/lib.sh
for tool in ip nsenter unshare slurmctld slurmd munged sbatch srun scontrol sinfo squeue; do
    skip_without $tool "no $tool (apt-get install iproute2 util-linux slurm-wlm munge)"
done
if [ "$(id -u)" != 0 ]; then
    skip_missing root "network namespaces and slurmd need root; run this test as root"
fi
probe="rnr-$$-probe"
if ! ip netns add "$probe" 2>"$TMP/probe.err"; then
    skip_missing "network namespaces" "cannot create a network namespace here: $(cat "$TMP/probe.err")"
fi
ip netns delete "$probe"

CLUSTER_SOURCED=1
. tests/cluster/cluster.sh
CL="$TMP/cluster"
cleanup() {
    down_start=$(date +%s.%N)
    cluster_down "$CL"
    [ -n "${cluster_started:-}" ] && timing "cluster down" "$down_start"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cluster_reap  # namespaces left by a run that was killed before its trap

export RUNNER_PLUGIN_PATH="$(realpath "$RUNNER_FIXTURES/good")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export RUNNER_LEASE_SECONDS=1
RUNNER=$(realpath "$RUNNER")

now() { date +%s.%N; }
# timing WHAT START: prints the seconds since START.
timing() {
    echo "timing: $1 $(awk -v from="$2" -v to="$(now)" 'BEGIN { printf "%.1f", to - from }') s"
}
on() { cluster_on "$CL" "$@"; }
# wait_for WHAT SECONDS CONDITION...: runs the shell CONDITION every 0.1 s
# until it holds, for at most SECONDS by the clock (lib.sh's wait_until
# counts polls, and each poll here asks slurmctld through nsenter, which
# takes a while on a loaded machine); then fails, naming WHAT. CONDITION
# is eval'ed here: it names variables, not the caller's $1, $2.
wait_for() {
    wait_what=$1
    wait_end=$(($(date +%s) + $2))
    shift 2
    while ! eval "$*"; do
        if [ "$(date +%s)" -ge "$wait_end" ]; then
            fail "gave up waiting for $wait_what"
            return 1
        fi
        sleep 0.1
    done
    return 0
}

start=$(now)
CLUSTER_OWNER=$$ cluster_up "$CL" n1 n2 n3 || {
    fail "the cluster did not start"
    finish
}
timing "cluster up (3 nodes idle)" "$start"
cluster_started=1

# job_state ID: the states of the job's tasks (scontrol; no accounting here).
job_state() {
    on login scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '
}
# wait_job ID: until every task of the job has ended.
wait_job() {
    waited_job=$1
    wait_for "job $waited_job to end" "${2:-90}" \
        '! job_state "$waited_job" | grep -qE "PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUE|^ *$"'
}
# submitted: the array and merge job ids runner slurm --submit printed.
submitted() {
    array=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\1/p' "$TMP/out")
    merge=$(sed -n 's/^array job \([0-9]*\), merge job \([0-9]*\)$/\2/p' "$TMP/out")
    [ -n "$array" ] && [ -n "$merge" ] || fail "runner slurm --submit printed: $(cat "$TMP/out" "$TMP/err")"
}
# same_as DB SINGLE WHAT: points and rows of DB equal those of SINGLE.
same_as() {
    for q in "$POINTS" "$ROWS"; do
        [ "$(sqlite3 "$1" "$q" | sha256sum)" = "$(sqlite3 "$2" "$q" | sha256sum)" ] ||
            fail "$3 differs from one process ($q)"
    done
}
POINTS="SELECT c.ordinal, p.ordinal, p.params_json, p.identity, p.seed, p.status, p.row_count FROM point AS p JOIN section AS c ON c.id = p.section_id ORDER BY c.ordinal, p.ordinal"
ROWS="SELECT p.ordinal, r.workers, r.jitter, r.speedup FROM point AS p JOIN speedup AS r ON r.point_id = p.id ORDER BY p.ordinal, r.row_id"

# grid_reference: $script, grid.lua (testkit and speedup sections), and its
# one-process run, $TMP/single.db, the reference the shards must equal.
grid_reference() {
    script=$(write_script grid.lua <<'LUA'
sweep("testkit", { x = linspace(0, 1, 200), rows = {0, 1, 2}, label = {"a", "b"} },
      { print = false })
sweep("speedup", { workers = range(1, 60), jitter = {0.5, 2}, trials = 20000 }, { print = false })
LUA
)
    start=$(now)
    "$RUNNER" sweep "$script" --db "$TMP/single.db" --quiet --jobs 1 2>/dev/null || fail "the single-process run failed"
    timing "the single-process run of grid.lua" "$start"
}
ROWS_GRID="SELECT * FROM testkit ORDER BY row_id; SELECT * FROM speedup ORDER BY row_id"
# same_rows DB ONE WHAT [ROWS]: DB's points and rows (the speedup rows,
# else the query ROWS) equal ONE's (count, and EXCEPT both ways).
same_rows() {
    for q in "SELECT c.ordinal, p.ordinal, p.params_json, p.identity, p.seed, p.status FROM point AS p JOIN section AS c ON c.id = p.section_id" \
        "${4:-SELECT p.identity, r.workers, r.jitter, r.speedup FROM point AS p JOIN speedup AS r ON r.point_id = p.id}"; do
        one=$(echo "$q" | sed 's/\(FROM\|JOIN\) \([a-z]*\)/\1 one.\2/g')
        expect_equal "$3: count" "$(sqlite3 "$1" "SELECT count(*) FROM ($q)")" \
            "$(sqlite3 "$2" "SELECT count(*) FROM ($q)")"
        expect_equal "$3: rows one process lacks" "$(sqlite3 "$1" "ATTACH '$2' AS one; $q EXCEPT $one")" ""
        expect_equal "$3: rows it lacks" "$(sqlite3 "$1" "ATTACH '$2' AS one; $one EXCEPT $q")" ""
    done
}

# task_of PATTERN VAR=VALUE: "pid node" of the process whose command line
# holds PATTERN and whose environment holds VAR=VALUE (a Slurm task).
task_of() {
    for pid in $(pgrep -f -- "$1"); do
        environ=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null)
        echo "$environ" | grep -qx "$2" || continue
        echo "$pid $(echo "$environ" | sed -n 's/^SLURMD_NODENAME=//p')"
        return 0
    done
    return 1
}
# reader_sees DB STATUS: runner sweeps in the login namespace (another host
# than every node) shows sweep 1 of DB with STATUS.
reader_sees() {
    [ "$(on login "$RUNNER" sweeps --db "$1" --format csv 2>/dev/null | awk -F, '$1 == 1 { print $5 }')" = "$2" ]
}
