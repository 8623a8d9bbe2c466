"""count_worlds (exact, batch, auto, montecarlo) against exhaustive world enumeration."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import brute_counts, brute_total
from hypothesis import HealthCheck, given, settings
from strategies import alphas, instances

import nbcert

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _domain_product(train, label):
    """prod over missing cells of |dom_j|, computed directly from the DataFrame."""
    total = 1
    for f in train.columns:
        if f == label:
            continue
        dom = train[f].dropna().nunique()
        total *= dom ** int(train[f].isna().sum())
    return total


def _check_exact(wc, train, label, row, alpha, method):
    exp_counts, exp_ties = brute_counts(train, label, row, alpha)
    total = brute_total(train, label)
    assert isinstance(wc, nbcert.WorldCounts)
    assert wc.method == method
    assert wc.total == total == _domain_product(train, label)
    assert isinstance(wc.total, (int, np.integer))
    assert set(wc.counts) == set(train[label].unique()), "every training label, zeros included"
    assert dict(wc.counts) == exp_counts, f"counts {wc.counts}, brute force {exp_counts}"
    assert wc.ties == exp_ties, f"ties {wc.ties}, brute force {exp_ties}"
    assert sum(wc.counts.values()) + wc.ties == wc.total


@pytest.mark.parametrize("method", ["exact", "batch"])
@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_counts_match_brute(method, inst, alpha):
    res = nbcert.count_worlds(inst.train, inst.test, inst.label, alpha=alpha, method=method)
    assert isinstance(res, list) and len(res) == len(inst.test)
    for wc, row in zip(res, inst.test_rows()):
        _check_exact(wc, inst.train, inst.label, row, alpha, method)


@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_auto_is_exact_on_small_instances(inst, alpha):
    res = nbcert.count_worlds(inst.train, inst.test, inst.label, alpha=alpha, method="auto")
    for wc, row in zip(res, inst.test_rows()):
        assert wc.method in ("exact", "batch")
        _check_exact(wc, inst.train, inst.label, row, alpha, wc.method)


@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_counts_agree_with_certify(inst, alpha):
    """Robust iff all worlds predict one label; certify and count_worlds must agree."""
    res = nbcert.count_worlds(inst.train, inst.test, inst.label, alpha=alpha, method="exact")
    cert = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, method="index")
    for i, wc in enumerate(res):
        robust = wc.ties == 0 and max(wc.counts.values()) == wc.total
        assert bool(cert["robust"].iloc[i]) == robust
        if robust:
            assert wc.counts[cert["label"].iloc[i]] == wc.total


# ------------------------------------------------------------------------- montecarlo


def _mc_instances():
    """A handful of fixed moderate instances (9 missing cells, <= 20k worlds each)."""
    rng = np.random.default_rng(12345)
    out = []
    for k in range(8):
        n, d = 10, 3
        y = rng.choice(["p", "q", "r"], size=n).astype(object)
        y[:3] = ["p", "q", "r"]
        vals = np.empty((n, d), dtype=object)
        for j in range(d):
            vals[:, j] = rng.choice(["a", "b", "c"][: 2 + (j % 2)], size=n)
        cells = rng.choice(n * d, size=9, replace=False)
        for c in cells:
            vals[c // d, c % d] = np.nan
        train = pd.DataFrame(vals, columns=[f"f{j}" for j in range(d)], dtype=object)
        for j in range(d):  # keep one observed value per column
            if train[f"f{j}"].isna().all():
                train.iloc[0, j] = "a"
        train["y"] = y
        test = pd.DataFrame({f"f{j}": [rng.choice(["a", "b"])] for j in range(d)}, dtype=object)
        out.append((train, test, [0, 1, Fraction(1, 2)][k % 3]))
    return out


def test_montecarlo_intervals_cover_exact_fractions():
    covered = checked = 0
    informative = 0
    for i, (train, test, alpha) in enumerate(_mc_instances()):
        row = {f: test[f].iloc[0] for f in test.columns}
        exp_counts, exp_ties = brute_counts(train, "y", row, alpha)
        total = brute_total(train, "y")
        if 0 < max(exp_counts.values()) < total:
            informative += 1
        [wc] = nbcert.count_worlds(
            train,
            test,
            "y",
            alpha=alpha,
            method="montecarlo",
            n_worlds=4000,
            confidence=0.95,
            seed=i,
        )
        assert wc.method == "montecarlo"
        assert wc.total == total
        assert wc.counts is None and wc.ties is None
        assert wc.n_worlds is not None and 0 < wc.n_worlds <= 4000
        assert set(wc.fractions) == set(exp_counts) and set(wc.intervals) == set(exp_counts)
        assert math.isclose(sum(wc.fractions.values()) + wc.tie_fraction, 1.0, abs_tol=1e-9)
        for l, c in exp_counts.items():
            exact = c / total
            lo, hi = wc.intervals[l]
            assert 0.0 <= lo <= wc.fractions[l] <= hi <= 1.0
            # the point estimate is never far off (> 6 standard errors at 4000 samples)
            assert abs(wc.fractions[l] - exact) <= 6 * 0.5 / math.sqrt(wc.n_worlds) + 1e-12
            checked += 1
            covered += lo - 1e-12 <= exact <= hi + 1e-12
        assert abs(wc.tie_fraction - exp_ties / total) <= 6 * 0.5 / math.sqrt(wc.n_worlds) + 1e-12
    assert informative >= 3, "fixture instances should have genuinely split worlds"
    assert covered >= 0.85 * checked, (
        f"only {covered}/{checked} intervals contain the exact fraction"
    )


def test_montecarlo_reproducible_with_seed():
    train, test, alpha = _mc_instances()[0]
    a = nbcert.count_worlds(
        train, test, "y", alpha=alpha, method="montecarlo", n_worlds=500, seed=7
    )
    b = nbcert.count_worlds(
        train, test, "y", alpha=alpha, method="montecarlo", n_worlds=500, seed=7
    )
    assert a[0].fractions == b[0].fractions and a[0].intervals == b[0].intervals


# ------------------------------------------------------------------------- unit cases


@pytest.mark.parametrize("method", ["exact", "batch", "auto"])
def test_one_value_domain_forced(method):
    train = pd.DataFrame(
        {"f": ["a", np.nan, np.nan, "a"], "g": ["a", "b", np.nan, "b"], "y": ["p", "q", "q", "p"]},
        dtype=object,
    )
    test = pd.DataFrame({"f": ["a"], "g": ["b"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=1, method=method)
    # f's two missing cells are forced: 1 * 1 * 2 worlds
    assert wc.total == 2
    exp = brute_counts(train, "y", {"f": "a", "g": "b"}, 1)
    assert (wc.counts, wc.ties) == exp


@pytest.mark.parametrize("method", ["exact", "batch"])
def test_unseen_value_alpha0_all_worlds_tie(method):
    train = pd.DataFrame(
        {"f": ["a", np.nan, "b"], "g": ["a", "b", np.nan], "y": ["p", "q", "p"]}, dtype=object
    )
    test = pd.DataFrame({"f": ["z"], "g": ["a"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=0, method=method)
    assert wc.total == 4
    assert wc.counts == {"p": 0, "q": 0} and wc.ties == 4


@pytest.mark.parametrize("method", ["exact", "batch"])
def test_unseen_value_alpha1(method):
    train = pd.DataFrame(
        {"f": ["a", np.nan, "b", "b"], "g": ["a", "b", np.nan, "a"], "y": ["p", "q", "p", "q"]},
        dtype=object,
    )
    test = pd.DataFrame({"f": ["z"], "g": ["a"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=1, method=method)
    assert (wc.counts, wc.ties) == brute_counts(train, "y", {"f": "z", "g": "a"}, 1)


@pytest.mark.parametrize("method", ["exact", "batch", "montecarlo"])
def test_single_label(method):
    train = pd.DataFrame({"f": ["a", np.nan, "b"], "y": ["p", "p", "p"]}, dtype=object)
    test = pd.DataFrame({"f": ["z"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=0, method=method, n_worlds=200, seed=0)
    assert wc.total == 2
    if method == "montecarlo":
        assert wc.fractions == {"p": 1.0} and wc.tie_fraction == 0.0
    else:
        assert wc.counts == {"p": 2} and wc.ties == 0


@pytest.mark.parametrize("method", ["exact", "batch"])
def test_complete_table_tie(method):
    train = pd.DataFrame({"f": ["a", "b", "a", "b"], "y": ["p", "p", "q", "q"]}, dtype=object)
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=1, method=method)
    assert wc.total == 1 and wc.counts == {"p": 0, "q": 0} and wc.ties == 1


@pytest.mark.parametrize("method", ["exact", "batch"])
def test_label_absent_from_wins_still_listed(method):
    # r can never win, but it is a training label: counts["r"] == 0.
    train = pd.DataFrame(
        {"f": ["a", "a", np.nan, "b", "b"], "y": ["p", "p", "q", "q", "r"]}, dtype=object
    )
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=0, method=method)
    exp = brute_counts(train, "y", {"f": "a"}, 0)
    assert exp[0]["r"] == 0
    assert (wc.counts, wc.ties) == exp


@pytest.mark.parametrize("method", ["exact", "batch"])
def test_larger_instance_against_brute(method):
    """~13k worlds, three labels and alpha 1/2: one heavier enumeration."""
    rng = np.random.default_rng(7)
    n, d = 12, 3
    y = np.array(["p", "q", "r"] * 4, dtype=object)
    cols = {}
    for j in range(d):
        vals = rng.choice(["a", "b", "c"], size=n).astype(object)
        cols[f"f{j}"] = vals
    cols["f0"][[0, 4, 8]] = np.nan
    cols["f1"][[1, 2, 5]] = np.nan
    cols["f2"][[3, 6, 7]] = np.nan
    cols["y"] = y
    train = pd.DataFrame(cols, dtype=object)
    test = pd.DataFrame({"f0": ["a", "c"], "f1": ["b", "a"], "f2": ["c", "z"]}, dtype=object)
    res = nbcert.count_worlds(train, test, "y", alpha=Fraction(1, 2), method=method)
    for wc, row in zip(res, [{"f0": "a", "f1": "b", "f2": "c"}, {"f0": "c", "f1": "a", "f2": "z"}]):
        _check_exact(wc, train, "y", row, Fraction(1, 2), method)


@pytest.mark.parametrize("method", ["exact", "batch"])
def test_label_values_returned_as_given(method):
    train = pd.DataFrame({"f": ["a", np.nan, "b", "a"], "y": [3, 5, 5, 3]}, dtype=object)
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    [wc] = nbcert.count_worlds(train, test, "y", alpha=1, method=method)
    assert set(wc.counts) == {3, 5}
    assert (wc.counts, wc.ties) == brute_counts(train, "y", {"f": "a"}, 1)


# ------------------------------------------------------------------------- deciding the method

from hypothesis import strategies as st  # noqa: E402

from nbcert import DataWarning  # noqa: E402
from nbcert.count import TooLarge, exact, montecarlo, point_stats, refine, states  # noqa: E402
from nbcert.count.keys import Basis  # noqa: E402
from nbcert.count.points import Point  # noqa: E402
from nbcert.reading.encoding import encode  # noqa: E402


def _points(inst):
    enc = encode(inst.train, inst.label)
    return enc, point_stats(enc, enc.encode_test(inst.test))


@SETTINGS
@given(inst=instances(max_rows=9, max_missing=10), alpha=alphas)
def test_support_bounds_enclose_the_distinct_supports(inst, alpha):
    """lower bound <= distinct supports of a label <= upper bound, and too_large is a proof."""
    enc, pts = _points(inst)
    a = nbcert.params.as_alpha(alpha)
    for pt in pts:
        for l in range(enc.m):
            actual = len(exact.label_distribution(pt, enc.delta, l, a, 10**9))
            assert states.distinct_lower_bound(pt, enc.delta, l, a, 10**9) <= actual
            assert actual <= math.exp(states.log_support_bound(pt, enc.delta, l)) * (1 + 1e-9)
            for limit in (1, 2, 3, 5, 8):
                if states.too_large(pt, enc.delta, a, limit, [l]):
                    assert actual > limit


@SETTINGS
@given(inst=instances(max_rows=9, max_missing=10), alpha=alphas, max_states=st.integers(1, 12))
def test_auto_is_exact_where_the_distribution_fits(inst, alpha, max_states):
    """auto counts exactly whenever every label fits in max_states (unless even the upper
    bound exceeds max_states squared); explicit exact refuses only what does not fit."""
    enc, pts = _points(inst)
    a = nbcert.params.as_alpha(alpha)
    res = nbcert.count_worlds(
        inst.train, inst.test, inst.label, alpha=alpha, max_states=max_states, n_worlds=50, seed=0
    )
    for wc, pt in zip(res, pts):
        sizes = [len(exact.label_distribution(pt, enc.delta, l, a, 10**9)) for l in range(enc.m)]
        hopeless = any(
            states.log_support_bound(pt, enc.delta, l) > 2 * math.log(max_states)
            for l in range(enc.m)
        )
        fits = max(sizes) <= max_states
        # past the states: proven bounds (Monte-Carlo only where they miss the time limit)
        assert wc.method in (("exact",) if fits and not hopeless else ("bounds", "montecarlo"))
    for row in range(len(inst.test)):
        sizes = [
            len(exact.label_distribution(pts[row], enc.delta, l, a, 10**9)) for l in range(enc.m)
        ]
        one = inst.test.iloc[[row]]
        if max(sizes) <= max_states:
            [wc] = nbcert.count_worlds(
                inst.train, one, inst.label, alpha=alpha, method="exact", max_states=max_states
            )
            assert wc.method == "exact"
        else:
            with pytest.raises(nbcert.InputError, match="too large"):
                nbcert.count_worlds(
                    inst.train, one, inst.label, alpha=alpha, method="exact", max_states=max_states
                )


def _wide(n=50, d=2000, seed=0):
    """The issue's case: 50 rows x 2000 columns, 10% missing, three values, two labels."""
    rng = np.random.default_rng(seed)
    X = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(n, d))
    X[rng.random((n, d)) < 0.1] = np.nan
    train = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    train["class"] = rng.choice(["p", "q"], size=n)
    test = train.drop(columns="class").iloc[:2].fillna("a")
    return train, test


