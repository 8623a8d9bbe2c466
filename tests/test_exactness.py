"""Adversarial near-ties: exact answers where floating-point log sums cannot decide.

Tables have 50-60 features and two (or three) labels with N = 1400 rows each, built
from a count design: for label l and feature j, ``agree`` rows hold the test value
"v0", ``missing`` rows are blank and the rest hold "v1".  With equal label sizes and
equal domain sizes, S(A)/S(B) is the ratio of the products of the per-feature factors
(c + alpha), so we pick factor lists whose products are equal or differ by one part in
2^60 (about 8.7e-19 relative):

    2^60 - 1 = 3^2 * 5^2 * 7 * 11 * 13 * 31 * 41 * 61 * 151 * 331 * 1321
    2^60     = 32^12 * 1 = 64^10 * 1 * 1 * 1

The expected answers are computed with exact Fraction arithmetic over the (few)
possible worlds by the reference in ``brute.py``; the tests also assert that the
design really is a (near-)tie, so they cannot silently become easy.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import brute_counts, brute_robust, brute_total

import nbcert

N = 1400
P60M1 = [3, 3, 5, 5, 7, 11, 13, 31, 41, 61, 151, 331, 1321]  # product 2^60 - 1
P60M1_REGROUPED = [15, 15, 77, 13, 31, 41, 61, 151, 331, 1321, 1, 1, 1]  # same product
P60 = [32] * 12 + [1]  # product 2^60
P60_REGROUPED = [64] * 10 + [1, 1, 1]  # product 2^60
K = len(P60)
assert math.prod(P60M1) == math.prod(P60M1_REGROUPED) == 2**60 - 1
assert math.prod(P60) == math.prod(P60_REGROUPED) == 2**60
assert all(len(x) == K for x in (P60M1, P60M1_REGROUPED, P60, P60_REGROUPED))


def _design(factors: list[int], alpha: int, missing: dict[int, int] | None = None):
    """Per-feature (agree, missing) for a label whose factor c + alpha takes the given
    values in its *largest* world; ``missing[j] = m`` moves m agreeing rows of feature j
    to blank cells (so the smallest world has factor - m)."""
    missing = missing or {}
    out = []
    for j, f in enumerate(factors):
        c = f - alpha
        assert 0 <= c <= N - 1
        m = missing.get(j, 0)
        out.append((c - m, m))
    return out


def build(
    specs: dict[str, list[tuple[int, int]]], seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training table from per-label per-feature (agree, missing) designs; test row all "v0"."""
    rng = np.random.default_rng(seed)
    d = len(next(iter(specs.values())))
    blocks, ys = [], []
    for lab, design in specs.items():
        assert len(design) == d
        X = np.full((N, d), "v1", dtype=object)
        for j, (a, m) in enumerate(design):
            X[:a, j] = "v0"
            X[a : a + m, j] = np.nan
            assert a + m < N  # "v1" occurs in every feature
        blocks.append(X[rng.permutation(N)])
        ys += [lab] * N
    X = np.vstack(blocks)
    perm = rng.permutation(len(X))
    train = pd.DataFrame(X[perm], columns=[f"x{j}" for j in range(d)], dtype=object)
    train["label"] = np.array(ys, dtype=object)[perm]
    test = pd.DataFrame({f"x{j}": ["v0"] for j in range(d)}, dtype=object)
    return train, test


def _filler(n_features: int, alpha: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.integers(1 + alpha, N - 10, size=n_features)]


def _case(
    a_factors, b_factors, *, alpha=0, d=50, a_missing=None, b_missing=None, seed=0, c_factors=None
):
    fill = _filler(d - K, alpha, seed)
    specs = {
        "B": _design(b_factors + fill, alpha, b_missing),
        "A": _design(a_factors + fill, alpha, a_missing),
    }
    if c_factors is not None:
        specs["C"] = _design(c_factors + fill, alpha)
    return build(specs, seed)


def _float_log_margin(a_factors, b_factors, alpha):
    """The float64 log-space margin the design leaves: far below rounding noise."""
    fa = sum(math.log(x) for x in a_factors)
    fb = sum(math.log(x) for x in b_factors)
    return abs(fa - fb)


# (name, A's factors, B's factors, A missing, B missing, expected (robust, label), counts)
CASES = [
    (
        "exact-tie-regrouped",
        P60M1_REGROUPED,
        P60M1,
        None,
        None,
        (False, None),
        ({"A": 0, "B": 0}, 1),
    ),
    ("exact-tie-2^60", P60_REGROUPED, P60, None, None, (False, None), ({"A": 0, "B": 0}, 1)),
    ("A-by-2^-60", P60, P60M1, None, None, (True, "A"), ({"A": 1, "B": 0}, 0)),
    ("B-by-2^-60", P60M1, P60, None, None, (True, "B"), ({"A": 0, "B": 1}, 0)),
    # B's largest world is 2^60 - 1 (1320 observed + 1 blank): A still wins everywhere
    ("A-robust-missing", P60, P60M1, None, {12: 1}, (True, "A"), ({"A": 2, "B": 0}, 0)),
    # A's smallest world is (2^60 - 1) with 1321 = 1320 + 1 blank... A loses everywhere
    ("B-robust-missing", P60M1, P60_REGROUPED, {12: 1}, None, (True, "B"), ({"A": 0, "B": 2}, 0)),
    # B's largest world ties A exactly (64^10 vs 32^12): not robust, one tied world
    ("tie-in-one-world", P60, P60_REGROUPED, None, {0: 1}, (False, None), ({"A": 1, "B": 0}, 1)),
    # B's largest world beats A = 2^60 - 1 by one part in 2^60, its smallest loses
    ("flip-in-one-world", P60M1, P60_REGROUPED, None, {3: 1}, (False, None), ({"A": 1, "B": 1}, 0)),
    # two blank cells in B: worlds 64*64, 64*63 (x2), 63*63 against A = 2^60 - 1
    (
        "flip-two-cells",
        P60M1,
        P60_REGROUPED,
        None,
        {3: 1, 5: 1},
        (False, None),
        ({"A": 3, "B": 1}, 0),
    ),
]


