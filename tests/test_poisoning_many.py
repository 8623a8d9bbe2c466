"""poison_many (greedy and exact) against exhaustive search over blanked-cell subsets."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbcert
from brute import brute_is_nonrobust_after, feature_cells
from strategies import complete_instances

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

tiny = st.one_of(complete_instances(max_rows=5, max_features=2, min_labels=2, unseen=False),
                 complete_instances(max_rows=4, max_features=3, min_labels=2, unseen=False))


def all_nonrobust(inst, cells) -> bool:
    return all(brute_is_nonrobust_after(inst.train, inst.label, row, cells) for row in inst.test_rows())


def brute_min_together(inst):
    cells = feature_cells(inst.train, inst.label)
    for k in range(len(cells) + 1):
        for subset in itertools.combinations(cells, k):
            if all_nonrobust(inst, list(subset)):
                return k
    return None


@SETTINGS
@given(tiny)
def test_exact_is_minimum_and_greedy_is_valid(inst):
    best = brute_min_together(inst)
    for method in ("exact", "greedy"):
        res = nbcert.poison_many(inst.train, inst.test, inst.label, method=method, time_limit=20)
        assert isinstance(res, nbcert.ManyPoisoning)
        if res.lower_bound is not None and best is not None:
            assert res.lower_bound <= best, (method, res, best)  # a proven bound never exceeds the optimum
        if not res.possible:
            assert not res.optimal or best is None, (method, res)  # "proven impossible" must be true
            assert res.status == ("impossible" if res.optimal else "none_found")
            assert method == "exact" or res.status == "none_found" or inst.train[inst.label].nunique() == 1
            continue
        assert res.status == ("poisoned" if res.cells else "already_nonrobust")
        assert all_nonrobust(inst, list(res.cells)), (method, res)
        assert best is not None and res.num_cells >= best
        if res.optimal:
            assert res.num_cells == best, (method, res, best)  # "proven optimal" must be true


def test_shared_cells_beat_the_union_of_single_point_answers():
    # two points sharing the rare value 'r' in column f: blanking l*'s single 'r' row
    # flips both, while single-point answers need no coordination
    train = pd.DataFrame({"f": ["r", "a", "a", "a", "b", "b", "r"], "g": ["x", "x", "y", "y", "x", "y", "x"],
                          "y": ["p", "p", "p", "p", "q", "q", "q"]})
    test = pd.DataFrame({"f": ["r", "r"], "g": ["x", "y"]})
    res = nbcert.poison_many(train, test, "y", method="exact")
    singles = {c for p in nbcert.poison(train, test, "y") for c in p.cells}
    assert res.optimal and res.num_cells <= len(singles)
    rows = [dict(zip(["f", "g"], r)) for r in test.itertuples(index=False)]
    assert all(brute_is_nonrobust_after(train, "y", row, list(res.cells)) for row in rows)


def test_greedy_on_a_real_sized_table_is_valid():
    rng = np.random.default_rng(3)
    train = pd.DataFrame({f"f{j}": rng.choice(list("abc"), 400) for j in range(6)})
    train["y"] = np.where((train.f0 == "a") | (train.f1 == "b"), "p", "q")
    test = train.drop(columns="y").iloc[:8]
    res = nbcert.poison_many(train, test, "y", method="greedy")
    assert res.possible and not res.optimal
    poisoned = train.copy()
    for r, c in res.cells:
        poisoned.iloc[r, poisoned.columns.get_loc(c)] = np.nan
    assert not nbcert.certify(poisoned, test, "y").robust.any()


def test_rejects_an_incomplete_table():
    train = pd.DataFrame({"f": ["a", None], "y": ["p", "q"]})
    with pytest.raises(nbcert.InputError, match="complete table"):
        nbcert.poison_many(train, pd.DataFrame({"f": ["a"]}), "y")
