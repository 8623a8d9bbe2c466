"""Clean over repaired rows with the truth: the fewest rows that certify a test point.

Cleaning a dirty row sets its missing cells to their true values: the row then has one
pick, its true row, which need not be one of its repairs.  Only alpha = 0 is asked (the
candidate model's reason: at alpha > 0 a cleaning that adds a true value or removes a
repair's last value moves |D_j| in every denominator); there each label's support depends
on its own rows only, so for a would-be winner w the question splits by label:

    fewest = min over w, k of  k + sum over l != w of min { k' : G_l(k') < F_w(k) },

F_w(k) the largest smallest-support of w after cleaning at most k of its rows, G_l(k') the
smallest largest-support of rival l after cleaning at most k' of its rows.  Rows of one
label with the same repairs' patterns and the same true pattern are interchangeable
(``Class``); a row whose true pattern lies below (above) all its patterns cannot raise w's
smallest (lower a rival's largest) support, alone or with others, and is left out.

* **Exact** where each label's cleanings number at most ``ENUM_LIMIT`` vectors of class
  counts and every front is complete: F and G by enumeration, the minimum by the split.
* **Proven bound** otherwise: any world W of w's rows stays a world once rows are cleaned
  (the uncleaned keep W's picks), so after cleaning k rows w's smallest support is at most
  that world's value with each count c_j raised by at most min(k, U_j), U_j the rows whose
  truth matches t_j and one of whose repairs does not; a rival's largest support is at
  least its world's with c_j lowered by at most min(k, D_j).  The split over these bounds
  is a lower bound on the fewest rows, and where it finds no split, no cleaning certifies
  the point (proven).  A greedy search (one row at a time, the best margin) gives the
  rows found.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..kernel import factor_numerator
from . import front as fronts
from .certify import Point, Worlds
from .patterns import Group, LabelRows, distinct

ENUM_LIMIT = 4096  # vectors of class counts enumerated per label for the exact minimum


@dataclass(frozen=True)
class Class:
    """Interchangeable dirty rows of one label for a key: ``patterns`` (k, |J|) their
    repairs' distinct patterns and ``weights`` their ways, ``truth`` (|J|,) their true
    rows' pattern, ``rows`` (positions in the table's order)."""

    patterns: np.ndarray
    weights: np.ndarray
    truth: np.ndarray
    rows: np.ndarray

    @property
    def raises(self) -> bool:
        """Cleaning can raise the label's smallest support: the truth is not below every
        pattern."""
        return not (self.truth[None, :] <= self.patterns).all(axis=1).all()

    @property
    def lowers(self) -> bool:
        """Cleaning can lower the label's largest support."""
        return not (self.truth[None, :] >= self.patterns).all(axis=1).all()


def classes(worlds: Worlds, key: tuple) -> tuple:
    """Per label its dirty rows' ``Class``es for the key (the truth's codes needed)."""
    rr = worlds.rr
    J, tJ = np.array(key[0], np.intp), np.array(key[1])
    pat = (rr.fills[:, J] == tJ) & rr.missing[rr.owner][:, J]
    owner, pats, ways = distinct(rr.owner, pat)
    true = ((rr.truth[:, J] == tJ) & rr.missing[:, J]).astype(np.int64)
    found: dict = {}
    starts = np.flatnonzero(np.concatenate(([len(owner) > 0], owner[1:] != owner[:-1])))
    for a, b in zip(starts.tolist(), np.append(starts[1:], len(owner)).tolist()):
        r = int(owner[a])
        sig = (
            int(rr.y[r]),
            tuple(map(tuple, pats[a:b].tolist())),
            tuple(ways[a:b].tolist()),
            tuple(true[r].tolist()),
        )
        found.setdefault(sig, []).append(r)
    out = [[] for _ in range(rr.m)]
    width = len(J)
    for (l, P, w, t), rows in found.items():
        out[l].append(
            Class(
                np.array(P, np.int64).reshape(len(P), width),
                np.array(w, np.int64),
                np.array(t, np.int64),
                np.array(rows, np.intp),
            )
        )
    return tuple(out)


def label_rows(cls: list, taken, width: int) -> LabelRows:
    """A label's ``LabelRows`` (over ``width`` features) once ``taken[c]`` rows of each
    class c are cleaned."""
    fixed = np.zeros(width, np.int64)
    groups = []
    for c, k in zip(cls, taken):
        left = len(c.rows) - k
        fixed += k * c.truth
        if len(c.patterns) == 1:
            fixed += left * c.patterns[0]
        elif left:
            groups.append(Group(c.patterns, c.weights, left))
    return LabelRows(fixed, np.zeros(0, np.int64), tuple(groups))


