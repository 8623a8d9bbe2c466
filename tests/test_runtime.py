"""The Snakemake behaviours that common works around are still there: each
test fails when Snakemake no longer behaves so and the workaround can go (the scheduler's
are in test_scheduler.py; that the workarounds work is tested in test_job.py and by the
kill -9 test in test_pipeline.py)."""

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("snakemake")
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def test_snakemakes_benchmark_misses_what_a_job_used_between_its_samples():
    """Why jobs write their own benchmark files (common.job): Snakemake's
    ``benchmark:`` samples the job's process tree while it waits for it (as its shell
    runner does), each process's own CPU, so a process that starts and ends between two
    samples (here 40 short Python processes, one after another) is not counted."""
    from snakemake.benchmark import benchmarked

    job = (
        "import subprocess, sys\nfor _ in range(40): subprocess.run([sys.executable, '-c', 'pass'])"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([sys.executable, "-c", job])
    with benchmarked(proc.pid) as record:
        proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert record.cpu_time < used / 2, (record.cpu_time, used)


def test_a_job_outlives_a_snakemake_killed_with_kill_9(tmp_path):
    """Why jobs watch their Snakemake process (common.parent): killed with
    ``kill -9``, Snakemake leaves its running jobs behind."""
    (tmp_path / "Snakefile").write_text(
        'rule all:\n    output: "done"\n    shell: "echo $$ > job.pid; exec sleep 60"\n'
    )
    snakemake = subprocess.Popen(
        [str(SNAKEMAKE), "--cores", "1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pid_file = tmp_path / "job.pid"
    try:
        for _ in range(600):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.1)
        job = int(pid_file.read_text())
        time.sleep(0.5)
        snakemake.send_signal(signal.SIGKILL)
        snakemake.wait()
        time.sleep(1)
        assert Path(f"/proc/{job}").exists(), "the job died with Snakemake: the watchdog can go"
    finally:
        if snakemake.poll() is None:
            snakemake.kill()
        if pid_file.exists() and pid_file.read_text().strip():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
