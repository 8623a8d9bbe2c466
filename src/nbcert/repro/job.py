"""What every pipeline script does first: log to its log file, die with Snakemake, and
turn a user's mistake into one line.

``start(snakemake)`` redirects output to the rule's log, and asks the kernel to kill this
process when the Snakemake process that started it dies (``PR_SET_PDEATHSIG``): after a
``kill -9`` of Snakemake no job keeps running and writes its outputs later.
:func:`parent_alive` lets :func:`nbcert.repro.outputs.publish` refuse to publish in the
instant between the two deaths.  ``run(snakemake, main)`` calls ``main`` and reports the
errors a user can cause (a damaged or edited file, a bad data set) as one line, on the
terminal and in the log, with exit status 1.
"""

from __future__ import annotations

import os
import platform
import signal
import sys
import time

_PARENT: int | None = None
_STARTED = time.time()


def _die_with_parent() -> None:
    try:
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: publish() still refuses for an orphan
        pass


def start(snakemake=None) -> None:
    """Log to the rule's log and die with the Snakemake process that started this job."""
    global _PARENT, _STARTED
    _PARENT, _STARTED = os.getppid(), time.time()
    _die_with_parent()
    if os.getppid() != _PARENT:  # the parent died before the request took effect
        os._exit(1)
    if snakemake is not None and snakemake.log:
        sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)


def parent_alive() -> bool:
    """False for a job whose Snakemake process has gone (it was re-parented)."""
    return _PARENT is None or os.getppid() == _PARENT


def stamp(table):
    """The table with where and when this job ran: ``host``, ``started`` and ``finished``
    (Unix seconds), so the report can check that timed jobs never overlapped on a host."""
    return table.assign(host=platform.node() or "unknown", started=_STARTED, finished=time.time())


def run(snakemake, main) -> None:
    """start(), then main(); a user-facing error becomes one line and exit status 1."""
    from ..encoding import InputError
    from .fetch import FetchError
    from .settings import ConfigError
    from .tables import TableError

    start(snakemake)
    try:
        main()
    except (InputError, TableError, ConfigError, FetchError) as e:
        line = "nbcert: error: " + " ".join(str(e).split())
        print(line)
        print(line, file=sys.__stderr__)
        raise SystemExit(1) from None
