"""One rival's side of the fixed-domain problem: lower its product with the fewest cells.

A rival l's largest support has factors q (h_j - b_j) + p (alpha = p/q cleared), where b_j
of its cells in column j whose truth is not t_j are cleaned (0 <= b_j <= cap_j).  Lowering
the product is *not* greedy: it minimises a sum of concave functions, so for the optimal
budget some optimum lies at a vertex of the box -- every b_j at 0 or at its cap except one
"partial" column.  ``Rival`` therefore enumerates the Pareto set (cost, log product) of
full-column subsets without column p (pruned exactly up to floating-point near-ties, which
are kept) and combines it with a partial column p, whose amount has a closed form; its
answers are confirmed in exact integer arithmetic.

Two shortcuts bound a rival without that search.  A column's drop log(q h + p) - log(q (h
- b) + p) is convex in b, so it lies under its chord, and the fractional knapsack of the
chords bounds what c cells can lower the product (``rival_floor``: the fewest cells it
needs, from below).  Whole columns in order of their drop per cell give a plan found
without search (``rival_greedy``: a bound from above).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..kernel import count_of_numerator, factor_numerator, log_numerator


class RivalPlan(NamedTuple):
    """A rival's cleanings: ``cost`` cells, the full columns ``member`` (bool per column)
    and ``b`` cells of the partial column ``part`` (-1: none)."""

    cost: int
    member: np.ndarray
    part: int
    b: int


def _before_min(row: np.ndarray, v: np.ndarray, R: int) -> np.ndarray:
    """Per entry, the smallest v among the earlier entries of its row (rows contiguous and
    ascending): +inf for a row's first entry, and -inf (not a number) once a -inf was seen,
    so that ``v <= result + tol`` fails after it."""
    first = np.searchsorted(row, np.arange(R))
    pos = np.arange(len(row)) - first[row]
    grid = np.full((R, int(pos.max()) + 2), np.inf)
    grid[row, pos + 1] = v
    before = np.minimum.accumulate(grid, axis=1)[row, pos]
    return np.where(np.isneginf(before), np.nan, before)


class Rival:
    """One rival's side: lower prod_j (q (h_j - b_j) + p) with b_j in [0, cap_j].

    Candidates are the vertices that can be optimal: a set of full columns (from the Pareto
    set of subsets without column ``part``) plus a partial amount in column ``part`` (-1:
    none).  ``curve[c]`` is the smallest log product reachable with at most c cleanings.
    Candidates costing ``limit`` or more are left out: no plan cheaper than ``limit`` uses
    them, and ``curve`` below ``limit`` is the same without them.
    """

    def __init__(self, h, cap, alpha: Fraction, tol: float, limit=math.inf):
        self.h, self.cap = np.asarray(h, np.int64), np.asarray(cap, np.int64)
        self.alpha, self.tol = alpha, tol
        self.logv0 = log_numerator(self.h, alpha)
        self.logfull = log_numerator(self.h - self.cap, alpha)
        parts = np.array([-1] + np.flatnonzero(self.cap).tolist())
        row, self.cost, self.logq, self.member = self._pareto(parts, limit)
        self.part = parts[row]
        self.curve = self._curve()

    def value(self, j: int, b) -> int:
        """Column j's exact factor with b of its cells cleaned."""
        return factor_numerator(int(self.h[j]) - int(b), self.alpha)

    def _pareto(self, skips: np.ndarray, limit):
        """For every column ``skips[r]`` (-1: none), the full-column subsets without it:
        (row r, cost, log product, membership), row after row, each row sorted by cost and
        its dominated subsets removed (near-ties within the tolerance kept).

        Row 0 takes the columns one by one: the new subsets follow the old ones, a stable
        sort by (cost, log product) orders them, and a subset is dropped where an earlier
        one has a log product below its own by more than the tolerance (or of -inf).  Row r
        is row 0 until column skips[r], which it skips: it starts as a copy of row 0 there,
        and from then on all rows take the same steps at once."""
        J, W = len(self.h), len(self.h) // 63 + 1
        row, cost, logq, bits = (
            np.zeros(1, np.int64),
            np.zeros(1, np.int64),
            np.array([self.logv0.sum()]),
            np.zeros((1, W), np.int64),
        )
        span = int(self.cap.sum()) + 1
        for r in range(1, len(skips)):
            j = int(skips[r])
            fork = np.flatnonzero(row == 0)
            row = np.concatenate([row, np.full(len(fork), r)])
            cost, logq, bits = (
                np.concatenate([cost, cost[fork]]),
                np.concatenate([logq, logq[fork]]),
                np.concatenate([bits, bits[fork]]),
            )
            grow = (row != r) & (cost + self.cap[j] < limit)
            add = bits[grow]
            add[:, j // 63] |= 1 << (j % 63)
            row = np.concatenate([row, row[grow]])
            cost = np.concatenate([cost, cost[grow] + self.cap[j]])
            logq = np.concatenate([logq, logq[grow] - self.logv0[j] + self.logfull[j]])
            bits = np.concatenate([bits, add])
            order = np.lexsort((logq, row * span + cost))
            row, cost, logq, bits = row[order], cost[order], logq[order], bits[order]
            keep = (logq <= _before_min(row, logq, r + 1) + self.tol) | (row == r)
            row, cost, logq, bits = row[keep], cost[keep], logq[keep], bits[keep]
        member = (bits[:, np.arange(J) // 63] >> (np.arange(J) % 63)) & 1 == 1
        return row, cost, logq, member

    def _curve(self) -> np.ndarray:
        L = np.full(int(self.cap.sum()) + 1, np.inf)
        L[0] = self.logq[0]
        for part in np.flatnonzero(self.cap):
            with np.errstate(divide="ignore"):
                tail = (
                    log_numerator(self.h[part] - np.arange(self.cap[part] + 1), self.alpha)
                    - self.logv0[part]
                )
            pick = self.part == part
            V = self.logq[pick][:, None] + tail  # (candidates, cells of the partial column)
            if len(tail) <= 128:  # short segments: one scatter (min is exact in any order)
                np.minimum.at(
                    L, (self.cost[pick][:, None] + np.arange(len(tail))).ravel(), V.ravel()
                )
                continue
            for cs, v in zip(self.cost[pick].tolist(), V):
                seg = L[cs : cs + len(tail)]
                np.minimum(seg, v, out=seg)
        return np.minimum.accumulate(L)

    def product(self, member: np.ndarray, part: int = -1, b: int = 0) -> int:
        """The exact product with the columns ``member`` cleaned in full and b cells of ``part``."""
        out = 1
        for j in range(len(self.h)):
            out *= self.value(j, self.cap[j] if member[j] else (b if j == part else 0))
        return out

    def _optimistic(self, need: float) -> np.ndarray:
        """Per candidate, a lower bound on its cost for the log bound ``need`` (floats)."""
        part = self.part  # -1 (no partial column) picks the appended zeros
        logv0, h, cap = np.append(self.logv0, 0.0), np.append(self.h, 0), np.append(self.cap, 0)
        with np.errstate(invalid="ignore", over="ignore"):
            z = need + self.tol - (self.logq - logv0[part])
            b = np.floor(h[part] - count_of_numerator(np.exp(z), self.alpha)) + 1
        b = np.where(np.isnan(b), 0, np.maximum(b, 0))
        cost = np.where(
            part >= 0, self.cost + b, np.where(self.logq < need + self.tol, self.cost, np.inf)
        )
        return np.where((part >= 0) & (b > cap[part]), np.inf, cost)

    def cheapest(self, ceiling: int, weight: int, need: float, limit) -> RivalPlan | None:
        """Exact fewest cleanings with weight * product < ceiling, among plans cheaper than
        ``limit``; None if there is none.  ``need`` is log(ceiling / weight) in floating
        point: candidates are tried in the order of their lower bounds for it, and exactly."""
        if ceiling <= 0:
            return None
        if weight == 0:
            return RivalPlan(0, self.member[0], -1, 0) if limit > 0 else None
        bound = self._optimistic(need)
        best = None
        for i in np.argsort(bound, kind="stable"):
            if not bound[i] < min(limit, best.cost if best else math.inf):
                break
            part, mem = int(self.part[i]), self.member[i]
            if part < 0:
                if weight * self.product(mem) < ceiling:
                    best = RivalPlan(int(self.cost[i]), mem, -1, 0)
                continue
            b = self._partial(ceiling, weight, mem, part)
            if b is None:
                continue
            total = int(self.cost[i]) + b
            if total < min(limit, best.cost if best else math.inf):
                best = RivalPlan(total, mem, part, b)
        return best

    def _partial(self, ceiling: int, weight: int, mem: np.ndarray, part: int) -> int | None:
        """The fewest cells of column ``part`` that bring weight * product under ceiling
        with the full columns ``mem`` cleaned, None if even all of them do not."""
        rest = weight * (self.product(mem, part, 0) // self.value(part, 0))
        if rest == 0:
            return 0
        vmax = (ceiling - 1) // rest  # need q (h - b) + p <= vmax
        if vmax < self.value(part, self.cap[part]):
            return None
        return max(0, int(self.h[part]) - count_of_numerator(vmax, self.alpha))

    def amounts(self, plan: RivalPlan) -> np.ndarray:
        """Cells cleaned per column under ``plan``."""
        out = np.where(plan.member, self.cap, 0)
        if plan.part >= 0:
            out[plan.part] = plan.b
        return out


def rival_floor(h, cap, alpha: Fraction, need: np.ndarray, tol: float) -> np.ndarray:
    """Per entry of ``need``, a lower bound on the cleanings that bring a rival's log product
    sum_j log(q (h_j - b_j) + p) under need + tol (inf: none do).

    A column's drop log(q h + p) - log(q (h - b) + p) is convex in b, so it lies under its
    chord, and the fractional knapsack of the chords (best ratio first) bounds the drop of
    every allocation of c cells.  A column that full cleaning takes to 0 (p = 0, h = cap)
    drops by at most log(q h) - log q before its last cell: its chord spans cap - 1 cells,
    and from c = cap on nothing is bounded.  The floats get a margin (1e-5) far above rounding."""
    h, cap = np.asarray(h, np.int64), np.asarray(cap, np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        v0, full = log_numerator(h, alpha), log_numerator(h - cap, alpha)
        kill = (cap > 0) & np.isneginf(full)
        size = np.where(kill, cap - 1, cap)
        gain = np.where(size > 0, np.where(kill, v0 - log_numerator(1, alpha), v0 - full), 0.0)
        order = np.argsort(-np.where(size > 0, gain / np.maximum(size, 1), -1.0), kind="stable")
    # cells and drop of the first k items taken whole, from k = 0 (a rival with no column: none)
    S, Gs = np.r_[0, np.cumsum(size[order])], np.r_[0.0, np.cumsum(gain[order])]
    c = np.arange(int(cap.sum()) + 1)
    k = np.searchsorted(S[1:], c, side="right")  # items taken whole
    whole, rest = Gs[k], c - S[k]
    ratio = np.append(gain[order] / np.maximum(size[order], 1), 0.0)[k]
    R = v0.sum() - (whole + rest * ratio)
    if kill.any():
        R[int(cap[kill].min()) :] = -np.inf
    with np.errstate(invalid="ignore"):
        idx = np.searchsorted(-R, -(need + tol + 1e-5), side="right")
    return np.where(np.isneginf(need) | (idx >= len(R)), np.inf, idx)


def rival_greedy(h, cap, alpha: Fraction):
    """A rival's plans found without search: whole columns in order of their drop per cell,
    then part of the next one; or a column that full cleaning takes to 0 (p = 0, h = cap),
    the cheapest such.  Returns (log product per count c, amounts(c) -> b per column)."""
    h, cap = np.asarray(h, np.int64), np.asarray(cap, np.int64)
    kill = (cap > 0) & (h == cap) & (alpha == 0)
    items = np.flatnonzero((cap > 0) & ~kill)
    with np.errstate(divide="ignore"):
        v0 = log_numerator(h, alpha)
        gain = v0[items] - log_numerator(h[items] - cap[items], alpha)
    order = items[np.argsort(-gain / cap[items], kind="stable")]
    S = np.cumsum(cap[order])
    kill_at = int(cap[kill].min()) if kill.any() else None
    c = np.arange(max(int(S[-1]) if len(S) else 0, kill_at or 0) + 1)
    k = np.minimum(np.searchsorted(S, c, side="right"), len(order))  # whole columns taken
    done = np.where(k > 0, np.append(0, S)[k], 0)
    col = order[np.minimum(k, len(order) - 1)] if len(order) else np.zeros(len(c), np.int64)
    b = np.where(k < len(order), np.minimum(c - done, cap[col] if len(order) else 0), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        whole = np.append(0.0, np.cumsum(v0[order] - log_numerator(h[order] - cap[order], alpha)))[
            k
        ]
        part = (
            np.where(b > 0, v0[col] - log_numerator(h[col] - b, alpha), 0.0)
            if len(order)
            else np.zeros(len(c))
        )
        R = v0.sum() - whole - part
    if kill_at is not None:
        R[kill_at:] = -np.inf

    def amounts(n: int) -> np.ndarray:
        out = np.zeros(len(h), np.int64)
        if kill_at is not None and n >= kill_at:
            out[np.flatnonzero(kill & (cap == kill_at))[0]] = kill_at
            return out
        out[order[: k[n]]] = cap[order[: k[n]]]
        if k[n] < len(order):
            out[order[k[n]]] = b[n]
        return out

    return R, amounts
