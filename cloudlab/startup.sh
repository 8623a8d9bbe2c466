#!/usr/bin/env bash
# CloudLab start-up of one node, run as root at every boot by profile.py's execute service:
#   startup.sh --index I --role controller|worker --nodes N --target all|paper --config FILE [--subnet A.B.C]
# One node: install, then run the pipeline.  Several nodes: node0 (controller) exports the
# work folder over NFS, makes the MUNGE key and slurm.conf and runs slurmctld; every node
# runs munged and slurmd; once all nodes are up node0 runs the pipeline through Slurm.
# Idempotent: a finished step leaves a marker, daemons already running are left alone, a
# pipeline running or done is not started again; a second start-up while one runs exits.
#
# Environment, for tests (CloudLab defaults in brackets):
#   NBCERT_REPO      the repository clone [the folder above this script, /local/repository]
#   NBCERT_WORK      the work folder: results, logs, STATUS; shared over NFS [/local/nbcert]
#   NBCERT_STATE     this node's own state: markers, lock, start-up log [/local/nbcert-node]
#   NBCERT_SLURM_DIR Slurm's spool, state and logs, a subfolder per node [/var/lib/nbcert-slurm]
#   NBCERT_PYTHON    the python that makes the venv [python3]
#   NBCERT_SKIP_APT=1  never call apt-get (it is skipped anyway when the packages are present)
#   NBCERT_APT_LOCK_SECONDS  how long apt-get is tried again while another apt or dpkg holds
#                    a lock, as apt-daily and unattended-upgrades do on a fresh boot [1800]
#   NBCERT_APT_RETRY_SECONDS the pause between two tries [10]
#   NBCERT_NO_NFS=1  the work folder is already shared (no export, no mount)
#   NBCERT_EXPORTS   the NFS exports file node0 adds the work folder to [/etc/exports]
#   NBCERT_NO_SYSTEMD=1  detach with setsid even where systemd runs
#   NBCERT_NODE_HARDWARE  this node's CPUs for slurm.conf, as in `slurmd -C` (e.g. "CPUs=2
#                    Boards=1 SocketsPerBoard=1 CoresPerSocket=1 ThreadsPerCore=2") [slurmd -C]
#   NBCERT_NODE_CPUS, NBCERT_NODE_MEM_MB  what this node offers Slurm instead: CPUs=N (one
#                    thread a core), and memory [slurmd -C's CPUs, 90 % of memory]
#   NBCERT_WAIT_SECONDS  how long to wait for the other nodes [1800]
#   NBCERT_DATA_MIRROR   a folder holding the raw data sets (else Kaggle), passed to the pipeline
#   NBCERT_SNAKEMAKE_ARGS  extra Snakemake arguments
#   NBCERT_INSTALL_ONLY=1  stop after the installation (tests install where PyPI is reachable,
#                    then start the node in a network namespace that reaches nothing else)
#   NBCERT_PROJECT_DIR  where node0's pipeline copies the results archive to, into nbcert/
#                    [/proj/<project> of this experiment, when it exists]
# The status file is written by the image's python3 (cloudlab/status.py needs 3.8), or by
# this script itself where that fails; the Python check comes before any stage.
set -euo pipefail

REPO=${NBCERT_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
WORK=${NBCERT_WORK:-/local/nbcert}
STATE=${NBCERT_STATE:-/local/nbcert-node}
SLURM_DIR=${NBCERT_SLURM_DIR:-/var/lib/nbcert-slurm}
PY=${NBCERT_PYTHON:-python3}
WAIT=${NBCERT_WAIT_SECONDS:-1800}
INDEX=0 ROLE=controller NODES=1 TARGET=all CONFIG=config.yaml SUBNET=10.10.1
COMMAND="bash $0 $*"

die() { echo "nbcert startup: error: $*" >&2; [[ -n ${LOGGING:-} ]] || exit 2; stage failed "$*"; exit 2; }
log() { echo "== $(date -u '+%F %T') node$INDEX: $*"; }

while [[ $# -gt 0 ]]; do
    case $1 in
        --index) INDEX=${2:-} ;;
        --role) ROLE=${2:-} ;;
        --nodes) NODES=${2:-} ;;
        --target) TARGET=${2:-} ;;
        --config) CONFIG=${2:-} ;;
        --subnet) SUBNET=${2:-} ;;
        *) die "unknown argument $1 (see the top of $0)" ;;
    esac
    shift 2 || die "$1 needs a value"
