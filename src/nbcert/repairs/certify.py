"""Certify over repaired rows: robust, possible labels and ties, exactly or named undecided.

Every row has one label, so the labels' supports vary independently: a world is one pick
per label, and

* the point is robust with label w iff min S_w > max S_l for every other label l;
* label l is possible iff max S_l > min S_k for every other label k (l at its largest,
  the others at their smallest);
* a tie is possible iff two labels a, b reach one value s with s >= min S_k for every
  other label k.

The extremes come from ``nbcert.repairs.front``.  Where a front's search stopped, a label's
extreme is only known to lie between a world's value (inner) and a proven bound (outer):
each decision is then taken only if both ends agree, otherwise the point is undecided and
``RowCertification.undecided`` names the bounds that stopped it.  Ties list every count
vector the two labels reach (``nbcert.repairs.reach``) where their supports can meet;
past ``TIE_LIMIT`` cells a tie is left undecided (TIE_UNKNOWN), as for the per-cell model.

Supports are compared on a common denominator, exactly: label l's support times
n * prod over labels k and kept features j of (q N_k + p D_j) is the integer
N_l * prod_j (q c_lj + p) * prod_{k != l} prod_j (q N_k + p D_j).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..certification import TIE_NO, TIE_UNKNOWN, TIE_YES
from ..kernel import factor_denominator, factor_numerator
from ..stats.domains import BLANK
from . import front as fronts
from .patterns import Patterns
from .reach import reach
from .table import RowRepairs

TIE_LIMIT = 1 << 14  # grid cells listed per label to decide a tie


@dataclass(frozen=True)
class Point:
    """One test point's extremes: per label ``lo`` = (outer, inner) and ``hi`` = (inner,
    outer) of its smallest and largest support as integers on the common denominator
    ``common`` (equal pairs where exact); ``worlds_lo``/``worlds_hi`` the counts c_J of a
    world at each (inner) extreme; ``key`` its (J, t_J); ``B`` (m, |J|) its base on J,
    ``other`` (m,) the exact product of each label's factors off J, ``scale`` (m,) each
    label's multiplier onto the common denominator."""

    key: tuple
    lo: list
    hi: list
    worlds_lo: list
    worlds_hi: list
    B: np.ndarray
    other: list
    scale: list
    common: int
    exact: list  # per label: both extremes exact

    def support(self, v: int) -> float:
        return float(Fraction(v, self.common))


