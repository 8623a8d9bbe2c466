"""The scaling study (studies.scaling) and the synthetic generator it draws from."""

import types

import numpy as np
import pandas as pd
import pytest
from common.settings import study
from conftest import table_rows
from studies.scaling import blanking, plan, slopes, streamed
from studies.scaling import figure as scaling_figure
from studies.scaling import memory as scaling_memory
from studies.scaling import run as scaling
from studies.scaling.report import scaling as scaling_section

from nbcert import certification as decision
from nbcert import poisoning
from nbcert.reading.encoding import from_codes
from nbcert.synthetic import synthetic_codes, synthetic_table

CFG = study(
    "scaling", n_values=[3000], d=6, domain=4, labels=3, missing_rate=0.3, points=4, ad_worlds=5
)


@pytest.fixture(scope="module")
def small():
    return scaling.run_size(3000, CFG, 7, progress=lambda *a: None)


def test_run_size_times_every_method(small):
    assert set(scaling.METHODS) | set(scaling.SETUP) == set(small.method)
    timed = small[small.method.isin(scaling.METHODS)].set_index("method")
    assert (timed.skipped.fillna("") == "").all()
    assert (timed.seconds > 0).all() and (timed.seconds_per_point > 0).all()
    assert (timed.peak_mb >= 0).all() and (small.process_peak_mb > 0).all()
    assert (
        timed.loc["Iterate+Index", "points_done"]
        == timed.loc["Iterate", "points_done"]
        == CFG.points
    )
    assert 1 <= timed.loc["AD", "points_done"] <= CFG.points
    assert small.missing_rate.iloc[0] == pytest.approx(CFG.missing_rate, abs=0.01)


def test_iterate_and_index_agree(small):
    timed = small.set_index("method")
    assert timed.loc["Iterate", "robust"] == timed.loc["Iterate+Index", "robust"]
    _, X, y, T, _ = synthetic_table(3000, 6, 4, 3, seed=5, points=8)
    X[np.random.default_rng(0).random(X.shape) < 0.3] = -1
    X[:4] = np.arange(4)[:, None]  # keep every value observed
    enc = from_codes(X, y, np.full(6, 4))
    a, b = decision.certify_index(enc, T), decision.certify_iterate(enc, T)
    assert np.array_equal(a.robust, b.robust) and np.array_equal(a.label, b.label)


def test_op_needs_fewest_cells(small):
    by = small.set_index("method")
    assert (
        by.loc["OP", "possible"]
        and by.loc["OP", "verified"]
        and by.loc["SR (incremental)", "verified"]
    )
    cells = by.cells
    assert 0 < cells["OP"] <= cells["SR (incremental)"] and cells["OP"] <= cells["RP (incremental)"]


def _poison_case(n=10_000, d=20):
    _, X, y, T, _ = synthetic_table(n, d, 5, 3, seed=4, points=1)
    return from_codes(X, y, np.full(d, 5)), T[0]


def test_verify_poisoning_checks_the_cells():
    enc, t = _poison_case(2000, 8)
    op = poisoning.poison_encoded(enc, t, "op")
    assert op.num_cells > 1 and blanking.verify_poisoning(enc, t, op)
    fewer = poisoning.Poisoning(True, op.cells[:-1])  # OP is optimal: one cell fewer is not enough
    assert blanking.verify_poisoning(enc, t, fewer) is False


def test_rp_cells_make_the_point_non_robust():
    enc, t = _poison_case()
    rp = poisoning.poison_encoded(enc, t, "rp", seed=0)
    assert rp.num_cells >= poisoning.poison_encoded(enc, t, "op").num_cells
    assert blanking.verify_poisoning(enc, t, rp)


