"""nbcert.repro.studies.cleaning: the "which cells to clean" experiment on a small table."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from nbcert.repro import job
from nbcert.repro.report.cleaning import cleaning as cleaning_section
from nbcert.repro.settings import CleaningSettings
from nbcert.repro.studies import cleaning as cs
from nbcert.repro.tables import read_table, write_table

CFG = CleaningSettings(repetitions=2, perturbations=("uniform", "feature"), missing_rates=(0.3, 0.6), points=5,
                       feature_share=0.4, batch_share=0.05, samples=32)


def _table(n=90, seed=0):
    """Four categorical features tied to a three-valued label (strings, as in the pipeline)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    cols = {}
    for j, k in enumerate((2, 3, 3, 4)):
        cols[f"f{j}"] = np.where(rng.random(n) < 0.7, y % k, rng.integers(0, k, n))
    df = pd.DataFrame({f: [f"v{v}" for v in c] for f, c in cols.items()})
    df["label"] = np.array(["a", "b", "c"])[y]
    return df


@pytest.fixture(scope="module")
def table():
    return cs.run(_table(), "label", "toy", 5, CFG, progress=lambda s: None)


def test_shape_and_columns(table):
    assert list(table.columns) == cs.COLUMNS
    runs = table.groupby(["perturbation", "missing_rate", "rep"])
    assert runs.ngroups == 2 * 2 * 2
    for _, run in runs:
        assert set(run.method) == set(cs.METHODS)
        assert run.groupby("method").final.sum().eq(1).all()  # one final row per method


def test_curves_start_at_zero_and_never_uncount_cells(table):
    for _, run in table[table.method != "offline"].groupby(["perturbation", "missing_rate", "rep", "method"]):
        assert run.cells.iloc[0] == 0 and run.cells.is_monotonic_increasing
        assert (run.cells <= run.missing_cells).all() and (run.certified <= run.points).all()
        assert run.final.iloc[-1]


def test_the_lower_bound_is_below_every_answer(table):
    need = cs.cells_needed(table)
    for _, run in need.groupby(["perturbation", "missing_rate", "rep"]):
        bound = run[run.method == "offline"].lower_bound.iloc[0]
        done = run.needed.dropna()
        assert bound is not None and (done >= bound).all(), run


def test_summary_report_and_figure(table, tmp_path):
    s = cs.summary(table)
    assert len(s) == 2 * 2 and {"vs_random", "vs_offline", "vs_bound", "half_of_random"} <= set(s.columns)
    path = tmp_path / "cleaning_toy.csv"
    write_table(job.stamp(table), path, "cleaning")  # the table the pipeline writes, checked
    text = cleaning_section(read_table(path, "cleaning"))
    assert text.startswith("### Which cells to clean") and "nbcert / random" in text and "Target 1" in text
    assert "No offline search was stopped by the time limit" in text
    out = SimpleNamespace(pdf=tmp_path / "c.pdf", png=tmp_path / "c.png")
    cs.figure(table, out)
    assert out.pdf.stat().st_size > 0 and out.png.stat().st_size > 0


def test_the_run_is_reproducible_except_for_times():
    small = replace(CFG, repetitions=1, perturbations=("uniform",), missing_rates=(0.5,))
    a = cs.run(_table(), "label", "toy", 5, small, progress=lambda s: None)
    b = cs.run(_table(), "label", "toy", 5, small, progress=lambda s: None)
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))


def test_only_complete_rows_take_part():
    """A cell the data set already lacks has no known truth: such rows are left out."""
    df = _table()
    df.loc[::9, "f1"] = np.nan
    small = replace(CFG, repetitions=1, perturbations=("uniform",), missing_rates=(0.5,))
    t = cs.run(df, "label", "toy", 5, small, progress=lambda s: None)
    complete = int(df.notna().all(axis=1).sum())
    assert (t.missing_cells == round(0.5 * (complete - small.points) * 4)).all()
