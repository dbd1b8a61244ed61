#!/bin/sh
# A Slurm cluster of several nodes on this one machine, for test_multinode.sh
# (docs/slurm.md, "Tested across nodes"). Each node is a network namespace
# plus a hostname (UTS) namespace running its own slurmd; a "login"
# namespace holds the bridge joining them, munged, slurmctld and the client
# commands. Every node sees this machine's file system: that is the cluster's
# shared storage. Needs root, iproute2 (ip netns), util-linux (nsenter,
# unshare), slurmd, slurmctld and munged.
#
#   cluster.sh up DIR NODE...   start; DIR (new or empty) keeps slurm.conf,
#                               state, logs and pid files
#   cluster.sh on DIR NODE CMD  run CMD inside NODE (or "login")
#   cluster.sh down DIR         stop everything up started, by pid, and
#                               delete its namespaces
#   cluster.sh reap             delete the namespaces of clusters whose owner
#                               process is gone (a test killed by a timeout)
#
# Namespaces are named rnr-OWNER-NODE, OWNER being the pid of the process
# that asked for the cluster ($CLUSTER_OWNER, default up's parent), so two
# clusters never share a name and a leftover one can be told from a live one.
# The addresses (10.77.0.0/24) exist only inside these namespaces.
set -u

# ns_of DIR NODE: the namespace name of NODE.
ns_of() {
    echo "$(cat "$1/prefix")-$2"
}

# daemon_pid DIR NODE: the pid whose namespaces are NODE's (slurmctld for
# login, else the node's slurmd).
daemon_pid() {
    if [ "$2" = login ]; then cat "$1/slurmctld.pid"; else cat "$1/slurmd-$2.pid"; fi
}

# stop_pids PID...: SIGTERM to each, then SIGKILL to those still running
# 10 s later.
stop_pids() {
    kill "$@" 2>/dev/null
    cl_tries=200
    while [ "$cl_tries" -gt 0 ]; do
        cl_alive=""
        for cl_pid in "$@"; do
            kill -0 "$cl_pid" 2>/dev/null && cl_alive="$cl_alive $cl_pid"
        done
        [ -z "$cl_alive" ] && return 0
        cl_tries=$((cl_tries - 1))
        sleep 0.05
    done
    kill -9 $cl_alive 2>/dev/null
    return 0
}

# kill_namespace NS: SIGKILL every process in NS, again while new ones
# appear (a slurmd forking a step), for at most 10 s; then delete NS.
kill_namespace() {
    cl_tries=200
    cl_pids=$(ip netns pids "$1" 2>/dev/null)
    while [ -n "$cl_pids" ] && [ "$cl_tries" -gt 0 ]; do
        kill -9 $cl_pids 2>/dev/null
        cl_tries=$((cl_tries - 1))
        sleep 0.05
        cl_pids=$(ip netns pids "$1" 2>/dev/null)
    done
    ip netns delete "$1" 2>/dev/null
}

