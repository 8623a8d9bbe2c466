"""Repaired rows with the truth: the fewest rows to clean, against trying every set."""

from __future__ import annotations

import brute_rows
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from repairs_strategies import crowded_instances, repair_instances

from nbcert.reading.truth import prepare_truth
from nbcert.repairs import Worlds, certify_rows, code
from nbcert.repairs import front as fronts
from nbcert.repairs.clean import point_cleaning
from nbcert.repairs.patterns import Patterns

NAMES = {"train": "training table", "truth": "truth table"}


def coded_truth(inst):
    enc, missing = prepare_truth(inst.train, inst.truth, inst.label, None, NAMES)
    enc, rr = code(enc, inst.frame, "repairs", "training table", missing)
    return rr, enc.encode_test(inst.test)


def data_rows(rr, rows):
    return tuple(sorted(int(rr.enc.rows[r]) for r in rows))


@given(
    st.one_of(
        repair_instances(truth=True, max_rows=5, max_missing=5),
        crowded_instances(truth=True, max_rows=5),
    ),
    st.sampled_from([(4096, 2000), (1, 2000), (1, 0)]),
)
@settings(max_examples=300, deadline=None)
def test_fewest_rows_per_point(inst, limits):
    """Exact where the enumeration is small (limit 4096); with limit 1 the rows found
    (greedily, or with no budget every helpful row) certify the point and the proven bound
    is at most enumeration's fewest."""
    limit, budget = limits
    rr, T = coded_truth(inst)
    worlds = Worlds(rr, 0)
    base = worlds.patterns.base(T)
    cols, y, reps, points, truth = inst.brute()
    for i, t in enumerate(points):
        got = point_cleaning(worlds, worlds.point(T[i], base[i]), limit, budget)
        fewest, _ = brute_rows.min_clean(cols, y, reps, truth, [t])
        if got.possible is False:
            assert fewest is None
            continue
        if got.possible is True:
            rows = data_rows(rr, got.rows)
            assert brute_rows.robust_after(cols, y, reps, truth, t, rows)
            assert fewest is not None and got.lower <= fewest <= len(rows)
            if got.optimal:
                assert len(rows) == fewest
        else:
            assert fewest is None or got.lower <= fewest
        if limit == 4096:
            assert got.optimal and got.possible is not None


@given(
    st.one_of(
        repair_instances(truth=True, max_rows=5, max_missing=5),
        crowded_instances(truth=True, max_rows=6),
    )
)
@settings(max_examples=200, deadline=None)
def test_rows_together(inst):
    """The rows found certify every target; the bound is at most enumeration's fewest,
    equal to it where claimed optimal; excluded points have no cleaning."""
    from nbcert.repairs.together import points, together

    rr, T = coded_truth(inst)
    each = points(rr, T)
    got = together(rr, T, each)
    cols, y, reps, pts, truth = inst.brute()
    targets = [pts[i] for i in got.targets]
    fewest, _ = brute_rows.min_clean(cols, y, reps, truth, targets)
    if got.possible is False:
        assert fewest is None
        return
    assert fewest is not None
    assert got.lower <= fewest
    if got.rows is not None:
        rows = data_rows(rr, got.rows)
        assert all(brute_rows.robust_after(cols, y, reps, truth, t, rows) for t in targets)
        assert fewest <= len(rows)
        if got.optimal:
            assert len(rows) == fewest
    for i in got.excluded:
        assert brute_rows.min_clean(cols, y, reps, truth, [pts[i]])[0] is None


@given(crowded_instances(truth=True, max_rows=6))
@settings(max_examples=60, deadline=None)
def test_rows_pruned_block_by_block_still_certify(inst):
    """Past PRUNE_LIMIT the rows found are pruned by blocks: they still certify every
    target, and hold enumeration's fewest."""
    from nbcert.repairs import together as module

    rr, T = coded_truth(inst)
    old = module.PRUNE_LIMIT
    module.PRUNE_LIMIT = 0
    try:
        got = module.together(rr, T, module.points(rr, T))
    finally:
        module.PRUNE_LIMIT = old
    cols, y, reps, pts, truth = inst.brute()
    targets = [pts[i] for i in got.targets]
    if got.rows is not None:
        rows = data_rows(rr, got.rows)
        assert all(brute_rows.robust_after(cols, y, reps, truth, t, rows) for t in targets)
        fewest, _ = brute_rows.min_clean(cols, y, reps, truth, targets)
        assert got.lower <= fewest <= len(rows)


@given(
    st.one_of(
        repair_instances(truth=True, max_rows=6, max_missing=6),
        crowded_instances(truth=True, max_rows=6),
    ),
    st.sampled_from([0, 1]),
    st.sampled_from([fronts.LIMIT, 2]),
    st.randoms(use_true_random=False),
)
@settings(max_examples=200, deadline=None)
def test_fronts_shared_between_cleanings_are_each_tables_own(inst, alpha, limit, rnd):
    """The fronts' memo shared along a cleaning (as the policy's rounds and the curves share
    it) answers every state as a fresh search does: certain, labels, ties, undecided."""
    rr, T = coded_truth(inst)
    dirty = np.unique(rr.owner).tolist()
    rnd.shuffle(dirty)
    memo: dict = {}
    for k in range(len(dirty) + 1):
        now = rr.cleaned(np.array(dirty[:k], np.intp)) if k else rr
        shared = certify_rows(now, T, alpha, Worlds(now, alpha, limit, memo=memo))
        fresh = certify_rows(now, T, alpha, Worlds(now, alpha, limit))
        for a, b in zip(shared.__dict__.values(), fresh.__dict__.values()):
            assert np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))


@given(
    st.one_of(
        repair_instances(truth=True, max_rows=6, max_missing=6),
        crowded_instances(truth=True, max_rows=6),
    ),
    st.randoms(use_true_random=False),
)
@settings(max_examples=200, deadline=None)
def test_patterns_after_a_cleaning_are_the_cleaned_tables_own(inst, rnd):
    """A cleaned table's patterns taken from the table before (``Patterns.cleaned``, as
    the policy's rounds and the curves take them) are those it builds itself, key by key,
    a clean row "cleaned" too, and so are its certifications."""
    rr, T = coded_truth(inst)
    rows = list(range(rr.n))  # dirty and clean rows alike
    rnd.shuffle(rows)
    first = Patterns(rr)
    keys = {first.key(t) for t in T} | {((), ())}
    for k in range(len(rows) + 1):
        now = rr.cleaned(np.array(rows[:k], np.intp)) if k else rr
        taken, own = first.cleaned(np.array(rows[:k], np.intp)), Patterns(now)
        for key in sorted(keys):
            for a, b in zip(taken.rows(key), own.rows(key)):
                assert np.array_equal(a.fixed, b.fixed) and np.array_equal(
                    a.fixed_ways, b.fixed_ways
                )
                assert len(a.groups) == len(b.groups)
                for x, y in zip(a.groups, b.groups):
                    assert x.g == y.g and np.array_equal(x.patterns, y.patterns)
                    assert np.array_equal(x.weights, y.weights)
        got = certify_rows(now, T, 0, Worlds(now, 0, patterns=taken))
        want = certify_rows(now, T, 0, Worlds(now, 0))
        for a, b in zip(got.__dict__.values(), want.__dict__.values()):
            assert np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
