"""studies.counting: the "counting in practice" experiment on small hand-made tables."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from common import job
from common.settings import study
from common.tables import write_table
from conftest import table_rows
from studies.counting import figure as counting_figure
from studies.counting import run as cs
from studies.counting import summary
from studies.counting.report import counting as counting_section

from nbcert.count import WorldCounts

CFG = study(
    "counting",
    subsample=10,
    missing_rates=[0.2, 0.5],
    points=6,
    worlds=4000,
    confidence=0.95,
    max_states=200_000,
)


def _table(n=60, seed=0):
    """Three small categorical features loosely tied to a two-valued label (strings, as in the pipeline)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    cols = {}
    for j, k in enumerate((2, 3, 3)):
        noise = rng.integers(0, k, n)
        cols[f"f{j}"] = np.where(rng.random(n) < 0.6, y % k, noise)
    df = pd.DataFrame({f: [f"v{v}" for v in c] for f, c in cols.items()})
    df["label"] = np.where(y == 1, "yes", "no")
    return df


@pytest.fixture(scope="module")
def table():
    return cs.run(_table(), "label", "toy", 11, CFG, progress=lambda s: None)


def _wide(t, col):
    return t.pivot_table(
        index=["missing_rate", "point"], columns="method", values=col, aggfunc="first"
    )


def test_shape_and_columns(table):
    assert list(table.columns) == cs.COLUMNS
    assert len(table) == len(CFG.missing_rates) * CFG.points * len(summary.METHODS)
    assert set(table.method) == set(summary.METHODS)
    assert (table.train_rows == CFG.subsample).all()
    assert table.groupby(["missing_rate", "point"]).majority_label.nunique().eq(1).all()


def test_batch_equals_exact(table):
    batch = table[table.method == "batch"]
    assert not batch.skipped.any(), "the toy problems are small enough for Algorithm 2"
    assert batch.batch_equals_exact.all()
    frac = _wide(table, "fraction")
    np.testing.assert_array_equal(frac["batch"], frac["exact"])
    ties = _wide(table, "tie_fraction")
    np.testing.assert_array_equal(ties["batch"], ties["exact"])
    assert table[table.method != "batch"].batch_equals_exact.isna().all()


def test_shares_are_fractions_and_timed(table):
    assert table.fraction.between(0, 1).all()
    assert (table.seconds > 0).all()
    mc = table[table.method == "montecarlo"]
    assert (mc.ci_low <= mc.fraction).all() and (mc.fraction <= mc.ci_high).all()
    assert table[table.method != "montecarlo"].ci_low.isna().all()
    exact = table[table.method == "exact"]
    assert (exact.all_ties == (exact.tie_fraction == 1)).all()


def test_exact_share_inside_montecarlo_interval(table):
    mc = table[table.method == "montecarlo"]
    inside = mc.exact_in_interval
    assert inside.notna().all()
    assert inside.sum() >= len(inside) - 1, mc[
        ["missing_rate", "point", "fraction", "ci_low", "ci_high"]
    ]
    assert (mc.outside_by[inside.astype(bool)] <= cs.INTERVAL_SLACK).all()


def test_tiny_state_limit_is_skipped_not_an_error():
    t = cs.run(_table(), "label", "toy", 11, CFG.replace(max_states=1), progress=lambda s: None)
    for method in ("batch", "exact"):
        rows = t[t.method == method]
        assert rows.skipped.any()
        assert rows[rows.skipped].seconds.isna().all()
        assert (rows[rows.skipped].elapsed > 0).all()
    assert t[t.method == "batch"].skipped.all()  # every toy point has several beta matrices
    mc = t[t.method == "montecarlo"]
    assert not mc.skipped.any() and mc.fraction.notna().all()
    both = t[(t.method == "exact") & t.skipped]
    skipped_points = set(zip(both.missing_rate, both.point))
    mc_on_skipped = mc[[(r, p) in skipped_points for r, p in zip(mc.missing_rate, mc.point)]]
    assert mc_on_skipped.exact_in_interval.isna().all()
    assert (mc_on_skipped.majority_from == "bounds").all()  # proven where exact was skipped


def test_same_seed_same_table():
    a = cs.run(_table(), "label", "toy", 11, CFG, progress=lambda s: None)
    b = cs.run(_table(), "label", "toy", 11, CFG, progress=lambda s: None)
    c = cs.run(_table(), "label", "toy", 12, CFG, progress=lambda s: None)
    timing = ["seconds", "elapsed"]
    pd.testing.assert_frame_equal(a.drop(columns=timing), b.drop(columns=timing))
    assert not a.drop(columns=timing).equals(c.drop(columns=timing))


def _tamper(monkeypatch, which: str, change) -> None:
    """Make method ``which``'s answer ``change(wc, first label)`` wherever the study counts."""
    real = cs.count_encoded

    def tampered(enc, T, alpha, method, **kw):
        out = real(enc, T, alpha, method=method, **kw)
        return [change(out[0], enc.labels[0])] if method == which else out

    monkeypatch.setattr(cs, "count_encoded", tampered)


def test_disagreeing_counts_raise(monkeypatch):
    def off_by_one(wc, lab):
        counts = {**wc.counts, lab: wc.counts[lab] + 1}
        return WorldCounts(wc.method, wc.total, wc.log10_total, counts, wc.ties - 1)

    _tamper(monkeypatch, "batch", off_by_one)
    with pytest.raises(AssertionError, match="Algorithm 2"):
        cs.run(_table(), "label", "toy", 11, CFG, progress=lambda s: None)


