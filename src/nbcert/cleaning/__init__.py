"""Which missing cells to clean (beyond the paper): the fewest cleanings that certify.

Cleaning a missing cell replaces it by its true value; domains are recomputed from the
cleaned table (closed world), so a cleaning can add a value to its column's domain.

Cells of one (label, column, true value) are interchangeable for every test point, so a
set of cleanings is a count ``x[l, j, v]`` per *group*; this module works on those counts
and turns them into cells (first rows first) only at the end.

**Offline minimum, one point (exact).**  With the truth known, the fewest cells whose
cleaning makes the point certifiably robust.  Fix a would-be winner w and the domain each
column ends with.  Then only two kinds of cleaning matter: a cell of w in column j whose
truth is t_j raises w's smallest count lo_wj by one, and a cell of a rival l whose truth
is not t_j lowers l's largest count hi_lj by one; every other cleaning leaves the bounds
alone.  The point is robust with winner w iff, for every rival l,

    left_l * prod_j (lo_wj + alpha)  >  right_l * prod_j (hi_lj - b_lj + alpha)

(integers once alpha = p/q is cleared; left/right hold the label sizes, the columns whose
factor is fixed and the denominators).  Raising prod_j (lo_wj + a_j) with A cleanings is a
separable concave maximisation: *water-filling* (always raise the smallest count) is
optimal for every A, and a larger product helps every rival at once.  Lowering a rival's
product is *not* greedy: it minimises a sum of concave functions, so for the optimal
budget some optimum lies at a vertex of the box -- every b_lj at 0 or at its cap except
one "partial" column.  Per rival we therefore enumerate the Pareto set (cost, product) of
full-column subsets without column p (pruned exactly up to floating-point near-ties, which
are kept) and combine it with a partial column p, whose amount has a closed form.  The
rivals share the a's, so the optimum is min over A of A + sum_l cost_l(A): computed for all
A in floating point with a rounding bound, then confirmed by exact integer arithmetic in
best-first order (an A is evaluated exactly unless its floating-point lower bound already
exceeds the best exact total), so the result is exact.

Domains: a cleaning can add a value to a column.  That matters only through whether t_j
is in the domain, whether the domain has one value (which forces every missing cell to
it) and, with alpha > 0, its size (every label's denominator).  We branch over the
reachable final domains of each column: which new values are introduced and which
cleaned cell introduces each (a rival's cell whose lowering helps, w's t_j cell, or a
cell that helps nothing -- the latter only when no helpful one exists, which is never
worse).  With alpha = 0 only two cases branch: a column whose observed values are all t_j
(stay forced, or unforce it with one cleaning) and a test value seen only among missing
cells (w must clean one of its own t_j cells).  Every plan is checked exactly on the
cleaned counts before it is returned.  "No cleaning makes it robust" is proven: every
(winner, branch) is infeasible even with all its helpful cells cleaned.  Note that the
fully cleaned table may tie while a partial cleaning certifies the point (a column left
with t_j alone neutralises a feature), so the full table alone proves nothing.
Cost per point: sum over winners and branches of O(d P + A d) floating-point work (P the
Pareto sets' sizes, A the winner's cleanable cells) plus a few exact products.

A search may be asked only for plans cheaper than a limit (the answer, when one exists, is
the plan the unlimited search returns).  Then a branch is first bounded from below: a
rival's drop log(q h + p) - log(q (h - b) + p) is convex in b, so the fractional knapsack
of the columns' chords bounds what c cleanings can lower its product, which gives per A
the fewest cells each rival needs; if min over A of A plus those exceeds the limit, the
branch is skipped, and otherwise each rival's Pareto sets stop at the budget the limit
leaves it.  A point's minimum is at most a floor when a plan found without search (whole
rival columns by drop per cell) is within it and certifies the point on the cleaned table.

**Several points (exact where small, else greedy with a proven bound).**  ``exact``
(alpha = 0) is a mixed-integer program for HiGHS: integer group counts shared by all points,
per point a winner indicator, one-hot tables of every count a winner's or rival's factor
can take, a log inequality per (winner, rival), and a forcing indicator per column whose
observed values are one test value.  It is first solved allowing ties (a relaxation: its
bound is a proven lower bound), with a node limit so that results do not depend on the
machine; its answer is checked exactly.  ``greedy`` repeatedly cleans the cheapest
single-point completion on the table cleaned so far, then prunes each group's count by
binary search.  Cleaning c cells lowers another point's minimum by at most c (the c cells
with its new minimum's cells certify it on the old table), so a lower bound from one round,
less c, holds in the next, and each round searches a point only for a plan that would win.  Its proven lower bound is the larger of the largest single-point minimum
and (alpha = 0) a relaxation solved by HiGHS: tangents bound the winner's log counts from
above, secants the rivals' -log counts (convex in the cells cleaned), so every certifying
cleaning satisfies it.

**Without the truth (a heuristic policy).**  For each non-robust point, the likely winner
is the label the expected table predicts (missing cells counted with the odds that they hold
t_j: the observed frequencies of their label, or uniform over the domain as
the possible worlds weigh them), and each rival's deficit is log Smax - log Smin_w.  A cell
of w in column j may raise lo_wj (concave: scored by one cell); a rival's cells may lower
its hi (convex: scored by the best average over the cells expected to close its deficit,
which is what a one-cell score misses).  Gains are capped by the deficits and summed over
the points; cells of one (label, column) are interchangeable, so groups are scored, in
O(k m^2 d) per decision.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..decide import Decision, decide_counts, extremes
from ..reading.encoding import EncodedTable
from ..stats.support import as_alpha

_EPS = np.finfo(float).eps
_NEVER = np.iinfo(np.int64).max // 8  # an impossible cost; a few of them still sum in int64


# ----------------------------------------------------------------------------- tables

@dataclass(frozen=True)
class CleaningTable:
    """A dirty table whose missing cells' true values are known, in group form.

    ``enc`` encodes the complete (true) table, so its domains hold every value; ``missing``
    (n, d), in ``enc``'s row order, marks the cells missing in the dirty table.  ``obs`` and
    ``hid`` (m, d, K) count observed and missing cells per (label, column, true value).
    """

    enc: EncodedTable
    missing: np.ndarray
    obs: np.ndarray
    hid: np.ndarray

    @classmethod
    def build(cls, enc: EncodedTable, missing: np.ndarray) -> "CleaningTable":
        local = (enc.X.astype(np.int64) - enc.offsets[:-1]).astype(np.int64)
        K = int(enc.delta.max())
        y = np.repeat(np.arange(enc.m), enc.label_sizes)
        key = (y[:, None] * enc.d + np.arange(enc.d)) * K + local  # (n, d) group index
        size = enc.m * enc.d * K
        obs = np.bincount(key[~missing], minlength=size).reshape(enc.m, enc.d, K)
        hid = np.bincount(key[missing], minlength=size).reshape(enc.m, enc.d, K)
        return cls(enc, np.asarray(missing, bool), obs, hid)

    @property
    def N(self) -> np.ndarray:
        """Rows per label (every row has one cell, observed or missing, in column 0)."""
        return (self.obs[:, 0] + self.hid[:, 0]).sum(axis=1)

    def values(self) -> np.ndarray:
        """(n, d) local value codes of the true table, rows in ``enc`` order."""
        return self.enc.X.astype(np.int64) - self.enc.offsets[:-1]

    def cells(self, x: np.ndarray, done: np.ndarray | None = None) -> list:
        """Concrete cells (row in enc, column) for group counts x: first rows first,
        skipping cells already in ``done`` (n, d)."""
        Z = self.values()
        out = []
        for l, j, v in zip(*np.nonzero(x)):
            a, b = self.enc.label_bounds[l], self.enc.label_bounds[l + 1]
            hit = self.missing[a:b, j] & (Z[a:b, j] == v)
            if done is not None:
                hit &= ~done[a:b, j]
            rows = a + np.flatnonzero(hit)[:x[l, j, v]]
            out.extend((int(r), int(j)) for r in rows)
        return out


def state_decision(obs: np.ndarray, M: np.ndarray, N: np.ndarray, T: np.ndarray, alpha) -> Decision:
    """Robustness of test points T (k, d) (local codes, -1 unseen) for observed counts
    obs (m, d, K) and missing counts M (m, d); domains are the observed values."""
    m, d, K = obs.shape
    dom = obs.sum(axis=0) > 0  # (d, K)
    delta = dom.sum(axis=1)
    Tc = np.maximum(T, 0)
    cols = np.arange(d)
    seen = (T >= 0) & dom[cols, Tc]  # (k, d)
    E = np.where(seen[:, None, :], obs[:, cols, Tc].transpose(1, 0, 2), 0)  # (k, m, d)
    lo, hi = extremes(E, M, delta, seen)
    return decide_counts(lo, hi, N, delta, alpha)


# ----------------------------------------------------------------------------- fixed domains

def _tolerance(terms: int, biggest: float) -> float:
    """A generous bound on the rounding error of a sum of ``terms`` logs of size <= biggest."""
    return 64.0 * terms * terms * max(biggest, 1.0) * _EPS


def _waterfill_steps(c0: np.ndarray, cap: np.ndarray):
    """The water-filling steps (always raise the smallest count, lowest column first among
    equals): per step the column raised and its count before."""
    J = len(c0)
    level = np.concatenate([c0[j] + np.arange(cap[j]) for j in range(J)]) if J else np.zeros(0, np.int64)
    col = np.repeat(np.arange(J), cap)
    order = np.lexsort((col, level))
    return col[order], level[order]


def _waterfill(c0: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Counts c(A) (A + 1, J) after A water-filling steps, for A = 0 .. sum(cap)."""
    col, _ = _waterfill_steps(c0, cap)
    steps = np.zeros((len(col) + 1, len(c0)), np.int64)
    steps[np.arange(1, len(col) + 1), col] = 1
    return c0 + np.cumsum(steps, axis=0)


