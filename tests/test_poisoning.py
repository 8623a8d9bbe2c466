"""poison (op, sr, rp) against exhaustive search over blanked-cell subsets (alpha = 0)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbcert
from brute import (brute_is_nonrobust_after, brute_min_poison, brute_robust, feature_cells,
                   poison_allowed)
from strategies import complete_instances

SETTINGS = settings(max_examples=250, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# at most 12 feature cells, so exhaustive subset search stays cheap
small_complete = st.one_of(complete_instances(max_rows=6, max_features=2, min_labels=2, unseen=False),
                           complete_instances(max_rows=4, max_features=3, min_labels=2, unseen=False),
                           complete_instances(max_rows=5, max_features=2))


def _check_shape(p, train, label):
    assert isinstance(p, nbcert.Poisoning)
    assert isinstance(p.possible, (bool, np.bool_))
    assert p.status in ("poisoned", "already_nonrobust", "impossible", "none_found")
    if not p.possible:
        assert p.num_cells is None and p.status in ("impossible", "none_found")
        return
    assert p.status == ("poisoned" if p.cells else "already_nonrobust")
    assert p.num_cells == len(p.cells)
    feats = [c for c in train.columns if c != label]
    for cell in p.cells:
        r, f = cell
        assert isinstance(r, (int, np.integer)) and 0 <= r < len(train), cell
        assert f in feats, f"{cell}: not a feature column"
    assert len(set(p.cells)) == len(p.cells), "duplicate cells"


@SETTINGS
@given(inst=small_complete)
def test_op_is_minimum_and_valid(inst):
    res = nbcert.poison(inst.train, inst.test, inst.label, method="op")
    assert isinstance(res, list) and len(res) == len(inst.test)
    for p, row in zip(res, inst.test_rows()):
        _check_shape(p, inst.train, inst.label)
        expected = brute_min_poison(inst.train, inst.label, row)
        assert p.num_cells == expected, f"OP size {p.num_cells}, brute-force minimum {expected}"
        assert (p.status == "impossible") == (expected is None), "OP's impossibility is a proof"
        if p.possible:
            assert brute_is_nonrobust_after(inst.train, inst.label, row, p.cells), \
                f"blanking {p.cells} leaves the point robust (or is not allowed)"
        if brute_robust(inst.train, inst.label, row, 0)[0] is False:
            assert p.possible and tuple(p.cells) == ()


@pytest.mark.parametrize("method", ["sr", "rp"])
@SETTINGS
@given(inst=small_complete, seed=st.integers(0, 2**16))
def test_baselines_valid(method, inst, seed):
    res = nbcert.poison(inst.train, inst.test, inst.label, method=method, seed=seed)
    assert len(res) == len(inst.test)
    for p, row in zip(res, inst.test_rows()):
        _check_shape(p, inst.train, inst.label)
        if p.possible:
            assert brute_is_nonrobust_after(inst.train, inst.label, row, p.cells), \
                f"{method} blanking {p.cells} leaves the point robust (or is not allowed)"
            expected = brute_min_poison(inst.train, inst.label, row)
            assert expected is not None and p.num_cells >= expected
        elif p.status == "impossible":  # only where proven: a single label
            assert inst.train[inst.label].nunique() == 1


@SETTINGS
@given(inst=small_complete, seed=st.integers(0, 2**16))
def test_baselines_not_smaller_than_op(inst, seed):
    op = nbcert.poison(inst.train, inst.test, inst.label, method="op")
    for method in ("sr", "rp"):
        other = nbcert.poison(inst.train, inst.test, inst.label, method=method, seed=seed)
        for a, b in zip(op, other):
            if b.possible:
                assert a.possible and b.num_cells >= a.num_cells


# ------------------------------------------------------------------------- unit cases

def _poison1(train, test_row, method="op", seed=0):
    test = pd.DataFrame({k: [v] for k, v in test_row.items()}, dtype=object)
    [p] = nbcert.poison(train, test, "y", method=method, seed=seed)
    return p


@pytest.mark.parametrize("method", ["op", "sr", "rp"])
def test_already_nonrobust_is_empty(method):
    # a tie on the complete table
    train = pd.DataFrame({"f": ["a", "b", "a", "b"], "y": ["p", "p", "q", "q"]}, dtype=object)
    p = _poison1(train, {"f": "a"}, method)
    assert p.possible and tuple(p.cells) == () and p.num_cells == 0


@pytest.mark.parametrize("method", ["op", "sr", "rp"])
def test_unseen_value_alpha0_is_already_nonrobust(method):
    train = pd.DataFrame({"f": ["a", "b", "a"], "g": ["a", "a", "b"], "y": ["p", "q", "q"]}, dtype=object)
    p = _poison1(train, {"f": "z", "g": "a"}, method)
    assert p.possible and p.num_cells == 0


@pytest.mark.parametrize("method", ["op", "sr", "rp"])
def test_single_label_impossible(method):
    # proven whatever the method: every world predicts the only label
    train = pd.DataFrame({"f": ["a", "b", "a"], "y": ["p", "p", "p"]}, dtype=object)
    p = _poison1(train, {"f": "a"}, method)
    assert not p.possible and p.num_cells is None and p.status == "impossible"


def test_randomized_method_that_finds_none_says_none_found():
    # a 1-cell poisoning exists (OP), but RP's random order misses it for some seeds
    train = pd.DataFrame({"f0": ["a", "b", "a", "a"], "y": ["r", "p", "p", "p"]}, dtype=object)
    assert brute_min_poison(train, "y", {"f0": "a"}) == 1
    assert _poison1(train, {"f0": "a"}, "op").status == "poisoned"
    found = [_poison1(train, {"f0": "a"}, "rp", seed) for seed in range(8)]
    assert {p.status for p in found} == {"poisoned", "none_found"}
    for p in found:
        assert p.status != "impossible" and (p.num_cells is None) == (p.status == "none_found")


@pytest.mark.parametrize("method", ["op", "sr", "rp"])
def test_one_value_column_cannot_help(method):
    # f's domain is {"a"}: a blanked cell is forced back to "a", and blanking every cell
    # of f is not allowed, so no poisoning exists.
    train = pd.DataFrame({"f": ["a", "a", "a"], "y": ["p", "p", "q"]}, dtype=object)
    assert brute_min_poison(train, "y", {"f": "a"}) is None
    p = _poison1(train, {"f": "a"}, method)
    assert not p.possible and p.num_cells is None
    assert p.status == ("impossible" if method == "op" else "none_found")


def test_recomputed_domain_matters():
    # Blanking q's only "b" removes "b" from f's domain: the blanked cell is forced to
    # "a" and q's count rises (a tie with p).  Checked against the brute force.
    train = pd.DataFrame({"f": ["a", "a", "a", "a", "b", "a"],
                          "y": ["p", "p", "p", "q", "q", "q"]}, dtype=object)
    row = {"f": "a"}
    expected = brute_min_poison(train, "y", row)
    p = _poison1(train, row)
    assert p.num_cells == expected
    if p.possible:
        assert brute_is_nonrobust_after(train, "y", row, p.cells)


def test_positions_not_index_labels():
    train = pd.DataFrame({"f": ["a", "a", "b", "b", "b"], "g": ["a", "b", "a", "b", "b"],
                          "y": ["p", "p", "q", "q", "q"]}, dtype=object, index=[50, 40, 30, 20, 10])
    row = {"f": "a", "g": "a"}
    p = _poison1(train, row)
    assert p.num_cells == brute_min_poison(train, "y", row)
    assert p.possible
    assert brute_is_nonrobust_after(train, "y", row, p.cells)
    for r, f in p.cells:
        assert 0 <= r < 5


def test_incomplete_table_is_input_error():
    train = pd.DataFrame({"f": ["a", np.nan, "b"], "y": ["p", "q", "q"]}, dtype=object)
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    with pytest.raises(nbcert.InputError):
        nbcert.poison(train, test, "y")


def test_brute_helpers_sanity():
    """The reference itself: allowed-set rule and recomputed domains."""
    train = pd.DataFrame({"f": ["a", "b"], "y": ["p", "q"]}, dtype=object)
    assert not poison_allowed(train, "y", [(0, "f"), (1, "f")])  # column left empty
    assert not poison_allowed(train, "y", [(0, "y")])  # label cells are not poisonable
    assert poison_allowed(train, "y", [(0, "f")])
    assert len(feature_cells(train, "y")) == 2
    # blank row 0: domain {"b"}, forced -> p's count for "a" is 0 and q's too: tie at alpha 0
    assert brute_is_nonrobust_after(train, "y", {"f": "a"}, [(0, "f")])
    assert brute_min_poison(train, "y", {"f": "a"}) == 1

    # closed world after blanking: blanking both "c" cells leaves domain {"a"}, so both are
    # forced to "a" and p wins in the only world -- robust again, not a poisoning
    # (with the original domain {"a", "c"} it would look like one).
    train = pd.DataFrame({"f": ["c", "a", "c"], "y": ["p", "q", "p"]}, dtype=object)
    assert brute_robust(train, "y", {"f": "a"}, 0) == (True, "q")
    assert not brute_is_nonrobust_after(train, "y", {"f": "a"}, [(0, "f"), (2, "f")])
    assert brute_is_nonrobust_after(train, "y", {"f": "a"}, [(0, "f")])


@pytest.mark.parametrize("method", ["rp", "sr", "op"])
def test_answers_on_a_table_larger_than_rps_window_are_valid(method):
    # RP checks prefixes a window of 4096 cells at a time; its answer must hold every cell so far
    from nbcert.repro.synthetic import synthetic_codes

    X, y = synthetic_codes(3000, 6, domain=3, labels=2, seed=4)
    train = pd.DataFrame(X.astype(str), columns=[f"f{j}" for j in range(6)]).assign(y=y.astype(str))
    test = train.drop(columns="y").iloc[[5, 17]]
    for p, row in zip(nbcert.poison(train, test, "y", method=method, seed=1), range(2)):
        assert p.possible
        poisoned = train.copy()
        for r, c in p.cells:
            poisoned.iloc[r, poisoned.columns.get_loc(c)] = np.nan
        assert not nbcert.certify(poisoned, test.iloc[[row]], "y").robust.iloc[0], (method, p.num_cells)
