"""The reproduction pipeline end to end on the small test config, from the mirror."""

import pandas as pd
import pytest

from conftest import snakemake


@pytest.fixture
def run(local_run):
    return local_run


def test_outputs_exist_and_are_not_empty(run):
    for num in (6, 7, 8, 9, 10):
        for ext in ("pdf", "png"):
            assert (run / f"results/figures/fig{num}.{ext}").stat().st_size > 1000
    report = (run / "results/report.md").read_text()
    for name in ("fetal_health", "bodyPerformance", "mushrooms"):
        assert f"| {name} | obtained |" in report
        assert (run / f"logs/fetch/{name}.log").exists()
    assert "19.5x" in report and "![fig10](figures/fig10.png)" in report


def test_beyond_the_paper_is_reported(run):
    report = (run / "results/report.md").read_text()
    assert "## Beyond the paper" in report
    for study, heading in (("poisoning_many", "### Poisoning many test points at once"),
                           ("counting", "### Counting in practice"), ("scaling", "### Scaling")):
        assert heading in report and f"figures/{study}.png" in report
        assert (run / f"results/figures/{study}.png").stat().st_size > 1000
    many = pd.read_csv(run / "results/tables/poisoning_many.csv")
    assert set(many.method) == {"union of OP", "greedy", "exact"}
    solved = many[many.method != "union of OP"].pivot(index=["dataset", "k"], columns="method", values="cells")
    assert (solved.exact <= solved.greedy).all()  # the exact program never returns more than greedy


def test_decision_tables_are_consistent(run):
    for name in ("fetal_health", "bodyPerformance", "mushrooms"):
        dec = pd.read_csv(run / f"results/tables/decision_{name}.csv")
        runs = dec[dec.method.isin(["AD", "Iterate", "Iterate+Index"])]
        assert len(runs) and (runs.robust + runs.nonrobust == runs.k).all()
        key = ["rep", "perturbation", "missing_rate", "k"]
        exact = runs[runs.method == "Iterate+Index"].set_index(key).robust
        assert exact.equals(runs[runs.method == "Iterate"].set_index(key).robust)
        ad = runs[runs.method == "AD"].set_index(key)
        assert (ad.robust >= exact).all()  # AD errs only towards "robust"
        assert (ad.ad_false_robust == ad.robust - exact).all()
        assert set(dec.perturbation) == {"uniform", "feature"} and set(dec.missing_rate) == {0.2, 0.6}


def test_op_poisons_fewest_cells(run):
    for name in ("fetal_health", "bodyPerformance", "mushrooms"):
        poi = pd.read_csv(run / f"results/tables/poisoning_{name}.csv")
        rate = poi.pivot(index="rep", columns="method", values="poisoning_rate")
        assert len(rate) == 2 and (rate.OP <= rate.SR).all() and (rate.OP <= rate.RP).all()


def test_rerun_does_nothing_and_recomputing_gives_the_same_tables(run):
    assert "Nothing to be done" in snakemake(run, "--cores", "1", "-n").stdout
    table = run / "results/tables/decision_mushrooms.csv"
    before = pd.read_csv(table).drop(columns="seconds")
    poison = pd.read_csv(run / "results/tables/poisoning_mushrooms.csv").drop(columns="seconds")
    for f in (run / "results/runs/decision/mushrooms/rep1").iterdir():
        f.unlink()
    (run / "results/runs/poisoning/mushrooms/rep1.csv").unlink()
    proc = snakemake(run, "--cores", "1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    pd.testing.assert_frame_equal(pd.read_csv(table).drop(columns="seconds"), before)
    pd.testing.assert_frame_equal(pd.read_csv(run / "results/tables/poisoning_mushrooms.csv").drop(columns="seconds"), poison)


def test_snakemake_report_contains_the_figures(run):
    proc = snakemake(run, "--report", "report.html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (run / "report.html").read_text(errors="replace")
    assert all(f"fig{num}.png" in html for num in (6, 7, 8, 9, 10))