def test_wide_table_goes_straight_to_proven_bounds(monkeypatch):
    """auto decides from the bounds on the distinct supports, building no exact
    distribution it would discard, and proves the counts' intervals instead."""
    train, test = _wide()

    def forbidden(*args, **kwargs):
        raise AssertionError("auto built an exact distribution")

    monkeypatch.setattr(exact, "label_distribution", forbidden)
    monkeypatch.setattr(states, "distinct_lower_bound", forbidden)
    monkeypatch.setattr(refine, "RARE_STEPS", 0)  # no finer grids for a rare share's digits
    calls = []
    res = nbcert.count_worlds(
        train, test, "class", time_limit=60, progress=lambda *a: calls.append(a)
    )
    assert [wc.method for wc in res] == ["bounds", "bounds"]
    for wc in res:
        total = wc.total  # 10^4793 worlds
        assert sum(lo for lo, _ in wc.proven.values()) <= total
        assert max(hi - lo for lo, hi in wc.proven.values()) <= total // 1000
    assert calls == [(0, 2, "bounds"), (1, 2, "bounds"), (2, 2, "bounds")]


def test_auto_estimates_where_the_bounds_miss_the_time_limit():
    """Monte-Carlo only where exact counting is too large and the proven bounds do not
    reach the width in time; a DataWarning says so."""
    train, test = _wide(d=40)
    with pytest.warns(DataWarning, match="all 2 test points estimated by method 'montecarlo'"):
        res = nbcert.count_worlds(train, test, "class", n_worlds=200, seed=1, time_limit=1e-9)
    assert [wc.method for wc in res] == ["montecarlo"] * 2
    assert all(
        wc.n_worlds == 200 and math.isclose(sum(wc.fractions.values()) + wc.tie_fraction, 1)
        for wc in res
    )


