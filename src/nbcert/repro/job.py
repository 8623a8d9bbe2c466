"""What every pipeline script does first: log to its log file, die with Snakemake, and
turn a user's mistake into one line.

The workflow records the Snakemake process's id in ``NBCERT_SNAKEMAKE_PID`` when it is
parsed (the main process, or the job step that runs a job on a cluster node), and every job
inherits it.  ``start(snakemake)`` redirects output to the rule's log and exits at once if
that process is no longer among its ancestors (it was killed while this job started up);
otherwise it asks the kernel to kill this job when its parent dies (``PR_SET_PDEATHSIG``).
So after a ``kill -9`` of Snakemake no job keeps running, and :func:`parent_alive` lets
:func:`nbcert.repro.outputs.publish` refuse to publish in the instant between the deaths.
``run(snakemake, main)`` calls ``main`` and reports the errors a user can cause (a damaged
or edited file, a bad data set) as one line, on the terminal and in the log, with exit
status 1.
"""

from __future__ import annotations

import os
import platform
import signal
import sys
import time

from ..errors import InputError
from .errors import USER_ERRORS

PID_VARIABLE = "NBCERT_SNAKEMAKE_PID"
_STARTED = time.time()


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def parent_alive() -> bool:
    """False for a job whose Snakemake process has gone: it is no longer an ancestor."""
    expected = os.environ.get(PID_VARIABLE)
    if not expected or not os.path.isdir("/proc/self"):
        return True  # not started by the workflow, or no /proc to ask: nothing to check
    pid = os.getpid()
    for _ in range(8):  # the parent, or a shell between it and this job
        pid = _parent_of(pid)
        if pid is None or pid <= 1:
            return False
        if pid == int(expected):
            return True
    return False


def _die_with_parent() -> None:
    try:
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except (OSError, AttributeError):  # not Linux: publish() still refuses for an orphan
        pass


def start(snakemake=None) -> None:
    """Log to the rule's log and die with the Snakemake process that started this job."""
    global _STARTED
    _STARTED = time.time()
    _die_with_parent()
    if not parent_alive():  # Snakemake died before the request above took effect
        os._exit(1)
    if snakemake is not None and snakemake.log:
        sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)


def now() -> float:
    """Unix seconds, for :func:`stamp`'s ``started`` of one run among several in a job."""
    return time.time()


def stamp(table, started: float | None = None):
    """The table with where and when it was computed: ``host``, ``started`` (the job's
    start, or ``started`` for one of several runs in a job) and ``finished`` (Unix
    seconds), so the report can check that timed runs never overlapped on a host."""
    return table.assign(host=platform.node() or "unknown", started=_STARTED if started is None else started,
                        finished=time.time())


def run(snakemake, main) -> None:
    """start(), then main(); a user-facing error becomes one line and exit status 1."""
    start(snakemake)
    try:
        main()
    except (InputError, *USER_ERRORS) as e:
        line = "nbcert: error: " + " ".join(str(e).split())
        print(line)
        print(line, file=sys.__stderr__)
        raise SystemExit(1) from None
