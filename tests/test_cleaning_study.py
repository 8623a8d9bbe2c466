"""studies.cleaning: the "which cells to clean" experiment on a small table."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from common import job
from common.settings import study
from common.tables import read_table, write_table
from studies.cleaning import figure as cleaning_figure
from studies.cleaning import run as cs
from studies.cleaning import summary
from studies.cleaning.report import cleaning as cleaning_section

import nbcert
from nbcert import cleaning
from nbcert.cleaning import entropy as cpclean
from nbcert.kernel import log_factors, log_support, log_tolerance
from nbcert.params import as_alpha

CFG = study(
    "cleaning",
    repetitions=2,
    perturbations=["uniform", "feature"],
    missing_rates=[0.3, 0.6],
    points=5,
    feature_share=0.4,
    batch_share=0.05,
    worlds=32,
)


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
        assert set(run.method) == set(summary.METHODS)
        assert run.groupby("method").final.sum().eq(1).all()  # one final row per method


def test_curves_start_at_zero_and_never_uncount_cells(table):
    for _, run in table[table.method != "truth"].groupby(
        ["perturbation", "missing_rate", "rep", "method"]
    ):
        assert run.cells.iloc[0] == 0 and run.cells.is_monotonic_increasing
        assert (run.cells <= run.missing_cells).all() and (run.certified <= run.points).all()
        assert run.final.iloc[-1]


def test_the_lower_bound_is_below_every_answer(table):
    need = summary.cells_needed(table)
    for _, run in need.groupby(["perturbation", "missing_rate", "rep"]):
        bound = run[run.method == "truth"].lower_bound.iloc[0]
        done = run.needed.dropna()
        assert bound is not None and (done >= bound).all(), run


def test_summary_report_and_figure(table, tmp_path):
    s = summary.summary(table)
    assert len(s) == 2 * 2 and {"vs_random", "vs_truth", "vs_bound", "half_of_random"} <= set(
        s.columns
    )
    path = tmp_path / "cleaning_toy.csv"
    write_table(job.stamp(table), path, "cleaning")  # the table the pipeline writes, checked
    text = cleaning_section(read_table(path, "cleaning"))
    assert (
        text.startswith("### Which cells to clean")
        and "nbcert / random" in text
        and "Target 1" in text
    )
    assert "No search with the truth was stopped by the time limit" in text
    out = SimpleNamespace(pdf=tmp_path / "c.pdf", png=tmp_path / "c.png")
    cleaning_figure.figure(table, out)
    assert out.pdf.stat().st_size > 0 and out.png.stat().st_size > 0


def test_the_run_is_reproducible_except_for_times():
    small = CFG.replace(repetitions=1, perturbations=("uniform",), missing_rates=(0.5,))
    a = cs.run(_table(), "label", "toy", 5, small, progress=lambda s: None)
    b = cs.run(_table(), "label", "toy", 5, small, progress=lambda s: None)
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))


def test_only_complete_rows_take_part():
    """A cell the data set already lacks has no known truth: such rows are left out."""
    df = _table()
    df.loc[::9, "f1"] = np.nan
    small = CFG.replace(repetitions=1, perturbations=("uniform",), missing_rates=(0.5,))
    t = cs.run(df, "label", "toy", 5, small, progress=lambda s: None)
    complete = int(df.notna().all(axis=1).sum())
    assert (t.missing_cells == round(0.5 * (complete - small.points) * 4)).all()


# ----------------------------------------------------------------------------- the CPClean-style rival


def _dirty_state(seed=0):
    """The toy table with 35 % of its cells missing, among them every f3 cell holding v3 (so
    cleaning one of them grows f3's domain), and five test rows."""
    df = _table(seed=seed)
    enc = nbcert.encode(df, "label")
    rng = np.random.default_rng(seed)
    miss = rng.random((enc.n, enc.d)) < 0.35
    miss[:, 3] |= (enc.X[:, 3] - enc.offsets[3]) == 3
    tab = cleaning.CleaningTable.build(enc, miss)
    return tab, enc.encode_test(
        df.drop(columns="label").iloc[rng.choice(len(df), 5, replace=False)]
    )


def _entropy(counts, axis):
    total = counts.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / total, 0.0)
        return -(np.where(p > 0, p * np.log(p), 0.0)).sum(axis=axis)


def _reference_gain(k, lab, m, batch):
    """Per group, sum over points of H(label) - H(label | revealed count), from a dense table
    of (point, group, count, label) -- the criterion computed the plain way."""
    P, S, G = k.shape
    key = ((np.arange(P)[:, None, None] * G + np.arange(G)) * (batch + 1) + k) * (m + 1) + lab[
        :, :, None
    ]
    joint = np.bincount(key.ravel(), minlength=P * G * (batch + 1) * (m + 1)).reshape(
        P, G, batch + 1, m + 1
    )
    h_given = (joint.sum(axis=3) / S * _entropy(joint, axis=3)).sum(axis=2)
    h = _entropy(np.stack([np.bincount(row, minlength=m + 1) for row in lab]).astype(float), axis=1)
    return (h[:, None] - h_given).sum(axis=0)


