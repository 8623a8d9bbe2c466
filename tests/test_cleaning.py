"""Which cells to clean: the minimum with the truth (one point and all together) against exhaustive search
over subsets of missing cells, the policy's ranked list, and the API's input checks."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import (
    brute_is_robust_after_cleaning,
    brute_min_clean,
    brute_min_clean_some,
    brute_robust,
    missing_cells,
)
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from strategies import DirtyInstance, alphas, dirty_instances

import nbcert
from nbcert import cleaning
from nbcert.cleaning.fixed import _waterfill, _waterfill_logs
from nbcert.cleaning.results import dirty_model
from nbcert.cleaning.rival import Rival, rival_floor, rival_greedy
from nbcert.cleaning.single import search, within
from nbcert.cleaning.together import _largest_minimum
from nbcert.params import as_alpha

SETTINGS = dict(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _events(inst, alpha):
    """Record what the example covers (pytest --hypothesis-show-statistics)."""
    dirty, truth = inst.dirty, inst.truth
    event(f"labels: {truth[inst.label].nunique()}")
    event(f"alpha: {alpha}")
    for f in inst.features:
        observed = set(dirty[f].dropna())
        if set(truth[f]) - observed:
            event("a truth outside the dirty domain (domain-changing cleaning)")
        if len(observed) == 1:
            event("a one-value dirty domain")
    if any(v not in set(truth[f]) for row in inst.test_rows() for f, v in row.items()):
        event("a test value unseen in the truth")


def test_a_rival_with_no_column_left_has_no_floor_to_index():
    """A branch whose rival has no active column (every column forced or unseen) gave an
    IndexError in the rival's floor (found by the search below at alpha = 1)."""
    nan = np.nan
    dirty = pd.DataFrame(
        {"y": list("pqrsr"), "f0": ["a", nan, nan, nan, nan], "f1": ["b", nan, nan, "b", "c"]},
        dtype=object,
    )
    truth = pd.DataFrame(
        {"y": list("pqrsr"), "f0": list("aaabc"), "f1": list("babbc")}, dtype=object
    )
    test = pd.DataFrame({"f0": ["b"], "f1": ["a"]}, dtype=object)
    (pt,) = nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1, method="greedy").points
    assert pt.num_cells == brute_min_clean(dirty, truth, "y", [{"f0": "b", "f1": "a"}], 1)
    assert list(rival_floor([], [], Fraction(1), np.array([0.5, -0.5]), 1e-12)) == [0, math.inf]


@settings(max_examples=1000, **SETTINGS)
@given(
    st.one_of(dirty_instances(min_labels=2), dirty_instances(min_labels=2), dirty_instances()),
    alphas,
)
def test_minimum_with_truth_matches_exhaustive_search(inst, alpha):
    _events(inst, alpha)
    rep = nbcert.clean_with_truth(
        inst.dirty, inst.truth, inst.test, inst.label, alpha=alpha, method="greedy"
    )
    blanks = set(missing_cells(inst.dirty, inst.label))
    for row, pt in zip(inst.test_rows(), rep.points):
        best = brute_min_clean(inst.dirty, inst.truth, inst.label, [row], alpha)
        assert pt.num_cells == best, (row, pt, best)
        if best is None:
            event("no cleaning makes the point robust")
            continue
        event("already robust" if best == 0 else "needs cleaning")
        if any(inst.truth.loc[r, c] not in set(inst.dirty[c].dropna()) for r, c in pt.cells):
            event("the minimum cleans a cell whose truth is new to its column")
        assert set(pt.cells) <= blanks and len(set(pt.cells)) == len(pt.cells)
        assert brute_is_robust_after_cleaning(
            inst.dirty, inst.truth, inst.label, row, pt.cells, alpha
        )
        cleaned = inst.dirty.copy()
        for r, c in pt.cells:
            cleaned.loc[r, c] = inst.truth.loc[r, c]
        assert brute_robust(cleaned, inst.label, row, alpha) == (True, pt.label)


together_instances = st.one_of(
    dirty_instances(max_rows=5, max_features=2, max_missing=5, max_tests=3),
    dirty_instances(max_rows=4, max_features=3, max_missing=5, max_tests=2),
)


