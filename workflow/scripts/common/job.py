"""What every pipeline script does first and last: log to its log file, die with Snakemake,
turn a user's mistake into one line, and record what the job cost.

``start(snakemake)`` redirects output to the rule's log and exits at once if the Snakemake
process that started the job is no longer among its ancestors (:mod:`common.parent`:
it was killed while this job started up); otherwise it asks the kernel to kill this job
when its parent dies.  So after a ``kill -9`` of Snakemake no job keeps running, and
:func:`common.outputs.publish` refuses to publish in the instant between the deaths.
``run_job(snakemake, main)`` calls ``main(snakemake)`` and reports the errors a user can cause (a damaged
or edited file, a bad data set) as one line, on the terminal and in the log, with exit
status 1.

**The job's benchmark file.**  As the job ends (``main`` done or failed), ``run_job`` writes
the rule's ``benchmark`` log (``log: ..., benchmark="logs/benchmarks/STAGE/JOB.tsv"``) in
the columns of Snakemake's own benchmark files: wall seconds ``s`` since this process
started (the interpreter's start and imports included), ``cpu_time`` (this process's and
its children's, user and system) and ``max_rss``, its peak resident MB.  All three are
the kernel's counters, read once, so they are exact.  Snakemake's ``benchmark:``
directive (Snakemake 8 and 9) instead samples the job's process tree from Snakemake's own
process (every 0.5 s at first, then every 30 s): that costs Snakemake CPU for every job, and
it misses whatever a job used after its last sample.  ``tests/test_runtime.py`` fails once
Snakemake's benchmark counts a job's whole CPU; then rules can use ``benchmark:`` again.
The peak is ``VmHWM``, this process's own high-water mark: ``ru_maxrss`` would carry
Snakemake's size, which a job started with ``vfork`` and ``exec`` inherits into it.
"""

from __future__ import annotations

import datetime
import os
import platform
import resource
import sys
import time

from common.errors import USER_ERRORS
from common.outputs import write_text
from common.parent import die_with_parent, parent_alive, proc_stat

from nbcert import InputError

_STARTED = _IMPORTED = time.time()
BENCHMARK_COLUMNS = ("s", "h:m:s", "max_rss", "cpu_time")


def start(snakemake=None) -> None:
    """Log to the rule's log and die with the Snakemake process that started this job."""
    global _STARTED
    _STARTED = time.time()
    die_with_parent()
    if not parent_alive():  # Snakemake died before the request above took effect
        os._exit(1)
    if snakemake is not None and snakemake.log:
        sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)


def stamp(table, started: float | None = None):
    """The table with where and when it was computed: ``host``, ``started`` (the job's
    start, or ``started`` for one of several runs in a job) and ``finished`` (Unix
    seconds), so the report can check that timed runs never overlapped on a host."""
    return table.assign(
        host=platform.node() or "unknown",
        started=_STARTED if started is None else started,
        finished=time.time(),
    )


def _seconds_alive() -> float:
    """Wall seconds since this process was created (before ``exec``: a shell that started
    Python counts), or since this module was imported where /proc cannot say."""
    fields = proc_stat()
    if fields is None or not hasattr(time, "CLOCK_BOOTTIME"):
        return time.time() - _IMPORTED
    return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")


def _peak_mb() -> float:
    """This process's peak resident MB (``VmHWM``), or its children's if larger."""
    kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        with open("/proc/self/status") as f:
            line = next(line for line in f if line.startswith("VmHWM:"))
        kb = max(kb, int(line.split()[1]))
    except (OSError, StopIteration, ValueError, IndexError):
        kb = max(kb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return kb / 1024


def usage() -> dict:
    """What this job has cost so far: wall seconds ``s``, ``cpu_time`` seconds (its own and
    its finished children's) and peak resident MB ``max_rss``."""
    t = os.times()
    return {
        "s": _seconds_alive(),
        "cpu_time": t.user + t.system + t.children_user + t.children_system,
        "max_rss": _peak_mb(),
    }


def benchmark_text(measured: dict) -> str:
    """``measured`` (:func:`usage`) as a benchmark file in Snakemake's columns."""
    row = (
        f"{measured['s']:.4f}",
        str(datetime.timedelta(seconds=int(measured["s"]))),
        f"{measured['max_rss']:.2f}",
        f"{measured['cpu_time']:.2f}",
    )
    return "\t".join(BENCHMARK_COLUMNS) + "\n" + "\t".join(row) + "\n"


def run_job(snakemake, main) -> None:
    """start(), then main(snakemake), then the rule's benchmark file (a failed job's too: what it
    cost); a user-facing error becomes one line and exit status 1."""
    start(snakemake)
    try:
        main(snakemake)
    except (InputError, *USER_ERRORS) as e:
        line = "nbcert: error: " + " ".join(str(e).split())
        print(line)
        print(line, file=sys.__stderr__)
        raise SystemExit(1) from None
    finally:
        bench = getattr(snakemake.log, "benchmark", None) if snakemake is not None else None
        if bench:
            write_text(benchmark_text(usage()), bench)


def timed(fn):
    """(result, wall seconds, CPU seconds) of fn()."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def times(t) -> dict:
    """The columns of a (wall, CPU) pair of seconds."""
    return {"seconds": t[0], "cpu_seconds": t[1]}
