"""The reproduction pipeline end to end on the small test config, from the mirror, and the
ways a user can damage, misconfigure or interrupt it (each numbered below)."""

import json
import os
import re
import signal
import stat
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import MIRROR, copy_run, job_counts, snakemake, table_rows, workdir_with_config
from exact_results import exact_answers
from report import overlapping_jobs

MACHINE = [
    "seconds",
    "cpu_seconds",
    "elapsed",
    "host",
    "started",
    "finished",
]  # differ between runs


@pytest.fixture
def run(local_run):
    return local_run


def _table(path):
    t = pd.read_csv(path)
    return t.drop(columns=[c for c in MACHINE if c in t] + [c for c in t if c.endswith("_mb")])


def _one_error_line(proc) -> str:
    lines = [
        line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("nbcert:")
    ]
    assert lines, (proc.stdout + proc.stderr)[-2000:]
    return lines[0]


def test_outputs_exist_and_are_not_empty(run):
    for num in (6, 7, 8, 9, 10):
        for ext in ("pdf", "png"):
            assert (run / f"results/figures/fig{num}.{ext}").stat().st_size > 1000
    report = (run / "results/report.md").read_text()
    for name in ("fetal_health", "bodyPerformance", "mushrooms"):
        assert [name, "obtained"] in [row[:2] for row in table_rows(report)]
        assert (run / f"logs/fetch/{name}.log").exists()
    assert "19.5x" in report and "![fig10](figures/fig10.png)" in report
    checked = re.search(r"(\d+) of (\d+) answers checked by nbcert's standalone checker", report)
    assert checked and checked[1] == checked[2] and int(checked[1]) > 0  # every answer holds
    wrong = report.split("## Where the paper is wrong")[1].split("\n## ")[0]
    assert "Section 5.1.3" in wrong and "OP needed fewer cells than the paper's pure" in wrong