@settings(max_examples=200, **SETTINGS)
@given(together_instances, st.sampled_from([0, 0, 0, Fraction(1, 2)]))
def test_claims_about_points_together_are_true(inst, alpha):
    """The claims about all rows together, on the rows some cleaning certifies (the
    others are set aside, each proven by enumeration to have no cleaning)."""
    every = inst.test_rows()
    alone = [brute_min_clean(inst.dirty, inst.truth, inst.label, [r], alpha) for r in every]
    rows = [r for r, a in zip(every, alone) if a is not None]
    best = brute_min_clean(inst.dirty, inst.truth, inst.label, rows, alpha)
    for method in ("exact", "greedy", "auto") if alpha == 0 else ("greedy", "auto"):
        tg = nbcert.clean_with_truth(
            inst.dirty, inst.truth, inst.test, inst.label, alpha=alpha, method=method
        ).together
        assert list(tg.excluded) == [p for p, a in enumerate(alone) if a is None]
        assert (tg.why_not_optimal is None) == tg.optimal, (method, tg)  # "not optimal": why
        assert tg.lower_bound is not None or (tg.optimal and not tg.possible), (method, tg)
        event(
            f"{method}: {'optimal' if tg.optimal else 'not proven'}, {'possible' if tg.possible else 'none'}"
        )
        if tg.lower_bound is not None and best is not None:
            assert tg.lower_bound <= best, (
                method,
                tg,
                best,
            )  # a proven bound never exceeds the optimum
        if not tg.possible:
            assert not tg.optimal or best is None, (method, tg, best)  # "proven impossible" is true
            continue
        assert best is not None and tg.num_cells >= best
        assert all(
            brute_is_robust_after_cleaning(inst.dirty, inst.truth, inst.label, r, tg.cells, alpha)
            for r in rows
        )
        if tg.optimal:
            assert tg.num_cells == best, (method, tg, best)  # "proven optimal" is true
        if tg.search_optimal:  # the search's own proof, kept apart, is true too
            assert tg.num_cells == best == tg.search_bound, (method, tg, best)
        if tg.search_bound is not None:
            assert tg.search_bound <= best, (method, tg, best)


def test_rows_no_cleaning_certifies_are_set_aside():
    """One test row whose value occurs nowhere, not even in the truth (BabyProduct has 24):
    the answer for all rows together was null, printed as optimal with no bound.  The row
    is named and set aside, and the others get their answer, optimal with its bound."""
    dirty = pd.DataFrame({"f": ["a", None, "b", None], "y": list("ppqq")})
    truth = dirty.assign(f=["a", "a", "b", "b"])
    test = pd.DataFrame({"f": ["a", "z", "b"]})
    rows = test.to_dict("records")
    tg = nbcert.clean_with_truth(dirty, truth, test, "y", method="exact").together
    assert tg.excluded == (1,) and tg.possible and tg.target == tg.certified == 2
    want = brute_min_clean(dirty, truth, "y", [rows[0], rows[2]])
    assert tg.num_cells == want == tg.search_bound and tg.search_optimal and want > 0
    assert brute_min_clean(dirty, truth, "y", [rows[1]]) is None


target_instances = dirty_instances(max_rows=5, max_features=2, max_missing=5, max_tests=4)


@settings(max_examples=150, **SETTINGS)
@given(
    target_instances,
    st.sampled_from([1, 0.5, 0.75, 0.34]),
    st.sampled_from([None, None, 0, 1, 2]),
    st.sampled_from([0, 0, Fraction(1, 2)]),
)
@example(
    DirtyInstance(  # the bound for a share of the points is the need-th smallest, not the largest
        train=pd.DataFrame(
            {"y": list("pqqpq"), "f0": list("aaabb"), "f1": [None, "a", "a", None, None]},
            dtype=object,
        ),
        test=pd.DataFrame({"f0": list("abaa"), "f1": list("aabb")}, dtype=object),
        label="y",
        truth=pd.DataFrame(
            {"y": list("pqqpq"), "f0": list("aaabb"), "f1": list("baabb")}, dtype=object
        ),
    ),
    0.5,
    0,
    0,
)
def test_a_target_share_and_a_budget_are_what_they_claim(inst, target, budget, alpha):
    """The rows set aside are those no cleaning certifies; the cells certify at least the
    target's share of the others (``certified``, counted by enumeration); the proven bound
    is below the fewest cells that certify that many; "optimal" is the enumerated minimum;
    a budget is never passed."""
    rows = inst.test_rows()
    tg = nbcert.clean_with_truth(
        inst.dirty, inst.truth, inst.test, inst.label, alpha=alpha, target=target, budget=budget
    ).together
    alone = [brute_min_clean(inst.dirty, inst.truth, inst.label, [r], alpha) for r in rows]
    assert list(tg.excluded) == [p for p, a in enumerate(alone) if a is None]
    assert (tg.why_not_optimal is None) == tg.optimal, tg
    able = [r for r, a in zip(rows, alone) if a is not None]
    assert tg.target == math.ceil(round(target * len(able), 9))
    best = brute_min_clean_some(inst.dirty, inst.truth, inst.label, able, tg.target, alpha)
    if tg.lower_bound is not None and best is not None:
        assert tg.lower_bound <= best
    if budget is not None:
        assert len(tg.cells) <= budget
    if tg.possible or tg.budget_limited:
        got = sum(
            brute_is_robust_after_cleaning(inst.dirty, inst.truth, inst.label, r, tg.cells, alpha)
            for r in able
        )
        assert got == tg.certified
    if tg.possible:
        event(f"target reached, {'optimal' if tg.optimal else 'not proven'}")
        assert tg.certified >= tg.target and len(tg.cells) >= best
        assert not tg.optimal or len(tg.cells) == best
        assert tg.num_rows == len({r for r, _ in tg.cells})
    else:
        event("budget" if tg.budget_limited else "not reached")
        assert tg.budget_limited or not tg.optimal or best is None


