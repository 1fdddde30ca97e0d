# shellcheck shell=bash
# A private Slurm cluster on this host for the slurm provider's tests (spec/slurm.md): one
# slurmctld and SLURM_TEST_NODES (default 4) slurmd "nodes" n1..nN (Debian's build runs several
# slurmd on one host), on free ports, with auth/none and every file (config, state, spool, logs,
# pids) in a private directory. Nothing of the host's Slurm configuration is read or changed.
#
# Use it two ways, as tests/integration/docker_engine.bash:
#   . cluster.bash; slurm_cluster_start DIR [PID]; ...; slurm_cluster_stop DIR
#   bash cluster.bash start DIR [PID]  (writes DIR/cluster.env) ... bash cluster.bash stop DIR
# With PID, a detached watchdog stops the cluster when that process dies without doing it.
# After start: SLURM_CONF (export it for every client command), SLURM_TEST_PARTITION,
# SLURM_TEST_NODES. Without slurmctld start fails, unless SANDMAN_SKIP_SLURM=1, in which case it
# prints SKIPPED and exits 77 (ctest counts that as skipped).

# _sc_free_base N: a port base with N+1 consecutive ports nobody listens on.
_sc_free_base() {
    local n=$1 base p busy
    for _ in $(seq 50); do
        base=$((20000 + RANDOM % 30000))
        busy=0
        for p in $(seq "$base" $((base + n))); do
            if ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
                busy=1
                break
            fi
        done
        [ $busy = 0 ] && { echo "$base"; return 0; }
    done
    return 1
}

# slurm_cluster_start DIR [PID]
slurm_cluster_start() {
    local dir=$1 watch=${2:-} nodes=${SLURM_TEST_NODES:-4} host base i
    if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
        if [ "${SANDMAN_SKIP_SLURM:-}" = 1 ]; then
            echo "SKIPPED: slurm-wlm is not installed (scripts/install-deps.sh installs it)"
            exit 77
        fi
        echo "slurm cluster: slurmctld/slurmd not found (scripts/install-deps.sh installs slurm-wlm)" >&2
        return 1
    fi
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
    dir=$(cd "$dir" && pwd)
    host=$(hostname -s)
    base=$(_sc_free_base "$nodes") || { echo "slurm cluster: no free ports" >&2; return 1; }
    cat >"$dir/slurm.conf" <<EOF
ClusterName=sandmantest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,default_queue_depth=1000
ReturnToService=2
KillWait=5
MinJobAge=300
NodeName=n[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((base + 1))-$((base + nodes))] CPUs=16 RealMemory=4000 State=UNKNOWN
PartitionName=test Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$dir/slurm.conf SLURM_TEST_PARTITION=test SLURM_TEST_NODES=$nodes
    # Background jobs are simple commands, so $! is the daemon itself (-D: no fork).
    slurmctld -D -i -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/run/ctld.pid"
    for i in $(seq "$nodes"); do
        slurmd -D -f "$SLURM_CONF" -N "n$i" >>"$dir/log/slurmd-n$i.out" 2>&1 &
        echo $! >"$dir/run/d-n$i.pid"
    done
    {
        echo "export SLURM_CONF=$SLURM_CONF"
        echo "export SLURM_TEST_PARTITION=test"
        echo "export SLURM_TEST_NODES=$nodes"
    } >"$dir/cluster.env"
    if [ -n "$watch" ]; then
        # The watchdog's own pid is kept so that stop ends it too.
        (
            exec </dev/null >/dev/null 2>&1
            while kill -0 "$watch" 2>/dev/null && [ -e "$dir/cluster.env" ]; do sleep 1; done
            [ -e "$dir/cluster.env" ] && bash "${BASH_SOURCE[0]}" stop "$dir"
        ) &
        echo $! >"$dir/run/watchdog.pid"
    fi
    # Ready when every node is idle (a fresh cluster takes well under a second; 30 s on a
    # loaded machine).
    local idle
    for _ in $(seq 300); do
        idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
        [ "$idle" -ge "$nodes" ] && return 0
        sleep 0.1
    done
    echo "slurm cluster: only $idle of $nodes nodes idle after 30 s; logs in $dir/log" >&2
    return 1
}

# slurm_cluster_stop DIR: cancels every job, stops the daemons by pid and removes the directory.
slurm_cluster_stop() {
    local dir=$1 f pid
    [ -d "$dir" ] || return 0
    if [ -e "$dir/slurm.conf" ] && [ -e "$dir/run/ctld.pid" ]; then
        # Cancelled jobs end their sandboxes in their scripts: give them the time to.
        SLURM_CONF=$dir/slurm.conf scancel -p test >/dev/null 2>&1 || true
        for _ in $(seq 100); do
            [ -z "$(SLURM_CONF=$dir/slurm.conf squeue -h -t running,completing,pending \
                -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    for f in "$dir"/run/d-*.pid "$dir/run/ctld.pid" "$dir/run/watchdog.pid"; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        [ "$pid" = "$BASHPID" ] || [ "$pid" = "$$" ] || kill "$pid" 2>/dev/null
    done
    for f in "$dir"/run/d-*.pid "$dir/run/ctld.pid"; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        kill -9 "$pid" 2>/dev/null
    done
    # A sandbox supervisor the jobs started that outlived them (proctrack/linuxproc does not
    # follow a detached process), with its state under this directory: end it (it removes its
    # cgroups and records why).
    for pid in $(pgrep -f sandman-supervisor); do
        case $(readlink "/proc/$pid/cwd" 2>/dev/null) in
        "$dir"/*) kill "$pid" 2>/dev/null ;;
        esac
    done
    for pid in $(pgrep -f sandman-supervisor); do
        case $(readlink "/proc/$pid/cwd" 2>/dev/null) in
        "$dir"/*) for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done ;;
        esac
    done
    # proctrack/cgroup (not used here, but a site's override may) leaves empty slurm_* cgroup
    # directories behind: remove them deepest first.
    find /sys/fs/cgroup -depth -type d -name 'slurm_n*' -empty -exec rmdir {} + 2>/dev/null
    rm -rf "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case ${1:-} in
    start) slurm_cluster_start "$2" "${3:-}" ;;
    stop) slurm_cluster_stop "$2" ;;
    *)
        echo "usage: cluster.bash start DIR [PID] | stop DIR" >&2
        exit 2
        ;;
    esac
fi
