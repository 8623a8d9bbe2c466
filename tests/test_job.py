"""A job's own benchmark record (common.job): the kernel's counters, read as it ends,
where Snakemake's ``benchmark:`` sampled the job from its own process."""

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from common import job
from common.timing import read_benchmark


def _spin(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def test_usage_counts_cpu_wall_and_a_peak_already_freed():
    before = job.usage()
    big = np.ones(40_000_000)  # 320 MB, written
    _spin(0.3)
    del big
    after = job.usage()
    assert after["cpu_time"] - before["cpu_time"] >= 0.28  # os.times counts in 10 ms ticks
    assert after["s"] - before["s"] >= 0.28
    assert after["max_rss"] >= 300  # the high-water mark stays after the array is freed


def test_a_job_started_by_a_large_process_reports_its_own_peak():
    big = np.ones(60_000_000)  # 480 MB here, as Snakemake's process holds its own
    code = "from common import job; print(job.usage()['max_rss'])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    del big
    assert float(out) < 300  # ru_maxrss of such a child can carry its parent's size


RUN = """
import sys
from snakemake.iocontainers import Namedlist
from nbcert.errors import InputError
from common import job

log = Namedlist(fromdict={"log": sys.argv[1], "benchmark": sys.argv[2]})
snakemake = type("Snakemake", (), {"log": log})()

def main(snakemake):
    import numpy as np
    big = np.ones(30_000_000)  # 240 MB
    print("ran")
    if len(sys.argv) > 3:
        raise InputError("a damaged file")

job.run_job(snakemake, main)
"""


def test_run_writes_the_rules_benchmark_log_after_main(tmp_path):
    bench = tmp_path / "benchmarks" / "certify" / "x.tsv"
    subprocess.run([sys.executable, "-c", RUN, str(tmp_path / "x.log"), str(bench)], check=True)
    assert (tmp_path / "x.log").read_text() == "ran\n"
    header, row = bench.read_text().splitlines()
    assert header.split("\t") == list(job.BENCHMARK_COLUMNS)
    record = read_benchmark(bench)
    assert record["stage"] == "certify" and record["max_rss_mb"] >= 230
    assert 0 < record["cpu_seconds"] and 0 < record["seconds"] < 60
    assert Path(bench).stat().st_mode & 0o777 != 0o600  # published as any output is


def test_a_failed_job_records_what_it_cost_too(tmp_path):
    bench = tmp_path / "x.tsv"
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(tmp_path / "x.log"), str(bench), "fail"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stderr == "nbcert: error: a damaged file\n"
    assert read_benchmark(bench)["max_rss_mb"] >= 230
