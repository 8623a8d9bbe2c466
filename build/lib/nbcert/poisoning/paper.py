"""The paper's one-point poisoning as it argues it, beside nbcert's exact OP (``minimum``).

* ``pure_strategies``: Section 5.1.3 as the paper argues it: per rival, either every blank
  on the predicted label's smallest agreeing count (A2) or every blank on the rival's
  smallest largest counts, water-filled (A1), whichever is cheaper, with the capacities a
  table has (a column keeps a disagreeing cell; nbcert's caps).  The paper claims one pure
  strategy is optimal; a mixed plan can be cheaper when a strategy runs out of cells
  (``docs/design.md``, "One-point poisoning").
* ``authors_code``: the same two strategies as the authors' published code runs them
  (``greedy_poisoning``): counts are lowered or raised one at a time with no capacity, so
  a count may rise past the rival's rows; the answer is a valid blanking only when every
  step fits the table (``valid``), and is then checked on the table.

Both are answers for the report, timed like the others but never drawn in Figure 10.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .minimum import DISAGREE, Search, WaterFill
from .single import PoisonedCounts, cells_of

__all__ = ["pure_strategies", "authors_code"]


def _start(enc, t):
    """(state, predicted label) of a robust point, or (state, -1)."""
    state = PoisonedCounts(enc, t)
    return state, state.winner()


def pure_strategies(enc, t) -> int | None:
    """The fewest cells of the cheaper pure strategy over all rivals (0: already
    non-robust; None: neither strategy works against any rival)."""
    state, star = _start(enc, t)
    if star < 0:
        return 0
    search = Search(state)
    cfg = search.config((), 0)
    best = None
    for rival in range(enc.m):
        if rival == star:
            continue
        X, capB, Y, capA = search.sides(cfg, star, rival)
        CL, CR = search.constants(cfg, star, rival)
        y = Y.tolist()
        costs = [WaterFill(X, capB, 0, 1).first(CL, CR * math.prod(y))]  # A1
        if y:  # A2: every blank on the smallest agreeing count (all of it: no t_j left)
            j = int(np.argmin(Y))
            rest = CR * math.prod(y[:j] + y[j + 1 :])  # > 0: a robust label's counts are
            costs.append(max(0, y[j] - CL * math.prod(X.tolist()) // rest))
        costs = [c for c in costs if c is not None]
        if costs and (best is None or min(costs) < best):
            best = min(costs)
    return best


def _support(counts, N: int, d: int) -> Fraction:
    """n * S(l) of counts at alpha = 0."""
    return Fraction(N * math.prod(int(c) for c in counts), N**d)


def _lower(A, N, target) -> list:
    """The authors' A2: lower the smallest count by one until the support is at most target."""
    c, d, steps = list(A), len(A), []
    while _support(c, N, d) > target:
        j = int(np.argmin(c))
        c[j] -= 1
        steps.append(j)
    return steps


def _raise(A, N, target) -> list:
    """The authors' A1: raise the smallest count by one until the support reaches target."""
    c, d, steps = list(A), len(A), []
    while _support(c, N, d) < target:
        j = int(np.argmin(c))
        c[j] += 1
        steps.append(j)
    return steps


def authors_code(enc, t) -> tuple:
    """(cells, valid) of the authors' ``greedy_poisoning``: per rival the fewer steps of
    their A2 and A1 loops, the fewest over rivals; ``valid`` says whether those steps are a
    blanking of this table that ends the point's robustness (None: already non-robust)."""
    state, star = _start(enc, t)
    if star < 0:
        return 0, None
    N = enc.label_sizes
    A = state.A
    answer = None
    for rival in range(enc.m):
        if rival == star:
            continue
        low = _lower(A[star], int(N[star]), _support(A[rival], int(N[rival]), enc.d))
        high = _raise(A[rival], int(N[rival]), _support(A[star], int(N[star]), enc.d))
        plan = (
            (len(low), star, low, True)
            if len(low) <= len(high)
            else (len(high), rival, high, False)
        )
        if answer is None or plan[0] < answer[0]:
            answer = plan
    cells, label, columns, agree = answer
    return cells, _valid(enc, state, label, columns, agree)


def _valid(enc, state, label, columns, agree) -> bool:
    """Whether lowering (agree) or raising a label's counts in these columns is a blanking
    of the table (enough cells of each kind, a column keeps a value) that ends robustness."""
    steps = []
    for j in sorted(set(columns)):
        sel = int(state.tcode[j]) if agree else DISAGREE
        steps.append((label, j, sel, columns.count(j)))
    st = state.copy()
    for (_, j, _, count), (_, rows) in zip(steps, cells_of(enc, st.tcode, steps)):
        if len(rows) < count or st.left[j] - len(rows) < 1:
            return False
        st.blank(rows, j)
    return not st.robust()