@dataclass(frozen=True)
class RowCleaning:
    """The fewest rows whose cleaning certifies one test point.

    ``rows``: the rows found (positions in the table's order), empty when the point is
    robust already, None when none was found; ``label``: the label they certify (-1);
    ``lower``: a proven lower bound on the fewest; ``optimal``: ``rows`` proven fewest;
    ``possible``: True (some cleaning certifies it: ``rows``), False (proven none does) or
    None (not known: no rows found, no proof).
    """

    rows: tuple | None
    label: int
    lower: int
    optimal: bool
    possible: bool | None


class PointSearch:
    """One test point's cleaning search (module docstring)."""

    def __init__(self, worlds: Worlds, pt: Point, limit: int = ENUM_LIMIT):
        self.w, self.pt, self.limit = worlds, pt, limit
        self.cls = classes(worlds, pt.key)
        self.m = worlds.rr.m

    def value(self, l: int, sign: int, taken) -> tuple:
        """(value on the common denominator, exact?) of label l's smallest (sign -1) or
        largest (+1) support with ``taken`` rows of each class cleaned."""
        pt, alpha = self.pt, self.w.alpha
        f = fronts.build(label_rows(self.cls[l], taken, len(pt.key[0])), sign, self.w.limit)
        outer, inner, _ = f.extreme(pt.B[l], pt.other[l], alpha)
        return pt.scale[l] * (inner if f.complete else outer), f.complete

    def table(self, l: int, sign: int):
        """{k: (best value, taken)} over cleanings of at most k rows of label l: its
        smallest support made largest (``sign`` -1) or its largest made smallest (+1);
        None past the limit or where a front's search stopped."""
        cls = self.cls[l]
        useful = [i for i, c in enumerate(cls) if (c.raises if sign < 0 else c.lowers)]
        if math.prod(len(cls[i].rows) + 1 for i in useful) > self.limit:
            return None
        best: dict = {}
        for counts in itertools.product(*[range(len(cls[i].rows) + 1) for i in useful]):
            taken = [0] * len(cls)
            for i, k in zip(useful, counts):
                taken[i] = k
            v, exact = self.value(l, sign, taken)
            if not exact:
                return None
            k = sum(counts)
            if k not in best or (v > best[k][0] if sign < 0 else v < best[k][0]):
                best[k] = (v, taken)
        out, run = {}, None
        for k in sorted(best):  # at most k rows: the best so far
            if run is None or (best[k][0] > run[0] if sign < 0 else best[k][0] < run[0]):
                run = best[k]
            out[k] = run
        return out

    def exact(self) -> RowCleaning | None:
        """The exact fewest rows, or None where a label's cleanings are too many."""
        raise_ = [self.table(l, -1) for l in range(self.m)]
        lower = [self.table(l, 1) for l in range(self.m)]
        if any(t is None for t in raise_ + lower):
            return None
        best = None
        for w in range(self.m):
            for k, (lo, taken_w) in raise_[w].items():
                total, plan = k, {w: taken_w}
                for l in range(self.m):
                    if l == w:
                        continue
                    ks = [kk for kk, (hi, _) in lower[l].items() if hi < lo]
                    if not ks:
                        total = None
                        break
                    total += min(ks)
                    plan[l] = lower[l][min(ks)][1]
                if total is not None and (best is None or total < best[0]):
                    best = (total, w, plan)
        if best is None:
            return RowCleaning(None, -1, 0, True, False)
        rows = self.rows_of(best[2])
        return RowCleaning(rows, best[1], best[0], True, True)

    def rows_of(self, plan: dict) -> tuple:
        out = []
        for l, taken in plan.items():
            for c, k in zip(self.cls[l], taken):
                out += c.rows[:k].tolist()
        return tuple(sorted(out))

    def bound(self) -> tuple:
        """(a proven lower bound on the fewest rows, whether some split exists)."""
        pt = self.pt
        F = [self._relaxed(l, pt.worlds_lo[l], -1) for l in range(self.m)]
        G = [self._relaxed(l, pt.worlds_hi[l], 1) for l in range(self.m)]
        best = None
        for w in range(self.m):
            for k, lo in enumerate(F[w]):
                total = k
                for l in range(self.m):
                    if l == w:
                        continue
                    need = next((kk for kk, hi in enumerate(G[l]) if hi < lo), None)
                    if need is None:
                        total = None
                        break
                    total += need
                if total is not None and (best is None or total < best):
                    best = total
        return (0, False) if best is None else (best, True)

    def _relaxed(self, l: int, world: np.ndarray, sign: int) -> list:
        """Label l's bound after cleaning k = 0 .. its rows: the world's counts moved by at
        most min(k, rows that can move each feature), up (sign -1) or down (+1)."""
        pt, alpha = self.pt, self.w.alpha
        cls = self.cls[l]
        width = len(world)
        movable = np.zeros(width, np.int64)
        for c in cls:
            if sign < 0:
                movable += len(c.rows) * ((c.truth == 1) & (c.patterns == 0).any(axis=0))
            else:
                movable += len(c.rows) * ((c.truth == 0) & (c.patterns == 1).any(axis=0))
        out = []
        for k in range(sum(len(c.rows) for c in cls) + 1):
            c = world - sign * np.minimum(k, movable)
            num = math.prod(factor_numerator(x, alpha) for x in c.tolist())
            out.append(pt.scale[l] * pt.other[l] * num)
        return out

    def greedy(self, budget: int = 2000) -> tuple:
        """(rows, label) found one row at a time (the best worst margin), or (None, -1)
        (also past ``budget`` evaluations of a label's extreme)."""
        self.spent, best = 0, None
        for w in range(self.m):
            found = self._greedy_for(w, budget)
            if found is not None and (best is None or len(found) < len(best[0])):
                best = (found, w)
        return best if best is not None else (None, -1)

    def helpful(self) -> tuple:
        """(rows, label): where the true table predicts w alone, every row that can raise
        w's smallest support or lower a rival's largest; else (None, -1)."""
        every = {l: [len(c.rows) for c in self.cls[l]] for l in range(self.m)}
        sup = [self.value(l, 1, every[l])[0] for l in range(self.m)]
        top = max(sup)
        if sup.count(top) > 1:
            return None, -1
        w = sup.index(top)
        plan = {
            l: [len(c.rows) if (c.raises if l == w else c.lowers) else 0 for c in self.cls[l]]
            for l in range(self.m)
        }
        return self.rows_of(plan), w

    def _greedy_for(self, w: int, budget: int):
        taken = {l: [0] * len(self.cls[l]) for l in range(self.m)}

        def worst(t):
            self.spent += self.m
            if self.spent > budget:
                raise _Spent
            lo = self.value(w, -1, t[w])[0]
            his = [self.value(l, 1, t[l])[0] for l in range(self.m) if l != w]
            return lo, max(his, default=-1)

        try:
            return self._climb(w, taken, worst)
        except _Spent:
            return None

    def _climb(self, w: int, taken: dict, worst):
        lo, hi = worst(taken)
        while not lo > hi:
            options = []
            for l in range(self.m):
                for i, c in enumerate(self.cls[l]):
                    if taken[l][i] < len(c.rows) and (c.raises if l == w else c.lowers):
                        t = {k: list(v) for k, v in taken.items()}
                        t[l][i] += 1
                        a, b = worst(t)
                        options.append((_margin(a, b), t, a, b))
            if not options:
                return None
            margin, t, a, b = max(options, key=lambda o: o[0])
            if margin <= _margin(lo, hi):
                return None
            taken, lo, hi = t, a, b
        return self.rows_of(taken)