def test_budget_stops_per_point_methods_and_says_so(monkeypatch):
    """With a time budget Iterate starts no new point once it is spent and AD samples no
    new world (a point of AD can take a minute at 10^7 rows); the row says how many points
    were decided, how many worlds AD sampled and that they stopped, and the report says so."""
    clock = iter(range(0, 10**6, 10))  # every reading of the clock: 10 s later
    monkeypatch.setattr(scaling, "_clock", lambda: float(next(clock)))
    t = scaling.run_size(2000, CFG, 1, budget_s=25, progress=lambda *a: None)
    by = t.set_index("method")
    assert by.loc["Iterate", "stopped"] and by.loc["Iterate", "points_done"] == 3
    # AD: the deadline is read once, then once before each world: two worlds fit in 25 s
    assert by.loc["AD", "stopped"] and by.loc["AD", "worlds_sampled"] == 2
    assert (
        by.loc["AD", "points_done"] < CFG.points
        and (by.loc[["Iterate", "AD"], "budget_s"] == 25).all()
    )
    assert (
        by.loc["Iterate+Index", "points_done"] == CFG.points
        and not by.loc["Iterate+Index", "stopped"]
    )
    md = scaling_section(t)
    assert (
        "3 of 4, stopped after 25 CPU s" in md
        and "AD samples no new world" in md
        and "; 2 worlds, " in md
    )
    free = scaling.run_size(2000, CFG, 1, budget_s=None, progress=lambda *a: None).set_index(
        "method"
    )
    assert free.loc["AD", "points_done"] == CFG.points and not free.loc["AD", "stopped"]


@pytest.mark.parametrize("chunk_rows", [1, 7, 1 << 16])
def test_blanking_in_place_is_exact_and_uniform(chunk_rows):
    """round(rate * n * d) cells, none in the skipped rows, each column's missing code; over
    many draws every eligible cell equally often, whatever the chunk."""
    from scipy import stats

    n, d, rate, skip = 12, 3, 0.4, 2
    missing = np.array([9, 19, 29])
    hits = np.zeros((n, d), int)
    rng = np.random.default_rng(chunk_rows)
    for _ in range(800):
        X = np.zeros((n, d), np.int64)
        share = blanking.blank_in_place(
            X, missing, rate, rng, skip_rows=skip, chunk_rows=chunk_rows
        )
        blank = X == missing
        assert blank.sum() == round(rate * n * d) and share == pytest.approx(blank.mean())
        assert not blank[:skip].any() and ((X == 0) | blank).all()
        hits += blank
    assert stats.chisquare(hits[skip:].ravel()).pvalue > 1e-4


def _fake(slopes, ns=(10**4, 10**5, 10**6, 10**7)):
    rows = [
        {
            "n": n,
            "d": 20,
            "domain": 5,
            "labels": 3,
            "points": 32,
            "missing_rate": 0.4,
            "method": m,
            "family": plan.FAMILY[m],
            "points_done": 1,
            "seconds": 1e-7 * n**s,
            "seconds_per_point": 1e-7 * n**s,
            "cpu_seconds": 1e-7 * n**s,
            "cpu_per_point": 1e-7 * n**s,
            "peak_mb": 8e-6 * n,
            "estimate_added_mb": 1e-5 * n,
            "estimate_mb": 300 + 1e-5 * n,
            "cells": 10,
            "skipped": "",
            "table_mb": 160e-6 * n,
            "available_mb": 20000.0,
            "process_peak_mb": 4e-4 * n,
            "memory_method": "test",
        }
        for n in ns
        for m, s in slopes.items()
    ]
    return pd.DataFrame(rows)


def test_fit_recovers_known_slopes():
    fit = slopes.fit_slopes(_fake({"Iterate": 1.0, "OP": 1.3, "AD": 0.5})).set_index("method")
    assert fit.slope.to_dict() == pytest.approx({"Iterate": 1.0, "OP": 1.3, "AD": 0.5})
    assert fit.slope_largest.to_dict() == pytest.approx({"Iterate": 1.0, "OP": 1.3, "AD": 0.5})
    assert list(fit.index) == ["Iterate", "AD", "OP"]  # the methods' order
    noisy = _fake({"RP (incremental)": 2.0})
    noisy.loc[noisy.n == 10**5, "seconds_per_point"] *= 1.5
    assert 1.8 < slopes.fit_slopes(noisy).slope[0] < 2.2