def test_exact_program_proves_an_optimum_above_every_single_point_minimum():
    # each point alone needs one cell, together they need two: the program proves it
    dirty = pd.DataFrame(
        {
            "f0": ["b", "a", None, "a", "b", "a"],
            "f1": ["a", None, "a", "a", None, "b"],
            "y": ["p", "q", "p", "p", "p", "q"],
        }
    )
    truth = dirty.assign(f0=["b", "a", "a", "a", "b", "a"], f1=["a", "b", "a", "a", "b", "b"])
    test = pd.DataFrame({"f0": ["a", "b"], "f1": ["a", "b"]})
    rep = nbcert.clean_with_truth(dirty, truth, test, "y", method="exact")
    assert [p.num_cells for p in rep.points] == [1, 1]
    want = brute_min_clean(dirty, truth, "y", [dict(r) for _, r in test.iterrows()])
    assert rep.together.search_optimal and rep.together.method == "exact"
    assert rep.together.num_cells == rep.together.search_bound == want == 2


def _medium(seed):
    """A 20-50 row table (labels tied to the features), 20-40 % of its cells blanked, and three
    of its rows as test points: too big for exhaustive search, small for the exact program."""
    rng = np.random.default_rng(seed)
    n, d, m = rng.integers(20, 50), rng.integers(2, 4), rng.integers(2, 4)
    y = rng.integers(0, m, n)
    truth = pd.DataFrame(
        {
            f"f{j}": [f"v{v}" for v in np.where(rng.random(n) < 0.6, y % 3, rng.integers(0, 3, n))]
            for j in range(d)
        }
    )
    truth["y"] = [f"L{v}" for v in y]
    miss = rng.random((n, d)) < rng.choice([0.2, 0.4])
    miss[0] = False
    enc = nbcert.encode(truth, "y")
    tab = cleaning.CleaningTable.build(enc, miss[enc.rows])
    return tab, enc.encode_test(truth.drop(columns="y").iloc[rng.choice(n, 3, replace=False)])


@settings(max_examples=150, **SETTINGS)
@given(st.integers(0, 2**32 - 1))
def test_relaxed_bound_never_exceeds_a_proven_optimum(seed):
    tab, T = _medium(seed)
    singles = [cleaning.minimum_with_truth(tab, t) for t in T]
    if any(s is None for s in singles):
        return
    floor = max(s.cost for s in singles)
    start = cleaning.greedy(tab, T, 0)[0]
    x, lower = cleaning.exact_together(
        tab, T, int(start.sum()), floor, node_limit=5_000, time_limit=30
    )
    bound = cleaning.relaxed_bound(tab, T)
    event(
        "relaxed bound above the largest single-point minimum"
        if bound > floor
        else "relaxed bound no better"
    )
    best = min(int(b.sum()) for b in (x, start) if b is not None)
    if best <= lower:  # proven optimal by the program and the single-point minima alone
        event("optimum proven")
        assert bound <= best


@settings(max_examples=100, **SETTINGS)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(1, 3), min_size=3, max_size=3))
def test_greedy_asks_a_repeated_point_once(seed, times):
    """Greedy on T with its points repeated (interleaved) cleans what it cleans on each
    point's first occurrence alone, at alpha 0 and 1: the answer together asks each once."""
    from nbcert.cleaning.together import first_places

    tab, T = _medium(seed)
    rng = np.random.default_rng(seed)
    many = np.repeat(T, times, axis=0)[rng.permutation(sum(times))]
    first = first_places(many)
    assert len(first) == len(np.unique(T, axis=0))
    for alpha in (0, 1):
        x, stop = cleaning.greedy(tab, many, alpha)
        y, stop_first = cleaning.greedy(tab, many[first], alpha)
        assert stop == stop_first and np.array_equal(x, y)


# ----------------------------------------------------------------------------- worked cases


def test_partial_cleaning_certifies_where_the_full_table_ties():
    # g's observed values are all 'a' (= t_g): the blank is forced to 'a' and g is neutral,
    # so f decides for p with no cleaning; the true table ties (p loses on g what it wins
    # on f).  The minimum is 0 although cleaning everything gives a tie.
    dirty = pd.DataFrame(
        {"f": ["x", "x", "x", "y"], "g": ["a", None, "a", "a"], "y": ["p", "p", "q", "q"]}
    )
    truth = dirty.assign(g=["a", "b", "a", "a"])
    test = pd.DataFrame({"f": ["x"], "g": ["a"]})
    assert not nbcert.certify(truth, test, "y").robust.iloc[0]
    rep = nbcert.clean_with_truth(dirty, truth, test, "y")
    assert rep.points[0].num_cells == 0 and rep.points[0].label == "p"


def test_a_cleaning_that_adds_the_test_value_to_the_domain():
    # t_f = 'c' is only among the blanks: every support is 0 until a 'c' cell of p is cleaned
    dirty = pd.DataFrame({"f": ["a", None, "b", "b"], "y": ["p", "p", "q", "q"]})
    truth = dirty.assign(f=["a", "c", "b", "b"])
    test = pd.DataFrame({"f": ["c"]})
    rep = nbcert.clean_with_truth(dirty, truth, test, "y")
    assert rep.points[0].cells == ((1, "f"),) and rep.points[0].label == "p"


