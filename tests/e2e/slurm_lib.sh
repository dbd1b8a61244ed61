# A one-node Slurm of the test's own, for the tests of docs/slurm.md
# (sourced after lib.sh): munged, slurmctld and slurmd started on ports the
# kernel found free, everything in $TMP (SLURM_CONF), waited for on state;
# the exit trap stops the jobs, then each daemon by the pid it wrote.
# Gives job_state ID and wait_job ID. Needs root (slurmd runs jobs as their
# users); skipped otherwise, a failure under make test
# (RUNNER_TEST_REQUIRE_TOOLS).
for tool in slurmctld slurmd munged sbatch srun scontrol sinfo; do
    skip_without $tool "no $tool (apt-get install slurm-wlm munge)"
done
if [ "$(id -u)" != 0 ]; then
    skip_missing root "slurmd must run as root to start jobs; run this test as root"
fi
mpi_environment
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
RUNNER=$(realpath "$RUNNER")
export SLURM_CONF="$TMP/slurm.conf"
# Stops what this test started: its jobs first (so no slurmstepd outlives
# slurmd), then each daemon by the pid it wrote.
cleanup() {
    if [ -s "$TMP/slurmctld.pid" ]; then
        jobs=$(squeue -h -o %A 2>/dev/null)
        [ -n "$jobs" ] && scancel --full --signal=KILL $jobs 2>/dev/null
        WAIT_LIMIT_S=30 wait_until "the jobs to end" '[ -z "$(squeue -h -o %A 2>/dev/null)" ]'
    fi
    pids=""
    for name in slurmd slurmctld munged; do
        [ -s "$TMP/$name.pid" ] && pids="$pids $(cat "$TMP/$name.pid")"
    done
    for pid in $pids; do
        kill "$pid" 2>/dev/null
        WAIT_LIMIT_S=20 wait_until "pid $pid to stop" '! alive $pid' || kill -9 "$pid" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Free ports: bound by no one now (the kernel picks them).
ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
ctld_port=${ports% *}
slurmd_port=${ports#* }
cpus=$(nproc)

mkdir -p "$TMP/state" "$TMP/spool" "$TMP/munge" "$TMP/jobs"
chmod 700 "$TMP/munge"
dd if=/dev/urandom of="$TMP/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$TMP/munge/munge.key"
munged --socket="$TMP/munge/munge.socket" --key-file="$TMP/munge/munge.key" \
    --pid-file="$TMP/munged.pid" --log-file="$TMP/munge/munged.log" \
    --seed-file="$TMP/munge/munged.seed" --force 2>"$TMP/munge/start.err" ||
    fail "munged did not start: $(cat "$TMP/munge/start.err")"

cat >"$SLURM_CONF" <<EOF
ClusterName=runnertest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/munge/munge.socket,cred_expire=10
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# A task that becomes eligible (a requeued one, after cred_expire) starts
# within 2 s, not at the next 30-60 s scheduling pass.
SchedulerParameters=sched_interval=2,bf_interval=2
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
PlugStackConfig=$TMP/plugstack.conf
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
: >"$TMP/plugstack.conf"
slurmctld -i 2>"$TMP/slurmctld.err" || fail "slurmctld did not start: $(cat "$TMP/slurmctld.err")"
slurmd -N localhost 2>"$TMP/slurmd.err" || fail "slurmd did not start: $(cat "$TMP/slurmd.err")"
[ "$failures" -eq 0 ] || finish
WAIT_LIMIT_S=60 wait_until "slurmctld to answer" 'scontrol ping 2>/dev/null | grep -q "is UP"' &&
    WAIT_LIMIT_S=60 wait_until "the node to be idle" \
        '[ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]' || {
    echo "--- slurmctld.log" >&2; tail -20 "$TMP/slurmctld.log" >&2
    echo "--- slurmd.log" >&2; tail -20 "$TMP/slurmd.log" >&2
    finish
}

# job_state ID: the states of the job's tasks, from scontrol (no accounting).
job_state() {
    scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '
}
# wait_job ID: until every task of the job has ended.
wait_job() {
    waited_job=$1
    WAIT_LIMIT_S=150 wait_until "job $waited_job to end" \
        '! job_state "$waited_job" | grep -qE "PENDING|RUNNING|CONFIGURING|COMPLETING|^ *$"'
}

