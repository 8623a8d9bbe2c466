"""The paper's baselines do the paper's work: AD trains Naive Bayes on every
sampled world, every cell counted; RP and SR run Iterate on the table as it stands after
every blanked cell, RP with no limit.  Their cheaper twins (AD counts only, the
incremental check) give the same answers and are checked against them here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from brute import blank, brute_robust, feature_cells
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import complete_instances, random_encoded, small_rival_instances

import nbcert
from nbcert import approximate, certification
from nbcert.methods import authors_code, pure_strategies
from nbcert.poisoning import baselines
from nbcert.poisoning.single import PoisonedCounts, poison_encoded
from nbcert.reading.encoding import encode

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class _CountingNumpy:
    """numpy, with the cells passed to bincount counted."""

    def __init__(self):
        self.cells = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def bincount(self, x, *args, **kw):
        self.cells += np.asarray(x).size
        return np.bincount(x, *args, **kw)


def _robust_table(n: int) -> tuple:
    """n rows (a multiple of 4), 3 features, 2 labels, a tenth of the cells blank, and a
    test point every world predicts the same label for."""
    rng = np.random.default_rng(n)
    y = np.repeat(["p", "q"], [3 * n // 4, n // 4])
    X = np.where(rng.random((n, 3)) < 0.8, "a", "b").astype(object)
    X[y == "q"] = "b"
    X[rng.random((n, 3)) < 0.1] = np.nan
    X[:2] = [["a"] * 3, ["b"] * 3]
    train = pd.DataFrame({"f0": X[:, 0], "f1": X[:, 1], "f2": X[:, 2], "y": y})
    enc = nbcert.encode(train, "y")
    T = enc.encode_test(pd.DataFrame([{"f0": "a", "f1": "a", "f2": "a"}]))
    assert certification.certify_index(enc, T).robust[0]
    return enc, T


@pytest.mark.parametrize("n", [40, 400, 4000])
def test_ad_trains_on_every_cell_of_every_world(monkeypatch, n):
    """AD's work per world is a count of the whole filled table: n * d cells (it grows
    with the rows at fixed labels x features); the counts-only twin counts the table once."""
    enc, T = _robust_table(n)
    counting = _CountingNumpy()
    monkeypatch.setattr(approximate, "np", counting)
    dec = approximate.certify_ad(enc, T, n_worlds=50, seed=0)
    assert dec.robust[0]
    assert counting.cells == 50 * enc.n * enc.d
    counting.cells = 0
    approximate.certify_ad_counts(enc, T, n_worlds=50, seed=0)
    assert counting.cells < enc.n * enc.d  # draws of small domains are not bincounted at all


def test_a_world_fills_every_missing_cell_uniformly_and_keeps_the_observed():
    """Each trained world counts N_l cells per (label, feature), none missing, at least the
    observed counts of each value, and a missing cell takes each domain value equally often."""
    from scipy import stats

    from nbcert.stats import tally

    train = pd.DataFrame(
        {
            "f": ["a", "b", "c", np.nan, "a", np.nan],
            "g": ["x", "x", "y", "y", np.nan, "x"],
            "y": ["p", "p", "p", "q", "q", "q"],
        },
        dtype=object,
    )
    enc = nbcert.encode(train, "y")
    observed = tally(enc)
    fillings = approximate._fillings(enc, 2)  # blocks of two rows
    rng = np.random.default_rng(0)
    worlds = np.stack([approximate._world_index(rng, enc, fillings) for _ in range(3000)])
    assert (worlds[:, :, enc.missing_codes] == 0).all()
    for j in range(enc.d):
        cols = slice(enc.offsets[j], enc.offsets[j + 1])
        assert (worlds[:, :, cols].sum(axis=2) == enc.label_sizes).all()
    assert (
        worlds[:, :, :] >= np.where(np.isin(np.arange(enc.n_codes), enc.missing_codes), 0, observed)
    ).all()
    # label q's two missing cells of f: each of a, b, c a third of the time
    q, f = enc.labels.index("q"), slice(enc.offsets[0], enc.offsets[0] + 3)
    extra = worlds[:, q, f] - observed[q, f]
    assert (extra.sum(axis=1) == 2).all()
    assert stats.chisquare(extra.sum(axis=0)).pvalue > 1e-4


@pytest.mark.parametrize("counts_only", [False, True])
def test_ad_batches_and_early_stop(monkeypatch, counts_only):
    """A robust point is trained on exactly n_worlds worlds (batches 1, 2, 4, ...); a point
    whose first world disagrees or ties stops after that world: the paper's AD (worlds
    trained) and AD counts only (worlds drawn per segment) alike."""
    calls = []
    if counts_only:
        real, certify = approximate.draw_counts, approximate.certify_ad_counts
        monkeypatch.setattr(
            approximate, "draw_counts", lambda rng, s, w, *a: calls.append(w) or real(rng, s, w, *a)
        )
    else:
        real, certify = approximate._world_index, approximate.certify_ad
        monkeypatch.setattr(approximate, "_world_index", lambda *a: calls.append(1) or real(*a))
    train = pd.DataFrame(
        {
            "f": ["a", "a", "a", np.nan, "b", "b"],
            "g": ["a", "b", np.nan, "a", "b", "b"],
            "y": ["p", "p", "p", "q", "q", "q"],
        },
        dtype=object,
    )
    enc = nbcert.encode(train, "y")
    per = len(approximate._segments(np.ones((enc.m, enc.d), int), enc.delta)) if counts_only else 1
    for test, expected, worlds in (
        ({"f": "a", "g": "a"}, True, 100),
        ({"f": "z", "g": "a"}, False, 1),
    ):
        calls.clear()
        dec = certify(
            enc, enc.encode_test(pd.DataFrame([test], dtype=object)), n_worlds=100, seed=0
        )
        assert bool(dec.robust[0]) == expected == brute_robust(train, "y", test, 0)[0]
        assert sum(calls) == worlds * per and calls[:per] == [1] * per


@pytest.mark.parametrize("rows", [1, 3, 1 << 20])
def test_ad_is_sound_whatever_the_block(rows, monkeypatch):
    """A robust point is never called non-robust, and gets the robust label, for blocks of
    1, 3 or all rows."""
    monkeypatch.setattr(approximate, "CHUNK_CELLS", rows * 5)
    for seed in range(3):
        enc, T = random_encoded(seed)
        exact = certification.certify_index(enc, T)
        ad = approximate.certify_ad(enc, T, n_worlds=20, seed=seed)
        assert not (exact.robust & ~ad.robust).any()
        assert np.array_equal(ad.label[exact.robust], exact.label[exact.robust])


# ---------------------------------------------------------------- RP and SR


@SETTINGS
@given(
    inst=complete_instances(max_rows=6, max_features=3, min_labels=2, unseen=False), data=st.data()
)
def test_iterate_on_a_poisoned_table_is_brute_force(inst, data):
    """Iterate on the table as it stands (the paper's check) decides as enumerating the
    poisoned table's worlds does, its domains its own observed values; an emptied column
    makes every support 0: non-robust."""
    enc = nbcert.encode(inst.train, inst.label)
    cells = feature_cells(inst.train, inst.label)
    chosen = data.draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells)))
    work = baselines._Iterating(PoisonedCounts(enc, enc.encode_test(inst.test)[0]))
    for r, f in chosen:
        j = enc.features.index(f)
        work.work.X[np.flatnonzero(enc.rows == r)[0], j] = enc.missing_codes[j]
    poisoned = blank(inst.train, chosen)
    for row, t in zip(inst.test_rows(), enc.encode_test(inst.test)):
        got = baselines.iterate_robust(work.work, enc.global_codes(t[None])[0], t >= 0)
        emptied = any(poisoned[f].isna().all() for f in inst.features)
        assert got == (False if emptied else brute_robust(poisoned, inst.label, row, 0)[0])


@pytest.mark.parametrize("method", ["rp", "sr"])
def test_the_papers_baselines_run_iterate_after_every_cell(monkeypatch, method):
    """RP and SR as the paper words them: one Iterate per blanked cell (plus none before)."""
    calls = []
    real = baselines.iterate_robust
    monkeypatch.setattr(baselines, "iterate_robust", lambda *a: calls.append(1) or real(*a))
    enc, T = random_encoded(1, n=300, rate=0)
    for t in T[:6]:
        calls.clear()
        res = poison_encoded(enc, t, method, seed=3, check="iterate", keep_last=False)
        if res.possible and res.num_cells:
            assert len(calls) == res.num_cells


@SETTINGS
@given(
    inst=complete_instances(max_rows=7, max_features=3, min_labels=2),
    seed=st.integers(0, 2**16),
    method=st.sampled_from(["rp", "sr"]),
    keep_last=st.booleans(),
)
def test_both_checks_blank_the_same_cells(inst, seed, method, keep_last):
    """The incremental check (beyond the paper) stops where Iterate after every cell stops."""
    enc = nbcert.encode(inst.train, inst.label)
    for t in enc.encode_test(inst.test):
        a, b = (
            poison_encoded(enc, t, method, seed=seed, check=c, keep_last=keep_last)
            for c in ("iterate", "incremental")
        )
        assert (a.possible, a.status) == (b.possible, b.status) and a.cells == b.cells


@pytest.mark.parametrize("window", [1, 2, 1 << 16])
def test_both_checks_agree_on_longer_tables(window):
    for seed in range(4):
        enc, T = random_encoded(seed, n=150, rate=0)
        for t in T[:4]:
            for method in ("rp", "sr"):
                a = poison_encoded(enc, t, method, seed=seed, check="iterate", keep_last=False)
                b = poison_encoded(enc, t, method, seed=seed, check="incremental", keep_last=False)
                assert a.cells == b.cells, (seed, method)


def test_rp_without_a_limit_may_empty_a_column():
    """f's domain is {a}: every blank is forced back to a, so no blanking that leaves f a
    cell helps.  The paper's RP has no limit: it blanks all of f, whose empty domain makes
    every world tie; nbcert's RP keeps a cell and finds none."""
    train = pd.DataFrame({"f": ["a", "a", "a"], "y": ["p", "p", "q"]}, dtype=object)
    enc = nbcert.encode(train, "y")
    t = enc.encode_test(pd.DataFrame({"f": ["a"]}, dtype=object))[0]
    for check in baselines.CHECKS:
        paper = poison_encoded(enc, t, "rp", seed=0, check=check, keep_last=False)
        assert paper.status == "poisoned" and sorted(paper.cells) == [(0, "f"), (1, "f"), (2, "f")]
        assert poison_encoded(enc, t, "rp", seed=0, check=check).status == "none_found"


def test_unknown_check_is_refused():
    enc, T = random_encoded(0, n=50, rate=0)
    with pytest.raises(ValueError, match="unknown check"):
        poison_encoded(enc, T[0], "rp", check="fast")


# -------------------------------------------- the paper's one-point poisoning beside OP


@SETTINGS
@given(
    st.one_of(complete_instances(max_rows=6, max_features=2, min_labels=2), small_rival_instances())
)
def test_op_never_needs_more_cells_than_the_papers_strategies(inst):
    """The paper's pure strategies and, where its answer is a valid blanking, the authors'
    code (no capacity) never beat OP, which brute force proves minimal elsewhere."""
    enc = encode(inst.train, inst.label)
    for t in enc.encode_test(inst.test):
        op = poison_encoded(enc, t)
        pure = pure_strategies(enc, t)
        assert (pure is None) or (op.possible and op.num_cells <= pure)
        cells, valid = authors_code(enc, t)
        if valid:
            assert op.num_cells <= cells


def test_the_papers_strategies_on_the_counterexample():
    """The 7-row table of the report's "Where the paper is wrong": pure strategies 3, OP 2,
    the authors' code 2 by raising the one-row label's count past its row (not a blanking)."""
    train = pd.DataFrame(
        {"y": list("BBABBBB"), "f0": list("abbbabc"), "f1": list("aabbbab")}, dtype=object
    )
    enc = encode(train, "y")
    [t] = enc.encode_test(pd.DataFrame({"f0": ["b"], "f1": ["a"]}, dtype=object))
    assert poison_encoded(enc, t).num_cells == 2
    assert pure_strategies(enc, t) == 3
    assert authors_code(enc, t) == (2, False)