def test_no_cleaning_helps_is_reported_as_impossible():
    # the two labels have identical rows in the truth: every cleaned table ties
    dirty = pd.DataFrame({"f": ["a", None, "a", None], "y": ["p", "p", "q", "q"]})
    truth = dirty.assign(f=["a", "b", "a", "b"])
    test = pd.DataFrame({"f": ["a"]})
    rep = nbcert.clean_with_truth(dirty, truth, test, "y")
    assert rep.points[0].num_cells is None and not rep.points[0].possible
    assert brute_min_clean(dirty, truth, "y", [{"f": "a"}]) is None
    assert rep.together.excluded == (0,) and rep.together.num_cells == 0  # nothing left to do


def test_a_rival_is_lowered_optimally_where_greedy_is_not():
    # a rival's counts h = (10, 3), caps (10, 1), alpha = 0, and its product must reach 0:
    # the greedy step (largest relative drop first: 3 -> 2) wastes a cell; emptying the
    # first column alone takes 10
    rival = Rival([10, 3], [10, 1], Fraction(0), 1e-9)
    assert rival.cheapest(ceiling=1, weight=1, need=0.0, limit=100)[0] == 10
    # and a threshold reached with one partial column: 9 * 2 = 18 < 20 with two cells
    assert rival.cheapest(ceiling=20, weight=1, need=float(np.log(20)), limit=100)[0] == 2


# ----------------------------------------------------------------------------- the policy


def test_policy_ranking_is_the_api_answer_and_starts_the_path():
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
    test = pd.DataFrame({"f": ["a", "b"], "g": ["y", "x"]})
    assert not nbcert.certify(dirty, test, "y").robust.any()
    ranked = nbcert.clean(dirty, test, "y")
    assert list(ranked.columns) == [
        "row",
        "column",
        "label",
        "score",
        "group_cells",
        "as_winner",
        "as_rival",
        "test_value",
        "group_rows",
    ]
    assert (ranked.score.diff().dropna() <= 0).all() and len(ranked)
    enc = nbcert.encode(dirty, "y")
    T = enc.encode_test(test)
    advice = cleaning.advice(enc, T)
    assert [(a["row"], a["column"]) for a in advice] == list(zip(ranked.row, ranked.column))
    rep = nbcert.clean_with_truth(dirty, truth, test, "y")
    assert rep.path[0] == (int(ranked.row.iloc[0]), ranked.column.iloc[0])
    assert rep.path_certifies


def test_policy_is_empty_when_everything_is_robust():
    train = pd.DataFrame({"f": ["a", "a", "b", None], "y": ["p", "p", "q", "q"]})
    assert nbcert.certify(train, pd.DataFrame({"f": ["a"]}), "y").robust.all()
    assert nbcert.clean(train, pd.DataFrame({"f": ["a"]}), "y").empty


def test_truth_odds_follow_the_prior():
    obs = np.zeros((2, 1, 3), np.int64)
    obs[0, 0] = [3, 1, 0]
    obs[1, 0] = [0, 0, 2]
    T = np.array([[0]])
    assert np.allclose(cleaning.truth_odds(obs, T, "worlds")[0, :, 0], [1 / 3, 1 / 3])
    assert np.allclose(cleaning.truth_odds(obs, T, "observed")[0, :, 0], [3 / 4, 0.0])
    assert np.allclose(cleaning.truth_odds(obs, np.array([[-1]]), "observed"), 0.0)  # unseen: never


# ----------------------------------------------------------------------------- input checks

TRUTH_CASES = [
    (lambda t: t.rename(columns={"g": "h"}), "header"),
    (lambda t: t.iloc[:-1], "data rows"),
    (lambda t: t.assign(g=["x", "y", "x", None]), "data row 3 has no value in column 'g'"),
]


@pytest.mark.parametrize("change, words", TRUTH_CASES)
def test_truth_table_errors_name_the_problem(change, words):
    dirty = pd.DataFrame(
        {"f": ["a", "a", None, "b"], "g": ["x", "y", "x", None], "y": ["p", "p", "q", "q"]}
    )
    truth = dirty.assign(f=["a", "a", "b", "b"], g=["x", "y", "x", "x"])
    with pytest.raises(nbcert.InputError, match=words):
        nbcert.clean_with_truth(dirty, change(truth), pd.DataFrame({"f": ["a"], "g": ["x"]}), "y")


def test_the_truth_is_read_for_the_missing_cells_only():
    """Where the truth's observed cells differ from the training table's, one warning names
    how many and the first (both raw values), and the training table's values stand: the
    answer is the one for the truth with the training table's observed cells."""
    dirty = pd.DataFrame({"f": ["a", "b", "a", None], "g": ["x", "y", "y", "x"], "y": list("pqqq")})
    truth = dirty.assign(f=["a", "a", "b", "a"], g=["x", "x", "y", "x"])  # rows 1, 2 differ
    test = pd.DataFrame({"f": ["a"], "g": ["x"]})
    with pytest.warns(nbcert.DataWarning) as caught:
        got = nbcert.clean_with_truth(dirty, truth, test, "y")
    (said,) = [str(w.message) for w in caught if "differ" in str(w.message)]
    assert said == (
        "truth table: 3 observed cells of the training table differ in it (the first: data "
        "row 1, column 'f' is 'a' where the training table has 'b'); the truth is used for "
        "the missing cells only, and the training table's values stand"
    )
    want = nbcert.clean_with_truth(dirty, dirty.fillna({"f": "a"}), test, "y")
    assert got.points == want.points and got.together == want.together


