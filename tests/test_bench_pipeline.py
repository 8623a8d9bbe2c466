"""The pipeline benchmark and what the report says about its own run: benchmark files read
and checked, the commit and library versions, and a measured run of the paper's part on the
test config (figures, not timing targets, are asserted: timings belong in the benchmark)."""

import json
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
from common import provenance
from common.errors import TableError
from common.timing import read_benchmark, stage_times
from conftest import MIRROR, ROOT, TEST_CONFIG

from benchmarks import pipeline as bench_pipeline

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path, s, rss, cpu):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{s}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n")
    return path


def test_stage_times_sum_jobs_per_stage(tmp_path):
    b = tmp_path / "benchmarks"
    files = [
        _bench(b / "certify/mushrooms/rep0.tsv", 2.5, 150.0, 2.0),
        _bench(b / "certify/mushrooms/rep1.tsv", 1.5, 250.0, 1.0),
        _bench(b / "check_data.tsv", 0.5, 90.0, "-"),
    ]
    t = stage_times(files).set_index("stage")
    assert t.loc["certify"].tolist() == [2, 4.0, 3.0, 250.0]
    assert (
        t.loc["check_data", "jobs"] == 1 and t.loc["check_data", "cpu_seconds"] == 0
    )  # "-": not measured


def test_the_stage_table_skips_a_job_that_never_ended(tmp_path):
    b = tmp_path / "benchmarks"
    _bench(b / "certify/mushrooms.tsv", 2.5, 150.0, 2.0)
    (b / "check_data.tsv").write_text("")  # a log file Snakemake made for a job that did not end
    assert bench_pipeline.stage_table(b).index.tolist() == ["certify"]


def test_a_damaged_benchmark_file_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "benchmarks/poison/x.tsv"
    bad.parent.mkdir(parents=True)
    bad.write_text("s\tcpu_time\n")
    with pytest.raises(TableError, match="benchmarks/poison/x.tsv: not a benchmark file"):
        read_benchmark(bad)
    _bench(bad, "fast", 1, 1)
    with pytest.raises(TableError, match="x.tsv: column 's' holds 'fast'"):
        read_benchmark(bad)


def test_provenance_names_the_commit_and_versions(tmp_path):
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    assert provenance.commit(ROOT).startswith(head) and len(head) == 40
    assert provenance.commit(tmp_path).startswith("unknown")
    v = provenance.versions()
    assert (
        list(v)[:4] == ["Python", "numpy", "pandas", "pyarrow"]
        and "not installed" not in v.values()
    )