def _check_worlds(ch, obs, M, alpha=0):
    """The chooser's kept worlds (of its live points) against its state computed afresh:
    domains, agreeing counts, batch sizes, counts within their cells, log factors and the
    labels log_support gives."""
    m, d, _ = obs.shape
    dom = obs.sum(axis=0) > 0
    delta = dom.sum(axis=1)
    tc, cols = np.maximum(ch.T, 0), np.arange(d)
    seen = (ch.T >= 0) & dom[cols, tc]
    assert np.array_equal(ch.delta, delta) and np.array_equal(ch.seen, seen)
    assert np.array_equal(ch.E, np.where(seen[:, None, :], obs[:, cols, tc].transpose(1, 0, 2), 0))
    assert np.array_equal(ch.B, np.minimum(M, ch.batch))
    live = ch.live
    nxt, rest = ch.nxt[live], ch.rest[live]
    assert (
        (nxt >= 0).all() and (rest >= 0).all() and (nxt <= ch.B).all() and (rest <= M - ch.B).all()
    )
    assert not (nxt + rest)[
        ~np.broadcast_to(seen[live][:, None, None, :], nxt.shape)
    ].any()  # pi = 0
    C = ch.E[live][:, None] + nxt + rest
    assert np.allclose(
        ch.F[live], log_factors(C, ch.N[:, None], delta, as_alpha(alpha)), rtol=0, atol=1e-12
    )
    assert np.array_equal(
        ch.ls[live], cpclean._supports(ch.F[live], ch.N)
    )  # kept label by label: the same bits
    ls = log_support(C, ch.N, delta, as_alpha(alpha))
    top2 = np.sort(ls, axis=2)[:, :, -2:]
    with np.errstate(invalid="ignore"):
        tie = ~(top2[:, :, 1] - top2[:, :, 0] > log_tolerance(d, int(ch.N.sum()), as_alpha(alpha)))
    assert np.array_equal(ch.lab[live], np.where(tie, m, np.argmax(ls, axis=2)))


def _follow_checked(seed, seen):
    """Follow the rival on one dirty state, checking its worlds and choice at every step."""
    tab, T = _dirty_state(seed)
    ch = cpclean.entropy_chooser(tab.N, T, 0, 24, 3, np.random.default_rng(seed))
    m, d, _ = tab.obs.shape

    def choose(obs, M, robust):
        before = None if ch.obs is None else ch.delta.copy()
        flat = ch.flat
        l, j = ch(obs, M, robust)
        _check_worlds(ch, obs, M)
        seen["grew"] += before is not None and bool((ch.delta > before).any())
        todo = ~cleaning.state_certification(obs, M, tab.N, T, 0).robust
        assert np.array_equal(~robust, todo)  # follow's certification is the state's
        assert np.array_equal(ch.live, todo)  # the non-robust points' worlds are kept
        k = ch.nxt[todo].reshape(int(todo.sum()), ch.n_worlds, m * d)
        gain = np.where(M > 0, _reference_gain(k, ch.lab[todo], m, ch.batch).reshape(m, d), -1.0)
        assert np.allclose(np.where(M > 0, ch.gains(todo), -1.0), gain, rtol=0, atol=1e-9)
        if ch.flat == flat:  # a maximiser of the criterion on these worlds
            seen["informative"] += 1
            assert gain[l, j] >= gain.max() - 1e-9 and gain.max() > 1e-12
        else:  # the criterion is flat: the largest group
            seen["flat"] += 1
            assert gain.max() <= 1e-9 and M[l, j] == M.max()
        return l, j

    _, history, done = cleaning.follow(tab, T, choose, 0, 3)
    assert done and len(history) > 2
    ch(
        tab.obs, tab.hid.sum(axis=2)
    )  # a state that does not follow the last one: worlds start afresh
    _check_worlds(ch, tab.obs, tab.hid.sum(axis=2))
    ch.update(tab.obs, tab.hid.sum(axis=2))  # every point kept: the stale ones drawn afresh
    assert ch.live.all()
    _check_worlds(ch, tab.obs, tab.hid.sum(axis=2))


def test_kept_worlds_match_a_fresh_computation_and_the_choice_maximises():
    seen = {"grew": 0, "informative": 0, "flat": 0}
    for seed in range(4):
        _follow_checked(seed, seen)
    assert seen["informative"] and seen["flat"] and seen["grew"], seen  # every path was taken


def test_revealed_batches_leave_uniform_worlds():
    """Drawn afresh, then batch after batch revealed: the next batch's and the other cells'
    counts of t_j stay Binomial(B, pi) and Binomial(M - B, pi), uncorrelated (means,
    variances and covariance within 6 standard errors of S = 20,000 worlds; seeded)."""
    rng = np.random.default_rng(11)
    S, M, batch, pi = 20_000, 41, 6, 0.3
    nxt, rest = cpclean._fresh(pi, M, min(M, batch), rng, (S,))
    while M:
        B = min(M, batch)
        for got, n in ((nxt, B), (rest, M - B)):
            var = n * pi * (1 - pi)
            assert abs(got.mean() - n * pi) <= 6 * math.sqrt(var / S)
            assert abs(got.var() - var) <= 6 * math.sqrt(2 / S) * var + 1e-12
        cov = np.mean((nxt - nxt.mean()) * (rest - rest.mean()))
        assert abs(cov) <= 6 * math.sqrt(B * (M - B)) * pi * (1 - pi) / math.sqrt(S) + 1e-12
        M -= B
        nxt, rest = cpclean._reveal(rest, M, min(M, batch), rng)