def test_a_truth_with_rounded_floats_is_binned_as_the_training_table():
    """CPClean's clean tables write floats to 8 digits: 19.21407939 where the training table
    has 19.2140793918919, and the two fell in different bins, so the truth was refused
    ("is '(-inf, 19.2)' but ... has '[19.2, inf)'").  Now the training table's values stand
    and the warning quotes the raw values."""
    w = [19.2140793918919, 3.5, 25.0, 12.0, 19.3, 30.1, 8.0, 19.1]
    dirty = pd.DataFrame({"w": w, "b": ["x", None, "y", "x", None, "y", "x", "y"]})
    dirty["y"] = list("pqpqpqpq")
    truth = dirty.assign(w=[round(v, 1) if v > 19 else v for v in w], b=list("xyyxxyxy"))
    test = pd.DataFrame({"w": [19.25], "b": ["x"]})
    with pytest.warns(nbcert.DataWarning, match=r"19\.2140793918919") as caught:
        got = nbcert.clean_with_truth(dirty, truth, test, "y", bins=2)
    said = next(str(c.message) for c in caught if "differ" in str(c.message))
    assert said.startswith("truth table: 1 observed cell of the training table differs in it")
    assert "column 'w' is 19.2 where the training table has 19.2140793918919" in said
    aligned = dirty.fillna({"b": pd.Series(["y", "x"], index=[1, 4])})
    assert got.points == nbcert.clean_with_truth(dirty, aligned, test, "y", bins=2).points


def test_api_arguments_are_checked():
    dirty = pd.DataFrame({"f": ["a", None], "y": ["p", "q"]})
    truth = pd.DataFrame({"f": ["a", "b"], "y": ["p", "q"]})
    test = pd.DataFrame({"f": ["a"]})
    with pytest.raises(nbcert.InputError, match="prior"):
        nbcert.clean(dirty, test, "y", prior="uniform")
    with pytest.raises(nbcert.InputError, match="alpha"):
        nbcert.clean_with_truth(dirty, truth, test, "y", alpha=-1)
    with pytest.raises(nbcert.InputError, match="alpha = 0"):
        nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1, method="exact")
    with pytest.raises(nbcert.InputError, match="truth table: expected a pandas DataFrame"):
        nbcert.clean_with_truth(dirty, 42, test, "y")
    with pytest.raises(nbcert.InputError, match="^absent.csv: no such file"):
        nbcert.clean_with_truth(dirty, "absent.csv", test, "y")  # a path is read


def test_too_many_domain_outcomes_is_a_clear_error():
    # with alpha > 0 each column whose true values include one never observed branches (is it
    # introduced, and by whom?): 13 such columns exceed the limit
    d = 13
    dirty = pd.DataFrame(
        {f"f{j}": ["a", "c", None, None] for j in range(d)} | {"y": ["p", "q", "p", "q"]}
    )
    truth = dirty.fillna("b")
    test = pd.DataFrame({f"f{j}": ["a"] for j in range(d)})
    with pytest.raises(nbcert.InputError, match="column domain outcomes"):
        nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1)
    # with alpha = 0 a new value changes nothing here (t_j is observed with another value): no
    # branching; p and q tie until one of q's blanks (truly 'b') is cleaned, zeroing q's support
    pt = nbcert.clean_with_truth(dirty, truth, test, "y", alpha=0).points[0]
    assert pt.num_cells == 1 and pt.label == "p" and pt.cells[0][0] == 3
    cleaned = dirty.copy()
    cleaned.loc[3, pt.cells[0][1]] = "b"
    assert nbcert.certify(cleaned, test, "y").label.iloc[0] == "p"


# ----------------------------------------------------------------------------- the search's shortcuts


def _reference_rival(h, cap, p, q, tol):
    """A rival's candidates (cost, log product, membership, partial column) and curve built
    the plain way: one Pareto row per skipped column, and the curve one candidate at a time."""
    h, cap = np.asarray(h, np.int64), np.asarray(cap, np.int64)
    with np.errstate(divide="ignore"):
        logv0, logfull = np.log(float(q) * h + p), np.log(float(q) * (h - cap) + p)
    rows = []
    for skip in [-1] + np.flatnonzero(cap).tolist():
        cost, logq, member = (
            np.zeros(1, np.int64),
            np.array([logv0.sum()]),
            np.zeros((1, len(h)), bool),
        )
        for j in np.flatnonzero(cap):
            if j == skip:
                continue
            add = member.copy()
            add[:, j] = True
            cost, logq = (
                np.concatenate([cost, cost + cap[j]]),
                np.concatenate([logq, logq - logv0[j] + logfull[j]]),
            )
            member = np.concatenate([member, add])
            order = np.lexsort((logq, cost))
            cost, logq, member = cost[order], logq[order], member[order]
            prev = np.minimum.accumulate(np.concatenate([[np.inf], logq[:-1]]))
            keep = (logq <= prev + tol) & ~np.isneginf(prev)
            cost, logq, member = cost[keep], logq[keep], member[keep]
        rows.append((np.full(len(cost), skip), cost, logq, member))
    part, cost, logq, member = (np.concatenate([r[i] for r in rows]) for i in range(4))
    L = np.full(int(cap.sum()) + 1, np.inf)
    L[0] = logq[0]
    for j in np.flatnonzero(cap):
        with np.errstate(divide="ignore"):
            tail = np.log(float(q) * (h[j] - np.arange(cap[j] + 1)) + p) - logv0[j]
        for cs, lq in zip(cost[part == j].tolist(), logq[part == j].tolist()):
            seg = L[cs : cs + len(tail)]
            np.minimum(seg, lq + tail, out=seg)
    return cost, logq, member, part, np.minimum.accumulate(L)


