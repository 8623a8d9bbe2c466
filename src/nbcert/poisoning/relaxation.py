"""The relaxed program of poisoning points together (``nbcert.poisoning.together``'s exact method).

Cells of one (label, column, value) are interchangeable, so the variables are how many of
each *group* to blank (a column's values that are no point's test value form one group).
Point p with winner l* becomes non-robust through rival r iff sum_j rho_j(a_j) + sum_j
gamma_j(b_j) >= Delta_pr, where a_j of l*'s A_j agreeing cells are blanked (rho = log A -
log(A - a): convex), b_j of r's disagreeing ones (gamma = log(A' + b) - log A': concave)
and Delta_pr = log Smin(l*) - log Smax(r) before blanking; or by a *kill* (all of l*'s t_j
cells blanked), or by *forcing* (a column left with t_j alone counts 1 for every label:
its credit D = its share of Delta).  The program relaxes this, so every blanking of fewer
cells than the best known satisfies it (up to a 1e-9 margin on logarithms) and its bound
is proven: gamma is bounded by secants through integer neighbours (exact at integers); l*'s
credit min(rho, need) by its chords between breakpoints (exact there; an interval per 0/1
column) and, per rival, by the chord of a copy of the count that is zero unless that rival
is the chosen reason: exactly one reason per point, the copies of a group at most its count
(the convex hull of the point's reasons, which keeps the linear relaxation close to the
single-point minima).  A point's blank test cell leaves its column out of its terms (its
factor is 1: ``nbcert.blanks``).  After each solve, breakpoints and cut points are added where the
bounds were not exact at its answer (``Relaxation.refine``).
"""

from __future__ import annotations

import math

import numpy as np

from ..milp import Program
from ..stats import tally
from ..stats.domains import EncodedTable

MARGIN = 1e-9  # the program asks a little less than non-robustness: a relaxation despite rounding
GRID_START, GRID_RATIO = 5, 1.5


def _rho(A: int, a) -> float:
    """How much blanking a of l*'s A agreeing cells lowers the log of its smallest count."""
    return math.log(A) - math.log(A - a)


def _gamma(A: int, b) -> float:
    """How much blanking b disagreeing cells raises the log of a rival's largest count (A
    its agreeing count; a count of 0 is taken as 1, the rival then needs b >= 1)."""
    return math.log(A + b) - math.log(max(A, 1))


def _grid(lo: int, hi: int) -> set:
    """Where a rival's count is first cut: GRID_START integers from lo, then a geometric
    grid of ratio GRID_RATIO, up to hi."""
    pts, c = set(), lo
    while c <= hi:
        pts.add(c)
        c = c + 1 if c < lo + GRID_START else math.ceil(c * GRID_RATIO)
    return pts


