"""Support values in floating point against exact fractions, for every alpha a float can hold.

log_support must stay within log_tolerance of the exact log support (that bound is what
lets a comparison trust the floats), from alpha = 0 up to the largest finite float, where
a naive (c + alpha) / (N + alpha * delta) overflows; and as_alpha must reject what is not
a finite number >= 0.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbcert.kernel import exact_support, log_support, log_tolerance
from nbcert.params import as_alpha

# the exact alphas of the tests: tiny ones (below the smallest normal float), ordinary
# ones and huge ones (up to the largest float, 1.797e308)
huge_alphas = st.one_of(
    st.integers(10**6, 10**308).map(Fraction),
    st.builds(Fraction, st.integers(10**300, 10**308), st.integers(1, 1000)),
    st.sampled_from([Fraction(10**308), Fraction(int(np.finfo(float).max))]),
)
any_alphas = st.one_of(
    huge_alphas,
    st.sampled_from([Fraction(0), Fraction(1), Fraction(1, 2)]),
    st.integers(1, 10**400).map(lambda k: Fraction(1, k)),
)


@st.composite
def supports(draw, alphas=any_alphas):
    m, d = draw(st.integers(1, 3)), draw(st.integers(1, 6))
    N = np.array([draw(st.integers(1, 60)) for _ in range(m)])
    delta = np.array([draw(st.integers(1, 5)) for _ in range(d)])
    C = np.array([[draw(st.integers(0, int(N[l]))) for _ in range(d)] for l in range(m)])
    return C, N, delta, draw(alphas)


def _exact_log(c, N_l, delta, alpha) -> float:
    s = exact_support(c, N_l, delta, alpha)
    return -math.inf if s == 0 else math.log(s.numerator) - math.log(s.denominator)


@settings(max_examples=400, deadline=None)
@given(supports())
def test_log_support_within_its_rounding_bound(case):
    C, N, delta, alpha = case
    got = log_support(C, N, delta, alpha)
    tol = log_tolerance(C.shape[1], int(N.sum()), alpha)
    assert np.isfinite(tol) and tol < 1e-6
    for l in range(len(N)):
        exact = _exact_log(C[l], N[l], delta, alpha)
        if exact == -math.inf:
            assert got[l] == -math.inf
        else:
            assert abs(got[l] - exact) <= tol, (alpha, C[l], N[l], delta, got[l], exact)


@settings(max_examples=200, deadline=None)
@given(supports(alphas=huge_alphas))
def test_huge_alpha_factors_tend_to_one_over_delta(case):
    """With alpha -> inf, S_l -> N_l * prod 1/delta_j: the largest label wins."""
    C, N, delta, alpha = case
    got = log_support(C, N, delta, alpha)
    assert np.all(np.isfinite(got))
    limit = np.log(N) - np.log(delta).sum()
    assert np.allclose(got, limit, rtol=0, atol=1e-3)


@pytest.mark.parametrize(
    "alpha",
    [
        1e400,
        float("inf"),
        float("-inf"),
        float("nan"),
        "1e400",
        "inf",
        "nan",
        -1,
        "-1/3",
        "1/0",
        "abc",
        "",
    ],
)
def test_rejects_what_is_not_a_finite_number_at_least_zero(alpha):
    with pytest.raises(ValueError, match="alpha"):
        as_alpha(alpha)


@pytest.mark.parametrize("alpha", [[1], None, True, object()])
def test_rejects_what_is_not_a_number(alpha):
    with pytest.raises(TypeError, match="alpha"):
        as_alpha(alpha)


def test_accepts_the_extremes_a_float_can_hold():
    assert as_alpha(1e308) == Fraction(10**308)
    assert as_alpha("1e-400") == Fraction(1, 10**400)
    assert as_alpha(np.finfo(float).max) > 0