def test_unknown_method_is_refused_by_its_rule_before_counting():
    """count_encoded checks ``method`` with the rule the API and the CLI use: one error type."""
    from nbcert.count import count_encoded

    train, test = _wide(d=4)
    enc = encode(train, "class")
    with pytest.raises(
        nbcert.ParameterError, match=r"unknown counting method 'exactly' \(use auto, exact, batch"
    ):
        count_encoded(enc, enc.encode_test(test), method="exactly")


def test_wide_table_exact_fails_fast_with_a_proof(monkeypatch):
    """explicit exact refuses from the residue lower bound, before building anything."""
    train, test = _wide(d=400)

    def forbidden(*args, **kwargs):
        raise AssertionError("exact built a distribution it had to discard")

    monkeypatch.setattr(exact, "label_distribution", forbidden)
    with pytest.raises(nbcert.InputError, match="too large") as e:
        nbcert.count_worlds(train, test, "class", method="exact", max_states=20_000)
    assert isinstance(e.value.__context__, TooLarge)


def test_montecarlo_batches_do_not_change_the_draws():
    train, test, alpha = _mc_instances()[1]
    enc = encode(train, "y")
    [pt] = point_stats(enc, enc.encode_test(test))
    a = nbcert.params.as_alpha(alpha)
    runs = [
        montecarlo.count_montecarlo(
            pt, enc.label_sizes, enc.delta, a, 1000, np.random.default_rng(3), cells=cells
        )
        for cells in (1, 97, 1 << 22)
    ]
    assert all(np.array_equal(runs[0], r) for r in runs[1:]) and runs[0].sum() == 1000