rival_specs = st.tuples(
    st.lists(
        st.tuples(st.integers(0, 200), st.integers(0, 200), st.booleans()), min_size=1, max_size=7
    ),
    st.sampled_from([(0, 1), (0, 1), (1, 2), (3, 1)]),
    st.sampled_from([1e-9, 1e-3, 0.5]),
    st.integers(1, 600),
)


def _rival_args(spec):
    cols, (p, q), tol, limit = spec
    h = [a for a, _, _ in cols]
    cap = [a if full else min(a, b) for a, b, full in cols]  # full: the column can be emptied
    return h, cap, p, q, tol, limit


@settings(max_examples=300, **SETTINGS)
@given(rival_specs)
def test_rival_rows_built_together_match_one_row_at_a_time(spec):
    h, cap, p, q, tol, limit = _rival_args(spec)
    cost, logq, member, part, curve = _reference_rival(h, cap, p, q, tol)
    r = Rival(h, cap, Fraction(p, q), tol)
    for got, want in zip(
        (r.cost, r.logq, r.member, r.part, r.curve), (cost, logq, member, part, curve)
    ):
        assert got.shape == want.shape and np.array_equal(got, want)
    cut = Rival(h, cap, Fraction(p, q), tol, limit)  # candidates from ``limit`` on are left out
    keep = cost < limit
    for got, want in zip((cut.cost, cut.logq, cut.member, cut.part), (cost, logq, member, part)):
        assert np.array_equal(got, want[keep])
    assert np.array_equal(cut.curve[:limit], curve[:limit])


def test_rival_rows_beyond_one_word_of_membership():
    rng = np.random.default_rng(3)
    h = rng.integers(5, 10, 70)
    cap = rng.integers(0, 3, 70)  # below h: no column empties the product
    cost, logq, member, part, curve = _reference_rival(h, cap, 0, 1, 1e-9)
    r = Rival(h, cap, Fraction(0), 1e-9)
    assert (
        np.array_equal(r.member, member)
        and np.array_equal(r.cost, cost)
        and np.array_equal(r.curve, curve)
    )
    assert member[:, 63:].any()  # the second word of the membership bits is used


@settings(max_examples=300, **SETTINGS)
@given(rival_specs, st.lists(st.floats(-60, 60), max_size=20))
def test_rival_floor_is_below_the_exact_count(spec, extra):
    h, cap, p, q, tol, _ = _rival_args(spec)
    r = Rival(h, cap, Fraction(p, q), tol)
    need = np.concatenate(
        [
            r.curve[np.isfinite(r.curve)],
            r.curve[np.isfinite(r.curve)] - 1e-12,
            extra,
            [-np.inf, np.inf],
        ]
    )
    exact = np.searchsorted(-r.curve, -(need + tol), side="right")
    exact = np.where(
        np.isneginf(need) | (exact >= len(r.curve)), np.inf, exact
    )  # what solve counts
    floor = rival_floor(h, cap, Fraction(p, q), need, tol)
    assert (floor <= exact).all(), (need[floor > exact], floor[floor > exact], exact[floor > exact])


@settings(max_examples=300, **SETTINGS)
@given(rival_specs)
def test_a_rival_plan_found_without_search_is_what_it_claims(spec):
    h, cap, p, q, tol, _ = _rival_args(spec)
    R, amounts = rival_greedy(h, cap, Fraction(p, q))
    r = Rival(h, cap, Fraction(p, q), tol)
    for c in range(len(R)):
        b = amounts(c)
        assert (b >= 0).all() and (b <= cap).all() and b.sum() <= c
        exact = math.prod(q * (hj - bj) + p for hj, bj in zip(h, b))
        assert (
            R[c] == -np.inf if exact == 0 else abs(R[c] - math.log(exact)) <= 1e-9 * (1 + abs(R[c]))
        )
        assert R[c] >= r.curve[min(c, len(r.curve) - 1)] - 1e-9  # never below the optimum


def test_a_rival_without_columns_has_one_plan_of_no_cells():
    """A rival with no column left to clean (every factor fixed): the product of nothing,
    reached with no cell (it raised IndexError)."""
    R, amounts = rival_greedy(np.zeros(0, np.int64), np.zeros(0, np.int64), Fraction(1))
    assert R.tolist() == [0.0] and amounts(0).tolist() == []


