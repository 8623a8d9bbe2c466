"""Exact supports as the exponents of their primes, packed into one int64 key.

A support's numerator prod_j (q c_j + p) (alpha = p/q), scaled to a denominator common
to all labels, is a product of small integers, so it is known exactly by the exponents
of its primes.  Packed in mixed radix (each digit wide enough for the largest exponent a
support of the point can reach) they make one int64 key: equal supports have equal keys
and keys add as supports multiply.  Floats of the keys (sum of exponent * log prime)
order them; keys closer than the floats' rounding are ordered by their exact integers.

Where a factor is too large to factorise (a huge alpha) or the digits need more than
62 bits, there is no basis and the counting falls back to Python integers.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernel import factor_denominator, factor_numerator
from .points import Point, point_options

FACTOR_LIMIT = 1 << 20  # factor values (q c + p, q N + p delta) up to this are factorised
ZERO = -1  # the key of a support that is 0


def _factorise(v: int) -> dict:
    """{prime: exponent} of a positive integer (trial division: v is small)."""
    out, p = {}, 2
    while p * p <= v:
        while v % p == 0:
            out[p] = out.get(p, 0) + 1
            v //= p
        p += 1
    if v > 1:
        out[v] = out.get(v, 0) + 1
    return out


def _scale_factors(N, delta, alpha) -> list:
    """Per label the factors of its scale: N_l and the other labels' denominators' factors."""
    m = len(N)
    return [
        [int(N[l])]
        + [factor_denominator(N[k], dj, alpha) for k in range(m) if k != l for dj in delta]
        for l in range(m)
    ]


def _top_exponents(scale: list, opts: list, fac: dict) -> dict:
    """{prime: the largest exponent any label's scaled support can reach}."""
    top = {}
    for factors, per_feature in zip(scale, opts):
        need = {}
        for v in factors:
            for pr, e in fac[v].items():
                need[pr] = need.get(pr, 0) + e
        for o in per_feature:
            for pr in {pr for v in o if v for pr in fac[v]}:
                need[pr] = need.get(pr, 0) + max(fac[v].get(pr, 0) for v in o if v)
        for pr, e in need.items():
            top[pr] = max(top.get(pr, 0), e)
    return top


class Basis:
    """The packing of one point's support numerators into int64 keys.

    Parameters
    ----------
    primes : list of int
        The primes of every factor, ascending.
    radix : list of int
        Per prime, one more than the largest exponent a support can reach.
    fac : dict
        {factor value: {prime: exponent}}.
    """

    def __init__(self, primes: list, radix: list, fac: dict):
        self.fac, self.keys = fac, {}  # {factor value: {prime: exponent}}, {factor value: key}
        self.primes = np.array(primes, dtype=np.int64)
        self.radix = np.array(radix, dtype=np.int64)
        self.stride = np.concatenate(([1], np.cumprod(self.radix)[:-1])).astype(np.int64)
        self.logp = np.log(self.primes.astype(float))

    @classmethod
    def build(cls, pt: Point, N, delta, alpha) -> Basis | None:
        """The basis of a point, or None when a factor value exceeds FACTOR_LIMIT or the
        digits need more than 62 bits (the counts are then kept as Python integers).

        Parameters
        ----------
        pt, N, delta, alpha
            The test point's counts, the rows per label, the domain sizes and the
            smoothing parameter (as :func:`nbcert.count.exact.count_batch` takes them).

        Returns
        -------
        Basis or None
        """
        m, d = pt.E.shape
        scale = _scale_factors(N, delta, alpha)
        opts = [
            [
                [factor_numerator(c, alpha) for c, _ in point_options(pt, delta, l, j)]
                for j in range(d)
            ]
            for l in range(m)
        ]
        values = {v for row in scale for v in row} | {v for per in opts for o in per for v in o}
        if max(values) > FACTOR_LIMIT:
            return None
        fac = {v: _factorise(v) for v in values if v > 0}
        top = _top_exponents(scale, opts, fac)
        primes = sorted(top)
        radix = [top[pr] + 1 for pr in primes]
        if sum(math.log2(r) for r in radix) > 62:
            return None
        return cls(primes, radix, fac)

    def key(self, v: int) -> int:
        """The key of a factor value.

        Parameters
        ----------
        v : int
            A factor value (q c + p, q N + p delta or N) of the point, or 0.

        Returns
        -------
        int
            0 for 1, ZERO for 0.
        """
        if v not in self.keys:
            where = {int(pr): i for i, pr in enumerate(self.primes)}
            self.keys[v] = (
                ZERO
                if v == 0
                else sum(e * int(self.stride[where[pr]]) for pr, e in self.fac[v].items())
            )
        return self.keys[v]

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The keys of the products of the values keyed by a and b.

        Parameters
        ----------
        a, b : ndarray of int64
            Keys (broadcast).

        Returns
        -------
        ndarray of int64
            Their sums, ZERO where either is ZERO (0 absorbs).
        """
        return np.where((a == ZERO) | (b == ZERO), ZERO, a + b)

    def exponents(self, keys: np.ndarray) -> np.ndarray:
        """The prime exponents packed in keys.

        Parameters
        ----------
        keys : ndarray of int64, shape (k,)
            Keys other than ZERO.

        Returns
        -------
        ndarray of int64, shape (k, primes)
        """
        return (keys[:, None] // self.stride) % self.radix

    def logs(self, keys: np.ndarray) -> np.ndarray:
        """Natural logs of the values of keys.

        Parameters
        ----------
        keys : ndarray of int64, shape (k,)

        Returns
        -------
        ndarray of float, shape (k,)
            -inf for ZERO.
        """
        out = np.empty(len(keys))
        step = max(1, (1 << 20) // max(1, len(self.primes)))  # exponents a bounded block at a time
        for a in range(0, len(keys), step):
            part = keys[a : a + step]
            logs = self.exponents(np.maximum(part, 0)) @ self.logp
            out[a : a + step] = np.where(part == ZERO, -np.inf, logs)
        return out

    def value(self, key: int) -> int:
        """The exact integer a key stands for.

        Parameters
        ----------
        key : int

        Returns
        -------
        int
        """
        if key == ZERO:
            return 0
        exps = self.exponents(np.array([key]))[0]
        return math.prod(int(pr) ** int(e) for pr, e in zip(self.primes, exps))


def ranks(basis: Basis, keys: np.ndarray) -> np.ndarray:
    """The exact order of the supports with these keys.

    Floats order the distinct keys; neighbours closer than their rounding bound are
    ordered by their exact integers.

    Parameters
    ----------
    basis : Basis
    keys : ndarray of int64

    Returns
    -------
    ndarray of int64, shape of ``keys`` flattened
        Ranks: equal supports get equal ranks, a larger support a larger rank.
    """
    uniq, inverse = np.unique(keys, return_inverse=True)
    logs = basis.logs(uniq)
    order = np.argsort(logs, kind="stable")
    finite = logs[np.isfinite(logs)]
    tol = (
        64
        * (len(basis.primes) + 1)
        * np.finfo(float).eps
        * (1 + (np.abs(finite).max() if finite.size else 0))
    )
    close = np.flatnonzero(
        np.diff(logs[order]) <= tol
    )  # order[i] and order[i + 1] may be misordered
    for start, stop in _runs(close):
        run = order[start : stop + 1]
        order[start : stop + 1] = sorted(run, key=lambda u: basis.value(int(uniq[u])))
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inverse.ravel()]


def _runs(idx: np.ndarray):
    """Maximal runs of consecutive integers in sorted idx, as (first, last + 1)."""
    if idx.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks], [idx[-1]])) + 1
    return list(zip(starts.tolist(), ends.tolist()))