# ------------------------------------------------------------------------- vectorised exact counts


@pytest.mark.parametrize("method", ["exact", "batch"])
@SETTINGS
@given(inst=instances(max_rows=10, max_missing=10), alpha=alphas)
def test_vectorised_counts_equal_python_integers(method, inst, alpha):
    """The prime-exponent keys and object-array ways give the counts of the Python-integer
    loops (kept for alphas whose factors are too large to factorise), label by label."""
    enc, pts = _points(inst)
    a = nbcert.params.as_alpha(alpha)
    for pt in pts:
        if Basis.build(pt, enc.label_sizes, enc.delta, a) is None:
            continue
        if method == "batch":
            fast = exact.count_batch(pt, enc.label_sizes, enc.delta, a, 10**9)
            slow = exact._count_batch_python(pt, enc.label_sizes, enc.delta, a)
        else:
            fast = exact.count_exact(pt, enc.label_sizes, enc.delta, a, 10**9)
            slow = exact._count_exact_python(pt, enc.label_sizes, enc.delta, a, 10**9)
        assert fast == slow
        for l in range(enc.m):
            keys, ways = exact.label_distribution(
                pt, enc.delta, l, a, 10**9, Basis.build(pt, enc.label_sizes, enc.delta, a)
            )
            dist = exact.label_distribution(pt, enc.delta, l, a, 10**9)
            assert len(keys) == len(dist) and sum(ways) == sum(dist.values())