class Relaxation:
    """The relaxed program over group counts (module docstring), refined between solves.

    Groups are (label, column, class); a column's classes are the points' test values
    in it (by position in ``values[j]``) and, last, every other value together."""

    def __init__(self, enc: EncodedTable, states: list):
        self.enc = enc
        live = [(star, st) for st in states if (star := st.winner()) >= 0]
        self.points = [(star, st.tcode) for star, st in live]
        counts = tally(enc)
        N = enc.label_sizes
        self.cols = [int(j) for j in np.flatnonzero(enc.delta >= 2)]
        # per point, the columns its factor depends on: a blank test cell's is 1
        self.used = [[j for j in self.cols if not st.free[j]] for _, st in live]
        self.values = {
            j: sorted({int(t[j]) for (_, t), u in zip(self.points, self.used) if j in u})
            for j in self.cols
        }
        self.size = {}
        for j, vals in self.values.items():
            own = counts[:, vals]
            for (l, c), g in np.ndenumerate(np.column_stack([own, N - own.sum(axis=1)])):
                self.size[(l, j, c)] = int(g)
        # (m, d) agreeing counts per point; N_l where its test cell is blank (factor 1)
        self.A = [np.where(st.free, N[:, None], counts[:, st.tcode]) for _, st in live]
        self.breaks: dict = {}  # star group -> breakpoints of its blanked count
        self.cuts: dict = {}  # rival group -> where its count is cut

    def group(self, l: int, j: int, t) -> tuple:
        return l, j, self.values[j].index(int(t[j]))

    def classes(self, l: int, j: int, skip: int) -> list:
        """The groups of (l, j) other than class ``skip`` that have cells."""
        return [
            (l, j, c) for c in range(len(self.values[j]) + 1) if c != skip and self.size[(l, j, c)]
        ]

    def gap(self, p: int, r: int) -> float:
        """log Smin(l*) - log Smax(r) before blanking, a rival count 0 taken as 1."""
        star, _ = self.points[p]
        N, d, A = self.enc.label_sizes, self.enc.d, self.A[p]
        return float(np.log(A[star]).sum() - np.log(np.maximum(A[r], 1)).sum()) - (d - 1) * (
            math.log(N[star]) - math.log(N[r])
        )

    def need(self, p: int) -> float:
        """The most any rival of point p needs: credit beyond it is never used.  (A gap
        can be negative: a rival whose count 0 is taken as 1 needs only b >= 1.)"""
        star = self.points[p][0]
        return max(0.0, max(self.gap(p, r) for r in range(self.enc.m) if r != star))

    def credit(self, g, p: int, a: float) -> float:
        """min(rho(a), need(p)): what blanking a cells of star group g is worth to point p."""
        A, need = self.size[g], self.need(p)
        return need if a >= A else min(_rho(A, a), need)

    def build(self, budget: int, floor: int):
        """The relaxed program for blankings of floor..budget cells: (program, handles)."""
        enc, prog = self.enc, Program()
        y = {g: prog.int_var(0, min(size, budget), 1.0) for g, size in self.size.items() if size}
        prog.row({v: 1.0 for v in y.values()}, floor, budget)
        for j in self.cols:  # a column keeps an observed cell
            prog.row({v: 1.0 for g, v in y.items() if g[1] == j}, -np.inf, enc.n - 1)
        force = self._forcing(prog, y, budget)
        users: dict = {}
        for p, (s, t) in enumerate(self.points):
            for j in self.used[p]:
                users.setdefault(self.group(s, j, t), []).append(p)
        star = {g: self._star(prog, y[g], g, ps, budget) for g, ps in users.items()}
        rival: dict = {}
        for p in range(len(self.points)):
            self._point(prog, y, star, force, rival, p, budget)
        return prog, (y, star, rival)

    def _point(self, prog, y, star, force, rival, p, budget):
        """Point p's disjunction: exactly one reason (a rival reaching l*, or a kill).  l*'s
        credit under each rival is a copy of the star counts it uses (zero unless chosen),
        the copies of a group together at most its count: the convex hull of the reasons."""
        s, t = self.points[p]
        reasons, link = {}, {}
        for j in self.used[p]:
            g = self.group(s, j, t)
            if self.size[g] <= budget:  # kill: every agreeing cell of l* blanked
                kill = prog.int_var(0, 1)
                reasons[kill] = 1.0
                link.setdefault(g, {})[kill] = float(self.size[g])
        for r in range(self.enc.m):
            if r != s:
                z = prog.int_var(0, 1)
                reasons[z] = 1.0
                row = {}
                for j in self.used[p]:
                    self._copy(prog, star, row, link, p, self.group(s, j, t), z, budget)
                    self._rival(prog, y, force, rival, row, p, r, j, z, budget)
                row[z] = -(self.gap(p, r) - MARGIN)
                prog.row(row, 0)
        prog.row(reasons, 1, 1)
        for g, coef in link.items():
            prog.row({**coef, y[g]: -1.0}, -np.inf, 0)

    def _copy(self, prog, star, row, link, p, g, z, budget):
        """l*'s credit from star group g under one rival (z): a copy a of the blanked count
        (no kill), credit <= its chord up to where rho reaches the need, <= need z, and <=
        the group's own bound (exact at its breakpoints)."""
        A, top, need = self.size[g], min(self.size[g] - 1, budget), self.need(p)
        if top <= 0 or need <= 0 or p not in star[g][0]:
            return
        a, rc = prog.real_var(0, top), prog.real_var(0, need)
        link.setdefault(g, {})[a] = 1.0
        end = min(top, A * -math.expm1(-need))  # rho(end) = need
        prog.row({a: 1.0, z: -float(top)}, -np.inf, 0)
        prog.row({rc: 1.0, a: -min(_rho(A, end), need) / end}, -np.inf, 0)
        prog.row({rc: 1.0, z: -need}, -np.inf, 0)
        prog.row({rc: 1.0, star[g][0][p]: -1.0}, -np.inf, 0)
        row[rc] = 1.0

    def _forcing(self, prog, y, budget) -> dict:
        """A 0/1 column per affordable (column, test value) left alone in its column."""
        force = {}
        for j in self.cols:
            for c in range(len(self.values[j])):
                rest = [g for l in range(self.enc.m) for g in self.classes(l, j, c)]
                if sum(self.size[g] for g in rest) <= budget:
                    force[(j, c)] = f = prog.int_var(0, 1)
                    for g in rest:
                        prog.row({y[g]: 1.0, f: -float(self.size[g])}, 0)
        return force

    def _star(self, prog, yv, g, users, budget):
        """l*'s credit from a star group: ({point: column}, breakpoints).  Each point's
        credit min(rho(a), need) is convex, then flat; it is bounded above by its chords
        between breakpoints (the interval a lies in chosen by 0/1 columns), each capped by
        the need, and the flat part from the point where rho reaches it."""
        A = self.size[g]
        top = min(A, budget)
        if top <= 0:
            return {}, [0]
        pts = sorted({b for b in self.breaks.setdefault(g, set()) if 0 < b < top} | {0, top})
        spans = list(zip(pts[:-1], pts[1:]))
        if len(spans) == 1:
            lam, alpha = [None], [yv]
        else:
            lam = [prog.int_var(0, 1) for _ in spans]
            alpha = [prog.real_var(0, v) for _, v in spans]
            prog.row({lk: 1.0 for lk in lam}, 1, 1)
            prog.row({yv: 1.0, **{ak: -1.0 for ak in alpha}}, 0, 0)
            for (u, v), lk, ak in zip(spans, lam, alpha):
                prog.row({ak: 1.0, lk: -float(u)}, 0)
                prog.row({ak: 1.0, lk: -float(v)}, -np.inf, 0)
        rho = {}
        for p in users:
            need = self.need(p)
            rho[p] = prog.real_var(0, need)
            bound = {rho[p]: 1.0}
            for (u, v), lk, ak in zip(spans, lam, alpha):
                fu, end = self.credit(g, p, u), min(v, A * -math.expm1(-need))
                slope = (self.credit(g, p, end) - fu) / (end - u) if end > u else 0.0
                bound[ak] = bound.get(ak, 0.0) - slope
                if lk is not None:
                    bound[lk] = -(fu - slope * u)
            prog.row(bound, -np.inf, 0)
        return rho, pts

    def _rival(self, prog, y, force, rival, row, p, r, j, z, budget):
        """Add rival r's term of column j to point p's row: the rise tau of the log of its
        largest count, bounded by secants through integer neighbours (exact at both) and
        shared by the points with the same test value; and the credit of leaving that
        value alone in the column (forcing)."""
        s, t = self.points[p]
        h = self.group(r, j, t)
        A, f = self.size[h], force.get((j, h[2]))
        if f is not None:
            D = math.log(self.A[p][s, j] / self.enc.label_sizes[s]) - math.log(
                max(A, 1) / self.enc.label_sizes[r]
            )
            row[f] = row.get(f, 0.0) + max(D, 0.0)
        others = [y[g] for g in self.classes(r, j, h[2])]
        if A == 0:  # the rival's largest count is 0 unless b >= 1 (or the column is forced)
            prog.row(
                {**{v: 1.0 for v in others}, z: -1.0, **({f: 1.0} if f is not None else {})}, 0
            )
        key = h if A else (p, r, j)
        if key not in rival:
            rival[key] = self._cut(prog, others, h, z if A == 0 else None, f)
        tau = rival[key][0]
        if tau is not None:
            row[tau] = row.get(tau, 0.0) + 1.0

    def _cut(self, prog, others, h, z, f):
        """tau <= gamma(b) by the secant through (b0, b0 + 1) for each cut point b0.  For a
        rival count of 0 (z given) the secants hold for b >= 1, and are relaxed by
        K (1 - z + f) where b = 0 is allowed."""
        A, low = self.size[h], 0 if z is None else 1
        top = sum(self.size[g] for g in self.classes(h[0], h[1], h[2]))
        if top <= low:
            return None, others, h, low
        tau = prog.real_var(0, _gamma(A, top))
        for b0 in sorted(b for b in self.cuts.setdefault(h, _grid(low, top)) if low <= b < top):
            slope = _gamma(A, b0 + 1) - _gamma(A, b0)
            rhs = _gamma(A, b0) - slope * b0
            coef = {tau: 1.0, **{v: -slope for v in others}}
            if z is not None:
                K = max(0.0, -rhs)
                coef[z] = K
                if f is not None:
                    coef[f] = -K
                rhs += K
            prog.row(coef, -np.inf, rhs)
        return tau, others, h, low

    def refine(self, x, handles) -> bool:
        """Make the bounds exact at the solution's counts where they were not: a breakpoint
        or a cut point there.  False when every bound was exact (nothing to refine)."""
        y, star, rival = handles
        new = False
        for g, (rho, pts) in star.items():
            a = round(x[y[g]])
            if a not in pts and any(x[v] > self.credit(g, p, a) + 1e-9 for p, v in rho.items()):
                self.breaks[g].add(a)
                new = True
        for tau, others, h, low in rival.values():
            b = round(sum(x[v] for v in others))
            if (
                tau is not None
                and b >= low
                and b not in self.cuts[h]
                and x[tau] > _gamma(self.size[h], b) + 1e-9
            ):
                self.cuts[h].add(b)
                new = True
        return new

    def blanked(self, x, y) -> np.ndarray:
        """The (n, d) mask of the program's group counts (rounded up), first rows first."""
        enc = self.enc
        out = np.zeros((enc.n, enc.d), bool)
        for (l, j, c), v in y.items():
            count = math.ceil(x[v] - 1e-6)
            if count:
                a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
                col, vals = enc.X[a:b, j], self.values[j]
                hit = col == vals[c] if c < len(vals) else ~np.isin(col, vals)
                out[a + np.flatnonzero(hit)[:count], j] = True
        return out
