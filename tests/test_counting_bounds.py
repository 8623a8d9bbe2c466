"""count_worlds(method="bounds"): proven intervals for every label's count and the ties,
held against exhaustive enumeration (``brute``) and against the exact method, at alpha 0,
1/2 and 1 (and huge alphas), with ties, unseen values, one-value domains and blank test
cells; and shrinking to the exact count as the grid width eps goes to 0."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from brute import brute_counts, brute_total
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import alphas, instances
from test_blank_test_cells import with_blanks

import nbcert
from nbcert import blanks
from nbcert.certification import possible_index
from nbcert.count import bounds, count_encoded, point_stats, refine, total_worlds
from nbcert.reading.encoding import encode, from_codes

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SMALL_ALPHAS = st.sampled_from([0, Fraction(1, 2), 1])


def _check_inside(wc, counts: dict, ties: int, total: int):
    """Every proven count and share interval holds the true one."""
    assert wc.method == "bounds" and wc.counts is None
    assert set(wc.proven) == set(counts)
    for label, c in counts.items():
        low, high = wc.proven[label]
        assert 0 <= low <= c <= high <= total, (label, low, c, high)
        lo, hi = wc.proven_shares[label]
        assert Fraction(lo) <= Fraction(c, total) <= Fraction(hi), (label, lo, c, total, hi)
    low, high = wc.proven_ties
    assert 0 <= low <= ties <= high <= total, ("ties", low, ties, high)
    lo, hi = wc.proven_tie_shares
    assert Fraction(lo) <= Fraction(ties, total) <= Fraction(hi)


PATHS = {
    "keys": {},  # exact keys while buckets are few, merges as they pay
    "dense": {"keyed_basis": lambda *a: None, "_dense_pays": lambda *a: True},
    "sparse": {"keyed_basis": lambda *a: None, "_dense_pays": lambda *a: False},
}


@pytest.mark.parametrize("path", list(PATHS))
@SETTINGS
@given(
    inst=st.one_of(instances(), with_blanks(instances(), sparse=True)),
    alpha=alphas,
    width=st.sampled_from([0.001, 0.05, 0.5]),
)
def test_bounds_hold_the_brute_force_counts(path, inst, alpha, width):
    """Whichever way the buckets are merged (keys followed or not, dense or sparse)."""
    with pytest.MonkeyPatch.context() as mp:
        for name, replacement in PATHS[path].items():
            mp.setattr(bounds if name.startswith("_") else refine, name, replacement)
        res = nbcert.count_worlds(
            inst.train, inst.test, inst.label, alpha=alpha, method="bounds", width=width
        )
    assert len(res) == len(inst.test)
    for wc, row in zip(res, inst.test_rows()):
        counts, ties = brute_counts(inst.train, inst.label, row, alpha)
        total = brute_total(inst.train, inst.label)
        assert wc.total == total
        _check_inside(wc, counts, ties, total)
        event("exact" if all(lo == hi for lo, hi in wc.proven.values()) else "an interval")


@st.composite
def random_tables(draw):
    """Tables too large to enumerate but small enough to count exactly: 20-60 rows, 2-6
    features of 1-4 values, 2-4 labels, a share of cells missing; test rows with unseen
    values and blank cells."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, d, m = draw(st.integers(20, 60)), draw(st.integers(2, 6)), draw(st.integers(2, 4))
    delta = rng.integers(1, 5, d)
    X = rng.integers(0, 4, (n, d)) % delta
    X[rng.random((n, d)) < draw(st.sampled_from([0.1, 0.3, 0.5]))] = -1
    X[: delta.max()] = np.arange(delta.max())[:, None] % delta  # every value observed
    y = rng.integers(0, m, n)
    y[:m] = np.arange(m)
    if draw(st.booleans()):  # twin labels: the same statistics, so supports often tie
        half = (n - m) // 2
        X[half : 2 * half], y[:half], y[half : 2 * half] = X[:half], 0, 1
        y[-m:] = np.arange(m)  # every label occurs
    T = np.where(rng.random((4, d)) < 0.15, -1, rng.integers(0, 4, (4, d)) % delta)
    T = np.where(rng.random((4, d)) < 0.15, -2, T)  # blank test cells
    return from_codes(X, y, delta), T


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=random_tables(), alpha=SMALL_ALPHAS)
def test_bounds_hold_the_exact_counts(table, alpha):
    enc, T = table
    a = nbcert.params.as_alpha(alpha)
    try:
        want = count_encoded(enc, T, a, method="exact", max_states=200_000)
    except nbcert.InputError:
        event("too large to count exactly")
        return
    got = count_encoded(enc, T, a, method="bounds", width=0.01)
    for wc, ex in zip(got, want):
        assert wc.total == ex.total
        _check_inside(wc, ex.counts, ex.ties, ex.total)
        event("exact" if all(lo == hi for lo, hi in wc.proven.values()) else "an interval")
        event("ties" if ex.ties else "no tie")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=st.one_of(instances(max_missing=7), with_blanks(instances(max_missing=7), sparse=True)),
    alpha=SMALL_ALPHAS,
)
def test_bounds_shrink_to_the_exact_count_as_eps_goes_to_zero(inst, alpha):
    """On grids ever finer every interval holds the exact count, and on a fine enough one
    (every bucket one support, compared exactly) it is the exact count."""
    enc = encode(inst.train, inst.label)
    T = enc.encode_test(inst.test.drop(columns=[inst.label], errors="ignore"))
    a = nbcert.params.as_alpha(alpha)
    for rows, keep in blanks.groups(T):  # a blank test cell: the projection without it
        sub, codes = blanks.project(enc, keep), blanks.test_codes(T, rows, keep)
        possible = possible_index(sub, codes, a)
        exact_counts = count_encoded(sub, codes, a, method="exact")
        for i, (pt, ex) in enumerate(zip(point_stats(sub, codes), exact_counts)):
            want = [ex.counts[lab] for lab in sub.labels] + [ex.ties]
            widths = []
            for eps in (2.0**0, 2.0**-2, 2.0**-5, 2.0**-10, 2.0**-20, 2.0**-30):
                low, high = _bounds_at(pt, sub, a, eps, possible, i)
                assert all(lo <= c <= hi for lo, c, hi in zip(low, want, high))
                widths.append(max(hi - lo for lo, hi in zip(low, high)))
            assert widths[-1] == 0, (widths, want)
            event("shrank" if widths[0] > 0 else "exact at once")