def test_vectorised_counts_equal_python_integers_on_a_larger_point():
    """Points with ~10^4 distinct supports per label, equal supports across labels."""
    rng = np.random.default_rng(11)
    n, d = 36, 12
    X = rng.choice(np.array(["a", "b", "c"], dtype=object), size=(n, d))
    X[rng.random((n, d)) < 0.5] = np.nan
    train = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    train["y"] = ["p", "q", "r"] * 12
    enc = encode(train, "y")
    a = nbcert.params.as_alpha(0)
    for pt in point_stats(enc, enc.encode_test(train.drop(columns="y").iloc[:2].fillna("a"))):
        assert Basis.build(pt, enc.label_sizes, enc.delta, a) is not None
        fast = exact.count_exact(pt, enc.label_sizes, enc.delta, a, 10**9)
        assert fast == exact._count_exact_python(pt, enc.label_sizes, enc.delta, a, 10**9)


@pytest.mark.parametrize(
    "M, delta, seen",
    [
        (0, 3, True),
        (1, 2, True),
        (7, 3, True),
        (40, 5, True),
        (6, 1, True),
        (5, 4, False),
        (3000, 4, True),
        (200_000, 3, True),
    ],
)
def test_montecarlo_inverts_the_binomial_distribution_function(M, delta, seen):
    """beta = lo + the number of block entries <= u, for every u (guide table, or search in
    crowded buckets); the block is Binomial(M, 1/delta)'s distribution function where it
    is strictly between 0 and 1, up to rounding, and only that (not all M values)."""
    pt = Point(np.array([[2, 0], [1, 3]]), np.array([[M, 2], [0, M]]), np.array([seen, True]))
    tab = montecarlo._Tables(pt, np.array([9, 9]), np.array([delta, 2]), nbcert.params.as_alpha(0))
    u = np.concatenate(
        [
            np.random.default_rng(0).random((4000, len(tab.cells))),
            np.linspace(0, 1, 3001, endpoint=False)[:, None].repeat(len(tab.cells), axis=1),
        ]
    )
    pos = tab.invert(u)
    for c, cell in enumerate(tab.cells):
        block = tab.cdf[tab.start[c] : tab.start[c] + tab.size[c]]
        assert np.array_equal(
            pos[:, c] - tab.start[c], np.searchsorted(block, u[:, c], side="right")
        )
        Mc, j, lo = int(pt.M.ravel()[cell]), cell % 2, int(tab.lo[c])
        p = 1 / [delta, 2][j] if pt.seen[j] else 0.0
        full = montecarlo._binomial_cdf(Mc, p)  # every b, summed from b = 0
        if Mc <= 60:
            assert np.allclose(
                full,
                np.cumsum([math.comb(Mc, b) * p**b * (1 - p) ** (Mc - b) for b in range(Mc)]),
                rtol=1e-9,
                atol=1e-12,
            )
        # two float computations of the same probabilities (sums of up to 10^5 logs)
        assert np.allclose(block[:-1], full[lo : lo + len(block) - 1], rtol=0, atol=1e-8)
        assert (lo == 0 or full[lo - 1] < 1e-20) and (
            lo + len(block) - 1 == Mc or full[lo + len(block) - 1] == 1
        )
        assert len(block) <= 30 * math.sqrt(Mc * p * (1 - p)) + 100