def _waterfill_logs(c0: np.ndarray, cap: np.ndarray, p: int, q: int):
    """sum_j log(q c_j(A) + p) for every A, summed step by step, and the steps' columns.
    The rounding grows with A (at most A ulps of the largest partial sum: below 1e-6 for
    10^7 steps), which the floor's margin covers."""
    col, level = _waterfill_steps(c0, cap)
    with np.errstate(divide="ignore", invalid="ignore"):
        start = np.log(float(q) * np.asarray(c0) + p).sum()
        gain = np.log(float(q) * (level + 1) + p) - np.log(float(q) * level + p)
        gain = np.where(level == 0, np.inf, gain) if p == 0 else gain  # from 0: -inf to finite
        logs = start + np.concatenate([[0.0], np.cumsum(gain)])
    if p == 0 and np.isneginf(start):  # a zero count: the product stays 0 until every one is raised
        zeros = np.flatnonzero(np.asarray(c0) == 0)
        first = np.searchsorted(np.cumsum(np.isin(col, zeros) & (level == 0)), len(zeros)) + 1
        logs = np.full(len(col) + 1, -np.inf)
        if first <= len(col):
            C = np.asarray(c0) + np.bincount(col[:first], minlength=len(c0))
            tail = np.log(float(q) * C + p).sum() + np.concatenate([[0.0], np.cumsum(gain[first:])])
            logs[first:] = tail
    return logs, col


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


