"""poison (op, sr, rp) against exhaustive search over blanked-cell subsets (alpha = 0)."""

from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from brute import (
    brute_is_nonrobust_after,
    brute_min_poison,
    brute_robust,
    feature_cells,
    min_poison_by_groups,
    poison_allowed,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import Instance, complete_instances, small_rival_instances

import nbcert

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# at most 12 feature cells, so exhaustive subset search stays cheap
small_complete = st.one_of(
    complete_instances(max_rows=6, max_features=2, min_labels=2, unseen=False),
    complete_instances(max_rows=4, max_features=3, min_labels=2, unseen=False),
    complete_instances(max_rows=5, max_features=2),
)


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
            assert brute_is_nonrobust_after(inst.train, inst.label, row, p.cells), (
                f"blanking {p.cells} leaves the point robust (or is not allowed)"
            )
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
            assert brute_is_nonrobust_after(inst.train, inst.label, row, p.cells), (
                f"{method} blanking {p.cells} leaves the point robust (or is not allowed)"
            )
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
    train = pd.DataFrame(
        {"f": ["a", "b", "a"], "g": ["a", "a", "b"], "y": ["p", "q", "q"]}, dtype=object
    )
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
    train = pd.DataFrame(
        {"f": ["a", "a", "a", "a", "b", "a"], "y": ["p", "p", "p", "q", "q", "q"]}, dtype=object
    )
    row = {"f": "a"}
    expected = brute_min_poison(train, "y", row)
    p = _poison1(train, row)
    assert p.num_cells == expected
    if p.possible:
        assert brute_is_nonrobust_after(train, "y", row, p.cells)


def test_positions_not_index_labels():
    train = pd.DataFrame(
        {
            "f": ["a", "a", "b", "b", "b"],
            "g": ["a", "b", "a", "b", "b"],
            "y": ["p", "p", "q", "q", "q"],
        },
        dtype=object,
        index=[50, 40, 30, 20, 10],
    )
    row = {"f": "a", "g": "a"}
    p = _poison1(train, row)
    assert p.num_cells == brute_min_poison(train, "y", row)
    assert p.possible
    assert brute_is_nonrobust_after(train, "y", row, p.cells)
    for r, _f in p.cells:
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
    from nbcert.synthetic import synthetic_codes

    X, y = synthetic_codes(3000, 6, domain=3, labels=2, seed=4)
    train = pd.DataFrame(X.astype(str), columns=[f"f{j}" for j in range(6)]).assign(y=y.astype(str))
    test = train.drop(columns="y").iloc[[5, 17]]
    for p, row in zip(nbcert.poison(train, test, "y", method=method, seed=1), range(2)):
        assert p.possible
        poisoned = train.copy()
        for r, c in p.cells:
            poisoned.iloc[r, poisoned.columns.get_loc(c)] = np.nan
        assert not nbcert.certify(poisoned, test.iloc[[row]], "y").robust.iloc[0], (
            method,
            p.num_cells,
        )


# ------------------------------------------------------- SR and RP: orders and prefix checks


def _one_at_a_time(state, rows, cols):
    """The reference: blank each cell and re-decide robustness on the counts."""
    for i in range(len(rows)):
        state.blank(rows[i], int(cols[i]))
        if not state.robust():
            return True
    return False


def _check_prefix_scan(enc, T, order_seed):
    from nbcert.poisoning.incremental import Groups, blank_until_nonrobust
    from nbcert.poisoning.single import PoisonedCounts

    for t in T:
        state = PoisonedCounts(enc, t)
        if not state.robust():
            continue
        rows, cols = np.divmod(np.random.default_rng(order_seed).permutation(enc.n * enc.d), enc.d)
        keep = Groups(cols).before() + 1 < enc.n  # a column keeps its last cell
        rows, cols = rows[keep], cols[keep]
        slow, fast = state.copy(), state.copy()
        assert _one_at_a_time(slow, rows, cols) == blank_until_nonrobust(fast, rows, cols)
        assert fast.result() == slow.result()
        for name in ("A", "M", "cnt", "ndist", "left"):
            assert np.array_equal(getattr(fast, name), getattr(slow, name)), name


@SETTINGS
@given(
    inst=complete_instances(max_rows=8, max_features=3, min_labels=2), seed=st.integers(0, 2**16)
)
def test_prefix_checks_equal_one_cell_at_a_time(inst, seed):
    """RP and SR check robustness after every cell from the counts, a window at a time:
    the same first non-robust prefix as blanking one cell at a time and re-deciding."""
    enc = nbcert.encode(inst.train, inst.label)
    _check_prefix_scan(enc, enc.encode_test(inst.test), seed)


def test_prefix_checks_where_columns_shrink():
    """Tiny tables with one- to three-value domains: blanking often leaves a column with t's
    value only, or without it, which the prefix checks handle one cell at a time."""
    from nbcert.reading.encoding import from_codes

    rng = np.random.default_rng(0)
    for it in range(200):
        n, d, dom = rng.integers(3, 9), rng.integers(1, 4), rng.integers(1, 4)
        X = rng.integers(0, dom, (n, d))
        X[:dom] = np.arange(dom)[:, None]
        y = np.sort(rng.integers(0, 2, n))
        y[0], y[-1] = 0, 1
        _check_prefix_scan(from_codes(X, y, np.full(d, dom)), rng.integers(0, dom, (3, d)), it)


@pytest.mark.parametrize("domain", [2, 3, 6])
def test_prefix_checks_on_longer_orders(domain):
    """Hundreds of cells per window, columns whose domain shrinks to t's value or loses it,
    and near-ties re-decided exactly."""
    from nbcert.reading.encoding import from_codes
    from nbcert.synthetic import synthetic_table

    for seed in range(3):
        _, X, y, T, _ = synthetic_table(60, 3, domain, 2 + seed % 2, seed=seed, points=4)
        _check_prefix_scan(from_codes(X, y, np.full(3, domain)), T, seed)


@pytest.mark.parametrize("n_cells, batch", [(1, 1), (7, 2), (1000, 64), (5000, 4096)])
def test_cell_order_is_a_permutation(n_cells, batch):
    from nbcert.poisoning.baselines import _cell_order

    out = np.concatenate(list(_cell_order(n_cells, np.random.default_rng(n_cells), batch)))
    assert np.array_equal(np.sort(out), np.arange(n_cells))


def test_cell_order_is_uniform():
    """Every cell is as likely at every position: drawn one by one (the first half) and from
    the shuffled rest alike."""
    from scipy import stats

    from nbcert.poisoning.baselines import _cell_order

    n, runs = 6, 3000
    rng = np.random.default_rng(1)
    at = np.zeros((n, n), int)  # position x cell
    for _ in range(runs):
        order = np.concatenate(list(_cell_order(n, rng, 2)))
        at[np.arange(n), order] += 1
    for pos in range(n):
        assert stats.chisquare(at[pos]).pvalue > 1e-4, (pos, at[pos])


@pytest.mark.parametrize("agree, size_share", [(True, 0.5), (False, 0.9), (True, 0.01)])
def test_pool_hands_out_each_row_once(agree, size_share):
    """A pool gives out exactly the qualifying rows of its label's block, each once, whether
    it draws them from the block or lists them."""
    from nbcert.poisoning.baselines import _Pool
    from nbcert.reading.encoding import from_codes

    rng = np.random.default_rng(0)
    n = 2000
    X = (rng.random((n, 2)) < size_share).astype(np.intp)
    X[:2] = [[0, 0], [1, 1]]
    enc = from_codes(X, np.repeat([0, 1], n // 2), np.full(2, 2))
    code = int(enc.offsets[1]) + 1  # value 1 of column 1
    block = enc.X[n // 2 :, 1]
    want = n // 2 + np.flatnonzero((block == code) == agree)
    pool = _Pool(enc, 1, 1, code, agree, len(want), rng)
    got = [pool.pop() for _ in range(len(want))]
    assert len(pool) == 0 and sorted(got) == want.tolist()


def test_cells_hold_pairs_as_arrays():
    from nbcert.poisoning import Cells

    c = Cells(np.array([4, 1, 7], np.int32), np.array([1, 0, 1], np.uint8), ("f", "g"))
    assert c == ((4, "g"), (1, "f"), (7, "g")) and len(c) == 3 and c[1] == (1, "f")
    assert c[:2] == ((4, "g"), (1, "f")) and c != ((4, "g"),) and list(c)[2] == (7, "g")
    assert isinstance(c[0][0], int)


def test_sr_chooses_either_move_with_equal_chance():
    """SR's A1 (a rival's cell) and A2 (a cell of the predicted label) steps are chosen by
    fair coins: on tables where both are always open, half its cells are of each label."""
    from scipy import stats

    from nbcert.poisoning import PoisonedCounts
    from nbcert.reading.encoding import from_codes
    from nbcert.synthetic import synthetic_table

    ours = total = 0
    for seed in range(3):
        _, X, y, T, _ = synthetic_table(5000, 8, 4, 2, seed=seed, points=3)
        enc = from_codes(X, y, np.full(8, 4))
        for t in T:
            star = PoisonedCounts(enc, t).winner()
            p = nbcert.poisoning.poison_encoded(enc, t, "sr", seed=seed)
            if star >= 0 and p.possible:
                labels = PoisonedCounts(enc, t).label_of(
                    np.asarray(p.cells.rows)
                )  # rows are positions here
                ours, total = ours + int((labels == star).sum()), total + len(labels)
    assert total > 1000 and stats.binomtest(ours, total).pvalue > 1e-4, (ours, total)


# ------------------------------------------------- boundaries: small rivals, binding caps


def _plain(inst):
    """(labels, columns, test points) of an instance in brute.py's plain form."""
    y = inst.train[inst.label].tolist()
    cols = [inst.train[f].tolist() for f in inst.features]
    return y, cols, [[row[f] for f in inst.features] for row in inst.test_rows()]


@SETTINGS
@given(inst=small_rival_instances(), alpha=st.sampled_from([0, 0, Fraction(1, 2), 1]))
@example(  # impossible, which OP proves and the certificate's relaxation does not: none_found
    inst=Instance(
        train=pd.DataFrame({"f0": list("aaaabb"), "f1": list("aaaaaa"), "y": list("ppppqq")}),
        test=pd.DataFrame({"f0": ["a"], "f1": ["a"]}),
        label="y",
    ),
    alpha=Fraction(1, 2),
)
def test_op_is_minimal_with_small_rivals_and_binding_caps(inst, alpha):
    """The cases random tables miss (a one- or two-row rival that runs out of cells);
    alpha > 0 too, where removing a value moves every denominator."""
    y, cols, points = _plain(inst)
    res = nbcert.poison(inst.train, inst.test, inst.label, alpha=alpha)
    for p, t, row in zip(res, points, inst.test_rows()):
        _check_shape(p, inst.train, inst.label)
        expected = min_poison_by_groups(y, cols, t, alpha)
        assert p.num_cells == expected, f"OP size {p.num_cells}, brute-force minimum {expected}"
        # "impossible" only where it is, and only where the certificate proves it: a search's
        # proof the checker cannot repeat says none_found
        assert (p.status == "impossible") <= (expected is None)
        assert (expected is None) == (p.status in ("impossible", "none_found"))
        if p.possible:
            assert brute_is_nonrobust_after(inst.train, inst.label, row, p.cells, alpha)


@SETTINGS
@given(inst=small_complete, alpha=st.sampled_from([Fraction(1, 2), 1]))
def test_op_is_minimal_at_alpha_above_zero(inst, alpha):
    y, cols, points = _plain(inst)
    res = nbcert.poison(inst.train, inst.test, inst.label, alpha=alpha)
    for p, t, row in zip(res, points, inst.test_rows()):
        assert p.num_cells == min_poison_by_groups(y, cols, t, alpha)
        if p.possible:
            assert brute_is_nonrobust_after(inst.train, inst.label, row, p.cells, alpha)


REPRODUCER = pd.DataFrame(
    {"y": list("BBABBBB"), "f0": list("abbbabc"), "f1": list("aabbbab")}, dtype=object
)


def test_mixed_plan_beats_both_pure_strategies():
    """7 rows: the paper's pure strategies need 3 cells (blank B's agreeing f0 cells);
    blanking one agreeing B cell and the only A row's disagreeing f1 cell ties in a world
    (S(B) = 6/7 * 3/6 * 2/6 = 1/7 = S(A)), so 2 suffice."""
    test = pd.DataFrame({"f0": ["b"], "f1": ["a"]}, dtype=object)
    [p] = nbcert.poison(REPRODUCER, test, "y")
    assert p.num_cells == 2
    assert brute_is_nonrobust_after(REPRODUCER, "y", {"f0": "b", "f1": "a"}, p.cells)
    together = nbcert.poison_together(REPRODUCER, test, "y", method="exact")
    assert (together.num_cells, together.optimal, together.lower_bound) == (2, True, 2)
    [smoothed] = nbcert.poison(REPRODUCER, test, "y", alpha=1)
    cols = [REPRODUCER["f0"].tolist(), REPRODUCER["f1"].tolist()]
    assert smoothed.num_cells == min_poison_by_groups(list("BBABBBB"), cols, ["b", "a"], 1) == 4


def test_alpha_search_too_large_is_one_line(tmp_path):
    """At alpha > 0 removing rare values moves denominators; past the search limit OP
    refuses in one line that names the way out instead of running on."""
    train = pd.DataFrame(
        {"f": [f"v{i}" for i in range(30)] + ["a"] * 30, "y": ["p"] * 45 + ["q"] * 15},
        dtype=object,
    )
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    with mock.patch("nbcert.poisoning.minimum.SEARCH_LIMIT", 50):
        with pytest.raises(nbcert.InputError, match=r"alpha = 1 .* more than 50 sets.*--drop f"):
            nbcert.poison(train, test, "y", alpha=1)
    [p] = nbcert.poison(train, test, "y")  # alpha = 0: no domain size in the factors
    assert p.possible
