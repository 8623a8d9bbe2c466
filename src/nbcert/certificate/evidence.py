"""The evidence a certificate carries: witness worlds and extreme supports, exactly.

Everything here is about one test point and one state of the training table (as read, with
cells blanked, or with cells cleaned), seen as a ``Point``: per label l and feature j whose
test cell is not blank, E_lj the observed cells holding the test value t_j and M_lj the
missing cells; per feature the domain size delta_j and whether t_j is in the domain.

A world fills every missing cell from its column's domain, and label l's support
``S(l) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha delta_j)`` depends only on how many
of l's cells hold t_j.  So c_lj takes every integer in [lo_lj, hi_lj], independently of the
other labels and columns:

* t_j not in the domain: no cell can hold it, c = E = 0;
* the domain is {t_j}: every missing cell holds it, c = E + M;
* otherwise c runs from E (every missing cell another value) to E + M.

Each factor grows with c_lj (its denominator is the same in every world), so l's smallest
and largest supports are at lo and hi.  The evidence is built from that:

* ``winner``: l at hi, every other label at lo; l wins there iff smax(l) > smin(l') for
  every l' != l, so this world is a witness whenever l can win at all;
* ``bound``: smax(l) <= smin(k) (strictly, for a robust k): in every world S(l) <= smax(l)
  <= smin(k) <= S(k), so l never wins (never even ties k, when strict);
* ``tie_world``: a world whose top supports tie, found as ``nbcert.certification`` decides that one
  exists: a label that reaches the top without being able to win (it at hi, the rest at
  lo); with at most one label able to win, the first world on a path from where it wins to
  where it does not (a tie, since no other label wins anywhere); else by listing the count
  vectors of the labels that reach the top.

A world is written compactly: per label and column with missing cells, the value all of
them take, or ``[[value, count], ...]`` filling them in data-row order.  Supports are
compared as exact integers (a numerator and a denominator); a bound names the counts it
compares at, and the checker computes their supports itself.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..stats.domains import BLANK

TIE_VECTORS = 1 << 12  # count vectors of one label listed to find or rule out a tie


def as_json(value):
    """A domain value as JSON holds it: a number as a number, anything else as its text."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return str(value)


@dataclass(frozen=True)
class Point:
    """One test point's view of one table state (module docstring); lists per label
    (``labels``, ``N``, rows of ``E`` and ``M``) and per used column (the rest)."""

    labels: tuple
    N: tuple
    columns: tuple
    E: tuple
    M: tuple
    delta: tuple
    seen: tuple
    value: tuple  # t_j as JSON holds it (None where t_j is not in the domain)
    other: tuple  # a domain value other than t_j (None where the domain is {t_j})
    alpha: Fraction

    @property
    def m(self) -> int:
        return len(self.labels)

    def lo(self, l: int) -> list:
        return [
            e + (mm if s and dj == 1 else 0)
            for e, mm, s, dj in zip(self.E[l], self.M[l], self.seen, self.delta)
        ]

    def hi(self, l: int) -> list:
        return [e + (mm if s else 0) for e, mm, s in zip(self.E[l], self.M[l], self.seen)]

    def support(self, l: int, c) -> tuple:
        """S(l) at counts c as (numerator, denominator) integers; alpha = p/q."""
        p, q, N = self.alpha.numerator, self.alpha.denominator, self.N[l]
        num = N * math.prod(q * int(x) + p for x in c)
        den = sum(self.N) * math.prod(q * N + p * dj for dj in self.delta)
        return num, den

    def supports(self, counts: list) -> list:
        return [self.support(l, c) for l, c in enumerate(counts)]


def point(counts: np.ndarray, offsets, categories, features, labels, t, alpha) -> Point:
    """The Point of test codes ``t`` (local; -1 unseen, BLANK left out) in a table state
    given by ``counts`` (m, n_codes): observed cells per label and global code, each
    feature's missing cells in its last slot.  A value no cell holds is not in the domain."""
    cols, E, M, delta, seen, value, other = [], [], [], [], [], [], []
    for j in np.flatnonzero(np.asarray(t) != BLANK).tolist():
        a, b = int(offsets[j]), int(offsets[j + 1]) - 1
        held = counts[:, a:b].sum(axis=0) > 0
        present = np.flatnonzero(held).tolist()
        tj = int(t[j])
        s = tj >= 0 and tj < b - a and bool(held[tj])
        rest = [v for v in present if v != tj]
        cols.append(str(features[j]))
        E.append(counts[:, a + tj] if s else np.zeros(len(counts), np.int64))
        M.append(counts[:, b])
        delta.append(len(present))
        seen.append(s)
        value.append(as_json(categories[j][tj]) if s else None)
        other.append(as_json(categories[j][rest[0]]) if rest else None)
    return Point(
        labels=tuple(str(x) for x in labels),
        N=tuple(int(x) for x in counts[:, offsets[0] : offsets[1]].sum(axis=1)),
        columns=tuple(cols),
        E=tuple(tuple(int(e[l]) for e in E) for l in range(len(counts))),
        M=tuple(tuple(int(mm[l]) for mm in M) for l in range(len(counts))),
        delta=tuple(delta),
        seen=tuple(seen),
        value=tuple(value),
        other=tuple(other),
        alpha=Fraction(alpha),
    )