class _Rival:
    """One rival's side: lower prod_j (q (h_j - b_j) + p) with b_j in [0, cap_j].

    Candidates are the vertices that can be optimal: a set of full columns (from the Pareto
    set of subsets without column ``part``) plus a partial amount in column ``part`` (-1:
    none).  ``curve[c]`` is the smallest log product reachable with at most c cleanings.
    Candidates costing ``limit`` or more are left out: no plan cheaper than ``limit`` uses
    them, and ``curve`` below ``limit`` is the same without them.
    """

    def __init__(self, h, cap, p: int, q: int, tol: float, limit=math.inf):
        self.h, self.cap, self.p, self.q, self.tol = np.asarray(h, np.int64), np.asarray(cap, np.int64), p, q, tol
        with np.errstate(divide="ignore"):
            self.logv0 = np.log(float(q) * self.h + p)
            self.logfull = np.log(float(q) * (self.h - self.cap) + p)
        parts = np.array([-1] + np.flatnonzero(self.cap).tolist())
        row, self.cost, self.logq, self.member = self._pareto(parts, limit)
        self.part = parts[row]
        self.curve = self._curve()

    def value(self, j: int, b) -> int:
        return self.q * (int(self.h[j]) - int(b)) + self.p

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
        row, cost, logq, bits = np.zeros(1, np.int64), np.zeros(1, np.int64), np.array([self.logv0.sum()]), \
            np.zeros((1, W), np.int64)
        span = int(self.cap.sum()) + 1
        for r in range(1, len(skips)):
            j = int(skips[r])
            fork = np.flatnonzero(row == 0)
            row = np.concatenate([row, np.full(len(fork), r)])
            cost, logq, bits = np.concatenate([cost, cost[fork]]), np.concatenate([logq, logq[fork]]), \
                np.concatenate([bits, bits[fork]])
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
                tail = np.log(float(self.q) * (self.h[part] - np.arange(self.cap[part] + 1)) + self.p) - self.logv0[part]
            pick = self.part == part
            V = self.logq[pick][:, None] + tail  # (candidates, cells of the partial column)
            if len(tail) <= 128:  # short segments: one scatter (min is exact in any order)
                np.minimum.at(L, (self.cost[pick][:, None] + np.arange(len(tail))).ravel(), V.ravel())
                continue
            for cs, v in zip(self.cost[pick].tolist(), V):
                seg = L[cs:cs + len(tail)]
                np.minimum(seg, v, out=seg)
        return np.minimum.accumulate(L)

    def product(self, member: np.ndarray, part: int = -1, b: int = 0) -> int:
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
            b = np.floor(h[part] - (np.exp(z) - self.p) / self.q) + 1
        b = np.where(np.isnan(b), 0, np.maximum(b, 0))
        cost = np.where(part >= 0, self.cost + b, np.where(self.logq < need + self.tol, self.cost, np.inf))
        return np.where((part >= 0) & (b > cap[part]), np.inf, cost)

    def cheapest(self, X: int, Y: int, need: float, limit):
        """Exact fewest cleanings (cost, member, part, b) with Y * product < X, among plans
        cheaper than ``limit``; None if there is none.  Candidates are tried in the order
        of their floating-point lower bounds and exactly."""
        if X <= 0:
            return None
        if Y == 0:
            return (0, self.member[0], -1, 0) if limit > 0 else None
        bound = self._optimistic(need)
        best = None
        for i in np.argsort(bound, kind="stable"):
            if not bound[i] < min(limit, best[0] if best else math.inf):
                break
            part, mem = int(self.part[i]), self.member[i]
            if part < 0:
                if Y * self.product(mem) < X:
                    best = (int(self.cost[i]), mem, -1, 0)
                continue
            rest = Y * (self.product(mem, part, 0) // self.value(part, 0))
            if rest == 0:
                b = 0
            else:
                vmax = (X - 1) // rest  # need q (h - b) + p <= vmax
                if vmax < self.value(part, self.cap[part]):
                    continue
                b = max(0, int(self.h[part]) - (vmax - self.p) // self.q)
            total = int(self.cost[i]) + b
            if total < min(limit, best[0] if best else math.inf):
                best = (total, mem, part, b)
        return best

    def amounts(self, plan) -> np.ndarray:
        _, mem, part, b = plan
        out = np.where(mem, self.cap, 0)
        if part >= 0:
            out[part] = b
        return out


def _rival_floor(h, cap, p: int, q: int, need: np.ndarray, tol: float) -> np.ndarray:
    """Per entry of ``need``, a lower bound on the cleanings that bring a rival's log product
    sum_j log(q (h_j - b_j) + p) under need + tol (inf: none do).

    A column's drop log(q h + p) - log(q (h - b) + p) is convex in b, so it lies under its
    chord, and the fractional knapsack of the chords (best ratio first) bounds the drop of
    every allocation of c cells.  A column that full cleaning takes to 0 (p = 0, h = cap)
    drops by at most log(q h) - log q before its last cell: its chord spans cap - 1 cells,
    and from c = cap on nothing is bounded.  The floats get a margin (1e-5) far above rounding."""
    h, cap = np.asarray(h, np.int64), np.asarray(cap, np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        v0 = np.log(float(q) * h + p)
        full = np.log(float(q) * (h - cap) + p)
        kill = (cap > 0) & np.isneginf(full)
        size = np.where(kill, cap - 1, cap)
        gain = np.where(size > 0, np.where(kill, v0 - math.log(q), v0 - full), 0.0)
        order = np.argsort(-np.where(size > 0, gain / np.maximum(size, 1), -1.0), kind="stable")
    S, Gs = np.cumsum(size[order]), np.cumsum(gain[order])
    c = np.arange(int(cap.sum()) + 1)
    k = np.searchsorted(S, c, side="right")  # items taken whole
    whole = np.where(k > 0, Gs[np.maximum(k - 1, 0)], 0.0)
    rest = c - np.where(k > 0, S[np.maximum(k - 1, 0)], 0)
    ratio = np.append(gain[order] / np.maximum(size[order], 1), 0.0)[k]
    R = v0.sum() - (whole + rest * ratio)
    if kill.any():
        R[int(cap[kill].min()):] = -np.inf
    with np.errstate(invalid="ignore"):
        idx = np.searchsorted(-R, -(need + tol + 1e-5), side="right")
    return np.where(np.isneginf(need) | (idx >= len(R)), np.inf, idx)


def _rival_greedy(h, cap, p: int, q: int):
    """A rival's plans found without search: whole columns in order of their drop per cell,
    then part of the next one; or a column that full cleaning takes to 0 (p = 0, h = cap),
    the cheapest such.  Returns (log product per count c, amounts(c) -> b per column)."""
    h, cap = np.asarray(h, np.int64), np.asarray(cap, np.int64)
    kill = (cap > 0) & (h == cap) & (p == 0)  # q >= 1
    items = np.flatnonzero((cap > 0) & ~kill)
    with np.errstate(divide="ignore"):
        v0 = np.log(float(q) * h + p)
        gain = v0[items] - np.log(float(q) * (h[items] - cap[items]) + p)
    order = items[np.argsort(-gain / cap[items], kind="stable")]
    S = np.cumsum(cap[order])
    kill_at = int(cap[kill].min()) if kill.any() else None
    c = np.arange(max(int(S[-1]) if len(S) else 0, kill_at or 0) + 1)
    k = np.minimum(np.searchsorted(S, c, side="right"), len(order))  # whole columns taken
    done = np.where(k > 0, np.append(0, S)[k], 0)
    col = order[np.minimum(k, len(order) - 1)] if len(order) else np.zeros(len(c), np.int64)
    b = np.where(k < len(order), np.minimum(c - done, cap[col] if len(order) else 0), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        whole = np.append(0.0, np.cumsum(v0[order] - np.log(float(q) * (h[order] - cap[order]) + p)))[k]
        part = np.where(b > 0, v0[col] - np.log(float(q) * (h[col] - b) + p), 0.0)
        R = v0.sum() - whole - part
    if kill_at is not None:
        R[kill_at:] = -np.inf

    def amounts(n: int) -> np.ndarray:
        out = np.zeros(len(h), np.int64)
        if kill_at is not None and n >= kill_at:
            out[np.flatnonzero(kill & (cap == kill_at))[0]] = kill_at
            return out
        out[order[:k[n]]] = cap[order[:k[n]]]
        if k[n] < len(order):
            out[order[k[n]]] = b[n]
        return out

    return R, amounts


class _Fixed:
    """The fixed-domain problem for one winner: min sum a + sum_l sum b_l such that, for
    every rival l, left_l * prod_j (q (cw_j + a_j) + p) > right_l * prod_j (q (h_lj - b_lj) + p)."""

    def __init__(self, cw, capA, h, capB, left, right, alpha: Fraction):
        self.p, self.q = alpha.numerator, alpha.denominator
        self.cw, self.capA = np.asarray(cw, np.int64), np.asarray(capA, np.int64)
        self.left, self.right = [int(v) for v in left], [int(v) for v in right]
        J = len(self.cw)
        big = max([1.0] + [abs(math.log(v)) for v in self.left + self.right if v > 0])
        top = max([1] + [int(v) for v in self.cw + self.capA] + [int(v) for hr in h for v in hr])
        self.tol = _tolerance(2 * J + 6, big + (2 * J + 2) * math.log(self.q * (top + 1) + self.p + 1))
        self.h, self.capB = h, capB
        self.rivals = None  # built on demand: only for winners that can win at all
        self.lower = -math.inf  # a lower bound on every plan's cost, once solve computed one

    def w_product(self, c) -> int:
        return math.prod(self.q * int(v) + self.p for v in c)

    def _feasible_at_all(self) -> bool:
        P = self.w_product(self.cw + self.capA)
        return all(r * math.prod(self.q * (int(hj) - int(cj)) + self.p for hj, cj in zip(hr, cr)) < lft * P
                   for lft, r, hr, cr in zip(self.left, self.right, self.h, self.capB))

    def _need(self, logP: np.ndarray, k: int) -> np.ndarray:
        """The bound the rival's log product must stay under, per A."""
        if self.left[k] == 0:
            return np.full(len(logP), -np.inf)
        if self.right[k] == 0:
            return np.where(np.isneginf(logP), -np.inf, np.inf)
        return logP + math.log(self.left[k]) - math.log(self.right[k])

    def upper(self):
        """(a, [b per rival]) of a plan found without search, or None: the winner's
        water-filled cells and each rival's :func:`_rival_greedy` plan, at the count A whose
        total is smallest in floating point, checked exactly."""
        if not self._feasible_at_all():
            return None
        logP, col = _waterfill_logs(self.cw, self.capA, self.p, self.q)
        total, plans = np.arange(len(logP), dtype=float), []
        for k, (hr, cr) in enumerate(zip(self.h, self.capB)):
            R, amounts = _rival_greedy(hr, cr, self.p, self.q)
            with np.errstate(invalid="ignore"):
                n = np.searchsorted(-R, -(self._need(logP, k) - self.tol), side="right")
            total += np.where(n >= len(R), np.inf, n)
            plans.append((n, amounts))
        A = int(np.argmin(total))
        if not np.isfinite(total[A]):
            return None
        a = np.bincount(col[:A], minlength=len(self.cw))
        P, bs = self.w_product(self.cw + a), [amounts(int(n[A])) for n, amounts in plans]
        for k, b in enumerate(bs):
            if not self.right[k] * math.prod(self.q * (int(hj) - int(bj)) + self.p
                                             for hj, bj in zip(self.h[k], b)) < self.left[k] * P:
                return None
        return a, bs

    def _floor(self, needs: list, limit):
        """A lower bound on every plan's cost: min over A of A plus each rival's fewest
        cleanings in the chord relaxation (:func:`_rival_floor`); and per rival the budget
        its own cells must stay under for a plan cheaper than ``limit``: limit less the
        least A plus the other rivals' floors, over the A where it can be satisfied."""
        floors = [_rival_floor(hr, cr, self.p, self.q, need, self.tol) for hr, cr, need in zip(self.h, self.capB, needs)]
        A = np.arange(len(needs[0]) if needs else 1, dtype=float)
        total = A + sum(floors)
        budgets = []
        for k, own in enumerate(floors):
            others = A + sum(f for i, f in enumerate(floors) if i != k)
            fine = np.isfinite(own)
            budgets.append(limit - float(others[fine].min()) if fine.any() else 0)
        return float(total.min()), budgets

    def solve(self, limit=math.inf):
        """(cost, a, [b per rival]) of a cheapest plan costing less than ``limit``, or None."""
        if not self._feasible_at_all():
            return None
        budgets = [limit] * len(self.h)
        if limit < math.inf:
            logs, _ = _waterfill_logs(self.cw, self.capA, self.p, self.q)
            self.lower, budgets = self._floor([self._need(logs, k) for k in range(len(self.h))], limit)
            if self.lower >= limit:
                return None  # even the relaxation costs too much
        C = _waterfill(self.cw, self.capA)  # (A + 1, J) w's counts after A cleanings
        with np.errstate(divide="ignore"):
            logP = np.log(float(self.q) * C + self.p).sum(axis=1)
        needs = [self._need(logP, k) for k in range(len(self.h))]
        self.rivals = [_Rival(hr, cr, self.p, self.q, self.tol, b) for hr, cr, b in zip(self.h, self.capB, budgets)]
        lo = np.arange(len(C), dtype=np.int64)
        for r, need in zip(self.rivals, needs):
            with np.errstate(invalid="ignore"):
                idx = np.searchsorted(-r.curve, -(need + self.tol), side="right")
            lo += np.where(np.isneginf(need) | (idx >= len(r.curve)), _NEVER, idx)
        best, best_plan = limit, None
        for A in np.argsort(lo, kind="stable"):
            if lo[A] >= min(best, _NEVER):
                break
            P = self.w_product(C[A])
            total, plans = int(A), []
            for k, r in enumerate(self.rivals):
                got = r.cheapest(self.left[k] * P, self.right[k], float(needs[k][A]), best - total)
                if got is None:
                    break
                total += got[0]
                plans.append(got)
            else:
                best, best_plan = total, (C[A] - self.cw, plans)
        if best_plan is None:
            return None
        a, plans = best_plan
        return int(best), a, [r.amounts(pl) for r, pl in zip(self.rivals, plans)]


# ----------------------------------------------------------------------------- domain branches

@dataclass(frozen=True)
class _Option:
    """How one column ends up: its kind, usable true values, and the cleanings that
    introduce its new values (w's t_j cell, a rival's cell, or a cell that helps nothing)."""

    kind: str  # "active", "forced" or "unseen"
    usable: tuple  # true values whose cells may be cleaned (active columns)
    delta: int  # the column's final domain size (matters for alpha > 0)
    by_w: int = 0  # w cleans one of its t_j cells to introduce t_j
    by_rival: tuple = ()  # (rival, value): that rival cleans one of its cells of this value
    pure: tuple = ()  # (label, value): a cleaning that only introduces the value


def _column_facts(obs: np.ndarray, hid: np.ndarray) -> list:
    """Per column: its observed values D0, the values only missing cells hold (new) and
    both (every), as sorted tuples."""
    seen, held = obs.sum(axis=0) > 0, hid.sum(axis=0) > 0  # (d, K)
    out = []
    for D0, new in zip(seen.tolist(), (~seen & held).tolist()):
        D0 = tuple(v for v, on in enumerate(D0) if on)
        new = tuple(v for v, on in enumerate(new) if on)
        out.append((D0, new, tuple(sorted(D0 + new))))
    return out


def _column_options(obs_j: np.ndarray, hid_j: np.ndarray, t: int, w: int, zero: bool, facts=None) -> list:
    """Every reachable end state of one column worth considering, for winner w.

    obs_j, hid_j (m, K): observed and missing counts per label and true value; ``facts``:
    the column's (D0, new, every) of :func:`_column_facts` if known."""
    D0, new, every = facts if facts is not None else _column_facts(obs_j[:, None], hid_j[:, None])[0]
    m = obs_j.shape[0]
    if zero:
        # alpha = 0: only "is t_j seen" and "is the domain {t_j}" matter
        if t < 0 or (t not in D0 and t not in new):
            return []  # every label's support is 0 in every world
        if t not in D0:
            return [_Option("active", every, len(every), by_w=1)] if hid_j[w, t] else []
        if len(D0) >= 2:
            return [_Option("active", every, len(every))]
        out = [_Option("forced", (t,), 1)]
        others = [l for l in range(m) if l != w and hid_j[l].sum() - hid_j[l, t] > 0]
        if others:
            out += [_Option("active", every, len(every), by_rival=((l, -1),)) for l in others]
        elif hid_j[w].sum() - hid_j[w, t] > 0:
            v = next(v for v in every if v != t and hid_j[w, v])
            out.append(_Option("active", every, len(every), pure=((w, v),)))
        return out
    out = []
    for size in range(len(new) + 1):
        for intro in itertools.combinations(new, size):
            dom = tuple(sorted(D0 + intro))
            seen = t >= 0 and t in dom
            kind = "unseen" if not seen else ("forced" if len(dom) == 1 else "active")
            choices = []
            for v in intro:
                if v == t:
                    choices.append([("w", w)] if hid_j[w, t] else
                                   [("pure", next(l for l in range(m) if hid_j[l, t]))])
                else:
                    rivals = [l for l in range(m) if l != w and hid_j[l, v]]
                    choices.append([("rival", l) for l in rivals] or [("pure", w)])
            for pick in itertools.product(*choices):
                by_w = sum(1 for how, _ in pick if how == "w")
                by_rival = tuple((l, v) for (how, l), v in zip(pick, intro) if how == "rival")
                pure = tuple((l, v) for (how, l), v in zip(pick, intro) if how == "pure")
                out.append(_Option(kind, dom, len(dom), by_w, by_rival, pure))
    return out


MAX_BRANCHES = 4096


class TooManyBranches(ValueError):
    """The exact offline minimum would branch over too many column domain outcomes."""


@dataclass(frozen=True)
class CleaningPlan:
    """Group counts x (m, d, K) to clean, their number, and the winner they certify."""

    x: np.ndarray
    cost: int
    winner: int


def _branch_problem(tab: CleaningTable, t: np.ndarray, w: int, opts: tuple, alpha: Fraction):
    """The fixed-domain problem of one branch, and the cleanings its options prepay.

    Column j's factor for label l is (q lo_lj + p) / (q N_l + p delta_j): 1 in a forced
    column (lo = N_l, delta = 1), p / (q N_l + p delta_j) in an unseen one."""
    obs, hid, N = tab.obs, tab.hid, tab.N
    m = obs.shape[0]
    p, q = alpha.numerator, alpha.denominator
    rivals = [l for l in range(m) if l != w]
    active = [j for j, o in enumerate(opts) if o.kind == "active"]
    x0 = np.zeros_like(hid)
    sizes = Counter(o.delta for o in opts if o.kind != "forced")  # the denominators' domain sizes
    den = [math.prod((q * int(N[l]) + p * size) ** times for size, times in sizes.items()) for l in range(m)]
    num = [p ** sum(o.kind == "unseen" for o in opts)] * m  # product of the fixed numerators, per label
    for j, o in enumerate(opts):
        if not (o.by_w or o.by_rival or o.pure):
            continue
        x0[w, j, t[j]] += o.by_w
        for l, v in o.by_rival:
            if v < 0:  # alpha = 0 unforcing: any value but t_j
                v = next(u for u in o.usable if u != t[j] and hid[l, j, u])
            x0[l, j, v] += 1
        for l, v in o.pure:
            x0[l, j, v] += 1
    A = np.array(active, np.int64)
    tA = np.asarray(t, np.int64)[A]
    usable = np.zeros((len(A), hid.shape[2]), bool)  # per active column: its usable values but t_j
    for i, j in enumerate(active):
        usable[i, list(opts[j].usable)] = True
    usable[np.arange(len(A)), tA] = False
    left_, rest = (obs + x0)[:, A, tA], (hid - x0)[:, A]  # (m, J), (m, J, K)
    cw, capA = left_[w].tolist(), (hid[w, A, tA] - x0[w, A, tA]).tolist()
    h = (left_[rivals] + rest[rivals].sum(axis=2)).tolist()
    capB = (rest[rivals] * usable).sum(axis=2).tolist()
    left = [int(N[w]) * num[w] * den[l] for l in rivals]
    right = [int(N[l]) * num[l] * den[w] for l in rivals]
    return _Fixed(cw, capA, h, capB, left, right, alpha), active, rivals, x0


def _spread(tab: CleaningTable, x: np.ndarray, l: int, j: int, count: int, usable, t: int) -> None:
    """Add ``count`` cleanings of label l's column-j cells whose truth is usable and not t."""
    for v in usable:
        if v == t or count <= 0:
            continue
        take = min(count, int(tab.hid[l, j, v] - x[l, j, v]))
        x[l, j, v] += take
        count -= take
    assert count == 0, "internal: not enough cells to spread"


def _verify(tab: CleaningTable, t: np.ndarray, x: np.ndarray, alpha) -> int:
    """The label every world predicts after cleaning x, -1 if the point is not robust."""
    dec = state_decision(tab.obs + x, (tab.hid - x).sum(axis=2), tab.N, t[None], alpha)
    return int(dec.label[0])


def offline_minimum(tab: CleaningTable, t: np.ndarray, alpha=0, limit=math.inf) -> CleaningPlan | None:
    """The fewest cleanings (group counts) that make test point t (local codes of the true
    table, -1 = unseen) certifiably robust; None when no set of cleanings does (proven).

    With ``limit``, only plans costing less are sought (None: no such plan); a plan found
    is the one found without a limit."""
    return _offline(tab, t, as_alpha(alpha), limit)[0]


def _offline(tab: CleaningTable, t: np.ndarray, alpha: Fraction, limit=math.inf):
    """(the cheapest plan costing less than ``limit`` or None, whether any plan exists, a
    lower bound on the minimum: its cost when a plan is found).

    Winners and branches are tried in a fixed order and a plan replaces the best only when
    strictly cheaper, so the first cheapest branch's plan is returned whatever the limit
    (above its cost): each search below ``limit`` returns the plan it returns without it."""
    m, d, _ = tab.obs.shape
    zero = np.zeros_like(tab.hid)
    if m == 1:
        return (CleaningPlan(zero, 0, 0) if limit > 0 else None), True, 0
    now = _verify(tab, t, zero, alpha)
    if now >= 0:
        return (CleaningPlan(zero, 0, now) if limit > 0 else None), True, 0
    best, possible, lower = None, False, math.inf
    facts = _column_facts(tab.obs, tab.hid)
    for w in range(m):
        options = [_column_options(tab.obs[:, j], tab.hid[:, j], int(t[j]), w, alpha == 0, facts[j]) for j in range(d)]
        if math.prod(len(o) for o in options) > MAX_BRANCHES:
            raise TooManyBranches(f"the exact minimum would try more than {MAX_BRANCHES} column domain outcomes")
        for opts in itertools.product(*options):
            prob, active, rivals, x0 = _branch_problem(tab, t, w, opts, alpha)
            if not prob._feasible_at_all():
                continue
            possible = True
            extra = int(x0.sum())
            bound = (best.cost if best else limit) - extra
            res = prob.solve(bound) if bound > 0 else None
            if res is None:  # every plan of the branch costs at least extra + bound (or its floor)
                lower = min(lower, extra + max(bound, prob.lower, 0))
                continue
            cost, a, bs = res
            x = _plan_cells(tab, t, w, opts, active, rivals, x0, a, bs)
            if _verify(tab, t, x, alpha) != w or int(x.sum()) != extra + cost:
                raise AssertionError(f"internal: a cleaning plan failed its exact check (winner {w})")
            best = CleaningPlan(x, extra + cost, w)
    return best, possible, min(lower, best.cost) if best else lower


# ----------------------------------------------------------------------------- many points

def after(tab: CleaningTable, x: np.ndarray) -> CleaningTable:
    """The table once the cleanings x are done (its missing cells are the rest)."""
    return CleaningTable(tab.enc, tab.missing, tab.obs + x, tab.hid - x)


def all_robust(tab: CleaningTable, T: np.ndarray, x: np.ndarray, alpha) -> bool:
    """Exact check: after cleaning x, is every point of T certifiably robust?"""
    return bool(state_decision(tab.obs + x, (tab.hid - x).sum(axis=2), tab.N, T, alpha).robust.all())


def cleanable(tab: CleaningTable, t: np.ndarray, alpha=0) -> bool:
    """Does some cleaning make test point t certifiably robust (proven either way)?  Each
    (winner, branch) is checked with all its helpful cells cleaned (the first that works
    ends the check); nothing is solved."""
    alpha = as_alpha(alpha)
    m, d, _ = tab.obs.shape
    if m == 1 or _verify(tab, t, np.zeros_like(tab.hid), alpha) >= 0:
        return True
    facts = _column_facts(tab.obs, tab.hid)
    for w in range(m):
        options = [_column_options(tab.obs[:, j], tab.hid[:, j], int(t[j]), w, alpha == 0, facts[j]) for j in range(d)]
        if math.prod(len(o) for o in options) > MAX_BRANCHES:
            raise TooManyBranches(f"the exact minimum would try more than {MAX_BRANCHES} column domain outcomes")
        if any(_branch_problem(tab, t, w, opts, alpha)[0]._feasible_at_all() for opts in itertools.product(*options)):
            return True
    return False


def _plan_cells(tab, t, w, opts, active, rivals, x0, a, bs) -> np.ndarray:
    """Group counts of a branch's plan: its prepaid cells x0, w's t_j cells a and the
    rivals' cells b spread over their usable values."""
    x = x0.copy()
    for i, j in enumerate(active):
        x[w, j, t[j]] += a[i]
        for k, l in enumerate(rivals):
            _spread(tab, x, l, j, int(bs[k][i]), opts[j].usable, int(t[j]))
    return x


def _within(tab: CleaningTable, t: np.ndarray, alpha: Fraction, floor: int) -> bool:
    """Is t's minimum at most ``floor``?  True only with a witness: a plan of at most
    floor cells found without search (``_Fixed.upper``) and checked on the cleaned table."""
    m, d, _ = tab.obs.shape
    if m == 1 or _verify(tab, t, np.zeros_like(tab.hid), alpha) >= 0:
        return floor >= 0
    facts = _column_facts(tab.obs, tab.hid)
    for w in range(m):
        options = [_column_options(tab.obs[:, j], tab.hid[:, j], int(t[j]), w, alpha == 0, facts[j]) for j in range(d)]
        if math.prod(len(o) for o in options) > MAX_BRANCHES:
            return False
        for opts in itertools.product(*options):
            prob, active, rivals, x0 = _branch_problem(tab, t, w, opts, alpha)
            got = prob.upper() if int(x0.sum()) <= floor else None
            if got is not None:
                x = _plan_cells(tab, t, w, opts, active, rivals, x0, *got)
                if int(x.sum()) <= floor and _verify(tab, t, x, alpha) >= 0:
                    return True
    return False


def _largest_minimum(tab: CleaningTable, T: np.ndarray, alpha: Fraction, floor: int = 0):
    """max(floor, the largest single-point minimum of T) (every point cleanable), and the
    plans searched: a point is searched in full only when no plan within the floor so far
    is found without search, and its cost may then raise the floor."""
    known = {}
    for p, t in enumerate(T):
        if _within(tab, t, alpha, floor):
            continue
        known[p] = _offline(tab, t, alpha)[0]
        floor = max(floor, known[p].cost)
    return floor, known


def greedy_many(tab: CleaningTable, T: np.ndarray, alpha=0, known: dict | None = None) -> np.ndarray | None:
    """Group counts making every point robust, or None if greedy gets stuck.

    Repeatedly cleans the cheapest single-point minimum completion (on the table as
    cleaned so far; the first point in T's order among equals) among the non-robust
    points, then prunes: each group's count is cut to the smallest that keeps every point
    robust (binary search, each answer checked).  ``known``: offline_minimum plans on
    ``tab`` of some points (by position in T), not searched again.

    A point's minimum drops by at most the c cells a round cleans (those c cells and the
    new minimum's cells certify it on the old table), so a lower bound found in one round,
    less c, holds in the next: a point whose bound cannot beat the best so far is only
    checked for being cleanable at all."""
    alpha = as_alpha(alpha)
    x = np.zeros_like(tab.hid)
    lower = {int(p): pl.cost for p, pl in (known or {}).items()}
    for step in range(int(tab.hid.sum()) + 1):
        cur = after(tab, x)
        todo = np.flatnonzero(~state_decision(cur.obs, cur.hid.sum(axis=2), cur.N, T, alpha).robust)
        if not len(todo):
            return prune(tab, T, x, alpha)
        plan = _cheapest_completion(cur, T, todo, alpha, lower, (known or {}) if step == 0 else {})
        if plan is None:
            return None
        x = x + plan.x
        lower = {p: b - plan.cost for p, b in lower.items()}
    raise AssertionError("internal: greedy did not terminate")


def _cheapest_completion(tab: CleaningTable, T: np.ndarray, todo: np.ndarray, alpha: Fraction, lower: dict,
                         known: dict):
    """The cheapest single-point minimum among the points ``todo`` (the first in T's order
    among equals), None if one of them has none.  Points are tried in the order of their
    ``lower`` bounds (updated), each only for a plan that would win: cheaper than the best
    so far, or as cheap if it comes first; ``known`` plans are not searched, and a point
    whose bound shows it cannot win is only checked for being cleanable."""
    best = None  # (cost, position in todo, plan)
    for i in sorted(range(len(todo)), key=lambda i: lower.get(int(todo[i]), -math.inf)):
        p = int(todo[i])
        limit = math.inf if best is None else best[0] + (i < best[1])
        if p in known:
            plan, possible = (known[p] if known[p].cost < limit else None), True
        elif lower.get(p, -math.inf) >= limit:
            plan, possible = None, cleanable(tab, T[p], alpha)
        else:
            plan, possible, lower[p] = _offline(tab, T[p], alpha, limit)
        if not possible or (plan is None and limit == math.inf):
            return None
        if plan is not None:
            best = (plan.cost, i, plan)
    return best[2]


def prune(tab: CleaningTable, T: np.ndarray, x: np.ndarray, alpha) -> np.ndarray:
    """Cut each group's count (largest groups first) to the smallest value that keeps every
    point robust, found by binary search; only checked states are kept."""
    x = x.copy()
    for g in np.argsort(-x, axis=None, kind="stable"):
        g = np.unravel_index(g, x.shape)
        lo, hi = -1, int(x[g])  # hi: known to work
        while hi - lo > 1:
            mid = (lo + hi) // 2
            x[g] = mid
            lo, hi = (lo, mid) if all_robust(tab, T, x, alpha) else (mid, hi)
        x[g] = hi
    return x


@dataclass(frozen=True)
class ManyCleaning:
    """Cleanings making every given point robust at once.

    ``optimal`` says whether ``x`` is proven minimum; ``lower_bound`` is a proven bound on
    the minimum.  ``possible`` False with ``optimal`` True is a proof that no cleaning
    works; otherwise it says that none was found.
    """

    possible: bool
    x: np.ndarray | None
    method: str
    optimal: bool
    lower_bound: int | None
    time_limited: bool = False  # a solve was stopped by the time limit: depends on the machine's speed

    @property
    def num_cells(self) -> int | None:
        return int(self.x.sum()) if self.possible else None


MAX_PROGRAM_VARIABLES = 200_000


class _Program:
    """Rows and integer columns of a mixed-integer program for scipy.optimize.milp."""

    def __init__(self):
        self.lo, self.hi, self.cost, self.rows, self.integer = [], [], [], [], []

    def var(self, lo, hi, cost=0.0, integer: bool = True) -> int:
        self.lo.append(lo)
        self.hi.append(hi)
        self.cost.append(cost)
        self.integer.append(integer)
        return len(self.lo) - 1

    def row(self, coef: dict, lo=-np.inf, hi=np.inf):
        self.rows.append((coef, lo, hi))

    def solve(self, node_limit: int, time_limit: float, stops: list | None = None):
        """Solve with HiGHS; a solve the time limit (not the node limit) stopped is noted in
        ``stops``: its answer depends on the machine's speed."""
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_matrix

        r, c, v = [], [], []
        for i, (coef, _, _) in enumerate(self.rows):
            r += [i] * len(coef)
            c += list(coef)
            v += list(coef.values())
        A = coo_matrix((v, (r, c)), shape=(len(self.rows), len(self.lo))).tocsr()
        cons = LinearConstraint(A, [lo for _, lo, _ in self.rows], [hi for _, _, hi in self.rows])
        res = milp(np.array(self.cost), constraints=cons, integrality=np.array(self.integer, dtype=float),
                   bounds=Bounds(self.lo, self.hi),
                   options={"node_limit": node_limit, "time_limit": time_limit, "disp": False})
        if stops is not None and res.status == 1 and "time" in str(res.message).lower():
            stops.append(True)
        return res


def _table_var(prog: _Program, values, logs, expr: dict, const: int, forced=None, big=0):
    """One-hot over the possible values of a count (const + expr); returns {slot: log}.
    With ``forced`` (a 0/1 column meaning "the column is unforced"), an extra slot is on
    exactly when the column is forced, and the count link is released then."""
    z = [prog.var(0, 1) for _ in values]
    out = dict(zip(z, logs))
    link = {zi: float(v) for zi, v in zip(z, values)}
    for k, coef in expr.items():
        link[k] = link.get(k, 0.0) - coef
    if forced is None:
        prog.row({zi: 1.0 for zi in z}, 1, 1)
        prog.row(link, const, const)
        return out, z
    zf = prog.var(0, 1)
    prog.row({**{zi: 1.0 for zi in z}, zf: 1.0}, 1, 1)
    prog.row({zf: 1.0, forced: 1.0}, 1, 1)
    prog.row({**link, zf: -big}, -np.inf, const)
    prog.row({**link, zf: big}, const, np.inf)
    return out, z, zf


def _build_program(tab: CleaningTable, T: np.ndarray, winners: list, upper: int, margin: float):
    """The alpha = 0 program: integer group counts x; per point one winner; per column a
    one-hot table of each needed count; a log inequality per (winner, rival) switched on
    by the winner's indicator.  A column whose observed values are all t_j is forced
    unless some other value's cell is cleaned (an indicator per column)."""
    obs, hid, N = tab.obs, tab.hid, tab.N
    m, d, K = obs.shape
    n = int(N.sum())
    prog = _Program()
    x = {}
    for g in zip(*np.nonzero(hid)):
        x[g] = prog.var(0, min(int(hid[g]), upper), 1.0)
    prog.row({k: 1.0 for k in x.values()}, 0, upper)
    D0 = obs.sum(axis=0) > 0
    unforced = {}
    BIG = 2 * (d + 2) * math.log(n + 1) + 10
    SWITCH = 2 * BIG * (d + 1)
    for p, t in enumerate(T):
        omega = {w: prog.var(0, 1) for w in winners[p]}
        prog.row({o: 1.0 for o in omega.values()}, 1, 1)
        C, R = {}, {}
        for j in range(d):
            tj = int(t[j])
            switch = bool(D0[j].sum() == 1 and D0[j, tj])
            if switch and hid[:, j].sum() == hid[:, j, tj].sum():
                continue  # forced in every cleaning: every label's factor is 1
            forced = None
            if switch:
                if j not in unforced:
                    f = prog.var(0, 1)
                    others = {x[g]: 1.0 for g in x if g[1] == j and g[2] != tj}
                    prog.row({**others, f: -1.0}, 0, np.inf)
                    for k in others:
                        prog.row({k: 1.0, f: -float(prog.hi[k])}, -np.inf, 0)
                    unforced[j] = f
                forced = unforced[j]
            for l in range(m):
                tag = (l, j, tj)
                if l in omega:
                    lo0, span = int(obs[tag]), int(hid[tag]) if tag in x else 0
                    vals = list(range(lo0, lo0 + min(span, upper) + 1))
                    logs = [math.log(v) if v else 0.0 for v in vals]
                    got = _table_var(prog, vals, logs, {x[tag]: 1.0} if tag in x else {}, lo0,
                                     forced, int(N[l]))
                    if forced is not None:
                        got[0][got[2]] = math.log(N[l])
                    C[l] = C.get(l, {})
                    for zi, lg in got[0].items():
                        C[l][zi] = C[l].get(zi, 0.0) + lg - math.log(N[l])
                    if vals[0] == 0:
                        prog.row({got[1][0]: 1.0, omega[l]: 1.0}, -np.inf, 1)  # the winner's count is never 0
                if any(w != l for w in omega):
                    mis = int(hid[l, j].sum())
                    top = int(obs[tag]) + mis
                    drop = {x[g]: 1.0 for g in x if g[0] == l and g[1] == j and g[2] != tj}
                    span = min(sum(int(hid[g]) for g in x if g[0] == l and g[1] == j and g[2] != tj), upper)
                    vals = list(range(top - span, top + 1))
                    logs = [math.log(v) if v else -BIG for v in vals]
                    got = _table_var(prog, vals, logs, {k: -1.0 for k in drop}, top, forced, int(N[l]))
                    if forced is not None:
                        got[0][got[2]] = math.log(N[l])
                    R[l] = R.get(l, {})
                    for zi, lg in got[0].items():
                        R[l][zi] = R[l].get(zi, 0.0) + lg - math.log(N[l])
        for w, ow in omega.items():
            for l in range(m):
                if l == w:
                    continue
                row = dict(C.get(w, {}))
                for zi, lg in R.get(l, {}).items():
                    row[zi] = row.get(zi, 0.0) - lg
                row[ow] = row.get(ow, 0.0) - SWITCH
                prog.row(row, margin - SWITCH - math.log(N[w]) + math.log(N[l]), np.inf)
    return prog, x


def exact_many(tab: CleaningTable, T: np.ndarray, upper: int, floor: int, node_limit: int = 20_000,
               time_limit: float = 60.0, stops: list | None = None):
    """Solve the alpha = 0 program; returns (x or None, proven lower bound).

    The first solve accepts ties (a relaxation), so its bound is a proven lower bound; its
    solution is checked exactly, and if it fails (a tie), a second solve asks for a small
    positive margin."""
    winners = [[w for w in range(tab.obs.shape[0]) if _winner_possible(tab, t, w)] for t in T]
    lower = 0
    best = None
    for margin in (-1e-9, 1e-6):
        prog, xv = _build_program(tab, T, winners, upper, margin)
        if len(prog.lo) > MAX_PROGRAM_VARIABLES:
            return None, floor
        res = prog.solve(node_limit, time_limit, stops)
        if margin < 0:
            bound = getattr(res, "mip_dual_bound", None)
            if res.status == 2:
                return None, math.inf
            if bound is not None and np.isfinite(bound):
                lower = max(0, math.ceil(bound - 1e-6))
        if res.x is None:
            continue
        x = np.zeros_like(tab.hid)
        for g, k in xv.items():
            x[g] = int(round(res.x[k]))
        if all_robust(tab, T, x, 0):
            best = x
            break
    return best, max(lower, floor)


def _tangent_points(lo: int, hi: int, ratio: float = 1.1) -> list:
    """Where to cut log(u) on [lo, hi] (u integer): every integer up to 10, then a
    geometric grid, and both ends."""
    pts = {max(lo, 1), max(hi, 1)}
    c = max(lo, 1)
    while c < hi:
        pts.add(c)
        c = c + 1 if c < 10 else math.ceil(c * ratio)
    return sorted(pts)


def relaxed_bound(tab: CleaningTable, T: np.ndarray, node_limit: int = 2_000, time_limit: float = 60.0,
                  stops: list | None = None):
    """A proven lower bound on the fewest cleanings certifying every point (alpha = 0).

    For each point with a single possible winner w and no column whose observed values are
    all t_j (forcing), the condition log S_w > log S_l is relaxed: log of w's count
    (concave) is bounded from above by tangents, -log of a rival's count (convex in the
    cells cleaned) by its secant, and a rival's count that can reach 0 by a 0/1 switch that
    beats that rival.  Every cleaning certifying the points satisfies the relaxation, so
    the bound HiGHS proves for it (within ``node_limit`` nodes) bounds the true minimum
    (math.inf: not even the relaxation can be met).  Points left out only weaken it."""
    obs, hid, N = tab.obs, tab.hid, tab.N
    m, d, _ = obs.shape
    prog = _Program()
    x = {g: prog.var(0, int(hid[g]), 1.0) for g in zip(*np.nonzero(hid))}
    D0 = obs.sum(axis=0) > 0
    robust = state_decision(obs, hid.sum(axis=2), N, T, 0).robust
    used = 0
    for t, done in zip(T, robust):
        single = (D0.sum(axis=1) == 1) & D0[np.arange(d), np.maximum(t, 0)] & (t >= 0)
        switch = single & (hid.sum(axis=(0, 2)) > hid[:, np.arange(d), np.maximum(t, 0)].sum(axis=0))
        winners = [w for w in range(m) if _winner_possible(tab, t, w)]
        if done or switch.any() or len(winners) != 1:
            continue
        used += 1
        w = winners[0]
        active = [j for j in range(d) if not single[j]]  # the others are forced to t_j: factor 1
        tau = {}
        for j in active:
            g, a0 = (w, j, int(t[j])), int(obs[w, j, t[j]])
            tau[j] = prog.var(-2.0, np.inf, integer=False)
            for c in _tangent_points(a0, a0 + int(hid[g])):  # tau <= log c - 1 + u / c
                prog.row({tau[j]: 1.0, **({x[g]: -1.0 / c} if g in x else {})}, -np.inf, math.log(c) - 1 + a0 / c)
        for l in range(m):
            if l == w:
                continue
            row, const, worst = {k: 1.0 for k in tau.values()}, math.log(N[w]) - math.log(N[l]), 0.0
            const += len(active) * (math.log(N[l]) - math.log(N[w]))
            killable = []
            for j in active:
                H = int(obs[l, j, t[j]] + hid[l, j].sum())
                drop = [g for g in x if g[0] == l and g[1] == j and g[2] != t[j]]
                B = sum(int(hid[g]) for g in drop)
                if H == 0:
                    break  # this rival's largest support is already 0: beaten
                span = B - 1 if H == B else B
                slope = (math.log(H) - math.log(H - span)) / span if span > 0 else 0.0
                const -= math.log(H)
                worst -= math.log(H)
                for g in drop:  # -log(H - b) <= -log H + slope * b
                    row[x[g]] = row.get(x[g], 0.0) + slope
                if H == B:
                    kappa = prog.var(0, 1)
                    prog.row({**{x[g]: 1.0 for g in drop}, kappa: -float(B)}, 0, np.inf)  # kappa = 1 needs b = B
                    killable.append(kappa)
            else:
                big = abs(const) + 2.0 * len(active) + abs(worst) + 10.0
                for kappa in killable:
                    row[kappa] = big
                prog.row(row, -const, np.inf)
    if not used:
        return 0
    res = prog.solve(node_limit, time_limit, stops)
    if res.status == 2:
        return math.inf  # not even the relaxation can be met: no cleaning works
    bound = getattr(res, "mip_dual_bound", None)
    return max(0, math.ceil(bound - 1e-6)) if bound is not None and np.isfinite(bound) else 0


def _winner_possible(tab: CleaningTable, t: np.ndarray, w: int) -> bool:
    """Can w become the certified winner of t on its own (some branch feasible)?"""
    m, d, _ = tab.obs.shape
    facts = _column_facts(tab.obs, tab.hid)
    options = [_column_options(tab.obs[:, j], tab.hid[:, j], int(t[j]), w, True, facts[j]) for j in range(d)]
    for opts in itertools.product(*options):
        prob = _branch_problem(tab, t, w, opts, Fraction(0))[0]
        if prob._feasible_at_all():
            return True
    return False


def clean_many(tab: CleaningTable, T: np.ndarray, alpha=0, method: str = "auto",
               node_limit: int = 20_000, time_limit: float = 60.0) -> ManyCleaning:
    """Fewest cleanings making every point of T robust at once.

    ``greedy`` returns the pruned greedy answer with a proven lower bound: the largest
    single-point minimum and, for alpha = 0, the bound of ``relaxed_bound``.  ``exact`` (alpha = 0 only) also solves the program with HiGHS
    within ``node_limit`` nodes (and ``time_limit`` seconds as a safety net) and keeps the
    better verified answer; it is optimal when it meets the program's proven bound.
    ``auto`` is ``exact`` when alpha = 0 and the greedy answer has at most 300 cells.
    """
    alpha = as_alpha(alpha)
    if method not in ("auto", "exact", "greedy"):
        raise ValueError(f"unknown method {method!r} (use auto, exact or greedy)")
    if method == "exact" and alpha != 0:
        raise ValueError("the exact many-point program is for alpha = 0; use method='greedy'")
    zero = np.zeros_like(tab.hid)
    if all_robust(tab, T, zero, alpha):
        return ManyCleaning(True, zero, "greedy", True, 0)
    if not all(cleanable(tab, t, alpha) for t in T):
        return ManyCleaning(False, None, "greedy", True, None)  # some point alone is impossible
    floor, stops = 0, []
    if alpha == 0:
        floor = relaxed_bound(tab, T, node_limit, time_limit, stops)
        if floor == math.inf:
            return ManyCleaning(False, None, "greedy", True, None)
    floor, known = _largest_minimum(tab, T, alpha, floor)
    start = greedy_many(tab, T, alpha, known)
    use_exact = method == "exact" or (method == "auto" and alpha == 0 and start is not None and start.sum() <= 300)
    if not use_exact:
        if start is None:
            return ManyCleaning(False, None, "greedy", False, floor, bool(stops))
        return ManyCleaning(True, start, "greedy", int(start.sum()) <= floor, floor, bool(stops))
    upper = int(start.sum()) if start is not None else int(tab.hid.sum())
    best, lower = exact_many(tab, T, upper, floor, node_limit, time_limit, stops)
    if lower == math.inf:
        return ManyCleaning(False, None, "exact", True, None, bool(stops))
    found = [b for b in (best, start) if b is not None]
    if not found:
        return ManyCleaning(False, None, "exact", False, lower, bool(stops))
    x = min(found, key=lambda b: int(b.sum()))
    return ManyCleaning(True, x, "exact", int(x.sum()) <= lower, min(lower, int(x.sum())), bool(stops))


# ----------------------------------------------------------------------------- policy (no truth)

PRIORS = ("observed", "worlds")


def truth_odds(obs: np.ndarray, T: np.ndarray, prior: str) -> np.ndarray:
    """(k, m, d): probability that a missing cell of (label l, column j) holds t_j.

    ``worlds``: uniform over the column's domain, as the possible worlds weight it;
    ``observed``: label l's observed frequency of t_j in column j (the column's frequency
    when l has no observed cell there) -- the estimate when cells are missing at random.
    Not smoothed: real tables have values a label never takes, and smoothing them (one
    added count per value) made the policy chase such labels' zero counts (e.g. 11,149
    instead of 6,186 cells on mushrooms, 20 % missing).  0 where t_j is not in the domain.
    """
    m, d, K = obs.shape
    dom = obs.sum(axis=0) > 0
    delta = dom.sum(axis=1)
    Tc = np.maximum(T, 0)
    cols = np.arange(d)
    seen = (T >= 0) & dom[cols, Tc]  # (k, d)
    if prior == "worlds":
        odds = np.broadcast_to(1.0 / delta, (len(T), m, d))
    elif prior == "observed":
        per_label = obs.sum(axis=2)  # (m, d)
        own = obs[:, cols, Tc].transpose(1, 0, 2) / np.maximum(per_label, 1)  # (k, m, d)
        column = obs.sum(axis=0)[cols, Tc] / obs.sum(axis=(0, 2))  # (k, d)
        odds = np.where(per_label > 0, own, column[:, None, :])
    else:
        raise ValueError(f"unknown prior {prior!r} (use {' or '.join(PRIORS)})")
    return np.where(seen[:, None, :], odds, 0.0)


@dataclass(frozen=True)
class GroupScores:
    """Per (label, column) group: the policy's score for cleaning one more of its cells and
    how many non-robust points it may help as their likely winner's and as a rival's."""

    score: np.ndarray  # (m, d)
    as_winner: np.ndarray  # (m, d)
    as_rival: np.ndarray  # (m, d)
    todo: int  # non-robust points


def _deficits(obs, M, N, T, alpha, pi):
    """Per point: the bounds lo, hi (k, m, d) as floats, the likely winner w (the label the
    expected table predicts), and D (k, m) = log Smax_l - log Smin_w (0 where beaten or robust)."""
    a = float(alpha)
    m, d, _ = obs.shape
    dom = obs.sum(axis=0) > 0
    delta = dom.sum(axis=1)
    Tc = np.maximum(T, 0)
    cols = np.arange(d)
    seen = (T >= 0) & dom[cols, Tc]
    E = np.where(seen[:, None, :], obs[:, cols, Tc].transpose(1, 0, 2), 0)
    lo, hi = extremes(E, M, delta, seen)
    robust = decide_counts(lo, hi, N, delta, alpha).robust
    lo, hi = lo.astype(float) + a, hi.astype(float) + a
    zero = lo == 0
    lo = np.where(zero, 0.5, lo)  # a count of 0 weighs like half a count
    den = np.log(a) + np.log(delta + N[:, None] / a) if a > 1 else np.log(N[:, None] + a * delta)  # no overflow
    base = np.log(N) - den.sum(axis=1)  # (m,)
    k = np.arange(len(T))
    with np.errstate(divide="ignore", invalid="ignore"):
        expect = np.log(E + pi * M + a).sum(axis=2) + base
        w = np.argmax(np.nan_to_num(expect, nan=-np.inf), axis=1)
        smin = np.log(lo).sum(axis=2) + base
        smax = np.log(hi).sum(axis=2) + base
        D = np.maximum(smax - smin[k, w][:, None], 0.0)  # a rival with a zero count is beaten
    # while w has a zero count it beats nobody: every rival keeps at least the deficit that
    # one t_j cell (0 -> 1, weighed 0.5 -> 1.5) removes
    D = np.where(zero[k, w].any(axis=1)[:, None], np.maximum(D, math.log(3.0)), D)
    D[k, w] = 0.0
    D[robust] = 0.0
    if alpha == 0:  # a test value outside the domain: every support is 0, nothing visible helps
        D[~seen.all(axis=1)] = 0.0
    return lo, hi, w, D, robust


def group_scores(obs: np.ndarray, M: np.ndarray, N: np.ndarray, T: np.ndarray, alpha=0,
                 prior: str = "observed") -> GroupScores:
    """Score cleaning one more cell of each (label, column) group (a heuristic).

    For each non-robust point, w is the label the expected table predicts (missing cells
    filled by the prior's odds) and D_l = log Smax_l - log Smin_w its deficit against rival
    l.  A cell of w in column j raises lo_wj by one with odds pi that it holds t_j, shrinking
    every deficit (concave: scored by its first cell).  A cell of rival l lowers hi_lj by
    one with odds 1 - pi; that gain is convex in the cells cleaned, so the group is scored
    by its best average: the deficit over the cells expected to close it, or the whole
    group's gain over its size.  Gains are capped by the deficits and summed over points.
    Domain changes are ignored.
    """
    alpha = as_alpha(alpha)
    pi = truth_odds(obs, T, prior)
    lo, hi, w, D, robust = _deficits(obs, M, N, T, alpha, pi)
    k = np.arange(len(T))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        step = np.log1p(1.0 / lo[k, w])  # (k, d): w's gain from one more t_j cell
        win = np.minimum(D[:, :, None], step[:, None, :]).sum(axis=1) * pi[k, w]
        odds = 1.0 - pi
        close = hi * -np.expm1(-D)[:, :, None] / odds  # cells expected to close the deficit
        whole = np.minimum(D[:, :, None], -np.log1p(-odds * M / hi))  # the whole group's gain
        rival = np.where(close <= M, D[:, :, None] / np.maximum(close, 1.0), whole / M)
    gain = np.where((M > 0) & (D[:, :, None] > 0), np.nan_to_num(rival, nan=0.0), 0.0)
    gain[k, w] = np.where(M[w] > 0, np.nan_to_num(win, nan=0.0), 0.0)
    gain[robust] = 0.0
    helps = gain > 0
    is_w = np.zeros_like(helps)
    is_w[k, w] = True
    return GroupScores(gain.sum(axis=0), (helps & is_w).sum(axis=0), (helps & ~is_w).sum(axis=0),
                       int((~robust).sum()))


def next_group(obs, M, N, T, alpha=0, prior="observed"):
    """The (label, column) group the policy cleans next: the best score, else (no point
    left to help by the policy's estimate) the largest group; None when nothing is left."""
    if not M.any():
        return None
    s = group_scores(obs, M, N, T, alpha, prior).score
    s = np.where(M > 0, s, -1.0)
    if s.max() <= 0:
        s = np.where(M > 0, M.astype(float), -1.0)
    return np.unravel_index(int(np.argmax(s)), s.shape)


def follow(tab: CleaningTable, T: np.ndarray, choose, alpha=0, batch: int = 1, order: np.ndarray | None = None):
    """Clean with the truth revealed as cells are cleaned: ``choose(obs, M)`` names the next
    (label, column) group from what is observed so far, and ``batch`` of its cells are
    cleaned, until every point is robust or nothing is left.

    Within a group cells are taken in ``order`` (a key per row of ``enc``; default: row
    order).  Returns (cells in cleaning order as (row in enc, column), history of (cells
    cleaned, robust points) at every state from the start, every point robust at the end).
    """
    alpha = as_alpha(alpha)
    Z = tab.values()
    m, d, K = tab.obs.shape
    key = np.arange(tab.enc.n) if order is None else np.asarray(order)
    queue, done = {}, np.zeros((m, d), np.int64)  # a group's missing rows in order, and how many are cleaned
    for l in range(m):
        a, b = tab.enc.label_bounds[l], tab.enc.label_bounds[l + 1]
        for j in range(d):
            rows = a + np.flatnonzero(tab.missing[a:b, j])
            queue[(l, j)] = rows[np.argsort(key[rows], kind="stable")]
    obs, M = tab.obs.copy(), tab.hid.sum(axis=2)
    taken, history, cleaned = [], [], 0
    while True:
        count = int(state_decision(obs, M, tab.N, T, alpha).robust.sum())
        history.append((cleaned, count))
        if count == len(T) or not M.any():
            cells = [(r, j) for rows, j in taken for r in rows.tolist()]
            return cells, history, count == len(T)
        l, j = choose(obs, M)
        take = queue[(l, j)][done[l, j]:done[l, j] + batch]
        done[l, j] += len(take)
        obs[l, j] += np.bincount(Z[take, j], minlength=K)
        M[l, j] -= len(take)
        taken.append((take, int(j)))
        cleaned += len(take)


def policy_path(tab: CleaningTable, T: np.ndarray, alpha=0, prior: str = "observed", batch: int = 1,
                order: np.ndarray | None = None):
    """The policy's path (see ``follow``): each step cleans cells of ``next_group``'s group."""
    return follow(tab, T, lambda obs, M: next_group(obs, M, tab.N, T, alpha, prior), alpha, batch, order)


# ----------------------------------------------------------------------------- results

@dataclass(frozen=True)
class PointCleaning:
    """The fewest cells whose cleaning certifies one test point (alone).

    ``cells`` lists (row position in the training table, column name), empty when the
    point is already robust; ``possible`` False (proven) when no cleaning makes it robust.
    ``label`` is the prediction the cleaned table certifies."""

    possible: bool
    cells: tuple = ()
    label: object = None

    @property
    def num_cells(self) -> int | None:
        return len(self.cells) if self.possible else None


@dataclass(frozen=True)
class TogetherCleaning:
    """Cells whose cleaning certifies every test point at once; ``optimal`` says whether the
    number is proven minimum, ``lower_bound`` is a proven bound on the minimum."""

    possible: bool
    cells: tuple
    method: str
    optimal: bool
    lower_bound: int | None

    @property
    def num_cells(self) -> int | None:
        return len(self.cells) if self.possible else None


@dataclass(frozen=True)
class CleaningReport:
    """What the truth says: per point its offline minimum, the fewest cells for all points
    together, and the cells the truth-free policy would clean, in order, until every point
    is robust (``path_certifies``) or nothing is left."""

    points: list
    together: TogetherCleaning
    path: tuple
    path_certifies: bool


def named(tab: CleaningTable, cells) -> tuple:
    """(row in enc, column) cells as (original row, column name), sorted."""
    out = [(int(tab.enc.rows[r]), j) for r, j in cells]
    return tuple((r, tab.enc.features[j]) for r, j in sorted(out))


def report(tab: CleaningTable, T: np.ndarray, alpha=0, prior: str = "observed", method: str = "auto",
           node_limit: int = 20_000, time_limit: float = 60.0, batch: int = 1) -> CleaningReport:
    """Offline minima per point and together, and the policy's path, with the truth known."""
    points = []
    for t in T:
        plan = offline_minimum(tab, t, alpha)
        points.append(PointCleaning(False) if plan is None else
                      PointCleaning(True, named(tab, tab.cells(plan.x)), tab.enc.labels[plan.winner]))
    many = clean_many(tab, T, alpha, method, node_limit, time_limit)
    together = TogetherCleaning(many.possible, named(tab, tab.cells(many.x)) if many.possible else (),
                                many.method, many.optimal, many.lower_bound)
    cells, _, certified = policy_path(tab, T, alpha, prior, batch)
    path = tuple((int(tab.enc.rows[r]), tab.enc.features[j]) for r, j in cells)
    return CleaningReport(points, together, path, certified)


def advice(enc: EncodedTable, T: np.ndarray, alpha=0, prior: str = "observed", top: int = 10) -> list:
    """The policy's ranked groups for a dirty table: per group (best first) a dict with its
    first missing cell, the group's size, score and the points it may help."""
    from ..decide import count_index

    m, d, K = enc.m, enc.d, int(enc.delta.max())
    index = count_index(enc)
    obs = np.zeros((m, d, K), np.int64)
    for j in range(d):
        obs[:, j, :enc.delta[j]] = index[:, enc.offsets[j]:enc.offsets[j + 1] - 1]
    M = index[:, enc.missing_codes]
    gs = group_scores(obs, M, enc.label_sizes, T, alpha, prior)
    order = np.argsort(-gs.score, axis=None, kind="stable")
    out = []
    miss = enc.is_missing()
    for g in order[:max(0, top)]:
        l, j = np.unravel_index(g, gs.score.shape)
        if gs.score[l, j] <= 0:
            break
        a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
        rows = a + np.flatnonzero(miss[a:b, j])
        first = int(enc.rows[rows].min())
        out.append({"row": first, "column": enc.features[j], "label": enc.labels[l], "score": float(gs.score[l, j]),
                    "group_cells": int(M[l, j]), "as_winner": int(gs.as_winner[l, j]),
                    "as_rival": int(gs.as_rival[l, j])})
    return out
