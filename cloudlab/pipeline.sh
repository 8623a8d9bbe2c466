#!/usr/bin/env bash
# The pipeline run on node0, started detached by startup.sh (never by hand needed):
#   pipeline.sh REPO WORK STATE NODES TARGET CONFIG
# Runs Snakemake in WORK (one node: every core, but a timed job alone on the node; several:
# through the Slurm profile, a job on whole cores of its own), keeps WORK/STATUS up to date
# from its log, and at the end archives results/ and the logs into WORK/nbcert-results.tar.gz
# and copies that to /proj/<project>/nbcert/ where the experiment's project folder exists
# (the node's own disks are wiped when the experiment ends).  Writes STATE/pipeline.done
# or STATE/pipeline.failed, which startup.sh reads: a finished run is not started again.
set -euo pipefail

REPO=$1 WORK=$2 STATE=$3 NODES=$4 TARGET=$5 CONFIG=$6
STATUS=$WORK/STATUS
LOG=$WORK/logs/pipeline.log
ARCHIVE=$WORK/nbcert-results.tar.gz

# (never fatal: this runner must outlive any hiccup to write the end of the run)
status() { python3 "$REPO/cloudlab/status.py" "$STATUS" "$1" "$LOG" "${2:-}" || true; }

project_dir() {  # /proj/<project> of this experiment, if it exists (NBCERT_PROJECT_DIR wins)
    if [[ -n ${NBCERT_PROJECT_DIR:-} ]]; then
        echo "$NBCERT_PROJECT_DIR"
        return
    fi
    # node0.<experiment>.<project>, in Emulab's boot folder or the host's full name
    local name project
    name=$(cat /var/emulab/boot/nickname 2>/dev/null || hostname -f 2>/dev/null || true)
    project=$(cut -d. -f3 <<< "$name")
    [[ -n $project && -d /proj/$project ]] && echo "/proj/$project"
}

copy_out() {  # the archive to PROJECT/nbcert/, named by experiment and time; prints where
    local dir exp copy
    dir=$(project_dir) || return 0
    [[ -n $dir && -d $dir ]] || return 0
    exp=$(cut -d. -f2 <<< "$(cat /var/emulab/boot/nickname 2>/dev/null || hostname -f 2>/dev/null)")
    copy=$dir/nbcert/nbcert-results-${exp:-$(hostname -s)}-$(date -u +%Y%m%d-%H%M%S).tar.gz
    if mkdir -p "$dir/nbcert" && cp "$ARCHIVE" "$copy.tmp" && mv -f "$copy.tmp" "$copy"; then
        echo "== $(date -u '+%F %T') UTC: results archive copied to $copy" >> "$LOG"
        echo "$copy"
    else
        echo "nbcert pipeline: warning: could not copy $ARCHIVE to $dir/nbcert/" >> "$LOG"
    fi
}

finish() {  # $1: snakemake's exit code
    local rc=$1
    status archiving
    # results/, the rules' logs (the pipeline log and the jobs' benchmark files among them), the start-up log
    local parts=(results logs)
    cp -f "$STATE/startup.log" logs/startup-node0.log 2>/dev/null || true
    [[ -d .snakemake/log ]] && parts+=(.snakemake/log)
    [[ -d .snakemake/slurm_logs ]] && parts+=(.snakemake/slurm_logs)
    local copy=
    if tar -czf "$ARCHIVE.tmp" "${parts[@]}"; then
        mv -f "$ARCHIVE.tmp" "$ARCHIVE"
        copy=$(copy_out)
    else
        echo "nbcert pipeline: error: could not write $ARCHIVE" >> "$LOG"
        rc=1
    fi
    if [[ $rc -eq 0 && -s results/report.md || $rc -eq 0 && $TARGET == paper && -s results/paper.md ]]; then
        status done "${copy:+results copied to $copy}"
        rm -f "$STATE/pipeline.failed"
        touch "$STATE/pipeline.done"
    else
        status failed "snakemake exited with $rc; see $LOG"
        touch "$STATE/pipeline.failed"
    fi
}

cd "$WORK"
mkdir -p logs
if [[ $NODES -gt 1 ]]; then
    # --slurm-status-command squeue: the cluster has no accounting database (sacct)
    args=(--profile "$REPO/profiles/slurm" --slurm-no-account --slurm-status-command squeue)
else
    # every core for the untimed jobs, but a timed job runs alone: each job takes one
    # node_share (the default), a timed one every share there is (workflow/rules/common.smk)
    shares=$(nproc)
    args=(--cores all --resources timed=1 "node_share=$shares" --default-resources node_share=1)
fi
# extra arguments (tests: shorter status-check intervals), word-split on purpose
read -r -a extra <<< "${NBCERT_SNAKEMAKE_ARGS:-}"
cmd=("$REPO/.venv/bin/snakemake" -s "$REPO/Snakefile" "$TARGET" --configfile "$REPO/$CONFIG"
     --rerun-incomplete "${args[@]}" "${extra[@]}")

# A run killed with the machine (a reboot) leaves Snakemake's lock behind; startup.sh has
# checked that no pipeline is running, so it is stale.
"$REPO/.venv/bin/snakemake" -s "$REPO/Snakefile" --configfile "$REPO/$CONFIG" --unlock >> "$LOG" 2>&1 || true
{ echo "== $(date -u '+%F %T') UTC on $(hostname): ${cmd[*]}"; } >> "$LOG"
status running
"${cmd[@]}" >> "$LOG" 2>&1 &
pid=$!
echo "$pid" > "$STATE/snakemake.pid"
while kill -0 "$pid" 2>/dev/null; do
    status running
    sleep "${NBCERT_STATUS_SECONDS:-15}"
done
rc=0
wait "$pid" || rc=$?
echo "== $(date -u '+%F %T') UTC: snakemake exited with $rc" >> "$LOG"
finish "$rc"
