"""The one status file a CloudLab run is watched by: `python3 status.py STATUS STAGE [LOG]`.

Writes STATUS (atomically, so a reader never sees half a file) with the stage, the jobs done
of the total from Snakemake's last "N of M steps (P%) done" line in LOG, and the last error
line of LOG.  Only the standard library, and Python 3.8's: it runs with the image's python3 before the
venv exists, and on an image whose python3 is too old for the pipeline it is what says so.
"""

import datetime
import os
import re
import sys

STAGES = (
    "installing",
    "starting slurm",
    "waiting for nodes",
    "running",
    "archiving",
    "done",
    "failed",
)
PROGRESS = re.compile(r"(\d+) of (\d+) steps \((\d+(?:\.\d+)?%)\) done")
TOTAL = re.compile(r"^total\s+(\d+)\s*$")  # the 'Job stats' table printed before the first job
ERROR = re.compile(r"error|exception|traceback|failed|not found|denied|killed", re.IGNORECASE)
NOT_ERRORS = re.compile(r"steps \(\d|^\s*(Complete|Finished|Nothing)|failed: 0|errors?: 0")


def summary(lines):
    """(done, total, last error line) from a Snakemake log's lines; None where unknown."""
    done = total = None
    error = None
    for line in lines:
        line = line.rstrip("\n")
        m = PROGRESS.search(line)
        if m:
            done, total = int(m.group(1)), int(m.group(2))
            continue
        m = TOTAL.match(line.strip())
        if m and total is None:
            total, done = int(m.group(1)), 0
        if ERROR.search(line) and not NOT_ERRORS.search(line):
            error = line.strip()[:300]
    return done, total, error


def render(stage, done, total, error, detail=None):
    jobs = f"{done}/{total}" if total is not None else "-"
    # (not datetime.UTC: Python 3.11+, and this runs under an old image's python3 too)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")  # noqa: UP017
    out = [f"stage: {stage}", f"jobs: {jobs}", f"last_error: {error or '-'}", f"updated: {stamp}"]
    if detail:
        out.append(f"detail: {detail}")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 2 or argv[1] not in STAGES:
        sys.exit(
            "usage: status.py STATUS_FILE STAGE [LOG] [DETAIL]; STAGE one of " + ", ".join(STAGES)
        )
    path, stage = argv[0], argv[1]
    log = argv[2] if len(argv) > 2 and argv[2] else None
    detail = argv[3] if len(argv) > 3 else None
    done = total = error = None
    if log and os.path.exists(log):
        with open(log, errors="replace") as f:
            done, total, error = summary(f)
    if stage == "failed" and detail and not error:
        error = detail
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(render(stage, done, total, error, detail))
    os.replace(tmp, path)


if __name__ == "__main__":
    main(sys.argv[1:])