def test_the_constraints_file_pins_what_the_tests_need():
    pins = {
        line.split("==")[0].lower()
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    assert {
        "numpy",
        "pandas",
        "pyarrow",
        "scikit-learn",
        "scipy",
        "snakemake",
        "hypothesis",
        "dask",
        "uv",
    } <= pins


def test_the_benchmark_measures_a_run_of_the_papers_part(tmp_path):
    if not MIRROR.is_dir():
        pytest.skip(f"no data mirror at {MIRROR}")
    out, scratch = tmp_path / "bench.json", tmp_path / "new" / "scratch"  # made if new
    code = bench_pipeline.main(
        [
            "--targets",
            "paper",
            "--configfile",
            str(TEST_CONFIG),
            "--mirror",
            str(MIRROR),
            "--scratch",
            str(scratch),
            "--json",
            str(out),
            "--history",
            str(tmp_path / "history.csv"),
        ]
    )
    (run,) = json.loads(out.read_text())
    assert run["returncode"] == 0 and code in (0, 1)  # 1: a target missed (a busy machine)
    stages = {s["stage"]: s for s in run["stages"]}
    assert {
        "fetch",
        "discretize",
        "split",
        "perturb",
        "certify",
        "poison",
        "gather",
        "draw",
    } <= set(stages)
    assert "run_cleaning" not in stages  # the paper's part alone
    assert 0 < run["cpu_snakemake"] < run["cpu_total"] and run["peak_disk"] > 0
    assert stages["certify"]["jobs"] == 3 and all(s["max_rss_mb"] > 0 for s in stages.values())
    assert not list(scratch.glob("nbcert-bench-pipeline-*")), "the scratch clone is removed"
    history = pd.read_csv(tmp_path / "history.csv")
    assert set(history.stage) == set(stages) | {bench_pipeline.WHOLE}
    assert set(history.config) == {TEST_CONFIG.name} and set(history.target) == {"paper"}


def test_the_readme_mode_runs_the_readmes_first_command(tmp_path):
    line = bench_pipeline.readme_command(ROOT / "README.md")
    assert line.startswith("python3 -m venv .venv") and line.endswith("snakemake --cores 1")
    (tmp_path / "README.md").write_text(
        "# x\n\n```bash\n# 1. comment\nfirst command\n# 2.\nsecond\n```\n"
    )
    assert bench_pipeline.readme_command(tmp_path / "README.md") == "first command"


def test_snakemake_is_found_below_the_shell_that_runs_it():
    shell = subprocess.Popen(["bash", "-c", "bash -c 'exec -a /venv/bin/snakemake sleep 30'; true"])
    try:
        for _ in range(50):
            found = bench_pipeline._snakemake_below(shell.pid)
            if found:
                break
            time.sleep(0.1)
        assert found and found != shell.pid
        assert (
            bench_pipeline._snakemake_below(found) == found
        )  # a shell's last command may be the shell
        assert (
            (Path(f"/proc/{found}/cmdline").read_bytes().split(b"\0")[0]) == b"/venv/bin/snakemake"
        )
    finally:
        shell.kill()
        subprocess.run(["pkill", "-f", "/venv/bin/snakemake"])


def test_repeated_runs_are_summed_up_as_median_and_range(tmp_path):
    """--repeat N: one line per target with the jobs' CPU (from their benchmark files), the
    wall time and Snakemake's share as the median and range, and the machine."""
    import pandas as pd

    def run(target, wall, cpu, own, rc=0):
        stages = pd.DataFrame({"cpu_seconds": [cpu / 2, cpu / 2]})
        return bench_pipeline.Run(target, wall, cpu + own, own, 0, rc, stages, readme=True)

    runs = [run("all", 500, 460, 2), run("paper", 190, 166, 2), run("all", 960, 470, 3)]
    runs.append(run("all", 520, 455, 2, rc=1))
    lines = bench_pipeline.summary(runs, "a 2-core box")
    assert lines[0] == (
        "target all, 3 runs on a 2-core box: jobs' CPU 460 s (range 455 s-470 s), wall 8.7 min "
        "(range 8.3 min-16.0 min) (set-up included), Snakemake's own 0.4 % (range 0.4 %-0.6 %) "
        "(a run FAILED)"
    )
    assert lines[1].startswith("target paper, 1 run on a 2-core box: jobs' CPU 166 s, wall 3.2 min")
    with pytest.raises(SystemExit):
        bench_pipeline.main(["--repeat", "0"])


def _run(target="all", wall=500.0, mb=300.0, default=True, rc=0):
    stages = pd.DataFrame(
        {
            "jobs": [3, 1],
            "seconds": [300.0, 50.0],
            "cpu_seconds": [280.0, 40.0],
            "max_rss_mb": [mb, 90.0],
        },
        index=pd.Index(["certify", "draw"], name="stage"),
    )
    return bench_pipeline.Run(target, wall, 330.0, 10.0, 10**8, rc, stages, True, default, 0.5)


def test_the_targets_decide_the_exit_and_apply_where_they_were_set():
    """The wall targets hold for the default config only; a missed target or a failed run
    is a failure."""
    assert bench_pipeline.met(_run())
    assert not bench_pipeline.met(_run(wall=bench_pipeline.TARGETS["wall_s"]["all"] + 1))
    assert bench_pipeline.met(_run(wall=10**5, default=False))
    assert not bench_pipeline.met(_run(mb=bench_pipeline.TARGETS["job_mb"] + 1))
    assert not bench_pipeline.met(_run(rc=1))
    text = bench_pipeline.render(_run(wall=700))
    assert "wall time: 700 s (11.7 min) (target <= 600 s) MISSED" in text


def test_the_history_gives_the_expected_time_of_each_stage(tmp_path):
    """Every run is appended to the history, a row per stage and one for the whole run;
    --expected prints each target's last run of the default config, stage by stage."""
    path = tmp_path / "history.csv"
    assert "no measured run yet" in bench_pipeline.expected(path)
    bench_pipeline.append_history(path, _run(wall=900.0), "abc123 (dirty)", None)
    bench_pipeline.append_history(path, _run(wall=550.0), "def456", None)
    bench_pipeline.append_history(path, _run(wall=1.0), "fed789", Path("config/test.yaml"))
    history = pd.read_csv(path)
    assert len(history) == 9 and list(history.columns) == bench_pipeline.HISTORY_COLUMNS
    text = bench_pipeline.expected(path)
    assert "at def456" in text and "wall 550 s" in text and "abc123" not in text
    assert text.splitlines()[2].split() == ["certify", "3", "280.0", "300.0", "300"]
