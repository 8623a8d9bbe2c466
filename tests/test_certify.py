"""certify (index, iterate, ad) against the exhaustive possible-world reference."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import brute_counts, brute_robust
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import alphas, complete_instances, instances, random_encoded

import nbcert

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _check_frame(res: pd.DataFrame, inst) -> None:
    assert isinstance(res, pd.DataFrame)
    assert list(res.index) == list(inst.test.index)
    assert {"robust", "label"} <= set(res.columns)


def _label_matches(got, expected_robust, expected_label) -> bool:
    """The label of a non-robust row may be None or NaN here; test_nonrobust_label_is_none
    checks the spec's None separately, so a representation slip does not hide semantics."""
    if expected_robust:
        return got == expected_label
    return got is None or (not isinstance(got, str) and bool(pd.isna(got)))


@pytest.mark.parametrize("method", ["index", "iterate"])
@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_certify_matches_brute(method, inst, alpha):
    res = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, method=method)
    _check_frame(res, inst)
    for i, row in enumerate(inst.test_rows()):
        robust, lab = brute_robust(inst.train, inst.label, row, alpha)
        got_r, got_l = bool(res["robust"].iloc[i]), res["label"].iloc[i]
        assert got_r == robust, f"row {i}: robust {got_r}, brute force says {robust}"
        assert _label_matches(got_l, robust, lab), (
            f"row {i}: label {got_l!r}, brute force says {lab!r}"
        )


@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_index_equals_iterate(inst, alpha):
    a = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, method="index")
    b = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, method="iterate")
    pd.testing.assert_frame_equal(a, b)


@SETTINGS
@given(
    inst=instances(), alpha=alphas, seed=st.integers(0, 2**16), n_worlds=st.sampled_from([1, 5, 50])
)
def test_ad_sound(inst, alpha, seed, n_worlds):
    """AD may call a non-robust point robust, never the reverse; a disagreement it
    reports is a real one, and the label it reports is predicted by some real world."""
    res = nbcert.certify(
        inst.train, inst.test, inst.label, alpha=alpha, method="ad", n_worlds=n_worlds, seed=seed
    )
    _check_frame(res, inst)
    for i, row in enumerate(inst.test_rows()):
        robust, lab = brute_robust(inst.train, inst.label, row, alpha)
        got_r, got_l = bool(res["robust"].iloc[i]), res["label"].iloc[i]
        if not got_r:
            assert not robust, f"row {i}: AD says not robust, but every world predicts {lab!r}"
            assert _label_matches(got_l, False, None)
        else:
            counts, _ = brute_counts(inst.train, inst.label, row, alpha)
            assert counts.get(got_l, 0) > 0, f"row {i}: AD label {got_l!r} is predicted by no world"
            if robust:
                assert got_l == lab


@SETTINGS
@given(inst=complete_instances(), alpha=alphas, seed=st.integers(0, 2**16))
def test_ad_exact_on_complete_table(inst, alpha, seed):
    res = nbcert.certify(
        inst.train, inst.test, inst.label, alpha=alpha, method="ad", n_worlds=3, seed=seed
    )
    for i, row in enumerate(inst.test_rows()):
        robust, lab = brute_robust(inst.train, inst.label, row, alpha)
        assert bool(res["robust"].iloc[i]) == robust
        assert _label_matches(res["label"].iloc[i], robust, lab)


# ----------------------------------------------------------------- targeted unit cases

METHODS = ["index", "iterate", "ad"]


def _certify(train, test, method, alpha=0, label="y"):
    kw = {"n_worlds": 200, "seed": 0} if method == "ad" else {}
    return nbcert.certify(train, test, label, alpha=alpha, method=method, **kw)


@pytest.mark.parametrize("method", METHODS)
def test_one_value_domain_forces_missing_cells(method):
    # f1 has domain {"a"}: the missing cell must be "a" -> a single world, where p wins.
    train = pd.DataFrame(
        {"f0": ["a", "a", "b"], "f1": ["a", np.nan, "a"], "y": ["p", "p", "q"]}, dtype=object
    )
    test = pd.DataFrame({"f0": ["a"], "f1": ["a"]}, dtype=object)
    assert brute_robust(train, "y", {"f0": "a", "f1": "a"}, 0) == (True, "p")
    res = _certify(train, test, method)
    assert bool(res["robust"].iloc[0]) and res["label"].iloc[0] == "p"