class _Spent(Exception):
    """The greedy search's budget is spent."""


def _margin(lo: int, hi: int) -> float:
    """log(lo / hi) in floats (a heuristic's choice, never a decision)."""
    if lo <= 0:
        return -math.inf
    if hi <= 0:
        return math.inf
    return math.log(lo) - math.log(hi)


def point_cleaning(worlds: Worlds, pt: Point, limit: int = ENUM_LIMIT, budget: int = 2000):
    """The fewest rows that certify the point (``RowCleaning``): exact where small; else
    the proven bound and the rows found greedily (within ``budget`` evaluations of a
    label's extreme; not tried where the bound's rows times the classes pass it), or
    failing that, where the true table predicts one label uniquely,
    every row whose cleaning can help that label (which certifies it: each left out
    would, cleaned, lower its smallest support or raise a rival's largest)."""
    search = PointSearch(worlds, pt, limit)
    got = search.exact()
    if got is not None:
        return got
    lower, feasible = search.bound()
    if not feasible:
        return RowCleaning(None, -1, 0, True, False)
    steps = lower * sum(len(c) for c in search.cls) * search.m  # evaluations at least
    rows, label = search.greedy(budget) if steps <= budget else (None, -1)
    if rows is None:
        rows, label = search.helpful()
    if rows is None:
        return RowCleaning(None, -1, lower, False, None)
    return RowCleaning(rows, label, lower, len(rows) == lower, True)


__all__ = ["Class", "classes", "RowCleaning", "PointSearch", "point_cleaning", "ENUM_LIMIT"]