# ---------------------------------------------------------------------------------------
# exact comparisons


def _greater(a: tuple, b: tuple) -> bool:
    return a[0] * b[1] > b[0] * a[1]


def _equal(a: tuple, b: tuple) -> bool:
    return a[0] * b[1] == b[0] * a[1]


def top(P: Point, counts: list) -> list:
    """The labels whose support is largest at the given counts (per label)."""
    s = P.supports(counts)
    best = max(range(P.m), key=lambda l: Fraction(*s[l]))
    return [l for l in range(P.m) if _equal(s[l], s[best])]


# ---------------------------------------------------------------------------------------
# worlds


def fill(P: Point, l: int, c) -> dict:
    """Label l's missing cells filled so that its counts are ``c``: per column, one value or
    ``[[t_j, x], [other, M - x]]`` (the first x cells in data-row order hold t_j)."""
    out = {}
    for j, col in enumerate(P.columns):
        M = P.M[l][j]
        if not M:
            continue
        x = c[j] - P.E[l][j] if P.seen[j] else 0
        if x == M:
            out[col] = P.value[j]
        elif x == 0:
            out[col] = P.other[j]
        else:
            out[col] = [[P.value[j], x], [P.other[j], M - x]]
    return out


def world(P: Point, counts: list, **claim) -> dict:
    """A world as a certificate writes it: what it claims (``wins`` or ``tie``) and the
    fillings of the labels that have missing cells in the used columns."""
    filled = {P.labels[l]: fill(P, l, c) for l, c in enumerate(counts)}
    return {**claim, "fill": {k: v for k, v in filled.items() if v}}


def extremes(P: Point) -> tuple:
    """(lo, hi): every label's smallest and largest counts."""
    return [P.lo(l) for l in range(P.m)], [P.hi(l) for l in range(P.m)]


def winner(P: Point, l: int) -> dict | None:
    """The world where l is at its largest and every other label at its smallest, if l
    wins it (then l wins some world; otherwise none)."""
    lo, hi = extremes(P)
    counts = [hi[x] if x == l else lo[x] for x in range(P.m)]
    return world(P, counts, wins=P.labels[l]) if top(P, counts) == [l] else None


def possible(P: Point) -> list:
    """The labels some world predicts (uniquely), by ``winner``."""
    return [l for l in range(P.m) if winner(P, l) is not None]


def bound(P: Point, l: int, k: int, strict: bool) -> dict:
    """Evidence that l never beats (``strict``: never reaches) k: the counts of l's largest
    support and of k's smallest (the checker computes both supports exactly).
    AssertionError if it fails."""
    c_l, c_k = P.hi(l), P.lo(k)
    s_l, s_k = P.support(l, c_l), P.support(k, c_k)
    holds = _greater(s_k, s_l) or (not strict and _equal(s_k, s_l))
    if not holds:
        raise AssertionError(f"certificate: {P.labels[l]} can beat {P.labels[k]}")
    return {
        "label": P.labels[l],
        "by": P.labels[k],
        "strict": strict,
        "largest": {"counts": dict(zip(P.columns, c_l))},
        "smallest": {"counts": dict(zip(P.columns, c_k))},
    }


def blocker(P: Point, l: int) -> int:
    """The label other than l with the largest smallest support."""
    lo = [P.support(x, P.lo(x)) for x in range(P.m)]
    return max((x for x in range(P.m) if x != l), key=lambda x: Fraction(*lo[x]))


# ---------------------------------------------------------------------------------------
# ties


def tie_world(P: Point) -> dict | None:
    """A world whose largest support is shared by two labels or more, or None when there is
    none (or listing it would take more than TIE_VECTORS count vectors per label)."""
    lo, hi = extremes(P)
    smin = [P.support(l, lo[l]) for l in range(P.m)]
    smax = [P.support(l, hi[l]) for l in range(P.m)]
    wins = [l for l in range(P.m) if all(_greater(smax[l], smin[x]) for x in range(P.m) if x != l)]
    reach = [l for l in range(P.m) if not any(_greater(smin[x], smax[l]) for x in range(P.m))]
    for l in reach:
        if l not in wins:  # l at its top, the others at their bottom: l ties the largest
            return _tie(P, [hi[x] if x == l else lo[x] for x in range(P.m)])
    if len(wins) <= 1:
        return _walked(P, wins, lo, hi, smin, smax)
    return _listed(P, reach, lo, hi, smin)


def _tie(P: Point, counts: list) -> dict | None:
    labels = top(P, counts)
    return world(P, counts, tie=[P.labels[l] for l in labels]) if len(labels) > 1 else None