@pytest.mark.parametrize("method", ["index", "iterate"])
def test_one_value_domain_minimum_count_includes_missing(method):
    # f has domain {"a"}, so q's two missing cells are forced to "a" and q's count on f
    # is 3 of 3 in the only world; g makes q win.  Treating the missing cells as free
    # (minimum count 1) would wrongly produce a tie at alpha = 0.
    train = pd.DataFrame(
        {
            "f": ["a", "a", "a", "a", np.nan, np.nan],
            "g": ["a", "b", "b", "a", "a", "a"],
            "y": ["p", "p", "p", "q", "q", "q"],
        },
        dtype=object,
    )
    test = pd.DataFrame({"f": ["a"], "g": ["a"]}, dtype=object)
    for alpha in (0, 1, Fraction(1, 2)):
        assert brute_robust(train, "y", {"f": "a", "g": "a"}, alpha) == (True, "q")
        res = _certify(train, test, method, alpha)
        assert (bool(res["robust"].iloc[0]), res["label"].iloc[0]) == (True, "q"), alpha


@pytest.mark.parametrize("method", METHODS)
def test_unseen_value_alpha0_is_all_zero_tie(method):
    train = pd.DataFrame(
        {"f0": ["a", "b", "a"], "f1": ["a", "a", "b"], "y": ["p", "q", "p"]}, dtype=object
    )
    test = pd.DataFrame({"f0": ["z"], "f1": ["a"]}, dtype=object)
    assert brute_robust(train, "y", {"f0": "z", "f1": "a"}, 0) == (False, None)
    res = _certify(train, test, method, alpha=0)
    assert not bool(res["robust"].iloc[0])
    assert _label_matches(res["label"].iloc[0], False, None)


@pytest.mark.parametrize("method", METHODS)
def test_unseen_value_alpha1(method):
    # f0 unseen: factor 1/(N_l + 2) for both labels; f1 decides.
    train = pd.DataFrame(
        {"f0": ["a", "b", "a", "b"], "f1": ["a", "a", "a", "b"], "y": ["p", "p", "q", "q"]},
        dtype=object,
    )
    test = pd.DataFrame({"f0": ["z"], "f1": ["a"]}, dtype=object)
    assert brute_robust(train, "y", {"f0": "z", "f1": "a"}, 1) == (True, "p")
    res = _certify(train, test, method, alpha=1)
    assert bool(res["robust"].iloc[0]) and res["label"].iloc[0] == "p"


