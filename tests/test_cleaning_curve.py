"""The cleaning curve: at every state of an order the certain rows are enumeration's (with
and without candidate repairs), the accuracy is that of Naive Bayes trained on the table as
it stands (missing cells left out, or filled from a repaired copy), and the orders clean
what they say (every cell at most once; rows whole with unit "rows")."""

from __future__ import annotations

import numpy as np
import pandas as pd
from brute import brute_is_robust_after_cleaning, brute_min_clean
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import candidate_sets, dirty_instances

import nbcert

SETTINGS = dict(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _frame(cands: dict) -> pd.DataFrame:
    rows = [(r, f, v) for (r, f), vs in cands.items() for v in vs]
    return pd.DataFrame(rows, columns=["row", "column", "value"], dtype=object)


@settings(max_examples=120, **SETTINGS)
@given(
    dirty_instances(max_rows=6, max_missing=5, max_tests=3, min_labels=2),
    st.sampled_from(["policy", "random"]),
    st.sampled_from(["cells", "rows"]),
    st.booleans(),
    st.data(),
)
def test_each_state_of_a_curve_is_what_enumeration_says(inst, order, unit, with_cands, data):
    """Every state: the certain rows are those enumeration finds certain once the order's
    first cells are cleaned; the order cleans each missing cell at most once (random: all
    of them), rows whole with unit "rows", and the policy stops once every row some
    cleaning certifies is certain (where cleaning is monotone: every true value observed)."""
    cands = data.draw(candidate_sets(inst.dirty, inst.features)) if with_cands else None
    kw = {"candidates": _frame(cands)} if with_cands else {}
    rows = inst.test_rows()
    curve = nbcert.cleaning_curve(
        inst.dirty,
        inst.truth,
        inst.test,
        inst.label,
        order=order,
        unit=unit,
        seed=3,
        points=10**6,
        **kw,
    )
    cells = curve.attrs["cells"]
    missing = {(r, f) for f in inst.features for r in np.flatnonzero(inst.dirty[f].isna()).tolist()}
    assert len(set(cells)) == len(cells) and set(cells) <= missing
    assert curve.cells.tolist() == list(range(len(cells) + 1))
    if order == "random":
        assert set(cells) == missing
    if unit == "rows":  # each row's cells together, all of them
        for r in {r for r, _ in cells}:
            at = [i for i, (rr, _) in enumerate(cells) if rr == r]
            assert at == list(range(at[0], at[0] + len(at)))
            assert {f for rr, f in cells if rr == r} == {f for rr, f in missing if rr == r}
    args = (inst.dirty, inst.truth, inst.label)
    able = [r for r in rows if brute_min_clean(*args, [r], 0, cands) is not None]
    for state in curve.itertuples():
        done = cells[: state.cells]
        certain = [brute_is_robust_after_cleaning(*args, r, done, 0, cands) for r in rows]
        assert state.certain == sum(certain)
        assert state.rows == len({r for r, _ in done})
    if order == "policy" and unit == "cells":
        assert (curve.certain.iloc[:-1] < len(able)).all()
        seen = {f: set(inst.dirty[f].dropna()) for f in inst.features}
        if not with_cands and all(inst.truth.at[r, f] in seen[f] for r, f in missing):
            # where every true value is an observed one, cleaning keeps a certain row certain
            # and a cleanable one cleanable (the worlds after are among those before), so
            # the policy ends with every cleanable row certain; a true value outside the
            # domain (or a cell's candidates) can make a row uncleanable, and the heuristic
            # may then end short of them
            assert curve.certain.iloc[-1] == len(able)
    event(f"{order} {unit}: {curve.certain.iloc[-1]} of {len(rows)} certain at the end")


def test_a_curve_where_no_cleaning_certifies_every_row_at_once():
    """Row z is certain only while the missing cell may be z (its one candidate), row b only
    once it is cleaned to its truth b: each row some cleaning certifies, never both, so the
    policy's curve cleans the cell and ends with one row certain, as enumeration says."""
    dirty = pd.DataFrame({"y": ["p", "q"], "f0": [None, "a"]}, dtype=object)
    truth = dirty.assign(f0=["b", "a"])
    test = pd.DataFrame({"f0": ["b", "z"]}, dtype=object)
    cands = {(0, "f0"): ["z"]}
    curve = nbcert.cleaning_curve(dirty, truth, test, "y", candidates=_frame(cands))
    assert curve.certain.tolist() == [1, 1]
    for r in ({"f0": "b"}, {"f0": "z"}):
        assert brute_min_clean(dirty, truth, "y", [r], 0, cands) is not None
    assert brute_min_clean(dirty, truth, "y", [{"f0": "b"}, {"f0": "z"}], 0, cands) is None


def test_with_candidates_the_policy_can_clean_a_row_out_of_reach():
    """Cleaning (1, f0) to its truth a, outside its one candidate z, leaves the test value z
    unseen: the row, certifiable by cleaning (1, f2) alone, is then out of reach.  The
    heuristic policy may take that cell first; the curve says so, as enumeration does."""
    dirty = pd.DataFrame({"y": ["p", "q"], "f0": ["a", None], "f1": ["a", None], "f2": ["a", None]})
    truth = dirty.assign(f0="a", f1="a", f2="a")
    test = pd.DataFrame({"f0": ["z"], "f1": ["a"], "f2": ["a"]})
    cands = {(1, "f0"): ["z"], (1, "f2"): ["d"]}
    assert brute_min_clean(dirty, truth, "y", [{"f0": "z", "f1": "a", "f2": "a"}], 0, cands) == 1
    curve = nbcert.cleaning_curve(dirty, truth, test, "y", candidates=_frame(cands))
    for state in curve.itertuples():
        done = curve.attrs["cells"][: state.cells]
        row = {"f0": "z", "f1": "a", "f2": "a"}
        assert state.certain == brute_is_robust_after_cleaning(
            dirty, truth, "y", row, done, 0, cands
        )


def test_the_policy_curve_is_the_report_s_path():
    """The policy's curve follows the path ``clean_with_truth`` reports, cell for cell."""
    dirty = pd.DataFrame(
        {
            "f": ["a", "a", None, "b", None, "b", "a", None],
            "g": ["x", None, "x", "y", "y", None, "x", "y"],
            "y": ["p", "p", "p", "q", "q", "q", "p", "q"],
        }
    )
    truth = dirty.assign(
        f=["a", "a", "a", "b", "a", "b", "a", "b"], g=["x", "y", "x", "y", "y", "x", "x", "y"]
    )
    test = pd.DataFrame({"f": ["a", "b", "c"], "g": ["y", "x", "x"]})
    rep = nbcert.clean_with_truth(dirty, truth, test, "y")
    curve = nbcert.cleaning_curve(dirty, truth, test, "y")
    assert curve.attrs["cells"] == rep.path and len(rep.path) > 0
    assert curve.certain.iloc[-1] == len(test) - len(rep.together.excluded)


@settings(max_examples=120, **SETTINGS)
@given(
    dirty_instances(max_rows=7, max_missing=6, max_tests=4, min_labels=2),
    st.sampled_from([0, 1]),
    st.booleans(),
)
def test_accuracy_is_naive_bayes_on_the_table_as_it_stands(inst, alpha, filled):
    """At the start the classifier is CertifiedNB's on the dirty table (missing cells left
    out), or trained on the repaired copy; at the end (random order: every cell) on the
    truth."""
    labels = [inst.truth[inst.label].iloc[i % len(inst.truth)] for i in range(len(inst.test))]
    fill = inst.truth.drop(columns=inst.label).iloc[::-1].reset_index(drop=True) if filled else None
    curve = nbcert.cleaning_curve(
        inst.dirty,
        inst.truth,
        inst.test,
        inst.label,
        labels=labels,
        order="random",
        seed=0,
        alpha=alpha,
        fill=fill,
        points=10**6,
    )
    X = inst.test[inst.features]

    def accuracy(train):
        nb = nbcert.CertifiedNB(alpha=alpha).fit(train[inst.features], train[inst.label])
        return float(np.mean(nb.predict(X) == np.array(labels, dtype=object)))

    start = inst.dirty.copy()
    if filled:
        start[inst.features] = start[inst.features].where(start[inst.features].notna(), fill)
    assert curve.accuracy.iloc[0] == accuracy(start)
    assert curve.accuracy.iloc[-1] == accuracy(inst.truth)