def _walked(P, wins, lo, hi, smin, smax) -> dict | None:
    """With at most one label able to win: every world ties when none can; otherwise the
    first world on a path, one count at a time, from where l wins (l at hi, the rest at
    lo) to where a rival l2 reaches it (l at lo, l2 at hi), at which l stops winning: the
    top ties there, as no other label wins any world."""
    if not wins:
        return _tie(P, lo)
    l = wins[0]
    rivals = [x for x in range(P.m) if x != l and not _greater(smin[l], smax[x])]
    if not rivals:
        return None  # l wins every world: robust, no tie
    l2 = rivals[0]
    steps = [(l, j, -1) for j in range(len(P.columns)) for _ in range(hi[l][j] - lo[l][j])]
    steps += [(l2, j, +1) for j in range(len(P.columns)) for _ in range(hi[l2][j] - lo[l2][j])]

    def at(i: int) -> list:
        counts = [list(hi[x]) if x == l else list(lo[x]) for x in range(P.m)]
        for x, j, step in steps[:i]:
            counts[x][j] += step
        return counts

    a, b = 0, len(steps)  # l wins at a, not at b
    while b - a > 1:
        mid = (a + b) // 2
        a, b = (mid, b) if top(P, at(mid)) == [l] else (a, mid)
    return _tie(P, at(b))


def _vectors(lo: list, hi: list):
    return itertools.product(*[range(a, b + 1) for a, b in zip(lo, hi)])


def _listed(P, reach, lo, hi, smin) -> dict | None:
    """A tie of two labels at the top, found by listing each top label's supports."""
    if any(math.prod(b - a + 1 for a, b in zip(lo[l], hi[l])) > TIE_VECTORS for l in reach):
        return None
    values = {
        l: {Fraction(*P.support(l, c)): list(c) for c in _vectors(lo[l], hi[l])} for l in reach
    }
    for l, l2 in itertools.combinations(reach, 2):
        rest = max(
            (Fraction(*smin[x]) for x in range(P.m) if x not in (l, l2)), default=Fraction(0)
        )
        shared = [v for v in values[l].keys() & values[l2].keys() if v >= rest]
        if shared:
            v = shared[0]
            counts = [lo[x] for x in range(P.m)]
            counts[l], counts[l2] = values[l][v], values[l2][v]
            return _tie(P, counts)
    return None


def no_tie(P: Point) -> bool:
    """Whether listing the top labels' supports proves that no world ties."""
    lo, hi = extremes(P)
    smin = [P.support(l, lo[l]) for l in range(P.m)]
    smax = [P.support(l, hi[l]) for l in range(P.m)]
    reach = [l for l in range(P.m) if not any(_greater(smin[x], smax[l]) for x in range(P.m))]
    if any(math.prod(b - a + 1 for a, b in zip(lo[l], hi[l])) > TIE_VECTORS for l in reach):
        return False
    return tie_world(P) is None


# ---------------------------------------------------------------------------------------
# the evidence of each kind of claim


def certify_evidence(P: Point, robust: bool, label, labels: list, tie) -> dict:
    """The evidence of certify's answer for one point: ``robust`` with ``label``, the
    possible ``labels`` (names) and ``tie`` (True, False or None: not claimed).
    AssertionError when the answer and the evidence disagree (a bug)."""
    names = list(P.labels)
    if robust:
        k = names.index(str(label))
        return {"bounds": [bound(P, l, k, True) for l in range(P.m) if l != k]}
    chosen = [names.index(str(x)) for x in labels]
    worlds = [winner(P, l) for l in chosen]
    if any(w is None for w in worlds) or len(possible(P)) != len(chosen):
        raise AssertionError("certificate: the possible labels disagree with the evidence")
    bounds = [bound(P, l, blocker(P, l), False) for l in range(P.m) if l not in chosen]
    out = {"worlds": worlds, "bounds": bounds}
    if tie is True:
        found = tie_world(P)
        if found is None:
            raise AssertionError("certificate: no tied world found")
        out["worlds"].append(found)
    elif tie is False:
        if not no_tie(P):
            raise AssertionError("certificate: a tie the answer rules out")
        out["no_tie"] = "listed"
    return out


def robust_evidence(P: Point) -> tuple:
    """(label every world predicts, the bounds that prove it), or (None, None) when no
    label wins every world."""
    lo = [P.support(l, P.lo(l)) for l in range(P.m)]
    hi = [P.support(l, P.hi(l)) for l in range(P.m)]
    for k in range(P.m):
        if all(_greater(lo[k], hi[l]) for l in range(P.m) if l != k):
            return P.labels[k], [bound(P, l, k, True) for l in range(P.m) if l != k]
    return None, None


def nonrobust_evidence(P: Point) -> list:
    """Worlds that show the point is not robust: two with different winners, or one tie.
    AssertionError when it is robust (a bug)."""
    worlds = [w for w in (winner(P, l) for l in range(P.m)) if w is not None]
    if len(worlds) >= 2:
        return worlds[:2]
    found = tie_world(P)
    if found is None:
        raise AssertionError("certificate: the point is robust")
    return [found]


__all__ = [
    "Point",
    "point",
    "as_json",
    "winner",
    "possible",
    "bound",
    "tie_world",
    "no_tie",
    "certify_evidence",
    "robust_evidence",
    "nonrobust_evidence",
    "TIE_VECTORS",
]
