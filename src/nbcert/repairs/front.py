"""A label's extreme supports over its rows' repairs: Pareto fronts of reachable sums.

Label l's support is ``K_l * prod_j (q c_lj + p)`` (alpha = p/q) with c_l = base_l + the
patterns its dirty rows pick (``nbcert.repairs.patterns``), each factor nondecreasing in
c_lj.  So the largest support is reached at a Pareto-maximal sum of patterns and the
smallest at a Pareto-minimal one:

* per row group, only the Pareto-maximal (for the largest) or Pareto-minimal (for the
  smallest) patterns can be picked at an extreme (a dominated pick is replaced by its
  dominator, which never lowers (raises) any factor);
* a group whose kept patterns are one is a constant; a feature where no group's kept
  patterns differ is a constant too, and drops out;
* the g-fold sums of a group's patterns (binary powers, pruned at each step) and then the
  sums over the groups are Pareto-pruned as they are built (``pareto``): the extreme of a
  monotone function over a set is at one of its Pareto-extreme points, and the Pareto
  front of A + B is within (front A) + (front B).

The front does not depend on the base counts, so it is built once per label and key and
evaluated for every test point of the key (``Front.extreme``), exactly: floats shortlist
the candidates within a relative 1e-9 of the best, Python integers decide among them.

Deciding whether a label can have positive support at all is NP-hard once the features
are many (docs/design.md), and a front can grow with the rows to the power of the features
that vary.  Past ``limit`` sums at one step the search stops: the groups not merged give
a proven outer bound (each adds at most its most extreme pattern on every feature at
once, ``Front.rest``) and one world completed greedily an inner one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernel import factor_numerator
from .patterns import LabelRows

LIMIT = 4_000_000  # sums built at one step of a front's search
CHUNK = 1 << 22  # vector cells compared at once while pruning
MEMO_BYTES = 1 << 26  # kept patterns and powers remembered between fronts (64 MB)


def pareto(V: np.ndarray) -> np.ndarray:
    """The Pareto-maximal rows of V (N, a) integer vectors, distinct, sorted."""
    if len(V) <= 1 or V.shape[1] == 0:
        return V[:1]
    if V.shape[1] == 1:
        return V.max(axis=0, keepdims=True)
    if V.shape[1] == 2:
        return _pareto_plane(V)
    return _pareto_general(np.unique(V, axis=0))


def _pareto_plane(V: np.ndarray) -> np.ndarray:
    """``pareto`` of points in the plane: by x falling (then y falling) a point is kept
    where its y exceeds every y before it, which drops the duplicates too; the kept x
    fall strictly, so reversed they are sorted."""
    S = V[np.lexsort((-V[:, 1], -V[:, 0]))]
    prior = np.maximum.accumulate(S[:-1, 1])
    keep = np.concatenate(([True], S[1:, 1] > prior))
    return S[keep][::-1].copy()


def _pareto_general(V: np.ndarray) -> np.ndarray:
    """``pareto`` in any dimension: by falling sums, each chunk held against the vectors
    kept so far (every dominator of a vector has a larger sum) and against itself."""
    s = V.sum(axis=1)
    V = V[np.argsort(-s, kind="stable")]
    s = V.sum(axis=1)
    kept = np.zeros((0, V.shape[1]), V.dtype)
    step = max(1, CHUNK // max(1, len(V) * V.shape[1]))
    for a in range(0, len(V), step):
        C, cs = V[a : a + step], s[a : a + step]
        dom = np.zeros(len(C), bool)
        if len(kept):
            dom |= (kept[None, :, :] >= C[:, None, :]).all(axis=2).any(axis=1)
        inner = (C[None, :, :] >= C[:, None, :]).all(axis=2) & (cs[None, :] > cs[:, None])
        dom |= inner.any(axis=1)
        kept = np.concatenate([kept, C[~dom]])
    return np.unique(kept, axis=0)


def _sums(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return (A[:, None, :] + B[None, :, :]).reshape(-1, A.shape[1])


def power(P: np.ndarray, g: int, limit: int = LIMIT) -> np.ndarray | None:
    """The Pareto-maximal sums of g vectors each taken from P (binary powers, pruned at
    each step); None when a step would build more than ``limit`` sums."""
    out, base = None, pareto(P)
    while g:
        if g & 1:
            if out is not None and len(out) * len(base) > limit:
                return None
            out = base if out is None else pareto(_sums(out, base))
        g >>= 1
        if g:
            if len(base) ** 2 > limit:
                return None
            base = pareto(_sums(base, base))
    return out


@dataclass(frozen=True)
class Front:
    """One label's extreme (``sign`` +1: largest, -1: smallest) over its dirty rows for one
    key.  In the key's features J: ``const`` (|J|,) what every extreme world adds;
    ``dims`` the features where picks differ; ``vectors`` (F, len(dims)) the Pareto front
    of the merged groups' sums; ``rest`` (len(dims),) what the groups not merged add at
    most (at least, for the smallest) on each feature, ``left`` those groups (their kept
    patterns and rows; empty when the search was complete)."""

    sign: int
    const: np.ndarray
    dims: np.ndarray
    vectors: np.ndarray
    rest: np.ndarray
    left: tuple

    @property
    def complete(self) -> bool:
        return not self.left

    def extreme(self, B: np.ndarray, other: int, alpha) -> tuple:
        """(outer, inner, counts): the extreme numerator prod over the point's features of
        (q c_j + p), as exact ints: ``outer`` a proven bound (the largest is at most it,
        the smallest at least it), ``inner`` a world's value (equal when complete), and
        ``counts`` (|J|,) that world's c_J.

        ``B`` (|J|,): the point's base counts on J; ``other``: the exact product of the
        factors of its other features."""
        C = B + self.const
        rows = np.repeat(C[None, :], len(self.vectors), axis=0)
        rows[:, self.dims] += self.vectors
        i = _best(rows, alpha, self.sign)
        world = rows[i].copy()
        if self.complete:
            value = other * _numerator(world, alpha)
            return value, value, world
        bound = rows.copy()
        bound[:, self.dims] += self.rest
        outer = other * _numerator(bound[_best(bound, alpha, self.sign)], alpha)
        for P, g in self.left:  # a world: every row of a group the same greedy pick
            picks = np.repeat(world[None, :], len(P), axis=0)
            picks[:, self.dims] += g * P
            world = picks[_best(picks, alpha, self.sign)]
        return outer, other * _numerator(world, alpha), world


def _memo(memo: dict, what: tuple, P: np.ndarray, make):
    """make(P) (read-only), found once per (``what``, P's values) while the memo holds
    less than ``MEMO_BYTES``."""
    at = (*what, P.dtype.str, P.shape, P.tobytes())
    if at in memo:
        return memo[at]
    got = make(P)
    size = 0 if got is None else got.nbytes
    if memo.get("bytes", 0) + size <= MEMO_BYTES:
        if got is not None:
            got.setflags(write=False)
        memo[at], memo["bytes"] = got, memo.get("bytes", 0) + size
    return got


def _numerator(c: np.ndarray, alpha) -> int:
    out = 1
    for x in c.tolist():
        out *= factor_numerator(x, alpha)
    return out


def _best(rows: np.ndarray, alpha, sign: int) -> int:
    """The row of counts whose product of (q c + p) is largest (sign +1) or smallest
    (sign -1): floats shortlist those within a relative 1e-9, exact integers decide."""
    if len(rows) == 1:
        return 0
    q, p = alpha.denominator, alpha.numerator
    with np.errstate(divide="ignore"):
        L = sign * np.log(q * rows.astype(float) + p).sum(axis=1)
    top = L.max()
    if np.isinf(top):  # every product 0 (largest), or some product 0 (smallest)
        return int(np.flatnonzero(L == top)[0])
    near = np.flatnonzero(L >= top - 1e-9 * (abs(top) + 1))
    if len(near) == 1:
        return int(near[0])
    values = [sign * _numerator(rows[i], alpha) for i in near.tolist()]
    return int(near[int(np.argmax(np.array(values, dtype=object)))])


def build(rows: LabelRows, sign: int, limit: int = LIMIT, memo: dict | None = None) -> Front:
    """The label's ``Front`` for the largest (``sign`` +1) or smallest (-1) support.

    ``memo``: the groups' kept patterns and powers found before (by their patterns, g and
    sign), shared between the fronts of tables that differ in a few rows.
    """
    memo = {} if memo is None else memo
    const = rows.fixed.copy()
    todo = []
    for grp in rows.groups:
        P = _memo(memo, ("kept", sign), grp.patterns, lambda P: sign * pareto(sign * P))
        if len(P) == 1:
            const += grp.g * P[0]
        else:
            todo.append((P, grp.g))
    J = len(const)
    varies = np.zeros(J, bool)
    for P, _ in todo:
        varies |= P.min(axis=0) != P.max(axis=0)
    dims = np.flatnonzero(varies)
    merged = []
    for P, g in todo:
        const[~varies] += g * P[0, ~varies]
        merged.append((sign * pareto(sign * P[:, dims]), g))
    merged.sort(key=lambda e: (len(e[0]), e[1]))
    front = np.zeros((1, len(dims)), np.int64)
    for i, (P, g) in enumerate(merged):
        S = _memo(memo, ("power", sign, g, limit), P, lambda P: power(sign * P, g, limit))
        if S is None or len(front) * len(S) > limit:
            left = tuple(merged[i:])
            pick = np.max if sign > 0 else np.min
            rest = sum(g * pick(P, axis=0) for P, g in left)
            return Front(sign, const, dims, sign * front, rest, left)
        front = pareto(_sums(front, S))
    return Front(sign, const, dims, sign * front, np.zeros(len(dims), np.int64), ())


__all__ = ["Front", "build", "pareto", "power", "LIMIT"]
