"""The fixed-domain problem: the fewest cleanings that make one winner certain.

Fix a would-be winner w and the domain each column ends with.  Then only two kinds of
cleaning matter: a cell of w in column j whose truth is t_j raises w's smallest count
lo_wj by one, and a cell of a rival l whose truth is not t_j lowers l's largest count
hi_lj by one; every other cleaning leaves the bounds alone.  The point is robust with
winner w iff, for every rival l,

    left_l * prod_j (lo_wj + alpha)  >  right_l * prod_j (hi_lj - b_lj + alpha)

(integers once alpha = p/q is cleared; left/right hold the label sizes, the columns whose
factor is fixed and the denominators).  Raising prod_j (lo_wj + a_j) with A cleanings is a
separable concave maximisation: *water-filling* (always raise the smallest count) is
optimal for every A, and a larger product helps every rival at once.  Each rival's side is
``nbcert.cleaning.rival.Rival``.  The rivals share the a's, so the optimum is min over A of
A + sum_l cost_l(A): computed for all A in floating point with a rounding bound, then
confirmed by exact integer arithmetic in best-first order (an A is evaluated exactly unless
its floating-point lower bound already exceeds the best exact total), so the result is
exact.

A search may be asked only for plans cheaper than a limit (the answer, when one exists, is
the plan the unlimited search returns).  Then the problem is first bounded from below by
the rivals' chord relaxations (``rival_floor``): if min over A of A plus their floors
exceeds the limit, it is skipped, and otherwise each rival's Pareto sets stop at the budget
the limit leaves it.  ``FixedDomain.upper`` finds a plan without search (water-filling and
each rival's ``rival_greedy``), checked exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..kernel import factor_numerator, log_numerator
from .rival import Rival, rival_floor, rival_greedy

_EPS = np.finfo(float).eps
_NEVER = np.iinfo(np.int64).max // 8  # an impossible cost; a few of them still sum in int64


def _tolerance(terms: int, biggest: float) -> float:
    """A generous bound on the rounding error of a sum of ``terms`` logs of size <= biggest."""
    return 64.0 * terms * terms * max(biggest, 1.0) * _EPS


def _waterfill_steps(c0: np.ndarray, cap: np.ndarray):
    """The water-filling steps (always raise the smallest count, lowest column first among
    equals): per step the column raised and its count before."""
    J = len(c0)
    level = (
        np.concatenate([c0[j] + np.arange(cap[j]) for j in range(J)])
        if J
        else np.zeros(0, np.int64)
    )
    col = np.repeat(np.arange(J), cap)
    order = np.lexsort((col, level))
    return col[order], level[order]


def _waterfill(c0: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Counts c(A) (A + 1, J) after A water-filling steps, for A = 0 .. sum(cap)."""
    col, _ = _waterfill_steps(c0, cap)
    steps = np.zeros((len(col) + 1, len(c0)), np.int64)
    steps[np.arange(1, len(col) + 1), col] = 1
    return c0 + np.cumsum(steps, axis=0)


def _waterfill_logs(c0: np.ndarray, cap: np.ndarray, alpha: Fraction):
    """sum_j log(q c_j(A) + p) for every A, summed step by step, and the steps' columns.
    The rounding grows with A (at most A ulps of the largest partial sum: below 1e-6 for
    10^7 steps), which the floor's margin covers."""
    col, level = _waterfill_steps(c0, cap)
    start = log_numerator(c0, alpha).sum()
    with np.errstate(invalid="ignore"):  # -inf + inf: replaced below when start is -inf
        gain = log_numerator(level + 1, alpha) - log_numerator(level, alpha)
        gain = np.where(level == 0, np.inf, gain) if alpha == 0 else gain  # 0 to finite
        logs = start + np.concatenate([[0.0], np.cumsum(gain)])
    if alpha == 0 and np.isneginf(start):  # a zero count: the product stays 0 until all rise
        zeros = np.flatnonzero(np.asarray(c0) == 0)
        first = np.searchsorted(np.cumsum(np.isin(col, zeros) & (level == 0)), len(zeros)) + 1
        logs = np.full(len(col) + 1, -np.inf)
        if first <= len(col):
            C = np.asarray(c0) + np.bincount(col[:first], minlength=len(c0))
            tail = log_numerator(C, alpha).sum() + np.concatenate([[0.0], np.cumsum(gain[first:])])
            logs[first:] = tail
    return logs, col