def _check(train, test, expected, counts_expected, alpha):
    row = {c: test[c].iloc[0] for c in test.columns}
    assert brute_robust(train, "label", row, alpha) == expected, "test design is wrong"
    assert brute_counts(train, "label", row, alpha) == counts_expected, "test design is wrong"
    for method in ("index", "iterate"):
        res = nbcert.certify(train, test, "label", alpha=alpha, method=method)
        got = (bool(res["robust"].iloc[0]), res["label"].iloc[0])
        if not expected[0]:
            got = (
                got[0],
                None
                if got[1] is None or (not isinstance(got[1], str) and pd.isna(got[1]))
                else got[1],
            )
        assert got == expected, f"certify {method}: {got}, exact answer {expected}"
    total = brute_total(train, "label")
    for method in ("exact", "batch", "auto"):
        [wc] = nbcert.count_worlds(train, test, "label", alpha=alpha, method=method)
        assert wc.total == total
        assert (dict(wc.counts), wc.ties) == counts_expected, f"count_worlds {method}"


@pytest.mark.parametrize("d", [50, 60])
@pytest.mark.parametrize("alpha", [0, 1])
@pytest.mark.parametrize("name,a,b,am,bm,expected,counts", CASES, ids=[c[0] for c in CASES])
def test_near_ties(name, a, b, am, bm, expected, counts, alpha, d):
    assert _float_log_margin(a, b, 0) < 1e-12
    train, test = _case(a, b, alpha=alpha, d=d, a_missing=am, b_missing=bm, seed=d + alpha)
    _check(train, test, expected, counts, alpha)


@pytest.mark.parametrize("alpha", [0, 1])
def test_near_tie_with_third_label(alpha):
    # C sits far below; A beats B by one part in 2^60
    c = [max(1 + alpha, x // 2) for x in P60M1]
    train, test = _case(P60, P60M1, alpha=alpha, d=55, c_factors=c, seed=3)
    _check(train, test, (True, "A"), ({"B": 0, "A": 1, "C": 0}, 0), alpha)


def test_exact_supports_as_designed():
    """The designs' exact support ratio, by direct Fraction arithmetic (no enumeration)."""
    for alpha in (0, 1):
        fill = _filler(50 - K, alpha, 0)

        def s(factors):  # N/n * prod (c + alpha) / (N + 2 alpha), with n = 2N
            v = Fraction(1, 2)
            for f in factors + fill:
                v *= Fraction(f, N + 2 * alpha)
            return v

        assert s(P60) / s(P60M1) == Fraction(2**60, 2**60 - 1)
        assert s(P60_REGROUPED) == s(P60)
        assert s(P60M1_REGROUPED) == s(P60M1)
        assert 0 < s(P60) / s(P60M1) - 1 < Fraction(1, 10**18)


@pytest.mark.parametrize("method", ["exact", "batch", "auto"])
def test_huge_world_counts_are_exact_integers(method):
    """3^100 worlds: counts far beyond int64/float precision, from the closed form.

    One feature f, alpha 0, test value "a".  q: 10 rows, 5 of them "a" -> S_q = 5/n.
    p: 100 rows, all blank -> S_p = beta/n where beta = number of p cells filled "a".
    p wins iff beta > 5, ties iff beta == 5; beta = b in C(100, b) * 2^(100 - b) worlds.
    """
    f = ["a"] * 5 + ["b"] * 5 + [np.nan] * 100 + ["c"]
    y = ["q"] * 10 + ["p"] * 100 + ["q"]
    # the last row (q, "c") makes the domain {a, b, c}; q then has 11 rows, 5 agreeing:
    # S_q = 11/n * 5/11 = 5/n, S_p = 100/n * beta/100 = beta/n.
    train = pd.DataFrame({"f": f, "y": y}, dtype=object)
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    ways = [math.comb(100, b) * 2 ** (100 - b) for b in range(101)]
    total = 3**100
    assert sum(ways) == total
    expected = {"q": sum(ways[:5]), "p": sum(ways[6:])}, ways[5]
    [wc] = nbcert.count_worlds(train, test, "y", alpha=0, method=method)
    assert wc.total == total and isinstance(wc.total, int)
    assert (dict(wc.counts), wc.ties) == expected
    assert all(isinstance(v, int) for v in wc.counts.values()) and isinstance(wc.ties, int)
    res = nbcert.certify(train, test, "y", method="index")
    assert not bool(res["robust"].iloc[0])


def test_huge_world_count_montecarlo_total():
    f = ["a"] * 5 + ["b"] * 5 + [np.nan] * 100 + ["c"]
    y = ["q"] * 10 + ["p"] * 100 + ["q"]
    train = pd.DataFrame({"f": f, "y": y}, dtype=object)
    test = pd.DataFrame({"f": ["a"]}, dtype=object)
    [wc] = nbcert.count_worlds(
        train, test, "y", alpha=0, method="montecarlo", n_worlds=5000, seed=1
    )
    assert wc.total == 3**100
    # P(beta > 5) with beta ~ Binomial(100, 1/3) is 1 - 1e-9-ish
    assert wc.fractions["p"] > 0.99