@dataclass
class Worlds:
    """The worlds of a ``RowRepairs`` at one alpha: fronts and reachable sets built once
    per (key, label), every point's extremes (``point``).  ``patterns``: the table's
    ``Patterns`` where the caller has them (``Patterns.cleaned``)."""

    rr: RowRepairs
    alpha: Fraction
    limit: int = fronts.LIMIT
    memo: dict = field(default_factory=dict, repr=False)  # ``fronts.build``'s, shareable
    patterns: Patterns | None = None
    _fronts: dict = field(default_factory=dict, repr=False)
    _reach: dict = field(default_factory=dict, repr=False)
    _common: dict = field(default_factory=dict, repr=False)
    _extremes: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.alpha = Fraction(self.alpha)
        self.patterns = Patterns(self.rr) if self.patterns is None else self.patterns

    def fronts(self, key: tuple, l: int) -> tuple:
        """(largest, smallest) ``Front`` of label l for the key."""
        if (key, l) not in self._fronts:
            rows = self.patterns.rows(key)[l]
            self._fronts[key, l] = (
                fronts.build(rows, 1, self.limit, self.memo),
                fronts.build(rows, -1, self.limit, self.memo),
            )
        return self._fronts[key, l]

    def reachable(self, key: tuple, l: int):
        """Label l's ``Reach`` for the key (no ways), None past TIE_LIMIT cells."""
        if (key, l) not in self._reach:
            self._reach[key, l] = reach(self.patterns.rows(key)[l], TIE_LIMIT, False)
        return self._reach[key, l]

    def _scales(self, kept: np.ndarray) -> tuple:
        """(the common denominator, each label's multiplier onto it) of the points whose
        kept (not blank) features are ``kept`` (a mask; cached)."""
        if kept.tobytes() not in self._common:
            N, delta, alpha = self.rr.label_sizes, self.rr.delta, self.alpha
            features = np.flatnonzero(kept).tolist()
            dens = [
                math.prod(factor_denominator(N[k], delta[j], alpha) for j in features)
                for k in range(self.rr.m)
            ]
            scales = [int(N[l]) * math.prod(dens[:l] + dens[l + 1 :]) for l in range(self.rr.m)]
            self._common[kept.tobytes()] = (self.rr.n * math.prod(dens), scales)
        return self._common[kept.tobytes()]

    def extremes(self, key: tuple, l: int, B: np.ndarray) -> tuple:
        """``Front.extreme`` of label l's largest and smallest for the key at base counts B
        (|J|,), with ``other`` 1 (cached): a point's other features multiply the values, the
        worlds are the same (B is the same for every point of a key: its values on J)."""
        at = (key, l, B.tobytes())
        if at not in self._extremes:
            found = tuple(f.extreme(B, 1, self.alpha) for f in self.fronts(key, l))
            for *_, world in found:
                world.setflags(write=False)  # shared by the key's points
            self._extremes[at] = found
        return self._extremes[at]

    def point(self, t: np.ndarray, base: np.ndarray) -> Point:
        """The extremes of the point with local codes ``t`` and base counts ``base`` (m, d)."""
        rr, alpha = self.rr, self.alpha
        key = self.patterns.key(t)
        J = np.array(key[0], np.intp)
        off = t != BLANK
        common, scales = self._scales(off)
        off[J] = False
        off = np.flatnonzero(off)
        lo, hi, wlo, whi, other, scale, exact = [], [], [], [], [], [], []
        for l in range(rr.m):
            s = scales[l]
            o = math.prod(factor_numerator(c, alpha) for c in base[l, off].tolist())
            top, bottom = self.fronts(key, l)
            (hi_out, hi_in, w_hi), (lo_out, lo_in, w_lo) = self.extremes(key, l, base[l, J])
            lo.append((s * o * lo_out, s * o * lo_in))
            hi.append((s * o * hi_in, s * o * hi_out))
            wlo.append(w_lo)
            whi.append(w_hi)
            other.append(o)
            scale.append(s)
            exact.append(top.complete and bottom.complete)
        return Point(key, lo, hi, wlo, whi, base[:, J], other, scale, common, exact)


@dataclass(frozen=True)
class RowCertification:
    """Per test point: ``robust`` (k,) int8 (1 robust, 0 not, -1 undecided), ``label``
    (k,) the label every world predicts (-1 unless robust), ``possible`` (k, m) int8 (1
    some world predicts the label, 0 none, -1 undecided), ``tie`` (k,) TIE_YES, TIE_NO or
    TIE_UNKNOWN, ``undecided`` per point None or the bounds that stopped a decision."""

    robust: np.ndarray
    label: np.ndarray
    possible: np.ndarray
    tie: np.ndarray
    undecided: list


def decide(pt: Point, labels=None) -> tuple:
    """(robust, label, possible (m,), undecided text or None) of one point's extremes
    (``labels``: the labels' names in the text)."""
    m = len(pt.lo)
    robust, label = 0, -1
    for w in range(m):
        if all(pt.lo[w][0] > pt.hi[l][1] for l in range(m) if l != w):
            robust, label = 1, w
    if not robust and not all(
        any(pt.lo[w][1] <= pt.hi[l][0] for l in range(m) if l != w) for w in range(m)
    ):
        robust = -1
    possible = np.zeros(m, np.int8)
    for l in range(m):
        others = [k for k in range(m) if k != l]
        if all(pt.hi[l][0] > pt.lo[k][1] for k in others):
            possible[l] = 1
        elif not any(pt.hi[l][1] <= pt.lo[k][0] for k in others):
            possible[l] = -1
    why = None if robust >= 0 and (possible >= 0).all() else stopped(pt, labels)
    return robust, label, possible, why