def test_minimum_with_truth_when_a_rival_has_no_column_to_clean():
    """The case hypothesis found (alpha = 1): the single-point minima match brute force."""
    nan = np.nan
    dirty = pd.DataFrame(
        {
            "y": list("pqrp"),
            "f0": list("aaab"),
            "f1": [nan, nan, "b", nan],
            "f2": [nan, nan, nan, "b"],
        }
    )
    truth = pd.DataFrame(
        {"y": list("pqrp"), "f0": list("aaab"), "f1": list("aaba"), "f2": list("aaab")}
    )
    test = pd.DataFrame({"f0": ["a", "z"], "f1": ["a", "b"], "f2": ["z", "z"]})
    rep = nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1, method="greedy")
    for (_, row), pt in zip(test.iterrows(), rep.points):
        assert pt.num_cells == brute_min_clean(dirty, truth, "y", [row.to_dict()], 1)


@settings(max_examples=300, **SETTINGS)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=6),
    st.sampled_from([(0, 1), (1, 2), (3, 1)]),
)
def test_waterfill_logs_are_the_row_sums(cols, pq):
    p, q = pq
    c0, cap = np.array([a for a, _ in cols]), np.array([b for _, b in cols])
    C = _waterfill(c0, cap)
    with np.errstate(divide="ignore"):
        want = np.log(float(q) * C + p).sum(axis=1)
    got, col = _waterfill_logs(c0, cap, Fraction(p, q))
    assert np.array_equal(np.isneginf(got), np.isneginf(want))
    fin = np.isfinite(want)
    assert np.allclose(got[fin], want[fin], rtol=0, atol=1e-9)
    assert np.array_equal(C[1:] - C[:-1], np.eye(len(c0), dtype=np.int64)[col])


def _reference_greedy(tab, T, alpha):
    """greedy the plain way: every non-robust point searched in full every round."""
    x = np.zeros_like(tab.hid)
    while True:
        cur = cleaning.after(tab, x)
        todo = np.flatnonzero(
            ~cleaning.state_certification(cur.obs, cur.hid.sum(axis=2), cur.N, T, alpha).robust
        )
        if not len(todo):
            return cleaning.prune(tab, T, x, alpha)
        plans = [cleaning.minimum_with_truth(cur, T[p], alpha) for p in todo]
        if any(pl is None for pl in plans):
            return None
        x = x + min(plans, key=lambda pl: pl.cost).x


@settings(max_examples=150, **SETTINGS)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 0, Fraction(1, 2), 2]))
def test_limited_searches_find_the_unlimited_plans(seed, alpha):
    tab, T = _medium(seed)
    singles = []
    for t in T:
        plan = cleaning.minimum_with_truth(tab, t, alpha)
        singles.append(plan)
        for limit in ([] if plan is None else [plan.cost, plan.cost + 1, plan.cost + 7]) + [
            1,
            np.inf,
        ]:
            got, possible, lower = search(tab, np.zeros_like(tab.hid), t, as_alpha(alpha), limit)
            assert possible == (plan is not None)
            assert plan is None or lower <= plan.cost  # a proven lower bound on the minimum
            if plan is None or plan.cost >= limit:
                assert got is None and (plan is None or lower >= limit)
            else:
                assert (got.cost, got.winner) == (plan.cost, plan.winner) and np.array_equal(
                    got.x, plan.x
                )
                assert lower == plan.cost
    assert [cleaning.cleanable(tab, t, alpha) for t in T] == [s is not None for s in singles]
    if any(s is None for s in singles):
        return
    for floor in (0, max(s.cost for s in singles) - 1, max(s.cost for s in singles) + 3):
        top, known = _largest_minimum(tab, T, as_alpha(alpha), floor)
        assert top == max([floor] + [s.cost for s in singles])
        assert all(
            np.array_equal(pl.x, singles[p].x) and pl.winner == singles[p].winner
            for p, pl in known.items()
        )
        for t, single in zip(T, singles):  # "within the floor" only with a witness
            assert not within(tab, t, as_alpha(alpha), floor) or single.cost <= floor
    want = _reference_greedy(tab, T, as_alpha(alpha))
    for got, stop in (
        cleaning.greedy(tab, T, as_alpha(alpha)),
        cleaning.greedy(tab, T, as_alpha(alpha), known=dict(enumerate(singles))),
    ):
        assert (stop is None) == (want is not None) and (stop or np.array_equal(got, want))


@settings(max_examples=300, **SETTINGS)
@given(dirty_instances(min_labels=2, max_tests=3), alphas)
def test_advice_names_the_test_value_its_rows_share(inst, alpha):
    """``test_value``: the column's value in every test row the group may help (the
    policy's per-point mask), missing where they differ."""
    ranked = nbcert.clean(inst.dirty, inst.test, inst.label, alpha=alpha)
    enc = nbcert.encode(inst.dirty, inst.label)
    model, T = dirty_model(enc), enc.encode_test(inst.test)
    view = model.view(np.zeros_like(model.hid), T)[0]
    pi = cleaning.truth_odds(model.obs, T, "observed")
    helped = cleaning.group_scores(view, model.N, as_alpha(alpha), pi).helped
    for r in ranked.itertuples():
        j, l = enc.features.index(r.column), enc.labels.index(r.label)
        values = set(inst.test[r.column][helped[:, l, j]])
        assert values, "a ranked group helps some test row"
        if len(values) == 1:
            assert r.test_value == values.pop()
        else:
            event("the rows a group helps differ in its column")
            assert pd.isna(r.test_value)