def test_figure_and_markdown(tmp_path):
    table = _fake({m: 1.0 + 0.1 * i for i, m in enumerate(scaling.METHODS)})
    out = types.SimpleNamespace(pdf=tmp_path / "s.pdf", png=tmp_path / "s.png")
    scaling_figure.figure(table, out)
    assert out.pdf.stat().st_size > 1000 and out.png.stat().st_size > 1000
    md = scaling_section(table)
    assert md.startswith("### Scaling")
    rows = [row[:3] for row in table_rows(md)]
    assert ["method", "slope (all sizes)", "slope (two largest)"] in rows
    for i, m in enumerate(scaling.METHODS):
        assert [m, f"{1.0 + 0.1 * i:.2f}", f"{1.0 + 0.1 * i:.2f}"] in rows
    assert "n = 10^7" in md and "peak memory added" in md and "peaked at" in md


def test_markdown_of_a_real_run(small):
    md = scaling_section(small)
    assert (
        "### Scaling" in md
        and "OP" in [row[0] for row in table_rows(md)]
        and "AD points decided per size: 4 at n = 3,000" in md
    )


def test_missing_values_read_as_one_dash(small):
    """One size has no slope: the report writes it with the dash every section uses."""
    from common import formatting

    md = scaling_section(small)
    assert ["OP", "—", "—"] in [row[:3] for row in table_rows(md)]
    assert "-" not in [cell for row in table_rows(md) for cell in row]
    for value in (None, float("nan"), np.inf, pd.NA):
        assert (
            formatting.number(value)
            == formatting.count(value)
            == formatting.seconds(value)
            == formatting.megabytes(value)
            == formatting.DASH
        )


def test_generator_is_deterministic():
    a = synthetic_table(500, 5, 4, 3, seed=11, points=6)
    b = synthetic_table(500, 5, 4, 3, seed=11, points=6)
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x, y)
    c = synthetic_table(800, 5, 4, 3, seed=11, points=6)
    assert np.array_equal(a[3], c[3]) and np.allclose(
        a[0].cdf, c[0].cdf
    )  # same model and test points
    assert not np.array_equal(a[1], synthetic_table(500, 5, 4, 3, seed=12, points=6)[1])
    X, y = a[1], a[2]
    assert X.dtype == np.int8 and X.min() == 0 and X.max() == 3 and set(y) == {0, 1, 2}
    assert np.all(np.diff(y) >= 0)
    assert np.array_equal(synthetic_codes(400, 5, seed=3)[0], synthetic_codes(400, 5, seed=3)[0])


def test_planted_structure_makes_predictions_meaningful():
    model, X, y, T, ty = synthetic_table(5000, 10, 5, 3, seed=2, points=200)
    assert (model.predict(T) == ty).mean() > 0.8
    assert np.allclose(model.cdf[:, :, -1], 1)


def test_synthetic_codes_unchanged():
    """synthetic_codes draws exactly what it drew before the searchsorted rewrite."""
    n, d, domain, labels, seed = 700, 4, 5, 3, 9
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(labels, 5.0))
    y = np.sort(rng.choice(labels, size=n, p=prior))
    y[:labels] = np.arange(labels)
    y.sort()
    X = np.empty((n, d), np.intp)
    for j in range(d):
        cdf = np.cumsum(rng.dirichlet(np.full(domain, 0.5), size=labels), axis=1)
        X[:, j] = (rng.random(n)[:, None] > cdf[y]).sum(axis=1)
        X[:domain, j] = np.arange(domain)
    X2, y2 = synthetic_codes(n, d, domain, labels, seed)
    assert np.array_equal(np.minimum(X, domain - 1), X2) and np.array_equal(y, y2)