def stopped(pt: Point, labels=None) -> str:
    """The bounds of the labels whose search stopped (what left a point undecided)."""
    labels = labels or list(range(len(pt.lo)))
    parts = []
    for l, ok in enumerate(pt.exact):
        if not ok:
            (lo_out, lo_in), (hi_in, hi_out) = pt.lo[l], pt.hi[l]
            parts.append(
                f"label {labels[l]!r}: smallest support in [{pt.support(lo_out):.6g}, "
                f"{pt.support(lo_in):.6g}], largest in [{pt.support(hi_in):.6g}, "
                f"{pt.support(hi_out):.6g}]"
            )
    return "; ".join(parts) + " (the search of its rows' repairs stopped at its size limit)"


def tie(worlds: Worlds, pt: Point) -> int:
    """TIE_YES, TIE_NO or TIE_UNKNOWN for one point (module docstring)."""
    m, out = len(pt.lo), TIE_NO
    for a in range(m):
        for b in range(a + 1, m):
            rest = [k for k in range(m) if k not in (a, b)]
            floor = max([pt.lo[k][0] for k in rest], default=0)
            if min(pt.hi[a][1], pt.hi[b][1]) < max(pt.lo[a][0], pt.lo[b][0], floor):
                continue
            if not all(pt.exact[k] for k in (a, b, *rest)):
                out = TIE_UNKNOWN
                continue
            found = _meet(worlds, pt, a, b, floor)
            if found == TIE_YES:
                return TIE_YES
            if found == TIE_UNKNOWN:
                out = TIE_UNKNOWN
    return out


def _meet(worlds: Worlds, pt: Point, a: int, b: int, floor: int) -> int:
    """Whether labels a and b reach a common support of at least ``floor`` (exact)."""
    if pt.hi[a][0] == pt.hi[b][0] >= floor or pt.lo[a][0] == pt.lo[b][0] >= floor:
        return TIE_YES
    values = []
    for l in (a, b):
        got = worlds.reachable(pt.key, l)
        if got is None:
            return TIE_UNKNOWN
        alpha, B = worlds.alpha, pt.B[l]
        mine = set()
        for c in (got.counts + B).tolist():
            v = pt.scale[l] * pt.other[l] * math.prod(factor_numerator(x, alpha) for x in c)
            if v >= floor:
                mine.add(v)
        values.append(mine)
    return TIE_YES if values[0] & values[1] else TIE_NO


def certify_rows(
    rr: RowRepairs, T: np.ndarray, alpha=0, worlds: Worlds | None = None, with_ties: bool = True
):
    """Certify every test point over the repaired rows' worlds.

    Parameters
    ----------
    rr : RowRepairs
        The training table and its repairs.
    T : ndarray (k, d)
        The test points' local codes (-1 unseen, -2 blank: left out).
    alpha : Fraction
        The smoothing.
    worlds : Worlds, optional
        Fronts already built for ``rr`` and ``alpha`` (reused).
    with_ties : bool, default True
        Decide whether a tie is possible; False leaves every ``tie`` TIE_UNKNOWN (for
        callers that read robustness only).

    Returns
    -------
    RowCertification
    """
    worlds = worlds or Worlds(rr, alpha)
    base = worlds.patterns.base(T)
    k, m = len(T), rr.m
    robust, label = np.zeros(k, np.int8), np.full(k, -1, np.intp)
    possible, ties, why = np.zeros((k, m), np.int8), np.zeros(k, np.int8), []
    asked: dict = {}  # a repeated point's answer, decided once
    for i in range(k):
        if T[i].tobytes() not in asked:
            pt = worlds.point(T[i], base[i])
            asked[T[i].tobytes()] = (
                *decide(pt, rr.enc.labels),
                tie(worlds, pt) if with_ties else TIE_UNKNOWN,
            )
        robust[i], label[i], possible[i], said, ties[i] = asked[T[i].tobytes()]
        why.append(said)
    return RowCertification(robust, label, possible, ties, why)


__all__ = ["Worlds", "Point", "RowCertification", "certify_rows", "decide", "tie", "TIE_LIMIT"]
