"""Snakemake's scheduling loop keeps one wake-up timer pending (common.scheduler)."""

import threading
import time
from types import SimpleNamespace

import pytest
from common.scheduler import one_wakeup

job_scheduler = pytest.importorskip("snakemake.scheduling.job_scheduler")
SNAKEMAKES_OWN = job_scheduler.JobScheduler.__dict__.get(
    "_schedule_reevalutation"
)  # before any patch


def _wakeups():
    return [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]


@pytest.fixture
def scheduler():
    """Snakemake's own JobScheduler method, patched, on an object with the one attribute it uses."""
    assert one_wakeup(job_scheduler.JobScheduler)
    return SimpleNamespace(_open_jobs=threading.Semaphore(0))


def test_the_installed_snakemake_still_has_the_method_the_patch_replaces():
    assert SNAKEMAKES_OWN is not None, (
        "JobScheduler._schedule_reevalutation is gone: drop the patch"
    )
    assert SNAKEMAKES_OWN.__module__ == job_scheduler.__name__  # Snakemake's own, not the patch


def test_snakemakes_own_method_arms_one_timer_per_call():
    """What the patch works around: each call starts one more timer (when this fails,
    Snakemake has fixed it and common.scheduler can go)."""
    fake = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    before = len(_wakeups())
    for _ in range(5):
        SNAKEMAKES_OWN(fake, 0.2)
    assert len(_wakeups()) - before == 5
    for _ in range(5):
        assert fake._open_jobs.acquire(timeout=5)


def test_many_passes_arm_one_timer(scheduler):
    before = len(_wakeups())
    for _ in range(50):  # fifty passes of the loop within the timespan
        job_scheduler.JobScheduler._schedule_reevalutation(scheduler, 0.3)
    assert len(_wakeups()) - before == 1
    assert scheduler._open_jobs.acquire(timeout=5)  # the loop is woken ...
    assert not scheduler._open_jobs.acquire(timeout=0.6)  # ... once


def test_the_pass_a_wakeup_causes_arms_the_next(scheduler):
    for _ in range(3):
        job_scheduler.JobScheduler._schedule_reevalutation(scheduler, 0.05)
        assert scheduler._open_jobs.acquire(timeout=5)


def test_an_earlier_wakeup_is_not_skipped(scheduler):
    job_scheduler.JobScheduler._schedule_reevalutation(scheduler, 60)
    t0 = time.monotonic()
    job_scheduler.JobScheduler._schedule_reevalutation(scheduler, 0.05)
    assert scheduler._open_jobs.acquire(timeout=5)
    assert time.monotonic() - t0 < 30
    scheduler._nbcert_wakeup.cancel()
    for t in _wakeups():
        if getattr(t, "_semaphore", None) is scheduler._open_jobs:
            t.cancel()


def test_a_snakemake_without_the_method_is_left_alone():
    assert not one_wakeup(type("Scheduler", (), {}))
