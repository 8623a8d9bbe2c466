"""The lower bounds a certificate claims are proven: the checker's relaxations
(``verify.blanking``, ``verify.cleaning``) and its bounds on them (``verify.needed``,
``verify.never``) never exceed the true fewest cells, found by brute force, and never say
"none" where some blanking or cleaning works.

A certificate claims "the fewest" where the bound meets the answer's cells (which work,
checked apart), so a sound bound makes that claim true; the bounds are what the writer
claims (``nbcert.certificate.bounds``), on every two-label table of 2 to 5 rows with
domains of 2 and 3 values at alpha 0 and 1/2, on tables biased to one-row rivals and
binding caps, and on random dirty tables with their truth (blank and unseen test values,
one-value domains, alpha 0, 1/2 and 1).  The floats the checker computes first are upper
bounds of the exact values: its float bound is never above its exact one.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import brute_min_clean, min_poison_by_groups
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import dirty_instances, small_rival_instances
from test_poisoning_exhaustive import points, tables

from nbcert import verify
from nbcert.certificate import bounds

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ALPHAS = st.sampled_from([0, Fraction(1, 2), 1])


def _state(y: list, cols: list) -> verify.State:
    features = [f"f{j}" for j in range(len(cols))]
    return verify.State(verify.Table(features, [str(v) for v in y], cols, [False] * len(cols)))


def _blanking_sound(y: list, cols: list, t: list, alpha) -> tuple:
    """The bound claimed for a robust point against brute force's fewest blanks: never
    above them, "none" only where none works; (fewest, bound)."""
    k = min_poison_by_groups(y, cols, t, alpha)
    state = _state(y, cols)
    if k == 0 or verify.View(state, t, Fraction(alpha)).robust_label() is None:
        return k, k
    low = bounds.blanking_bound(state, t, alpha, None if k is None else k + 1)
    assert k is None or (low is not None and low <= k), (k, low)
    if k is not None:  # the checker's own check agrees: more than k is refused
        view = verify.View(state, t, Fraction(alpha))
        K = view.robust_label()
        pairs = [verify.blanking(view, K, l) + (False,) for l in state.labels if l != K]
        assert not all(verify.holds(verify.fewer, [p], k + 1) for p in pairs)
    return k, low


def test_blanking_bounds_on_every_small_table():
    """Every two-label table of 2..5 rows, domains of 2 and 3 values, every point (an unseen
    value too): never above the fewest, and at alpha 0 equal to it at every point some
    blanking makes not robust (964 of them; at alpha 1/2, where removing a value moves the
    denominators, the relaxation is looser)."""
    for alpha in (0, Fraction(1, 2)):
        met = total = 0
        for rows in tables(5, (2, 3)):
            y = [r[0] for r in rows]
            cols = [[r[1 + j] for r in rows] for j in range(2)]
            for t in points(rows, 2):
                k, low = _blanking_sound(y, cols, list(t), alpha)
                if k:
                    met, total = met + (low == k), total + 1
        assert total > 900 and (alpha or met == total), (alpha, met, total)


@settings(SETTINGS, max_examples=30)  # brute force grows fast with the majority label's rows
@given(inst=small_rival_instances(max_major=5), alpha=ALPHAS, data=st.data())
def test_blanking_bounds_at_the_boundaries(inst, alpha, data):
    """Tables biased to one-row rivals and binding caps (where the paper's OP fails), some
    test cells blank."""
    y = inst.train[inst.label].tolist()
    cols = [inst.train[f].tolist() for f in inst.features]
    for i in range(len(inst.test)):
        t = [inst.test[f].iloc[i] for f in inst.features]
        if data.draw(st.booleans()):
            t[data.draw(st.integers(0, len(t) - 1))] = None
        _blanking_sound(y, cols, t, alpha)


def _cleaning_state(inst) -> tuple:
    """(the checker's dirty state, the truth of its missing cells) of an instance."""
    truth = inst.truth
    y = [str(v) for v in truth[inst.label]]
    cols = [truth[f].tolist() for f in inst.features]
    state = verify.State(verify.Table(list(inst.features), y, cols, [False] * len(cols)))
    held = [{l: {} for l in state.labels} for _ in inst.features]
    for j, f in enumerate(inst.features):
        for r, v in enumerate(inst.train[f]):
            if pd.isna(v):
                state.move(j, y[r], cols[j][r], -1)
                held[j][y[r]][cols[j][r]] = held[j][y[r]].get(cols[j][r], 0) + 1
    return state, held


@SETTINGS
@given(inst=dirty_instances(max_rows=6, max_missing=5), alpha=ALPHAS)
def test_cleaning_bounds_never_exceed_the_fewest(inst, alpha):
    state, held = _cleaning_state(inst)
    for i, row in enumerate(inst.test_rows()):
        k = brute_min_clean(inst.train, inst.truth, inst.label, [row], alpha)
        if k == 0:
            continue
        t = [None if pd.isna(row[f]) else row[f] for f in inst.features]
        low = bounds.cleaning_bound(state, held, t, alpha, None if k is None else k + 1)
        assert k is None or (low is not None and low <= k), (i, k, low)


@SETTINGS
@given(inst=dirty_instances(max_rows=7, max_missing=6), alpha=ALPHAS)
def test_rounded_up_floats_never_raise_a_bound(inst, alpha):
    """The float computation (every value rounded up) gives a bound no larger than the
    exact one, in both relaxations: the floats may only claim less."""
    for state, pairs in _cleaning_pairs(inst, alpha):
        for tight in (False, True):
            B = int(np.sum([sum(m.values()) for m in state.miss]))
            quick = verify.needed(pairs, B, tight, exact=False)
            assert quick <= verify.needed(pairs, B, tight, exact=True)


@SETTINGS
@given(inst=dirty_instances(max_rows=7, max_missing=6), alpha=ALPHAS, extra=st.integers(0, 40))
def test_the_checker_gives_one_bound_with_numpy_or_without(inst, alpha, extra):
    """The rounded-up floats in numpy arrays (where numpy is installed) and in lists (the
    standard library alone) are the same IEEE operations: the same bound, in both
    relaxations, for budgets past the table's cells too (inf and 0 products included)."""
    for state, pairs in _cleaning_pairs(inst, alpha):
        B = int(np.sum([sum(m.values()) for m in state.miss])) + extra
        lift = verify._lift(pairs[0][1])
        for tight in (False, True):
            with_numpy = verify.needed(pairs, B, tight)
            tables = [
                verify._knapsack(cols, lift, B, verify._UpwardArrays, tight).tolist()
                for _, cols, _ in pairs
            ]
            with pytest.MonkeyPatch.context() as m:
                m.setattr(verify, "_np", None)
                assert verify.needed(pairs, B, tight) == with_numpy
                lists = [verify._knapsack(c, lift, B, verify._Upward, tight) for _, c, _ in pairs]
            assert tables == lists  # bit for bit


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([1, 2, 7, 300, 2500]),
    g=st.sampled_from([Fraction(1), Fraction(7, 3), Fraction(2**60 + 1, 3)]),
    y=st.sampled_from([Fraction(5), Fraction(9000), Fraction(17, 2), Fraction(2**54)]),
)
def test_the_arrays_raise_shift_and_search_as_the_lists(seed, n, g, y):
    """``_UpwardArrays``' block-wise shifted maxima (blocks smaller than the table where it
    is long), ratios and every-U binary search give ``_Upward``'s list values bit for bit:
    zeros, infinities and products that overflow included."""
    verify._numpy()  # imported where a bound first needs it
    rng = np.random.default_rng(seed)
    src = np.maximum.accumulate(rng.choice([0.0, 0.5, 1.0, 3.0, 1e300, np.inf], n))
    dst = rng.choice([0.0, 1.0, 2.0], n)
    lo, hi = sorted(rng.integers(1, n + 1, 2).tolist())
    h = verify._Upward.zeros(n)
    top = min(hi, math.ceil(y))  # y - v > 0, as every column's down side has
    if top > lo:
        h[lo:top] = verify._Upward.ratios(g, y, lo, top)
    arrays, lists = dst.copy(), dst.tolist()
    verify._UpwardArrays.spread(arrays, src, np.array(h, dtype=float), lo, top)
    verify._Upward.spread(lists, src.tolist(), h, lo, top)
    assert arrays.tolist() == lists
    if top > lo:
        assert verify._UpwardArrays.ratios(g, y, lo, top) == h[lo:top]
    W = np.maximum.accumulate(rng.choice([0.1, 0.5, 1.0, 2.0, np.inf], n)).tolist()
    for strict in (False, True):
        tables = [(0.25, src, strict, n + 1), (4.0, np.sort(dst), strict, int(rng.integers(0, n)))]
        tables = [t for t in tables[: int(rng.integers(1, 3))]]
        arrays = verify._UpwardArrays.fewest(tables, W, n - 1)
        assert arrays == verify._Upward.fewest(
            [(C, D.tolist(), s, z) for C, D, s, z in tables], W, n - 1
        )


def _cleaning_pairs(inst, alpha):
    """(state, the pairs one label answers against the others) per test point and label:
    the checker's cleaning questions on the instance."""
    state, held = _cleaning_state(inst)
    for row in inst.test_rows():
        t = [None if pd.isna(row[f]) else row[f] for f in inst.features]
        view = verify.View(state, t, Fraction(alpha))
        for K in state.labels:
            pairs = [verify.cleaning(view, held, K, l) + (True,) for l in state.labels if l != K]
            if pairs:
                yield state, pairs
