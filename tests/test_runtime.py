"""The Snakemake behaviours that nbcert.repro.runtime works around are still there: each
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


def test_snakemakes_benchmark_misses_what_a_job_used_after_its_last_sample():
    """Why jobs write their own benchmark files (nbcert.repro.runtime.job): Snakemake's
    ``benchmark:`` samples the job's process tree while it waits for it (as its shell
    runner does), so a job's CPU after the last sample is not counted."""
    from snakemake.benchmark import benchmarked

    # idle past the sample at 0.5 s, then 0.3 s of CPU, done before the sample at 1 s
    burn = "import time\ntime.sleep(0.6)\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([sys.executable, "-c", burn])
    with benchmarked(proc.pid) as record:
        proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert used >= 0.3
    assert record.cpu_time < used - 0.1, (record.cpu_time, used)


def test_a_job_outlives_a_snakemake_killed_with_kill_9(tmp_path):
    """Why jobs watch their Snakemake process (nbcert.repro.runtime.parent): killed with
    ``kill -9``, Snakemake leaves its running jobs behind."""
    (tmp_path / "Snakefile").write_text(
        'rule all:\n    output: "done"\n    shell: "echo $$ > job.pid; exec sleep 60"\n')
    snakemake = subprocess.Popen([str(SNAKEMAKE), "--cores", "1"], cwd=tmp_path,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