done
[[ $NODES =~ ^[0-9]+$ && $NODES -ge 1 ]] || die "--nodes must be a positive number, not '$NODES'"
[[ $INDEX =~ ^[0-9]+$ && $INDEX -lt $NODES ]] || die "--index must be 0..$((NODES - 1)), not '$INDEX'"
[[ $ROLE == controller && $INDEX -eq 0 || $ROLE == worker && $INDEX -gt 0 ]] \
    || die "--role must be controller for node0 and worker for the others, not '$ROLE' on node$INDEX"
[[ $TARGET == all || $TARGET == paper ]] || die "--target must be all or paper, not '$TARGET'"
[[ -n $CONFIG && $CONFIG != /* && /$CONFIG/ != */../* ]] \
    || die "--config must be a relative path inside the repository, not '$CONFIG'"
[[ $SUBNET =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--subnet must look like 10.10.1, not '$SUBNET'"
[[ $(id -u) -eq 0 ]] || die "run as root (the profile runs it with sudo)"

NAME=node$INDEX
CLUSTER=$WORK/cluster  # on the shared folder: the MUNGE key, slurm.conf, each node's hardware
mkdir -p "$STATE/done" "$STATE/run"

# One start-up at a time on this node; a second one (a re-run while the first installs) leaves.
exec 9> "$STATE/startup.lock"
if ! flock -n 9; then
    echo "nbcert startup: another start-up is running on this node (lock $STATE/startup.lock); leaving it to finish"
    exit 0
fi
exec >> "$STATE/startup.log" 2>&1
LOGGING=1
log "start-up: role $ROLE, $NODES node(s), target $TARGET, config $CONFIG (to run it again: sudo $COMMAND)"

# ------------------------------------------------------------------ helpers

# The status file is node0's to write (the pipeline's, once it runs or has run); other nodes only log.
stage() {
    if [[ $INDEX -eq 0 && -d $WORK && ! -e $STATE/pipeline.done ]] && ! pipeline_running; then
        python3 "$REPO/cloudlab/status.py" "$WORK/STATUS" "$1" "$WORK/logs/pipeline.log" "${2:-}" \
            || status_without_python "$@"
    fi
    log "stage: $1${2:+ ($2)}"
}

status_without_python() {  # STAGE [DETAIL]: STATUS where no python3 can write it (no jobs known)
    local error=-
    [[ $1 != failed ]] || error=${2:--}
    printf 'stage: %s\njobs: -\nlast_error: %s\nupdated: %s\n%s' "$1" "$error" \
        "$(date -u '+%F %T UTC')" "${2:+detail: $2
}" > "$WORK/STATUS.tmp$$" && mv -f "$WORK/STATUS.tmp$$" "$WORK/STATUS"
}

done_step() { [[ -e $STATE/done/$1 ]]; }
mark() { touch "$STATE/done/$1"; }

use_systemd() { [[ -z ${NBCERT_NO_SYSTEMD:-} && -d /run/systemd/system ]]; }

# running NAME: is the process this script started as NAME alive?
running() {
    if use_systemd; then
        systemctl is-active --quiet "nbcert-$1"
    else
        local pid
        pid=$(cat "$STATE/run/$1.pid" 2>/dev/null) || return 1
        [[ -n $pid && -r /proc/$pid/cmdline ]] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$2"
    fi
}

# detach NAME LOG CMD...: run CMD in the foreground of its own session (or systemd unit),
# away from this shell, its output appended to LOG.
detach() {
    local name=$1 out=$2
    shift 2
    if use_systemd; then
        systemctl reset-failed "nbcert-$name" 2>/dev/null || true
        systemd-run --quiet --unit "nbcert-$name" --collect --property=Delegate=yes \
            --setenv=HOME="${HOME:-/root}" --setenv=NBCERT_DATA_MIRROR="${NBCERT_DATA_MIRROR:-}" --setenv=NBCERT_PYTHON="$PY" \
            --setenv=NBCERT_SNAKEMAKE_ARGS="${NBCERT_SNAKEMAKE_ARGS:-}" \
            bash -c 'exec "$@" >> "$0" 2>&1' "$out" "$@"
    else
        setsid nohup "$@" >> "$out" 2>&1 < /dev/null 9>&- &
        echo $! > "$STATE/run/$name.pid"
    fi
}

wait_for() {  # wait_for WHAT TEST...: until TEST succeeds, at most $WAIT seconds
    local what=$1 end=$((SECONDS + WAIT))
    shift
    until "$@"; do
        [[ $SECONDS -lt $end ]] || die "timed out after ${WAIT}s waiting for $what"
        sleep 2
    done
}

# ------------------------------------------------------------------ steps

check_python() {  # before any stage: an image too old for the pipeline says so in STATUS
    local image="choose an image with Python 3.11 or newer, e.g. UBUNTU24-64-STD"
    command -v "$PY" > /dev/null || die "the pipeline needs Python 3.11 (this image has no $PY): $image"
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "the pipeline needs Python 3.11 (this image has $("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>&1 | head -n 1)) for numpy 2.4 and pandas 3: $image"
}

trust_repository() {  # the pipeline runs git as root in a clone the experiment's user owns:
    # without this git refuses it ("dubious ownership") and the report names no commit
    if ! command -v git > /dev/null; then
        log "no git on this image: the report will not name the commit"
        return
    fi
    git config --system --get-all safe.directory 2> /dev/null | grep -qxF "$REPO" \
        || git config --system --add safe.directory "$REPO"
}

# apt-get ARGS...: tried again while another apt or dpkg holds one of its locks (the package
# lists' or dpkg's: on a fresh boot apt-daily and unattended-upgrades hold them for minutes),
# for at most NBCERT_APT_LOCK_SECONDS; after any other failure (a mirror's hiccup) twice more.
apt_get() {
    local limit=${NBCERT_APT_LOCK_SECONDS:-1800} pause=${NBCERT_APT_RETRY_SECONDS:-10}
    local end=$((SECONDS + limit)) failures=0 out=$STATE/apt-get.out
    while ! apt-get -o DPkg::Lock::Timeout=60 "$@" > "$out" 2>&1; do
        cat "$out"
        if grep -qE "Could not get lock|Unable to lock|Unable to acquire the dpkg frontend lock" "$out"; then
            [[ $SECONDS -lt $end ]] \
                || die "apt-get $1: another apt or dpkg still held its lock after ${limit}s"
            log "apt-get $1: another apt or dpkg holds its lock (a fresh boot's daily apt run?); trying again in ${pause}s"
        else
            ((++failures <= 2)) || die "apt-get $1 failed 3 times: $(grep -E '^E:' "$out" | tail -n 1)"
            log "apt-get $1 failed; trying again in ${pause}s"
        fi
        sleep "$pause"
    done
    cat "$out"
}

install_packages() {
    local pkgs=()
    "$PY" -c 'import ensurepip, venv' 2> /dev/null || pkgs+=(python3-venv)  # Ubuntu's python3 lacks it
    if [[ $NODES -gt 1 ]]; then
        pkgs+=(munge slurmd slurm-client)
        if [[ $INDEX -eq 0 ]]; then pkgs+=(slurmctld); fi
        if [[ -z ${NBCERT_NO_NFS:-} ]]; then
            if [[ $INDEX -eq 0 ]]; then pkgs+=(nfs-kernel-server); else pkgs+=(nfs-common); fi
        fi
    fi
    local missing=() p
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [[ ${#missing[@]} -eq 0 ]] && return
    [[ -z ${NBCERT_SKIP_APT:-} ]] || die "packages missing and NBCERT_SKIP_APT is set: ${missing[*]}"
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -q
    apt_get install -y -q "${missing[@]}"
}

install_venv() {
    done_step venv && return
    cd "$REPO"
    "$PY" -m venv .venv
    .venv/bin/pip install -q -c constraints.txt uv
    .venv/bin/uv pip install -q --python .venv/bin/python --compile-bytecode -c constraints.txt -e '.[pipeline]'
    if [[ $NODES -gt 1 ]]; then
        .venv/bin/uv pip install -q --python .venv/bin/python -c constraints.txt snakemake-executor-plugin-slurm
    fi
    cd - > /dev/null
    mark venv
}

share_work() {  # node0 exports WORK over NFS, the others mount it at the same path
    [[ -n ${NBCERT_NO_NFS:-} ]] && return
    if [[ $INDEX -eq 0 ]]; then
        local line="$WORK $SUBNET.0/24(rw,sync,no_subtree_check,no_root_squash)" exports=${NBCERT_EXPORTS:-/etc/exports}
        grep -qxF "$line" "$exports" 2>/dev/null || echo "$line" >> "$exports"
        if use_systemd; then systemctl enable --now nfs-kernel-server; fi
        exportfs -ra
    else
        mountpoint -q "$WORK" && return
        wait_for "node0's NFS export of $WORK" mount -t nfs -o vers=4,hard "$SUBNET.1:$WORK" "$WORK"
    fi
}

node_hardware() {  # what this node offers Slurm, for node0's slurm.conf
    local cpus=${NBCERT_NODE_HARDWARE:-}
    local mem=${NBCERT_NODE_MEM_MB:-$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)}
    if [[ -z $cpus && -n ${NBCERT_NODE_CPUS:-} ]]; then cpus="CPUs=$NBCERT_NODE_CPUS"; fi
    if [[ -z $cpus ]]; then
        # sockets, cores and threads as slurmd sees them: with CR_Core a job gets whole
        # cores, so a hyperthread's sibling is never another job's
        cpus=$(slurmd -C 2>&1 | head -n 1 || true)
        [[ $cpus == *ThreadsPerCore=* ]] || die "slurmd -C does not describe this node's CPUs: $cpus"
        cpus=$(grep -oE '\b(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=[0-9]+' <<< "$cpus" | xargs)
    fi
    echo "NodeName=$NAME NodeAddr=$SUBNET.$((INDEX + 1)) $cpus RealMemory=$mem State=UNKNOWN" \
        > "$CLUSTER/$NAME.node.tmp"
    mv -f "$CLUSTER/$NAME.node.tmp" "$CLUSTER/$NAME.node"
}

all_nodes_reported() {
    local i
    for ((i = 0; i < NODES; i++)); do [[ -s $CLUSTER/node$i.node ]] || return 1; done
}

write_cluster_files() {  # node0: the MUNGE key and slurm.conf, on the shared folder
    if [[ ! -s $CLUSTER/munge.key ]]; then
        dd if=/dev/urandom bs=1 count=1024 of="$CLUSTER/munge.key.tmp" status=none
        chmod 400 "$CLUSTER/munge.key.tmp"
        mv "$CLUSTER/munge.key.tmp" "$CLUSTER/munge.key"
    fi
    stage "waiting for nodes" "each node reports its CPUs and memory in $CLUSTER"
    wait_for "every node's hardware in $CLUSTER" all_nodes_reported
    {
        echo "# written by nbcert's cloudlab/startup.sh on node0 for $NODES nodes"
        cat <<EOF
ClusterName=nbcert
SlurmctldHost=node0($SUBNET.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
SchedulerType=sched/backfill
# A job is given whole physical cores (both hyperthreads of each: no other job on the
# sibling) and bound to them: a timed job has its core to itself.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
TaskPlugin=task/affinity
ReturnToService=2
SlurmdTimeout=120
StateSaveLocation=$SLURM_DIR/controller
SlurmctldPidFile=$SLURM_DIR/controller/slurmctld.pid
SlurmctldLogFile=$SLURM_DIR/controller/slurmctld.log
SlurmdSpoolDir=$SLURM_DIR/%n/spool
SlurmdPidFile=$SLURM_DIR/%n/slurmd.pid
SlurmdLogFile=$SLURM_DIR/%n/slurmd.log
EOF
        cat "$CLUSTER"/node*.node | sort -V
        echo "PartitionName=nbcert Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    } > "$CLUSTER/slurm.conf.tmp"
    mv -f "$CLUSTER/slurm.conf.tmp" "$CLUSTER/slurm.conf"
}

start_munge() {
    local dir=$STATE/munge
    if use_systemd; then
        # this script runs the daemons itself: the packaged units would start them with
        # another key (and slurmd before slurm.conf exists), now and at every boot
        systemctl disable --now munge.service slurmd.service slurmctld.service 2> /dev/null || true
    fi
    if [[ ! -s /etc/munge/munge.key ]] || ! cmp -s "$CLUSTER/munge.key" /etc/munge/munge.key; then
        install -d -o munge -g munge -m 700 /etc/munge
        if [[ -s /etc/munge/munge.key && ! -e /etc/munge/munge.key.before-nbcert ]]; then
            cp -p /etc/munge/munge.key /etc/munge/munge.key.before-nbcert  # the package's own key, kept
        fi
        install -o munge -g munge -m 400 "$CLUSTER/munge.key" /etc/munge/munge.key
        if running munged munged; then kill "$(cat "$STATE/run/munged.pid")" || true; sleep 1; fi
    fi
    running munged munged && return
    install -d -o munge -g munge -m 755 /run/munge
    install -d -o munge -g munge -m 700 "$dir"
    detach munged "$STATE/munge.out" runuser -u munge -- munged --foreground --force \
        --key-file=/etc/munge/munge.key --seed-file="$dir/munge.seed" \
        --log-file="$dir/munged.log" --pid-file="$dir/munged.pid"
    wait_for "munged's socket" test -S /run/munge/munge.socket.2
}

start_slurm() {
    install -d /etc/slurm
    if [[ -e /etc/slurm/slurm.conf ]] && ! head -n 1 /etc/slurm/slurm.conf | grep -q "written by nbcert"; then
        die "/etc/slurm/slurm.conf belongs to another Slurm set-up (not written by nbcert); not overwriting it"
    fi
    cmp -s "$CLUSTER/slurm.conf" /etc/slurm/slurm.conf || install -m 644 "$CLUSTER/slurm.conf" /etc/slurm/slurm.conf
    # slurmd sets up its cgroup plugin even with proctrack/linuxproc; it makes its own
    # cgroups (its systemd unit, if any, is delegated them) rather than asking systemd
    printf 'CgroupPlugin=autodetect\nIgnoreSystemd=yes\n' > /etc/slurm/cgroup.conf
    if [[ $INDEX -eq 0 ]] && ! running slurmctld slurmctld; then
        install -d "$SLURM_DIR/controller"
        detach slurmctld "$SLURM_DIR/controller/slurmctld.out" slurmctld -D
    fi
    if ! running slurmd slurmd; then
        install -d "$SLURM_DIR/$NAME/spool"
        detach slurmd "$SLURM_DIR/$NAME/slurmd.out" slurmd -D -N "$NAME"
    fi
}

cluster_idle() {  # every node up (idle, or already running jobs)
    local up
    up=$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -cE ' (idle|mixed|allocated|completing)$') || return 1
    [[ $up -ge $NODES ]]
}

pipeline_running() { running pipeline "cloudlab/pipeline.sh"; }

start_pipeline() {
    if [[ -e $STATE/pipeline.done ]]; then
        log "the pipeline has finished already (marker $STATE/pipeline.done); not starting it again"
        return
    fi
    if pipeline_running; then
        log "the pipeline is running already; not starting it again"
        return
    fi
    rm -f "$STATE/pipeline.failed"
    export NBCERT_PYTHON=$PY
    detach pipeline "$STATE/pipeline.out" bash "$REPO/cloudlab/pipeline.sh" "$REPO" "$WORK" "$STATE" \
        "$NODES" "$TARGET" "$CONFIG"
    log "pipeline started; log $WORK/logs/pipeline.log, status $WORK/STATUS"
}

# ------------------------------------------------------------------ main

mkdir -p "$WORK"
if [[ $INDEX -eq 0 ]]; then mkdir -p "$WORK/logs"; fi
check_python
[[ -f $REPO/$CONFIG ]] || die "--config $CONFIG: no such file in $REPO"
stage installing
trust_repository
install_packages
install_venv
if [[ -n ${NBCERT_INSTALL_ONLY:-} ]]; then log "installed (NBCERT_INSTALL_ONLY): stopping here"; exit 0; fi
if [[ $NODES -gt 1 ]]; then
    stage "starting slurm"
    share_work
    install -d -m 700 "$CLUSTER"
    node_hardware
    if [[ $INDEX -eq 0 ]]; then write_cluster_files; fi
    wait_for "node0's slurm.conf and MUNGE key in $CLUSTER" test -s "$CLUSTER/slurm.conf" -a -s "$CLUSTER/munge.key"
    wait_for "every node in node0's slurm.conf" all_nodes_reported
    start_munge
    start_slurm
    if [[ $INDEX -eq 0 ]]; then
        stage "waiting for nodes" "slurmd on all $NODES nodes"
        wait_for "all $NODES nodes idle in sinfo" cluster_idle
    fi
fi
if [[ $INDEX -eq 0 ]]; then start_pipeline; fi
log "start-up done"
