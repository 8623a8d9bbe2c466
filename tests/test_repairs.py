"""Repaired rows (CPClean's worlds): certify against enumeration of every row choice."""

from __future__ import annotations

from fractions import Fraction

import brute_rows
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from repairs_strategies import crowded_instances, repair_instances

from nbcert.certification import TIE_NO, TIE_UNKNOWN, TIE_YES
from nbcert.reading.encoding import encode
from nbcert.repairs import Worlds, certify_rows, code

ALPHAS = st.sampled_from([0, 1, Fraction(1, 2), 0])


def coded(inst):
    enc = encode(inst.train, inst.label)
    enc, rr = code(enc, inst.frame, "repairs", "training table")
    T = enc.encode_test(inst.test)
    return rr, T


@given(st.one_of(repair_instances(), crowded_instances()), ALPHAS)
@settings(max_examples=400, deadline=None)
def test_certify_equals_enumeration(inst, alpha):
    rr, T = coded(inst)
    got = certify_rows(rr, T, alpha)
    cols, y, reps, points, _ = inst.brute()
    labels = list(rr.enc.labels)
    for i, t in enumerate(points):
        robust, label, possible, tie = brute_rows.certify(cols, y, reps, t, alpha)
        assert got.robust[i] == int(robust), i
        assert (labels[got.label[i]] if got.label[i] >= 0 else None) == label
        assert {labels[l] for l in np.flatnonzero(got.possible[i] == 1)} == possible
        assert got.undecided[i] is None
        if got.tie[i] != TIE_UNKNOWN:
            assert got.tie[i] == (TIE_YES if tie else TIE_NO)


def per_cell(rr, T, alpha):
    """(robust, label, possible (k, m)) of the same repairs read cell by cell."""
    from nbcert import blanks, certification

    def answer(sub, codes, rows, keep):
        cand = rr.cand.project(keep)
        dec = certification.certify_index(sub, codes, alpha, cand)
        pos = certification.possible_index(sub, codes, alpha, cand)
        return list(zip(dec.robust.tolist(), dec.label.tolist(), pos.labels.tolist()))

    found = blanks.per_group(rr.enc, T, answer)
    robust, label, possible = zip(*found)
    return np.array(robust), np.array(label), np.array(possible, bool)


@given(st.one_of(repair_instances(), crowded_instances()), ALPHAS)
@settings(max_examples=200, deadline=None)
def test_per_cell_is_never_more_certain(inst, alpha):
    """The per-cell worlds hold the row worlds: a point certain per cell is certain with
    the same label over rows, and a label possible over rows is possible per cell."""
    rr, T = coded(inst)
    rows = certify_rows(rr, T, alpha)
    robust, label, possible = per_cell(rr, T, alpha)
    assert (rows.robust[robust] == 1).all()
    assert (rows.label[robust] == label[robust]).all()
    assert not ((rows.possible == 1) & ~possible).any()


def _sums(P, g):
    """Every sum of g vectors of P, by enumeration."""
    import itertools

    return {tuple(np.sum(c, axis=0)) for c in itertools.product(P.tolist(), repeat=g)}


def _maximal(points):
    pts = [np.array(p) for p in points]
    return {tuple(p) for p in pts if not any((q >= p).all() and (q != p).any() for q in pts)}


@given(
    st.integers(1, 4).flatmap(
        lambda a: st.lists(
            st.lists(st.integers(0, 1), min_size=a, max_size=a), min_size=1, max_size=5
        )
    ),
    st.integers(1, 4),
)
@settings(max_examples=200, deadline=None)
def test_power_is_the_pareto_front_of_the_sums(P, g):
    from nbcert.repairs.front import pareto, power

    P = np.array(P, np.int64)
    want = _maximal(_sums(P, g))
    assert {tuple(v) for v in power(P, g).tolist()} == want
    assert {tuple(v) for v in pareto(P).tolist()} == _maximal({tuple(p) for p in P.tolist()})


@given(
    st.integers(1, 40).flatmap(
        lambda a: st.lists(
            st.lists(st.sampled_from([0, 1, 2, 59, 2**20, 2**40]), min_size=a, max_size=a),
            min_size=1,
            max_size=12,
        )
    )
)
@settings(max_examples=300, deadline=None)
def test_unique_rows_are_numpys(A):
    """The row groups' sets as one integer each (where they fit) are np.unique's rows,
    order and counts."""
    from nbcert.repairs.patterns import _unique_rows

    A = np.array(A, np.int64)
    want, counts = np.unique(A, axis=0, return_counts=True)
    got, g = _unique_rows(A)
    assert np.array_equal(got, want) and np.array_equal(g, counts)