class FixedDomain:
    """The fixed-domain problem for one winner: min sum a + sum_l sum b_l such that, for
    every rival l, left_l * prod_j (q (cw_j + a_j) + p) > right_l * prod_j (q (h_lj - b_lj) + p)."""

    def __init__(self, cw, capA, h, capB, left, right, alpha: Fraction):
        self.alpha = alpha
        self.cw, self.capA = np.asarray(cw, np.int64), np.asarray(capA, np.int64)
        self.left, self.right = [int(v) for v in left], [int(v) for v in right]
        J = len(self.cw)
        big = max([1.0] + [abs(math.log(v)) for v in self.left + self.right if v > 0])
        top = max([1] + [int(v) for v in self.cw + self.capA] + [int(v) for hr in h for v in hr])
        self.tol = _tolerance(
            2 * J + 6, big + (2 * J + 2) * math.log(factor_numerator(top + 1, alpha) + 1)
        )
        self.h, self.capB = h, capB
        self.lower = -math.inf  # a lower bound on every plan's cost, once solve computed one

    def w_product(self, c) -> int:
        """The winner's exact product for counts c."""
        return math.prod(factor_numerator(v, self.alpha) for v in c)

    def _rival_product(self, h, b) -> int:
        """A rival's exact product with b of its cells h cleaned."""
        return math.prod(factor_numerator(int(hj) - int(bj), self.alpha) for hj, bj in zip(h, b))

    def feasible(self) -> bool:
        """Does cleaning every helpful cell make w the winner?  (If not, nothing does.)"""
        P = self.w_product(self.cw + self.capA)
        return all(
            r * self._rival_product(hr, cr) < lft * P
            for lft, r, hr, cr in zip(self.left, self.right, self.h, self.capB)
        )

    def _need(self, logP: np.ndarray, k: int) -> np.ndarray:
        """The bound the rival's log product must stay under, per A."""
        if self.left[k] == 0:
            return np.full(len(logP), -np.inf)
        if self.right[k] == 0:
            return np.where(np.isneginf(logP), -np.inf, np.inf)
        return logP + math.log(self.left[k]) - math.log(self.right[k])

    def upper(self):
        """(a, [b per rival]) of a plan found without search, or None: the winner's
        water-filled cells and each rival's :func:`rival_greedy` plan, at the count A whose
        total is smallest in floating point, checked exactly."""
        if not self.feasible():
            return None
        logP, col = _waterfill_logs(self.cw, self.capA, self.alpha)
        total, plans = np.arange(len(logP), dtype=float), []
        for k, (hr, cr) in enumerate(zip(self.h, self.capB)):
            R, amounts = rival_greedy(hr, cr, self.alpha)
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
            if not self.right[k] * self._rival_product(self.h[k], b) < self.left[k] * P:
                return None
        return a, bs

    def _floor(self, needs: list, limit):
        """A lower bound on every plan's cost: min over A of A plus each rival's fewest
        cleanings in the chord relaxation (:func:`rival_floor`); and per rival the budget
        its own cells must stay under for a plan cheaper than ``limit``: limit less the
        least A plus the other rivals' floors, over the A where it can be satisfied."""
        floors = [
            rival_floor(hr, cr, self.alpha, need, self.tol)
            for hr, cr, need in zip(self.h, self.capB, needs)
        ]
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
        if not self.feasible():
            return None
        budgets = [limit] * len(self.h)
        if limit < math.inf:
            logs, _ = _waterfill_logs(self.cw, self.capA, self.alpha)
            self.lower, budgets = self._floor(
                [self._need(logs, k) for k in range(len(self.h))], limit
            )
            if self.lower >= limit:
                return None  # even the relaxation costs too much
        C = _waterfill(self.cw, self.capA)  # (A + 1, J) w's counts after A cleanings
        with np.errstate(divide="ignore"):
            logP = log_numerator(C, self.alpha).sum(axis=1)
        needs = [self._need(logP, k) for k in range(len(self.h))]
        rivals = [
            Rival(hr, cr, self.alpha, self.tol, b) for hr, cr, b in zip(self.h, self.capB, budgets)
        ]
        lo = np.arange(len(C), dtype=np.int64)
        for r, need in zip(rivals, needs):
            with np.errstate(invalid="ignore"):
                idx = np.searchsorted(-r.curve, -(need + self.tol), side="right")
            lo += np.where(np.isneginf(need) | (idx >= len(r.curve)), _NEVER, idx)
        best, best_plan = limit, None
        for A in np.argsort(lo, kind="stable"):
            if lo[A] >= min(best, _NEVER):
                break
            P = self.w_product(C[A])
            total, plans = int(A), []
            for k, r in enumerate(rivals):
                got = r.cheapest(self.left[k] * P, self.right[k], float(needs[k][A]), best - total)
                if got is None:
                    break
                total += got.cost
                plans.append(got)
            else:
                best, best_plan = total, (C[A] - self.cw, plans)
        if best_plan is None:
            return None
        a, plans = best_plan
        return int(best), a, [r.amounts(pl) for r, pl in zip(rivals, plans)]
