"""Whether the Snakemake process that started this job is still there.

The workflow records the Snakemake process's id in ``NBCERT_SNAKEMAKE_PID`` when it is
parsed (the main process, or the job step that runs a job on a cluster node), and every job
inherits it.  A job whose Snakemake process has gone (killed, say with ``kill -9``) no
longer has it among its ancestors: :func:`common.job.start` then exits at once, and
:func:`common.outputs.publish` refuses to publish.  :func:`die_with_parent` asks the
kernel to kill this job when its parent dies (``PR_SET_PDEATHSIG``).

A workaround: Snakemake (8 and 9) killed with ``kill -9`` cannot stop the jobs it started,
which would go on and write their outputs into a run that has ended.
``tests/test_runtime.py`` fails once Snakemake's jobs die with it, and this can go.
"""

from __future__ import annotations

import os
import signal

PID_VARIABLE = "NBCERT_SNAKEMAKE_PID"


def proc_stat(pid="self") -> list | None:
    """The fields of ``/proc/PID/stat`` after the command's name (the state first, then the
    parent's id; ``man 5 proc`` numbers them from 3), or None for no such process or no /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _parent_of(pid: int) -> int | None:
    fields = proc_stat(pid)
    return int(fields[1]) if fields else None


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


def die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies (Linux only)."""
    try:
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except (OSError, AttributeError):  # not Linux: publish() still refuses for an orphan
        pass