@settings(max_examples=150, **SETTINGS)
@given(dirty_instances(max_rows=8, max_features=3, max_missing=7, max_tests=3))
def test_exact_proves_the_optimum_of_a_small_instance(inst):
    """An instance small enough to search completely gets a proof, not a gap:
    optimal (or proven impossible), with the size enumeration finds."""
    every = inst.test_rows()
    rows = [
        r for r in every if brute_min_clean(inst.dirty, inst.truth, inst.label, [r]) is not None
    ]
    best = brute_min_clean(inst.dirty, inst.truth, inst.label, rows)
    tg = nbcert.clean_with_truth(
        inst.dirty, inst.truth, inst.test, inst.label, method="exact", time_limit=60
    ).together
    assert tg.search_optimal and not tg.time_limited, (tg, best)
    assert tg.num_cells == best, (tg, best)
    if best is not None:
        assert tg.search_bound == best and tg.lower_bound <= best
        assert all(
            brute_is_robust_after_cleaning(inst.dirty, inst.truth, inst.label, r, tg.cells)
            for r in rows
        )


def test_exact_proves_an_optimum_the_program_left_open():
    """The program and the single-point minima proved only 2 here (the answer:
    3, as enumeration shows); the exhaustive search proves 3 optimal."""
    dirty = pd.DataFrame({"y": ["p", "q", "p", "p", "q"], "f0": [None, None, None, None, "a"]})
    truth = dirty.assign(f0=["b", "b", "b", "b", "a"])
    test = pd.DataFrame({"f0": ["b", "a", "a"]})
    tg = nbcert.clean_with_truth(dirty, truth, test, "y", method="exact").together
    rows = test.to_dict("records")
    assert brute_min_clean(dirty, truth, "y", rows) == 3
    assert (tg.num_cells, tg.search_optimal, tg.search_bound) == (3, True, 3)
    assert all(brute_is_robust_after_cleaning(dirty, truth, "y", r, tg.cells) for r in rows)


def test_exact_on_the_readme_example_is_optimal():
    """The README's dirty.csv / clean.csv / q.csv: 4 cells together, proven."""
    truth = pd.DataFrame(
        {
            "f": ["a", "b", "a", "a", "b", "a", "b"],
            "g": ["x", "y", "x", "y", "x", "y", "x"],
            "y": ["p", "q", "p", "q", "q", "p", "p"],
        }
    )
    dirty = truth.copy().astype(object)
    for r, c in [(3, "f"), (4, "g"), (5, "g"), (6, "f")]:
        dirty.loc[r, c] = None
    test = pd.DataFrame({"f": ["a", "a", "b"], "g": ["x", "y", "x"]})
    tg = nbcert.clean_with_truth(dirty, truth, test, "y", method="exact").together
    assert (tg.num_cells, tg.search_optimal, tg.search_bound) == (4, True, 4)
    assert brute_min_clean(dirty, truth, "y", test.to_dict("records")) == 4


@settings(max_examples=150, **SETTINGS)
@given(dirty_instances(max_rows=6, max_features=3, max_missing=6, max_tests=3), alphas, st.data())
def test_robust_counts_agrees_with_the_exact_check(inst, alpha, data):
    """The batched check over group counts decides each cleaning as the table's exact check
    does (domains recomputed per cleaning, any alpha)."""
    enc = nbcert.encode(inst.truth, inst.label)
    tab = cleaning.CleaningTable.build(enc, inst.dirty[inst.features].isna().to_numpy()[enc.rows])
    T = enc.encode_test(inst.test)
    groups = np.nonzero(tab.hid)
    caps = tab.hid[groups]
    X = np.array(
        [[data.draw(st.integers(0, int(c))) for c in caps] for _ in range(4)], np.int64
    ).reshape(4, len(caps))
    alpha = as_alpha(alpha)
    got = tab.robust_all(X, T, alpha)
    want = []
    for row in X:
        x = np.zeros_like(tab.hid)
        x[groups] = row
        want.append(bool(tab.certify(x, T, alpha).robust.all()))
    assert got.tolist() == want


def test_the_policy_path_is_followed_only_when_asked_for(monkeypatch):
    """clean_with_truth's answers per point and together do not pay for the policy's path
    (a study reads them alone); the path is followed once, when first read."""
    from nbcert.cleaning import results
    from nbcert.synthetic import example

    calls = []
    real = results.policy_path
    monkeypatch.setattr(results, "policy_path", lambda *a, **k: calls.append(1) or real(*a, **k))
    train, test, truth = example()
    report = nbcert.clean_with_truth(train, truth, test, "y")
    assert report.together.optimal and calls == []
    assert report.path == report.path and report.path_certifies and calls == [1]