def test_the_paper_target_makes_the_papers_part_alone(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    paper = (work / "results/paper.md").read_text()
    assert (
        paper.startswith("# nbcert reproduction report: the paper's part")
        and "Beyond the paper" not in paper
    )
    assert paper.split("## The paper's claims")[1] in (work / "results/report.md").read_text()
    for f in (
        "results/tables/certify_mushrooms.csv",
        "results/tables/cleaning_mushrooms.csv",
        "results/tables/scaling.csv",
    ):
        (work / f).unlink()
    # only the paper's jobs, not the studies' (nor the whole report) ...
    assert job_counts(snakemake(work, "-n", "paper").stdout) == {
        "gather_certify": 1,
        "draw_certify": 1,
        "report_paper": 1,
        "paper": 1,
    }
    # ... while the default target makes both
    assert {"run_cleaning", "gather_scaling", "report"} <= set(
        job_counts(snakemake(work, "-n").stdout)
    )


def test_the_report_says_what_computed_it_and_how_long_it_took(run):
    import common.provenance as prov

    report = (run / "results/report.md").read_text()
    versions = prov.versions()
    assert all(f"{name} {v}" in report for name, v in versions.items()), versions
    assert "Computed by: commit " in report
    took = [
        row[0] for row in table_rows(report.split("## How long this took")[1].split("\n## ")[0])
    ]
    for stage in (
        "fetch",
        "discretize",
        "split",
        "perturb",
        "certify",
        "poison",
        "draw",
        "run_cleaning",
        "run_scaling",
        "run_equivalents",
    ):
        assert stage in took
    assert "**all**" in took


def test_beyond_the_paper_is_reported(run):
    report = (run / "results/report.md").read_text()
    assert "## Beyond the paper" in report
    assert "### Cheaper equivalents of the paper's baselines" in report
    for study, heading in (
        ("poisoning_together", "### Poisoning test points together"),
        ("counting", "### Counting in practice"),
        ("scaling", "### Scaling"),
        ("cpclean", "### CPClean's benchmarks"),
    ):
        assert heading in report and f"figures/{study}.png" in report
        assert (run / f"results/figures/{study}.png").stat().st_size > 1000
    together = pd.read_csv(run / "results/tables/poisoning_together.csv")
    assert set(together.method) == {"union of OP", "greedy", "exact"}
    solved = together[together.method != "union of OP"].pivot(
        index=["dataset", "points"], columns="method", values="cells"
    )
    assert (solved.exact <= solved.greedy).all()  # the exact program never returns more than greedy


def test_cpclean_study_puts_nbcert_beside_cpclean(run):
    summary = pd.read_csv(run / "results/runs/cpclean/BabyProduct/real/summary.csv")
    nb = summary[summary.system == "nbcert"].set_index("worlds")
    assert set(summary.system) == {"nbcert", "CPClean"}
    assert set(nb.index) == {"domains", "candidates", "repairs"}
    assert (summary.validation_rows == 100).all()
    # every cell cleaned certifies every row some cleaning can certify, at most all dirty cells
    cells = nb.loc[["domains", "candidates"]]
    assert (cells.cells_cleaned <= cells.dirty_cells).all()
    assert (cells.lower_bound <= cells.cells_cleaned).all()
    rows = nb.loc["repairs"]
    assert rows.rows_cleaned <= rows.dirty_rows
    # a row taking one of its repairs whole is never less certain than its cells one by one
    assert rows.certain_before >= nb.loc["candidates", "certain_before"]
    curve = pd.read_csv(run / "results/runs/cpclean/BabyProduct/real/curve.csv")
    for (_, _), c in curve.groupby(["order", "worlds"]):
        assert c.rows.is_monotonic_increasing and c.certain.iloc[0] <= c.certain.iloc[-1]
    assert set(curve[curve.worlds == "repairs"].order) == {"policy", "random", "cpclean"}
    first = curve[curve.worlds != "repairs"].groupby(["order", "worlds"]).accuracy.first()
    assert first.nunique() == 1  # every curve starts from the default repair
    assert first.iloc[0] == nb.loc["domains", "accuracy_default"]


def test_certify_tables_are_consistent(run):
    for name in ("fetal_health", "bodyPerformance", "mushrooms"):
        dec = pd.read_csv(run / f"results/tables/certify_{name}.csv")
        runs = dec[dec.method.isin(["AD", "Iterate", "Iterate+Index"])]
        assert len(runs) and (runs.robust + runs.nonrobust == runs.points).all()
        key = ["rep", "perturbation", "missing_rate", "points"]
        exact = runs[runs.method == "Iterate+Index"].set_index(key).robust
        assert exact.equals(runs[runs.method == "Iterate"].set_index(key).robust)
        ad = runs[runs.method == "AD"].set_index(key)
        assert (ad.robust >= exact).all()  # AD errs only towards "robust"
        assert (ad.ad_false_robust == ad.robust - exact).all()
        assert set(dec.perturbation) == {"uniform", "feature"} and set(dec.missing_rate) == {
            0.2,
            0.6,
        }


def test_exact_answers_are_those_computed_before_the_pipeline_was_made_faster(run):
    """Robust tallies of Iterate and Iterate+Index, OP's cells, exact counts, cleaning with the truth
    minima and exact answers for points together, against those of commit e4f291c on this config
    (tests/data/exact_answers_test_config.csv, written by tests/exact_results.py); answers a
    solver's time limit cut short, in either run, are not compared."""
    old = pd.read_csv(
        Path(__file__).with_name("data") / "exact_answers_test_config.csv",
        dtype=str,
        keep_default_na=False,
    )
    new = exact_answers(run / "results").astype(str)
    both = old.merge(new, on=["table", "method", "key", "column"], suffixes=("_old", "_new"))
    differ = both[both.value_old != both.value_new]
    assert differ.empty, differ.to_string()
    assert len(both) >= 0.95 * len(old), "most exact answers are compared"
    assert set(old.table) <= {t.stem for t in (run / "results/tables").glob("*.csv")}


def test_op_poisons_fewest_cells(run):
    for name in ("fetal_health", "bodyPerformance", "mushrooms"):
        poi = pd.read_csv(run / f"results/tables/poisoning_{name}.csv")
        rate = poi.pivot(index="rep", columns="method", values="poisoning_rate")
        assert len(rate) == 2 and (rate.OP <= rate.SR).all() and (rate.OP <= rate.RP).all()


# 1. every output is a target: deleting one rebuilds it and exactly what depends on it


def test_deleting_a_table_or_a_run_rebuilds_exactly_what_depends_on_it(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    assert job_counts(snakemake(work, "-n").stdout) == {}
    downstream = {"draw_certify": 1, "report_paper": 1, "report": 1, "all": 1}
    table = work / "results/tables/certify_mushrooms.csv"
    before = _table(table)
    table.unlink()
    assert job_counts(snakemake(work, "-n").stdout) == {"gather_certify": 1, **downstream}
    (
        work / "results/runs/certify/mushrooms/rep1/uniform_0.2.csv"
    ).unlink()  # one job writes every run of the data set
    assert job_counts(snakemake(work, "-n").stdout) == {
        "certify": 1,
        "gather_certify": 1,
        "verify": 1,  # the certificates are held to the certify runs
        **downstream,
    }
    proc = snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    pd.testing.assert_frame_equal(_table(table), before)  # recomputed, the same but for the timings
    assert job_counts(snakemake(work, "-n").stdout) == {}


# 2. a damaged per-run file is never gathered


def test_a_damaged_run_file_is_refused_with_one_line(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    victim = work / "results/runs/certify/mushrooms/rep1/uniform_0.2.csv"
    victim.write_text("\n".join(victim.read_text().splitlines()[:3])[:-7] + "\n")
    report = (work / "results/report.md").read_text()
    proc = snakemake(work, "--cores", "1")
    assert proc.returncode != 0
    line = _one_error_line(proc)
    assert str(victim.relative_to(work)) in line and "Traceback" not in proc.stdout + proc.stderr
    assert (work / "results/report.md").read_text() == report


# 3. an edited raw file is refused, whatever is downstream


def test_an_edited_raw_file_is_refused_with_one_line(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    raw = work / "data/raw/mushrooms/mushrooms.csv"
    assert stat.S_IMODE(raw.stat().st_mode) & 0o222 == 0, "raw files are kept read-only"
    raw.chmod(0o644)
    raw.write_text("\n".join(raw.read_text().splitlines()[:3000]) + "\n")
    report = (work / "results/report.md").read_text()
    proc = snakemake(work, "--cores", "1")
    assert proc.returncode != 0
    line = _one_error_line(proc)
    assert "data/raw/mushrooms/mushrooms.csv" in line and "sha256" in line
    assert (work / "results/report.md").read_text() == report


# 4 + 5 + 9. a user's own data set with blank cells, run alone by its own config file


def _users_data(path: Path):
    df = pd.read_csv(MIRROR / "bodyPerformance.csv").iloc[:300]
    df.loc[::7, "gender"] = None  # a categorical column with blanks
    df.loc[3::11, "height_cm"] = None  # a numeric column with blanks
    df.to_csv(path, index=False)
    return int(df.drop(columns="class").isna().to_numpy().sum())


def test_a_users_data_set_with_blank_cells_runs_alone_from_its_own_config(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    blanks = _users_data(work / "mine.csv")
    cfg = {
        "repetitions": 1,
        "datasets": {
            "mine": {
                "local": str(work / "mine.csv"),
                "file": "mine.csv",
                "label": "class",
                "sha256": None,
                "n_bins": 4,
            }
        },
    }
    (work / "mine.yaml").write_text(yaml.safe_dump(cfg))
    (work / "config.yaml").write_text(
        (work / "test.yaml").read_text()
    )  # the workflow's own config, read first
    proc = snakemake(work, "--cores", "2", "--configfile", "mine.yaml", config=None)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = (work / "results/report.md").read_text()
    assert "`config.yaml`, `mine.yaml`" in report  # the config files this run used
    datasets = report.split("## Data sets")[1].split("## Machine")[0].split("Not used:")
    assert ["mine", "obtained"] in [row[:2] for row in table_rows(datasets[0])]
    assert "fetal_health" not in datasets[0]
    assert f"{blanks} of " in report and "complete rows" in report
    assert "certify_mushrooms.csv" in datasets[1]  # stale tables named, not used
    test = pd.read_csv(work / "data/splits/mine/rep0/test.csv")
    assert test.notna().all().all()  # test points come from complete rows
    disc = pd.read_csv(work / "data/discretized/mine.csv")
    assert disc.gender.isna().sum() > 0 and disc.height_cm.isna().sum() > 0  # blanks stay missing
    assert set(disc.height_cm.dropna()) <= {f"bin{i}" for i in range(4)}
    assert set(pd.read_csv(work / "results/tables/certify_mine.csv").dataset) == {"mine"}


def test_only_selects_data_sets(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    (work / "results/runs/certify/fetal_health/rep0/uniform_0.2.csv").unlink()
    (work / "results/runs/certify/mushrooms/rep0/uniform_0.2.csv").unlink()
    counts = job_counts(snakemake(work, "-n", "--config", "only=[mushrooms]").stdout)
    assert counts["certify"] == 1 and counts["gather_certify"] == 1


# 6. params are hashed without regard to key order; fetch reruns only for its source


def _reorder(obj):
    return {k: _reorder(obj[k]) for k in reversed(list(obj))} if isinstance(obj, dict) else obj


def test_key_order_changes_nothing_and_n_bins_does_not_refetch(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    cfg = yaml.safe_load((work / "test.yaml").read_text())
    (work / "test.yaml").write_text(yaml.safe_dump(_reorder(cfg), sort_keys=False))
    assert job_counts(snakemake(work, "-n").stdout) == {}
    # where a file is looked for and what to do without one never fetch it again
    (work / "test.yaml").write_text(
        yaml.safe_dump({**cfg, "on_unavailable": "fail", "data_mirror": "/elsewhere"})
    )
    assert job_counts(snakemake(work, "-n").stdout) == {}
    cfg["datasets"]["mushrooms"]["n_bins"] = 4
    (work / "test.yaml").write_text(yaml.safe_dump(cfg))
    counts = job_counts(snakemake(work, "-n").stdout)
    assert counts.get("discretize") == 1 and "fetch" not in counts


# 7. impossible configs are refused at once, in one line naming the key


@pytest.mark.parametrize(
    "change, key",
    [
        ({"missing_rates": [1.0]}, "missing_rates.0"),
        ({"datasets": {"mushrooms": {"drop": ["class"]}}}, "datasets.mushrooms.drop"),
        ({"subsample": 20}, "subsample"),
        (
            {"datasets": {"my data/set": {"kaggle": "a/b", "file": "x.csv", "label": "y"}}},
            "datasets",
        ),
        ({"datasets": {"mushrooms": {"n_bins": 1}}}, "datasets.mushrooms.n_bins"),
    ],
)
def test_impossible_configs_fail_at_once_in_one_line(tmp_path, change, key):
    work = workdir_with_config(tmp_path)
    cfg = yaml.safe_load((work / "test.yaml").read_text())
    for k, v in change.items():
        if k == "datasets" and "mushrooms" in v:
            cfg["datasets"]["mushrooms"].update(v["mushrooms"])
        elif k == "datasets":
            cfg["datasets"].update(v)
        else:
            cfg[k] = v
    (work / "test.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "-n")
    lines = [
        line
        for line in (proc.stdout + proc.stderr).strip().splitlines()
        if not line.startswith("Using workflow specific profile")
    ]  # Snakemake's own notice
    assert proc.returncode != 0 and len(lines) == 1, lines
    assert lines[0].startswith("nbcert: config error: " + key)


# 8. kill -9 of Snakemake: the README's recovery works, killed jobs write nothing later


def _job_processes(work: Path) -> list:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if f"{work}/.snakemake/scripts" in line]


def test_after_kill_9_recovery_works_and_killed_jobs_write_nothing(run, tmp_path):
    work = copy_run(run, tmp_path / "w")
    runs = work / "results/runs/certify"
    for f in runs.glob("*/rep*/*.csv"):
        f.unlink()
    env = {**os.environ, "NBCERT_DATA_MIRROR": str(MIRROR)}
    from conftest import ROOT, SNAKEMAKE

    proc = subprocess.Popen(
        [
            str(SNAKEMAKE),
            "-s",
            str(ROOT / "Snakefile"),
            "--configfile",
            "test.yaml",
            "--cores",
            "1",
        ],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline and not _job_processes(work):
        time.sleep(0.05)
    assert _job_processes(work), "no job started"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = time.time()
    time.sleep(4)
    assert not _job_processes(work), "a job kept running after Snakemake was killed"
    late = [f for f in runs.glob("*/rep*/*.csv") if f.stat().st_mtime > killed_at]
    assert not late, f"written after the kill: {late}"
    # the README's recovery: unlock, then the same command again
    assert snakemake(work, "--unlock").returncode == 0
    again = snakemake(work, "--cores", "2")
    assert again.returncode == 0, again.stderr[-3000:]
    assert job_counts(snakemake(work, "-n").stdout) == {}


# 9. newcomers: normal file permissions


def test_outputs_have_normal_permissions(run):
    for f in [
        run / "results/report.md",
        run / "results/tables/certify_mushrooms.csv",
        run / "results/figures/fig6.png",
        run / "data/discretized/mushrooms.csv",
    ]:
        assert stat.S_IMODE(f.stat().st_mode) & 0o044 == 0o044, f"{f} is not readable by others"


# 10 + 11. timed jobs never overlapped, and the report says so; time-limited rows are marked


def test_timed_jobs_never_overlap_and_the_report_says_so(run):
    tables = [pd.read_csv(f) for f in (run / "results/tables").glob("*.csv")]
    timed = [t for t in tables if "started" in t]
    assert len(timed) >= 8
    assert overlapping_jobs(timed) == 0
    assert "no two of them overlapped on a host" in (run / "results/report.md").read_text()


def test_time_limited_together_rows_are_marked(run):
    together = pd.read_csv(run / "results/tables/poisoning_together.csv")
    exact = together[together.method == "exact"]
    report = (run / "results/report.md").read_text()
    limited = int(exact.time_limited.sum())
    if limited:
        assert f"The time limit stopped the search on {limited} of them" in report
        assert report.count("no (time limit)") == int((exact.time_limited & ~exact.optimal).sum())
    else:
        assert "No search was stopped by the time limit" in report


# 12. no data set can be obtained: one line at once, and nothing else runs


def test_no_data_set_obtainable_fails_at_once_in_one_line(tmp_path):
    work = workdir_with_config(tmp_path)
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    no_network = {
        "NBCERT_DATA_MIRROR": str(empty),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "KAGGLEHUB_CACHE": str(tmp_path / "kh"),
    }
    t0 = time.time()
    proc = snakemake(work, "--cores", "2", env=no_network)
    assert proc.returncode != 0 and time.time() - t0 < 120
    line = _one_error_line(proc)
    assert "no data set could be obtained" in line and "mirror" in line
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not (work / "results/runs").exists(), "nothing but the fetches should have run"


def test_snakemake_report_contains_the_figures(run):
    proc = snakemake(run, "--report", "report.html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (run / "report.html").read_text(errors="replace")
    assert all(f"fig{num}.png" in html for num in (6, 7, 8, 9, 10))


# 13. Snakemake's own work per job stays small: no input hashed again per output


def test_no_input_checksums_are_recorded_and_a_newer_input_reruns(run, tmp_path):
    records = [json.loads(p.read_text()) for p in (run / ".snakemake/metadata").iterdir()]
    assert records and not any(r.get("input_checksums") for r in records)
    work = copy_run(run, tmp_path / "w")
    split = work / "data/splits/mushrooms/rep0/train.csv"
    os.utime(split)  # the same content, newer than what was made from it
    counts = job_counts(snakemake(work, "-n").stdout)
    assert counts["certify"] == 1 and counts["poison"] == 1 and "split" not in counts