@given(
    st.integers(0, 4).flatmap(
        lambda a: st.lists(
            st.lists(st.integers(-3, 3), min_size=a, max_size=a), min_size=1, max_size=12
        )
    )
)
@settings(max_examples=300, deadline=None)
def test_pareto_is_distinct_sorted_and_maximal(V):
    """The front in any dimension, signs either way (the smallest support's front is the
    largest of the negated patterns): the maximal rows, each once, in np.unique's order."""
    from nbcert.repairs.front import pareto

    V = np.array(V, np.int64).reshape(len(V), -1)
    got = pareto(V)
    want = sorted(_maximal({tuple(v) for v in V.tolist()}))[: 1 if V.shape[1] == 0 else None]
    assert got.dtype == np.int64 and [tuple(v) for v in got.tolist()] == want


@given(
    st.integers(3, 5).flatmap(
        lambda a: st.lists(
            st.lists(st.integers(0, 3), min_size=a, max_size=a), min_size=1, max_size=40
        )
    )
)
@settings(max_examples=100, deadline=None)
def test_pareto_in_many_dimensions(V):
    from nbcert.repairs import front

    V = np.array(V, np.int64)
    want = _maximal({tuple(v) for v in V.tolist()})
    assert {tuple(v) for v in front.pareto(V).tolist()} == want
    old = front.CHUNK
    try:
        front.CHUNK = 7  # chunks of one or two vectors: the kept-so-far comparison
        assert {tuple(v) for v in front.pareto(V).tolist()} == want
    finally:
        front.CHUNK = old


@given(
    st.one_of(crowded_instances(max_rows=7), repair_instances(max_rows=7, max_missing=8)),
    ALPHAS,
    st.sampled_from([1, 2, 3, 6]),
)
@settings(max_examples=200, deadline=None)
def test_a_stopped_search_decides_only_what_its_bounds_prove(inst, alpha, limit):
    """With a tiny limit the fronts stop early: every decision taken still equals
    enumeration, and every point left undecided names the bounds that stopped it."""
    rr, T = coded(inst)
    got = certify_rows(rr, T, alpha, Worlds(rr, alpha, limit))
    cols, y, reps, points, _ = inst.brute()
    labels = list(rr.enc.labels)
    for i, t in enumerate(points):
        robust, label, possible, tie = brute_rows.certify(cols, y, reps, t, alpha)
        if got.robust[i] >= 0:
            assert got.robust[i] == int(robust)
        else:
            assert "stopped" in got.undecided[i]
        assert {labels[l] for l in np.flatnonzero(got.possible[i] == 1)} <= possible
        assert {labels[l] for l in np.flatnonzero(got.possible[i] == 0)}.isdisjoint(possible)
        if got.tie[i] != TIE_UNKNOWN:
            assert got.tie[i] == (TIE_YES if tie else TIE_NO)


@given(st.one_of(repair_instances(), crowded_instances()), ALPHAS)
@settings(max_examples=200, deadline=None)
def test_count_equals_enumeration(inst, alpha):
    from nbcert.repairs.count import count_rows

    rr, T = coded(inst)
    got = count_rows(rr, T, alpha)
    cols, y, reps, points, _ = inst.brute()
    for wc, t in zip(got, points):
        wins, ties, total = brute_rows.counts(cols, y, reps, t, alpha)
        assert wc.method == "exact"
        assert (wc.counts, wc.ties, wc.total) == (wins, ties, total)
        assert wc.total == rr.total() and wc.total_text == str(total)


@given(st.one_of(repair_instances(), crowded_instances()), ALPHAS, st.sampled_from([1, 2, 4]))
@settings(max_examples=150, deadline=None)
def test_count_bounds_hold_the_counts(inst, alpha, max_states):
    """Past max_states the counts are proven intervals: they hold enumeration's."""
    from nbcert.repairs.count import count_rows

    rr, T = coded(inst)
    got = count_rows(rr, T, alpha, max_states=max_states)
    cols, y, reps, points, _ = inst.brute()
    for wc, t in zip(got, points):
        wins, ties, total = brute_rows.counts(cols, y, reps, t, alpha)
        if wc.method == "exact":
            assert (wc.counts, wc.ties) == (wins, ties)
            continue
        for lab, (lo, hi) in wc.proven.items():
            assert lo <= wins[lab] <= hi
        assert wc.proven_ties[0] <= ties <= wc.proven_ties[1]