def test_too_many_rows_is_an_error_and_no_feature_loses_its_domain():
    with pytest.raises(ValueError, match="exceed"):
        cs.run(_table(n=12), "label", "toy", 1, CFG, progress=lambda s: None)
    full = cs.run(
        _table(), "label", "toy", 1, CFG.replace(missing_rates=(1.0,)), progress=lambda s: None
    )
    assert (full.features == 3).all()  # the perturbation keeps one observed cell per column


def test_figure_and_markdown_from_the_csv_tables(table, tmp_path):
    other = cs.run(
        _table(seed=3), "label", "toy2", 5, CFG.replace(max_states=3), progress=lambda s: None
    )
    paths = [tmp_path / "counting_toy.csv", tmp_path / "counting_toy2.csv"]
    write_table(job.stamp(table), paths[0], "counting")  # the tables the pipeline writes, checked
    write_table(job.stamp(other), paths[1], "counting")
    loaded = summary.load(paths)
    assert loaded.skipped.dtype == "boolean" and loaded.majority_label.map(type).eq(str).all()
    out = SimpleNamespace(
        pdf=tmp_path / "fig" / "counting.pdf", png=tmp_path / "fig" / "counting.png"
    )
    counting_figure.figure(loaded, out)
    for f in (out.pdf, out.png):
        assert f.stat().st_size > 1000
    md = counting_section(loaded)
    assert md.startswith("### Counting in practice")
    assert "**toy**" in md and "**toy2**" in md
    rows = [line for line in md.splitlines() if line.startswith("| 0.")]
    assert len(rows) == 2 * len(CFG.missing_rates)
    n = CFG.points
    toy_inside = int(table[table.method == "montecarlo"].exact_in_interval.sum())
    assert f"{toy_inside} of {n}" in rows[0] + rows[1] or f"{n} of {n}" in rows[0]
    assert "skipped" in md  # toy2's tiny state limit
    assert f"Of {2 * 2 * n} counting problems" in md


def test_the_legend_never_covers_the_notes_on_skipped_problems(table):
    """Notes on skipped methods sit below the time panels, outside every legend."""
    fig = counting_figure.draw_figure(table.assign(skipped=table.method == "batch"))
    fig.tight_layout()
    fig.canvas.draw()
    top = fig.axes[0]
    notes = [t for t in top.texts if "skipped" in t.get_text()]
    assert notes, "the panel notes which problems were skipped"
    box = notes[0].get_window_extent()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            assert not box.overlaps(legend.get_window_extent())
    assert box.y1 <= top.get_window_extent().y0  # below the axes


def test_proven_bounds_hold_every_exact_count(table):
    bounds = table[table.method == "bounds"]
    assert not bounds.skipped.any() and bounds.exact_in_bounds.all()
    assert (bounds.proven_low <= bounds.proven_high).all()
    assert bounds.width.between(0, 1).all() and (bounds.eps >= 0).all()
    exact = _wide(table, "fraction")["exact"]
    low, high = (_wide(table, c)["bounds"] for c in ("proven_low", "proven_high"))
    assert ((low <= exact + 1e-12) & (exact <= high + 1e-12)).all()


def test_a_proven_interval_missing_the_exact_count_raises(monkeypatch):
    def shifted(wc, lab):
        high = wc.proven[lab][1]
        return replace(wc, proven={**wc.proven, lab: (high + 1, high + 2)})

    _tamper(monkeypatch, "bounds", shifted)
    with pytest.raises(AssertionError, match="outside the proven intervals"):
        cs.run(_table(), "label", "toy", 11, CFG, progress=lambda s: None)


@pytest.fixture(scope="module")
def full_table():
    cfg = CFG.replace(full_points=2)
    return cfg, cs.run(_table(), "label", "toy", 11, cfg, progress=lambda s: None)


def test_full_size_part_proves_and_checks_montecarlo(full_table, tmp_path):
    cfg, t = full_table
    full = summary.full_size(t)
    assert set(full.method) == set(cs.FULL_METHODS)
    assert len(full) == len(cfg.missing_rates) * cfg.full_points * len(cs.FULL_METHODS)
    assert (full.train_rows == 60 - cfg.points).all()  # every row but the test points
    assert full[full.method == "bounds"].exact_in_bounds.isna().all()  # no exact at full size
    assert full[full.method == "montecarlo"].mc_contains_bounds.notna().all()
    assert (full[full.method == "bounds"].width <= cfg.width).all()
    main, tiny = summary.split_sizes(t)
    assert len(main) + len(tiny) + len(full) == len(t) and tiny.empty
    path = tmp_path / "counting_toy.csv"
    write_table(job.stamp(t), path, "counting")
    md = counting_section(summary.load([path]))
    assert "#### Proven bounds" in md and "At full size" in md
    rows = [row for row in table_rows(md) if row[0] == "toy"]
    assert len(rows) == len(cfg.missing_rates)
    assert all(f"{cfg.full_points} of {cfg.full_points}" in row for row in rows)
    fig = counting_figure.draw_figure(summary.load([path]))
    assert fig.axes[2].get_title() == "toy: proven bounds"