def test_impossible_size_is_skipped_with_a_reason():
    t = scaling.run_size(10**9, CFG, 0, mem_budget=10**6, progress=lambda *a: None)
    assert set(t.method) == set(scaling.METHODS) | set(scaling.SETUP)
    assert (
        t.seconds.isna().all()
        and t.skipped.str.contains("not run: building the tables needs about").all()
    )
    md = scaling_section(t)
    assert "Skipped:" in md and "No size could be run" in md


def test_method_over_budget_is_skipped_alone():
    n, d = 2000, CFG.d
    est = {m: scaling_memory.estimate_bytes(n, d, m) for m in scaling.METHODS}
    budget = int(sorted(est.values())[3] / plan.SAFETY)  # the setup and the smaller methods fit
    assert scaling_memory.estimate_bytes(n, d) <= plan.SAFETY * budget
    t = scaling.run_size(n, CFG, 0, mem_budget=budget, progress=lambda *a: None).set_index("method")
    over = {m for m in scaling.METHODS if est[m] > plan.SAFETY * budget}
    assert over and len(over) < len(scaling.METHODS)
    for m in scaling.METHODS:
        if m in over:
            assert t.loc[m, "skipped"].startswith("not run: needs about") and pd.isna(
                t.loc[m, "seconds"]
            )
        else:
            assert t.loc[m, "seconds"] > 0
    assert sorted(over)[0] in scaling_section(t.reset_index()).split("Skipped:")[1]


def test_memory_helpers():
    assert scaling.mem_available() > 0
    mb = scaling_memory.job_mem_mb(10**7, 20)
    assert all(
        mb * 10**6 >= scaling_memory.estimate_bytes(10**7, 20, m) for m in (None, *scaling.METHODS)
    )
    assert scaling_memory.estimate_bytes(
        10**7, 20, "RP (incremental)"
    ) > scaling_memory.estimate_bytes(10**7, 20, "Iterate+Index")
    assert (
        scaling_memory.job_mem_mb(10**8, 20, streamed=True) < 2000
    )  # a streamed size holds a batch


def test_streamed_size_runs_from_disk_and_says_what_it_skips(monkeypatch):
    t = streamed.run_streamed(5000, CFG, 7, progress=lambda *a: None).set_index("method")
    for m in ("Iterate+Index", "Monte-Carlo", "OP"):
        assert (
            t.loc[f"{m} (streamed)", "seconds"] > 0 and t.loc[f"{m} (streamed)", "call_peak_mb"] > 0
        )
    assert t.loc["OP (streamed)", "cells"] > 0
    assert t.loc["Iterate", "skipped"].startswith("not run: needs the table in memory")
    md = scaling_section(
        pd.concat(
            [scaling.run_size(2000, CFG, 7, progress=lambda *a: None), t.reset_index()],
            ignore_index=True,
        )
    )
    assert "Streamed from a generated CSV on disk" in md and "n = 5,000" in md
    monkeypatch.setattr(streamed, "csv_bytes_per_row", lambda d: 10**12)
    t = streamed.run_streamed(5000, CFG, 7, progress=lambda *a: None)
    assert t.seconds.isna().all() and t.skipped.str.contains("of disk").any()


def test_verify_poisoning_in_chunks_finds_repeats():
    enc, t = _poison_case(3000, 8)
    rp = poisoning.poison_encoded(enc, t, "rp", seed=1)
    assert isinstance(rp.cells, poisoning.Cells) and rp.num_cells > 10
    for chunk in (1, 7, 1 << 20):
        assert blanking.verify_poisoning(enc, t, rp, chunk=chunk)
        twice = poisoning.Poisoning(True, tuple(rp.cells) + (rp.cells[3],))
        assert blanking.verify_poisoning(enc, t, twice, chunk=chunk) is False