cluster_up() {
    cl_dir=$1
    shift
    cl_owner=${CLUSTER_OWNER:-$PPID}
    cl_prefix="rnr-$cl_owner"
    mkdir -p "$cl_dir/state" "$cl_dir/log" "$cl_dir/munge" || return 1
    chmod 700 "$cl_dir/munge"
    echo "$cl_prefix" >"$cl_dir/prefix"
    echo "$*" >"$cl_dir/nodes"
    cl_login="$cl_prefix-login"
    # The bridge lives in the login namespace; each node gets one end of a
    # veth pair (eth0 inside it) and an address 10.77.0.(10 + its place).
    ip netns add "$cl_login" || return 1
    ip -n "$cl_login" link set lo up &&
        ip -n "$cl_login" link add br0 type bridge &&
        ip -n "$cl_login" addr add 10.77.0.1/24 dev br0 &&
        ip -n "$cl_login" link set br0 up || return 1
    cl_place=0
    cl_conf_nodes=""
    for cl_node in "$@"; do
        cl_place=$((cl_place + 1))
        cl_ns="$cl_prefix-$cl_node"
        cl_addr="10.77.0.$((10 + cl_place))"
        ip netns add "$cl_ns" &&
            ip -n "$cl_ns" link set lo up &&
            ip -n "$cl_login" link add "veth-$cl_node" type veth peer name eth0 netns "$cl_ns" &&
            ip -n "$cl_login" link set "veth-$cl_node" master br0 up &&
            ip -n "$cl_ns" addr add "$cl_addr/24" dev eth0 &&
            ip -n "$cl_ns" link set eth0 up || return 1
        cl_conf_nodes="$cl_conf_nodes
NodeName=$cl_node NodeHostname=$cl_node NodeAddr=$cl_addr CPUs=${CLUSTER_CPUS_PER_NODE:-1} State=UNKNOWN"
        mkdir -p "$cl_dir/spool/$cl_node" "$cl_dir/tmp/$cl_node"
    done
    # One munged for every node: its socket is a path all of them see (a
    # path socket does not belong to a network namespace).
    dd if=/dev/urandom of="$cl_dir/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$cl_dir/munge/munge.key"
    nsenter --net="/run/netns/$cl_login" munged --socket="$cl_dir/munge/munge.socket" \
        --key-file="$cl_dir/munge/munge.key" --pid-file="$cl_dir/munged.pid" \
        --log-file="$cl_dir/log/munged.log" --seed-file="$cl_dir/munge/munged.seed" \
        --force 2>"$cl_dir/log/munged.err" || return 1
    cl_node_list=$(echo "$*" | tr ' ' ',')
    # Per-node spool, pid, log and TmpFS (%n): PMIx makes a directory per
    # step in TmpFS on every node of the step, and one /tmp shared by the
    # nodes would collide. linuxproc and task/none: no cgroups to set up.
    cat >"$cl_dir/slurm.conf" <<EOF
ClusterName=rnrtest
SlurmctldHost=login(10.77.0.1)
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$cl_dir/munge/munge.socket,cred_expire=10
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$cl_dir/state
SlurmdSpoolDir=$cl_dir/spool/%n
TmpFS=$cl_dir/tmp/%n
SlurmctldPidFile=$cl_dir/slurmctld.pid
SlurmdPidFile=$cl_dir/slurmd-%n.pid
SlurmctldLogFile=$cl_dir/log/slurmctld.log
SlurmdLogFile=$cl_dir/log/slurmd-%n.log
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
SlurmdTimeout=30
MailProg=/bin/true
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
PlugStackConfig=$cl_dir/plugstack.conf$cl_conf_nodes
PartitionName=main Nodes=$cl_node_list Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    : >"$cl_dir/plugstack.conf"
    export SLURM_CONF="$cl_dir/slurm.conf"
    # nsenter, not `ip netns exec`: that one remounts /sys, and slurmd then
    # fails to read its cgroups. unshare --uts gives each its own hostname.
    nsenter --net="/run/netns/$cl_login" unshare --uts \
        sh -c 'hostname login && exec slurmctld -i' 2>"$cl_dir/log/slurmctld.err" || return 1
    for cl_node in "$@"; do
        nsenter --net="/run/netns/$cl_prefix-$cl_node" unshare --uts \
            sh -c "hostname $cl_node && exec slurmd -N $cl_node" 2>"$cl_dir/log/slurmd-$cl_node.err" || return 1
    done
    # Ready when every node is idle (slurmctld wrote its pid file by then).
    cl_count=$#
    cl_tries=1200  # 60 s
    while [ "$cl_tries" -gt 0 ]; do
        if [ -s "$cl_dir/slurmctld.pid" ]; then
            cl_idle=$(cluster_on "$cl_dir" login sinfo -h -o '%t %D' 2>/dev/null | awk '$1 == "idle" { print $2 }')
            [ "$cl_idle" = "$cl_count" ] && return 0
        fi
        cl_tries=$((cl_tries - 1))
        sleep 0.05
    done
    echo "cluster: the nodes are not idle after 60 s:" >&2
    cluster_on "$cl_dir" login sinfo -N >&2
    tail -5 "$cl_dir"/log/*.log >&2
    return 1
}

cluster_on() {
    cl_on_dir=$1
    cl_on_pid=$(daemon_pid "$1" "$2") || return 1
    shift 2
    SLURM_CONF="$cl_on_dir/slurm.conf" nsenter -t "$cl_on_pid" -n -u -- "$@"
}

cluster_down() {
    cl_dir=$1
    [ -s "$cl_dir/prefix" ] || return 0
    export SLURM_CONF="$cl_dir/slurm.conf"
    # Jobs first, with SIGKILL, so no slurmstepd outlives its slurmd.
    if [ -s "$cl_dir/slurmctld.pid" ] && kill -0 "$(cat "$cl_dir/slurmctld.pid")" 2>/dev/null; then
        cl_jobs=$(cluster_on "$cl_dir" login squeue -h -o %A 2>/dev/null)
        [ -n "$cl_jobs" ] && cluster_on "$cl_dir" login scancel --full --signal=KILL $cl_jobs 2>/dev/null
        cl_tries=200
        while [ -n "$(cluster_on "$cl_dir" login squeue -h -o %A 2>/dev/null)" ] && [ "$cl_tries" -gt 0 ]; do
            cl_tries=$((cl_tries - 1))
            sleep 0.05
        done
    fi
    # The slurmds together, then slurmctld and munged.
    cl_pids=$(cat "$cl_dir"/slurmd-*.pid 2>/dev/null)
    [ -n "$cl_pids" ] && stop_pids $cl_pids
    cl_pids=$(cat "$cl_dir/slurmctld.pid" "$cl_dir/munged.pid" 2>/dev/null)
    [ -n "$cl_pids" ] && stop_pids $cl_pids
    # What is left in a namespace (a slurmstepd, a task) is killed with it.
    for cl_node in $(cat "$cl_dir/nodes") login; do
        kill_namespace "$(ns_of "$cl_dir" "$cl_node")"
    done
    rm -f "$cl_dir"/slurmd-*.pid "$cl_dir/slurmctld.pid" "$cl_dir/munged.pid" "$cl_dir/prefix"
    return 0
}

# Namespaces rnr-PID-* whose PID no longer runs: a cluster whose test was
# killed before it could take it down.
cluster_reap() {
    for cl_ns in $(ip netns list 2>/dev/null | awk '{ print $1 }' | grep '^rnr-[0-9]*-'); do
        cl_owner=$(echo "$cl_ns" | cut -d- -f2)
        kill -0 "$cl_owner" 2>/dev/null || kill_namespace "$cl_ns"
    done
}

if [ -z "${CLUSTER_SOURCED:-}" ]; then
    cl_usage="usage: cluster.sh up DIR NODE... | on DIR NODE CMD... | down DIR | reap"
    case "${1:-}:$#" in
    up:1 | up:2 | on:1 | on:2 | on:3 | down:1 | reap:[!1]*) ;;
    up:* | on:* | down:2 | reap:1)
        cl_command=$1
        shift
        "cluster_$cl_command" "$@"
        exit $?
        ;;
    esac
    echo "$cl_usage" >&2
    exit 2
fi