def _bounds_at(pt, sub, alpha, eps, possible, i):
    """Proven (low, high) counts of the labels then the ties on the grid of width eps
    (with the exact possible labels and ties of point i, if given)."""
    N, delta, total = sub.label_sizes, sub.delta, total_worlds(sub)
    if len(N) == 1:
        return [total, 0], [total, 0]
    sh = bounds.shares_at(pt, N, delta, alpha, eps)
    can = None if possible is None else possible.labels[i].tolist()
    tie = None if possible is None else int(possible.tie[i])
    p = refine._combine(sh.low, sh.high, [None] * len(N) if can is None else can, tie, eps, 0.0)
    per, ties = refine.proven_counts(p, total, can, tie)
    return [lo for lo, _ in per] + [ties[0]], [hi for _, hi in per] + [ties[1]]


@pytest.mark.parametrize("path", list(PATHS))
@SETTINGS
@given(
    inst=st.one_of(instances(), with_blanks(instances(), sparse=True)),
    alpha=alphas,
    eps=st.sampled_from([2.0, 0.5, 2.0**-3, 2.0**-7]),
    exact_labels=st.booleans(),
)
def test_coarse_grids_hold_the_brute_force_counts(path, inst, alpha, eps, exact_labels):
    """Each grid's bounds on their own, however coarse, with or without the exact decision
    of the possible labels and ties."""
    enc = encode(inst.train, inst.label)
    T = enc.encode_test(inst.test.drop(columns=[inst.label], errors="ignore"))
    a = nbcert.params.as_alpha(alpha)
    rows = inst.test_rows()
    with pytest.MonkeyPatch.context() as mp:
        for name, replacement in PATHS[path].items():
            mp.setattr(bounds, name.lstrip("_") if name == "keyed_basis" else name, replacement)
        for group, keep in blanks.groups(T):
            sub, codes = blanks.project(enc, keep), blanks.test_codes(T, group, keep)
            possible = possible_index(sub, codes, a)
            free = blanks.free_worlds(enc, keep)
            for i, pt in enumerate(point_stats(sub, codes)):
                counts, ties = brute_counts(inst.train, inst.label, rows[group[i]], alpha)
                want = [counts[lab] for lab in sub.labels] + [ties]
                low, high = _bounds_at(pt, sub, a, eps, possible if exact_labels else None, i)
                assert all(lo * free <= c <= hi * free for lo, c, hi in zip(low, want, high))
                event("exact" if low == high else "an interval")
