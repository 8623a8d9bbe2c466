"""Poisoning several test points at once (beyond the paper, whose section 5.2 proves it
NP-hard for three or more features and stops there).

The fewest cells to blank in a complete table (alpha = 0) so that every given test point
stops being certifiably robust:

* ``greedy``: repeatedly take the still-robust point whose single-point OP plan, worked
  out on the table as poisoned so far, is cheapest, and blank its cells.  Blanking more
  cells never makes a point robust again while every column keeps t_j and another value,
  and the result is checked exactly for every point at the end.
* ``exact``: a mixed-integer program solved by HiGHS (scipy.optimize.milp) with a time
  limit.  Cells of one (label, column, value) are interchangeable, so the variables are
  how many of each group to blank; per point, one-hot variables select l*'s agreeing and
  each rival's disagreeing counts per column, and a linear constraint on their logarithms
  states the point's non-robustness for one chosen rival (the single-point condition of
  ``poisoning``).  The program is slightly relaxed (a 1e-9 margin on logarithms), so its
  objective bound is a proven lower bound on the optimum; the solution is checked exactly
  and, if it passes and meets the bound, it is the optimum.  The greedy answer bounds the
  counts from above.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .encoding import EncodedTable
from .poisoning import PoisonedCounts, cells_of, plans, poison_encoded
from .stats import count_index


@dataclass(frozen=True)
class ManyPoisoning:
    """Cells to blank so that every given test point is non-robust at once.

    ``optimal`` says whether ``cells`` is proven minimum; ``lower_bound`` is a proven bound
    on the minimum (equal to ``num_cells`` when optimal).  ``possible`` False with
    ``optimal`` True is a proof that no blanking works; otherwise it only says that none
    was found (``status`` names the cases as ``Poisoning.status`` does).  The exact program can miss (and then not prove) an optimum that leaves a
    column with a single value, whose blanks are all forced to it.
    """

    possible: bool
    cells: tuple = ()
    method: str = "greedy"
    optimal: bool = False
    lower_bound: int | None = None
    time_limited: bool = False  # the solver's time limit cut a solve short: may differ between runs

    @property
    def num_cells(self) -> int | None:
        return len(self.cells) if self.possible else None

    @property
    def status(self) -> str:
        """'poisoned', 'already_nonrobust', 'impossible' (proven) or 'none_found'."""
        if self.possible:
            return "poisoned" if self.cells else "already_nonrobust"
        return "impossible" if self.optimal else "none_found"


def _names(enc, blanked: np.ndarray) -> tuple:
    r, j = np.nonzero(blanked)
    order = np.lexsort((j, enc.rows[r]))
    return tuple((int(enc.rows[r[o]]), enc.features[j[o]]) for o in order)


def _blank_all(states, blanked, cells):
    for j, rows in cells:
        rows = rows[~blanked[rows, j]]
        blanked[rows, j] = True
        for st in states:
            st.blank(rows, j)


def _states(enc: EncodedTable, T: np.ndarray) -> list:
    """One PoisonedCounts per test point, from one counting pass."""
    counts = count_index(enc)
    return [PoisonedCounts(enc, t, counts) for t in T]


def all_nonrobust(enc, T, blanked) -> bool:
    """Exact check: after blanking the cells of the (n, d) mask, is every point non-robust?"""
    states = _states(enc, T)
    _blank_all(states, np.zeros_like(blanked), [(j, np.flatnonzero(blanked[:, j])) for j in range(enc.d)])
    return not any(st.robust() for st in states)


def greedy(enc: EncodedTable, T: np.ndarray) -> np.ndarray | None:
    """Blanked-cell mask (n, d) making every point non-robust, or None if greedy fails.

    Each round takes, over the still-robust points, the cheapest single-point plan (worked
    out on the table as poisoned so far) that ends its point's robustness without making
    any other point robust again (a column left with t_j alone forces blanks back)."""
    states = _states(enc, T)
    blanked = np.zeros((enc.n, enc.d), bool)
    for _ in range(4 * len(T) + 4):
        live = [(st, star) for st in states if (star := st.winner()) >= 0]
        if not live:
            return blanked
        done = len(states) - len(live)
        options = sorted(((cost, i, steps) for i, (st, star) in enumerate(live)
                          for cost, steps in plans(enc, star, st)), key=lambda o: (o[0], o[1]))
        for _, i, steps in options:
            cells = cells_of(enc, live[i][0].tcode, steps, blanked)
            trial = [st.copy() for st in states]
            _blank_all(trial, blanked.copy(), cells)
            if sum(1 for st in trial if not st.robust()) > done:
                _blank_all(states, blanked, cells)
                break
        else:
            return None
    return None


def _milp(enc: EncodedTable, T: np.ndarray, upper: int, time_limit: float):
    """Solve the relaxed program; returns (blanked mask or None, proven lower bound, whether
    the time limit stopped a solve: then the answer depends on the machine's speed)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix

    n, d, m = enc.n, enc.d, enc.m
    N = enc.label_sizes
    # group sizes: count of (label, column, global code)
    group = np.zeros((m, d, enc.n_codes), np.intp)
    for l in range(m):
        block = enc.X[enc.label_bounds[l]:enc.label_bounds[l + 1]]
        for j in range(d):
            group[l, j] = np.bincount(block[:, j], minlength=enc.n_codes)
    states = _states(enc, T)
    points = [(st, st.winner()) for st in states]
    points = [(st, star) for st, star in points if star >= 0]
    usable = enc.delta >= 2

    cols, lo, hi, cost, integral = [], [], [], [], []

    def var(lower, upper_, c=0.0):
        cols.append(len(cols))
        lo.append(lower)
        hi.append(upper_)
        cost.append(c)
        integral.append(1)
        return len(cols) - 1

    y = {}

    def yv(l, j, v):
        if (l, j, v) not in y:
            y[(l, j, v)] = var(0, min(int(group[l, j, v]), upper), 1.0)
        return y[(l, j, v)]

    rows_eq, rows_le = [], []  # (coefficients dict, rhs)
    L = math.log(n + 1)
    pen = 10 * d * L + 10  # a largest support of zero: the rival cannot win this way
    for st, star in points:
        t = st.tcode
        A0 = st.A
        C = {}
        lhs_terms = []
        for j in np.flatnonzero(usable):
            a_max = min(int(A0[star, j]), upper)
            z = [var(0, 1) for _ in range(a_max + 1)]
            rows_eq.append(({**{zi: 1.0 for zi in z}}, 1.0))
            rows_eq.append(({**{zi: float(a) for a, zi in enumerate(z)}, yv(star, j, int(t[j])): -1.0}, 0.0))
            for a, zi in enumerate(z):
                lhs_terms.append((zi, math.log(A0[star, j] - a) if a < A0[star, j] else None))
        rivals = [l for l in range(m) if l != star]
        r = {l2: var(0, 1) for l2 in rivals}
        rows_le.append(({ri: -1.0 for ri in r.values()}, -1.0))
        const = sum(math.log(A0[star, j]) for j in np.flatnonzero(~usable))
        for l2 in rivals:
            coef = {}
            rhs = (d - 1) * (math.log(N[star]) - math.log(N[l2])) - const
            rhs += sum(math.log(A0[l2, j]) if A0[l2, j] else -pen for j in np.flatnonzero(~usable))
            for j in np.flatnonzero(usable):
                others = [v for v in range(enc.offsets[j], enc.offsets[j + 1] - 1) if v != t[j] and group[l2, j, v]]
                b_max = min(int(N[l2] - A0[l2, j]), upper)
                w = [var(0, 1) for _ in range(b_max + 1)]
                rows_eq.append(({wi: 1.0 for wi in w}, 1.0))
                link = {wi: float(b) for b, wi in enumerate(w)}
                for v in others:
                    link[yv(l2, j, v)] = link.get(yv(l2, j, v), 0.0) - 1.0
                rows_eq.append((link, 0.0))
                for b, wi in enumerate(w):
                    g = math.log(A0[l2, j] + b) if A0[l2, j] + b else -pen
                    coef[wi] = coef.get(wi, 0.0) - g
            C[l2] = (coef, rhs)
        kill = d * pen + d * L + 10 * (d + 1) * L + 10  # l*'s smallest support is zero: always non-robust
        big = 2 * kill + 2 * d * pen
        for l2, (coef, rhs) in C.items():
            row = dict(coef)
            for zi, f in lhs_terms:
                row[zi] = row.get(zi, 0.0) + (f if f is not None else -kill)
            row[r[l2]] = row.get(r[l2], 0.0) + big
            rows_le.append((row, rhs + big + 1e-9))
    timed_out = []

    def solve(cuts, seconds):
        rows = rows_eq + rows_le + cuts
        A = lil_matrix((len(rows), len(cols)))
        for i, (row, _) in enumerate(rows):
            for c_, v in row.items():
                A[i, c_] = v
        lb = [rhs for _, rhs in rows_eq] + [-np.inf] * (len(rows_le) + len(cuts))
        ub = [rhs for _, rhs in rows]
        options = {"time_limit": seconds, "disp": False}
        res = milp(np.array(cost), constraints=LinearConstraint(A.tocsr(), lb, ub), integrality=np.array(integral),
                   bounds=Bounds(lo, hi), options=options)
        if res.status == 1 and "time" in str(res.message).lower():
            timed_out.append(True)
        bound = getattr(res, "mip_dual_bound", None)
        lower = max(0, math.ceil(bound - 1e-6)) if bound is not None and np.isfinite(bound) else 0
        if res.status == 2:  # infeasible: no blanking at all works
            return None, math.inf
        if res.x is None:
            return None, lower
        blanked = np.zeros((n, d), bool)
        for (l, j, v), idx in y.items():
            count = int(round(res.x[idx]))
            if count:
                a = enc.label_bounds[l]
                rows_ = a + np.flatnonzero(enc.X[a:enc.label_bounds[l + 1], j] == v)[:count]
                blanked[rows_, j] = True
        return blanked, lower

    def cut_forcing(blanked):
        """Rows forbidding what made a solution fail: a column left with t_j as its only value
        forces every blank back to t_j, which the program does not model."""
        cuts = []
        for st in states:
            t = st.tcode
            for j in range(d):
                col = enc.X[:, j][~blanked[:, j]]
                if col.size and np.all(col == t[j]):
                    others = {idx: 1.0 for (l, jj, v), idx in y.items() if jj == j and v != t[j]}
                    total = int(np.sum(enc.X[:, j] != t[j]))
                    if others:
                        cuts.append((others, float(total - 1)))
        return cuts

    # The first solve is a relaxation of the true problem (every valid blanking satisfies
    # it), so its bound is a proven lower bound.  Its solution may rely on a column left
    # with t_j alone; forbid that and solve again, a few times at most.
    deadline = time.monotonic() + time_limit
    blanked, lower = solve([], time_limit)
    cuts = []
    for _ in range(5):
        if blanked is None or all_nonrobust(enc, T, blanked):
            break
        cuts += cut_forcing(blanked)
        left = deadline - time.monotonic()
        if left <= 0:
            blanked = None
            timed_out.append(True)
            break
        blanked, _ = solve(cuts, left)
    else:
        blanked = None
    return blanked, lower, bool(timed_out)


MAX_PROGRAM_VARIABLES = 300_000


def _program_size(enc: EncodedTable, T: np.ndarray, upper: int) -> int:
    """How many one-hot variables the program needs (an upper estimate)."""
    size = 0
    for st in _states(enc, T):
        width = np.minimum(np.maximum(st.A, enc.label_sizes[:, None] - st.A), upper) + 1
        size += int(width.sum())
    return size


def poison_many_encoded(enc: EncodedTable, T: np.ndarray, method: str = "auto",
                        time_limit: float = 30.0) -> ManyPoisoning:
    """Fewest cells making every test point (local codes T, shape (k, d)) non-robust.

    ``greedy`` returns the heuristic's answer.  ``exact`` solves the program within
    ``time_limit`` seconds (a result the limit cut short says so in ``time_limited``: it
    depends on the machine's speed), skipped when it would exceed MAX_PROGRAM_VARIABLES, and returns
    the best verified answer with a proven lower bound: the larger of the program's bound
    and the largest single-point minimum.  ``auto`` is ``exact`` when the greedy answer has
    at most 200 cells, ``greedy`` otherwise.
    """
    if method not in ("auto", "exact", "greedy"):
        raise ValueError(f"unknown method {method!r} (use auto, exact or greedy)")
    if enc.m == 1:  # one label is predicted in every world, whatever is blanked
        return ManyPoisoning(False, method=method, optimal=True)
    start = greedy(enc, T)
    if start is not None and not start.any():
        return ManyPoisoning(True, (), "greedy", True, 0)
    if method == "greedy" or (method == "auto" and (start is None or start.sum() > 200)):
        if start is None:
            return ManyPoisoning(False, method="greedy")
        return ManyPoisoning(True, _names(enc, start), "greedy", False, None)
    upper = int(start.sum()) if start is not None else enc.n * enc.d
    # every point needs at least its own single-point minimum (OP is exact)
    singles = [poison_encoded(enc, t, "op") for t in T]
    if not all(p.possible for p in singles):
        return ManyPoisoning(False, method="exact", optimal=True)
    floor = max(p.num_cells for p in singles)
    timed_out = False
    if _program_size(enc, T, upper) > MAX_PROGRAM_VARIABLES:
        blanked, lower = None, 0  # too large to build: the greedy answer and the single-point bound
    else:
        blanked, lower, timed_out = _milp(enc, T, upper, time_limit)
    lower = max(lower, floor)
    if lower == math.inf:
        return ManyPoisoning(False, method="exact", optimal=True)
    candidates = [b for b in (blanked, start) if b is not None]
    if not candidates:
        return ManyPoisoning(False, method="exact", lower_bound=lower, time_limited=timed_out)
    best = min(candidates, key=lambda b: int(b.sum()))
    cells = int(best.sum())
    return ManyPoisoning(True, _names(enc, best), "exact", cells <= lower, min(lower, cells), timed_out)