@pytest.mark.parametrize("method", METHODS)
def test_unseen_value_with_missing_cells(method):
    # a missing cell can never take a value outside the domain: z stays at count 0.
    train = pd.DataFrame(
        {"f0": ["a", np.nan, "a", "b"], "f1": ["a", "a", "b", "b"], "y": ["p", "p", "q", "q"]},
        dtype=object,
    )
    test = pd.DataFrame({"f0": ["z"], "f1": ["a"]}, dtype=object)
    expected = brute_robust(train, "y", {"f0": "z", "f1": "a"}, 1)
    assert expected == (True, "p")
    res = _certify(train, test, method, alpha=1)
    assert (bool(res["robust"].iloc[0]), res["label"].iloc[0]) == expected


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("alpha", [0, 1])
def test_single_label_always_robust(method, alpha):
    train = pd.DataFrame(
        {"f0": ["a", np.nan, "b"], "f1": [np.nan, "a", np.nan], "y": ["p", "p", "p"]}, dtype=object
    )
    test = pd.DataFrame({"f0": ["z", "a"], "f1": ["a", "z"]}, dtype=object)
    res = _certify(train, test, method, alpha=alpha)
    assert res["robust"].tolist() == [True, True]
    assert res["label"].tolist() == ["p", "p"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("alpha", [0, 1, Fraction(1, 2)])
def test_tie_in_complete_table(method, alpha):
    # symmetric table: both labels have identical supports for every test point
    train = pd.DataFrame(
        {"f0": ["a", "b", "a", "b"], "f1": ["a", "a", "a", "a"], "y": ["p", "p", "q", "q"]},
        dtype=object,
    )
    test = pd.DataFrame({"f0": ["a", "b"], "f1": ["a", "a"]}, dtype=object)
    res = _certify(train, test, method, alpha=alpha)
    assert res["robust"].tolist() == [False, False]
    assert all(_label_matches(v, False, None) for v in res["label"])


@pytest.mark.parametrize("method", ["index", "iterate"])
def test_tie_in_one_world_only(method):
    # alpha 0, test f=a: the missing p cell = a -> p wins (1/3 vs 1/6); = b -> 1/6 vs 1/6 tie.
    train = pd.DataFrame(
        {"f": ["a", np.nan, "b", "a", "b", "b"], "y": ["p", "p", "p", "q", "q", "q"]}, dtype=object
    )
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    assert brute_counts(train, "y", {"f": "a"}, 0) == ({"p": 1, "q": 0}, 1)
    res = _certify(train, test, method)
    assert not bool(res["robust"].iloc[0]) and _label_matches(res["label"].iloc[0], False, None)


@pytest.mark.parametrize("method", ["index", "iterate"])
def test_float_alpha_is_its_decimal(method):
    train = pd.DataFrame(
        {"f0": ["a", np.nan, "b", "a"], "f1": ["b", "a", np.nan, "a"], "y": ["p", "q", "p", "q"]},
        dtype=object,
    )
    test = pd.DataFrame({"f0": ["a", "b", "z"], "f1": ["a", "b", "a"]}, dtype=object)
    a = nbcert.certify(train, test, "y", alpha=0.5, method=method)
    b = nbcert.certify(train, test, "y", alpha=Fraction(1, 2), method=method)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("method", ["index", "iterate", "ad"])
def test_integer_labels_and_values_returned_as_given(method):
    """Labels come back as the input's values (ints stay ints), also when another row
    of the same result is not robust."""
    train = pd.DataFrame(
        {"f": [1, 1, 2, 2, 2], "g": ["a", "b", "a", "a", np.nan], "y": [7, 7, 9, 9, 9]},
        dtype=object,
    )
    rows = [{"f": 2, "g": "a"}, {"f": 1, "g": "b"}, {"f": 3, "g": "b"}]  # 9, 7, unseen -> tie
    test = pd.DataFrame(rows, dtype=object)
    res = _certify(train, test, method, alpha=0)
    for i, row in enumerate(rows):
        robust, lab = brute_robust(train, "y", row, 0)
        assert bool(res["robust"].iloc[i]) == robust
        got = res["label"].iloc[i]
        if robust:
            assert got == lab and isinstance(got, (int, np.integer)), repr(got)
        else:
            assert _label_matches(got, False, None)


def test_column_entirely_missing_is_input_error():
    train = pd.DataFrame({"f0": ["a", "b"], "f1": [np.nan, np.nan], "y": ["p", "q"]}, dtype=object)
    test = pd.DataFrame({"f0": ["a"], "f1": ["a"]}, dtype=object)
    for method in METHODS:
        with pytest.raises(nbcert.InputError):
            nbcert.certify(train, test, "y", method=method)
    with pytest.raises(nbcert.InputError):
        nbcert.count_worlds(train, test, "y")
    assert issubclass(nbcert.InputError, ValueError)


def test_label_column_in_test_is_ignored():
    train = pd.DataFrame({"f": ["a", np.nan, "b", "b"], "y": ["p", "p", "q", "q"]}, dtype=object)
    t1 = pd.DataFrame({"f": ["a", "b"]}, dtype=object)
    t2 = pd.DataFrame({"y": ["q", "p"], "f": ["a", "b"]}, dtype=object)
    for method in ["index", "iterate"]:
        pd.testing.assert_frame_equal(
            nbcert.certify(train, t1, "y", method=method),
            nbcert.certify(train, t2, "y", method=method),
        )


@pytest.mark.parametrize("method", METHODS)
def test_nonrobust_label_is_none(method):
    """Spec: the label column holds None (not NaN) when a row is not robust."""
    train = pd.DataFrame({"f": ["a", "b"], "y": ["p", "q"]}, dtype=object)
    test = pd.DataFrame({"f": ["a", "z"]}, dtype=object)  # "a": p robust; "z": all-zero tie
    res = _certify(train, test, method)
    assert res["robust"].tolist() == [True, False]
    assert res["label"].iloc[0] == "p"
    assert res["label"].iloc[1] is None, repr(res["label"].iloc[1])
    assert res["robust"].dtype == bool


@pytest.mark.parametrize("method", ["index", "iterate"])
def test_missing_tokens_equal_nan(method):
    with_nan = pd.DataFrame(
        {"f": ["a", np.nan, "b", "b"], "g": ["a", "b", np.nan, "a"], "y": ["p", "p", "q", "q"]},
        dtype=object,
    )
    with_tok = with_nan.fillna("?")
    test = pd.DataFrame({"f": ["a", "b"], "g": ["a", "b"]}, dtype=object)
    a = nbcert.certify(with_nan, test, "y", alpha=1, method=method)
    b = nbcert.certify(with_tok, test, "y", alpha=1, method=method, missing=["?"])
    pd.testing.assert_frame_equal(a, b)
    for i, row in enumerate([{"f": "a", "g": "a"}, {"f": "b", "g": "b"}]):
        robust, lab = brute_robust(with_nan, "y", row, 1)
        assert bool(a["robust"].iloc[i]) == robust


# ----------------------------------------------------------------- Iterate's scan and AD's worlds


@pytest.mark.parametrize("rows", [1, 7, 1 << 20])
def test_iterate_scan_is_blocksize_free(monkeypatch, rows):
    """Iterate's per-point counts (a bounded block of rows at a time) are the index's."""
    from nbcert import certification as decision
    from nbcert.stats import tally

    monkeypatch.setattr(decision, "ROWS_PER_SCAN", rows)
    for seed in range(3):
        enc, T = random_encoded(seed)
        counts = tally(enc)
        for t, g in zip(T, enc.global_codes(T)):
            E, M = decision.scan_counts(enc, g, t >= 0)
            assert np.array_equal(E, np.where(t >= 0, counts[:, g], 0))
            assert np.array_equal(M, counts[:, enc.missing_codes])
        for alpha in (0, 1):
            a, b = decision.certify_index(enc, T, alpha), decision.certify_iterate(enc, T, alpha)
            assert np.array_equal(a.robust, b.robust) and np.array_equal(a.label, b.label)


@pytest.mark.parametrize(
    "delta", [3, 4, 7, 11]
)  # raw bytes with and without rejection; integers (large)
def test_world_draws_are_uniform_whatever_the_chunk(delta):
    """Every missing cell is drawn uniformly from its domain: the count of each value among
    a segment's cells is Binomial(size, 1/delta), for a chunk of one cell as for one chunk."""
    from scipy import stats

    from nbcert.approximate import _Segment, draw_counts

    seg = _Segment(delta, np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([6, 0, 9, 0]))
    for chunk in (1, 5, 1 << 22):
        # MT19937's raw words hold 32 random bits: its bytes come from Generator.integers
        rng = (
            np.random.Generator(np.random.MT19937(chunk))
            if chunk == 5
            else np.random.default_rng(chunk)
        )
        H = np.concatenate(
            [draw_counts(rng, seg, w, chunk) for w in (1, 2, 4, 8) * 150]
        )  # 2250 worlds
        assert H.shape == (2250, 4, delta) and (H >= 0).all()
        assert np.array_equal(H.sum(axis=2), np.broadcast_to(seg.sizes, (2250, 4)))
        for s, size in ((0, 6), (2, 9)):
            top = 4  # counts 0..3 and "4 or more"
            seen = np.bincount(np.minimum(H[:, s, 0], top), minlength=top + 1)
            p = stats.binom.pmf(np.arange(top), size, 1 / delta)
            expected = np.r_[p, 1 - p.sum()] * len(H)
            assert stats.chisquare(seen, expected).pvalue > 1e-4, (chunk, s, seen, expected)


@pytest.mark.parametrize(
    "width, starts", [(100, [0, 3, 3, 50, 99]), (20000, [0, 7000]), (9000, [0])]
)
def test_range_counts(width, starts):
    from nbcert.approximate import _range_counts

    mask = np.random.default_rng(width).random((3, width)) < 0.3
    at = np.array(starts)
    got = _range_counts(mask, at[np.r_[True, np.diff(at) > 0]])
    ends = np.r_[at[1:], width]
    want = np.array([[mask[w, a:b].sum() for a, b in zip(at, ends) if b > a] for w in range(3)])
    assert np.array_equal(got, want)


def test_ad_small_chunks_keep_soundness(monkeypatch):
    from nbcert import approximate as decision

    monkeypatch.setattr(decision, "CELLS_PER_DRAW", 3)
    for seed in range(3):
        enc, T = random_encoded(seed, n=200)
        exact = nbcert.certification.certify_index(enc, T)
        ad = decision.certify_ad_counts(enc, T, n_worlds=20, seed=seed)
        assert not (exact.robust & ~ad.robust).any()
        assert np.array_equal(ad.label[exact.robust], exact.label[exact.robust])
