"""One wake-up timer for Snakemake's scheduling loop, instead of one more per pass.

Snakemake's job scheduler (``snakemake.scheduling.job_scheduler.JobScheduler``, 9.x) ends
every pass of its loop that leaves jobs waiting by arming a ``threading.Timer`` that wakes
the loop after the job-rate limiter's timespan (1 s by default).  Every wake-up is itself a
pass that arms another timer, and so is every job that finishes: after j jobs have
finished, j timers keep waking the loop, j passes per second.  Each pass stats the input
files of every ready job (``update_input_sizes``), so the scheduler's own CPU grows with the
square of the run: a noticeable share of a whole default run's CPU with ``--cores 1``.

``one_wakeup()`` replaces that method by one that arms a timer only when none is pending
that fires as early: the loop still wakes within the timespan of every pass that asked
for it (so the rate limiter and queue inputs behave as before), but once, not j times.  A
timer counts as pending until its callback starts; it marks itself fired *before* it
releases the loop, so the pass it causes always arms the next one.

The Snakefile applies it (``workflow/rules/runtime.smk``); a Snakemake without the method
is left alone.  Written against Snakemake 9 (9.27 installed when this was checked); the
tests in ``tests/test_scheduler.py`` fail when the private method is gone or Snakemake's
own no longer arms a timer per call: then this module and its call can go.
"""

from __future__ import annotations

import threading
import time

_LOCK = threading.Lock()


class _Wakeup(threading.Timer):
    """A timer that releases the scheduler's semaphore once, after ``delay`` seconds."""

    def __init__(self, delay: float, semaphore):
        super().__init__(delay, self._fire)
        self.due = time.monotonic() + delay
        self.fired = False
        self._semaphore = semaphore

    def _fire(self):
        self.fired = True
        self._semaphore.release()


def _schedule_once(scheduler, delay: float) -> None:
    """Wake ``scheduler``'s loop within ``delay`` seconds, arming a timer only if needed."""
    with _LOCK:
        pending = getattr(scheduler, "_nbcert_wakeup", None)
        if pending is not None and not pending.fired and pending.due <= time.monotonic() + delay:
            return
        timer = _Wakeup(delay, scheduler._open_jobs)
        scheduler._nbcert_wakeup = timer
    timer.start()


def one_wakeup(scheduler_class=None) -> bool:
    """Give Snakemake's JobScheduler one pending wake-up timer; True if applied."""
    if scheduler_class is None:
        try:
            from snakemake.scheduling.job_scheduler import JobScheduler as scheduler_class
        except ImportError:
            return False
    if not hasattr(scheduler_class, "_schedule_reevalutation"):
        return False
    scheduler_class._schedule_reevalutation = _schedule_once
    return True
