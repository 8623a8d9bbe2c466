"""The programs for HiGHS of cleaning points together (alpha = 0): the exact one and a relaxed bound.

**Exact.**  Integer group counts shared by all points, per point a winner indicator,
one-hot tables of every count a winner's or rival's factor can take, a log inequality per
(winner, rival), and a forcing indicator per column whose observed values are one test
value.  It is first solved allowing ties (a relaxation: its bound is a proven lower bound),
with a node limit so that results do not depend on the machine; its answer is checked
exactly, and if it fails (a tie) a second solve asks for a small positive margin.

**Relaxed bound.**  For each point with a single possible winner w and no forcing column,
the condition log S_w > log S_l is relaxed: log of w's count (concave) is bounded from above
by tangents, -log of a rival's count (convex in the cells cleaned) by its secant, and a
rival's count that can reach 0 by a 0/1 switch that beats that rival.  Every cleaning
certifying the points satisfies the relaxation, so the bound HiGHS proves for it bounds the
true minimum (math.inf: not even the relaxation can be met).  Points left out only weaken it.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from ..milp import ONE_HOT_MAX_COLUMNS, Program
from ..stats.domains import BLANK
from .single import winner_possible
from .table import CleaningTable


class CountTable(NamedTuple):
    """The one-hot columns of one count: ``logs`` {column: the log it contributes} and
    ``first``, the column of its smallest value."""

    logs: dict
    first: int


def _count_table(
    prog: Program, values, logs, expr: dict, const: int, forced=None, big=0, forced_log=0.0
) -> CountTable:
    """One-hot columns over the possible values of a count (const + expr).  With ``forced``
    (a 0/1 column meaning "the column is unforced"), one more column is on exactly when the
    column is forced; it contributes ``forced_log`` and releases the count's link."""
    z = [prog.int_var(0, 1) for _ in values]
    out = dict(zip(z, logs))
    link = {zi: float(v) for zi, v in zip(z, values)}
    for k, coef in expr.items():
        link[k] = link.get(k, 0.0) - coef
    if forced is None:
        prog.row({zi: 1.0 for zi in z}, 1, 1)
        prog.row(link, const, const)
        return CountTable(out, z[0])
    zf = prog.int_var(0, 1)
    prog.row({**{zi: 1.0 for zi in z}, zf: 1.0}, 1, 1)
    prog.row({zf: 1.0, forced: 1.0}, 1, 1)
    prog.row({**link, zf: -big}, -np.inf, const)
    prog.row({**link, zf: big}, const, np.inf)
    out[zf] = forced_log
    return CountTable(out, z[0])


def _add_logs(into: dict, logs: dict, shift: float) -> None:
    for zi, lg in logs.items():
        into[zi] = into.get(zi, 0.0) + lg - shift


class _ExactProgram:
    """The exact program (module docstring) for cleanings of at most ``upper`` cells,
    built point by point; ``x`` maps each group to its count's column."""

    def __init__(self, tab: CleaningTable, upper: int):
        self.tab, self.upper, self.prog = tab, upper, Program()
        self.x = {
            g: self.prog.int_var(0, min(int(tab.hid[g]), upper), 1.0)
            for g in zip(*np.nonzero(tab.hid))
        }
        self.prog.row({k: 1.0 for k in self.x.values()}, 0, upper)
        self.seen = tab.obs.sum(axis=0) > 0  # (d, K): the observed domains
        self.unforced = {}  # column -> its 0/1 "unforced" column
        d, n = tab.obs.shape[1], int(tab.N.sum())
        self.big = 2 * (d + 2) * math.log(n + 1) + 10  # stands for log 0 of a rival's count
        self.switch = 2 * self.big * (d + 1)  # lifts a (winner, rival) row of a winner not chosen

    def _unforced(self, j: int, tj: int) -> int:
        """Column j's 0/1 column "some cell of another value than tj is cleaned"."""
        if j not in self.unforced:
            prog, x = self.prog, self.x
            f = prog.int_var(0, 1)
            others = {x[g]: 1.0 for g in x if g[1] == j and g[2] != tj}
            prog.row({**others, f: -1.0}, 0, np.inf)
            for k in others:
                prog.row({k: 1.0, f: -float(prog.hi[k])}, -np.inf, 0)
            self.unforced[j] = f
        return self.unforced[j]

    def _winner_count(self, C: dict, l: int, j: int, tj: int, forced, chosen: int) -> None:
        """l's smallest count in column j as a winner: its observed t_j cells plus those cleaned."""
        tab, x, N = self.tab, self.x, self.tab.N
        tag = (l, j, tj)
        lo0, span = int(tab.obs[tag]), int(tab.hid[tag]) if tag in x else 0
        vals = list(range(lo0, lo0 + min(span, self.upper) + 1))
        logs = [math.log(v) if v else 0.0 for v in vals]
        table = _count_table(
            self.prog,
            vals,
            logs,
            {x[tag]: 1.0} if tag in x else {},
            lo0,
            forced,
            int(N[l]),
            math.log(N[l]),
        )
        _add_logs(C.setdefault(l, {}), table.logs, math.log(N[l]))
        if vals[0] == 0:
            self.prog.row(
                {table.first: 1.0, chosen: 1.0}, -np.inf, 1
            )  # the winner's count is never 0

    def _rival_count(self, R: dict, l: int, j: int, tj: int, forced) -> None:
        """l's largest count in column j as a rival: all its cells but those cleaned to another value."""
        tab, x, N = self.tab, self.x, self.tab.N
        top = int(tab.obs[l, j, tj]) + int(tab.hid[l, j].sum())
        drop = [g for g in x if g[0] == l and g[1] == j and g[2] != tj]
        span = min(sum(int(tab.hid[g]) for g in drop), self.upper)
        vals = list(range(top - span, top + 1))
        logs = [math.log(v) if v else -self.big for v in vals]
        table = _count_table(
            self.prog,
            vals,
            logs,
            {x[g]: -1.0 for g in drop},
            top,
            forced,
            int(N[l]),
            math.log(N[l]),
        )
        _add_logs(R.setdefault(l, {}), table.logs, math.log(N[l]))

    def cleaning(self, solution) -> np.ndarray | None:
        """The group counts of a solution's count columns (None: no solution)."""
        if solution is None:
            return None
        x = np.zeros_like(self.tab.hid)
        for g, k in self.x.items():
            x[g] = int(round(solution[k]))
        return x

    def add_point(self, t: np.ndarray, winners: list, margin: float) -> None:
        """Point t: exactly one winner of ``winners``, whose smallest support beats every
        rival's largest by ``margin`` in logs."""
        m, d = self.tab.obs.shape[:2]
        chosen = {w: self.prog.int_var(0, 1) for w in winners}
        self.prog.row({o: 1.0 for o in chosen.values()}, 1, 1)
        C, R = {}, {}
        for j in range(d):
            tj = int(t[j])
            if tj == BLANK:
                continue  # a blank test cell: its factor is 1 (nbcert.blanks)
            switch = bool(self.seen[j].sum() == 1 and self.seen[j, tj])
            if switch and self.tab.hid[:, j].sum() == self.tab.hid[:, j, tj].sum():
                continue  # forced in every cleaning: every label's factor is 1
            forced = self._unforced(j, tj) if switch else None
            for l in range(m):
                if l in chosen:
                    self._winner_count(C, l, j, tj, forced, chosen[l])
                if any(w != l for w in chosen):
                    self._rival_count(R, l, j, tj, forced)
        self._beats(chosen, C, R, margin)

    def _beats(self, chosen: dict, C: dict, R: dict, margin: float) -> None:
        """Per (winner, rival): log S_w - log S_l >= margin, switched off unless w is chosen."""
        N = self.tab.N
        for w, ow in chosen.items():
            for l in range(self.tab.obs.shape[0]):
                if l == w:
                    continue
                row = dict(C.get(w, {}))
                for zi, lg in R.get(l, {}).items():
                    row[zi] = row.get(zi, 0.0) - lg
                row[ow] = row.get(ow, 0.0) - self.switch
                self.prog.row(row, margin - self.switch - math.log(N[w]) + math.log(N[l]), np.inf)


def _winners(tab: CleaningTable, t: np.ndarray) -> list:
    """The labels that can become t's certified winner (alpha = 0)."""
    return [w for w in range(tab.obs.shape[0]) if winner_possible(tab, t, w, limit=math.inf)]


def exact_together(
    tab: CleaningTable,
    T: np.ndarray,
    upper: int,
    floor: int,
    node_limit: int = 20_000,
    time_limit: float = 60.0,
    stops: list | None = None,
):
    """Solve the exact program (alpha = 0) for cleanings of at most ``upper`` cells.

    Parameters
    ----------
    tab, T
        As for ``clean_together``.
    upper : int
        The most cells a cleaning may take (e.g. the greedy answer's).
    floor : int
        A proven lower bound already known.
    node_limit, time_limit
        HiGHS's branch-and-bound nodes per solve, and seconds for the solves together.
    stops : list, optional
        Gets an entry for every solve a limit cut short: "time" or "node"; "memory" when
        the program passed ONE_HOT_MAX_COLUMNS columns as it was built, or its solve would
        not fit in the memory left (``nbcert.milp.memory_left``): it is then given up.

    Returns
    -------
    (ndarray or None, int or float)
        Group counts that certify every point (None if none was found), and a proven
        lower bound on the minimum (math.inf: no cleaning works).
    """
    winners, stops = [_winners(tab, t) for t in T], [] if stops is None else stops
    deadline, lower = time.monotonic() + time_limit, floor
    for margin in (-1e-9, 1e-6):  # ties allowed (a relaxation: its bound is proven), then not
        built = _built(tab, T, winners, upper, margin)
        if built is None:
            stops.append("memory")
            return None, floor
        left = deadline - time.monotonic()
        got = built.prog.solve(max(left, 0.01), node_limit=node_limit)
        if got.limit or left <= 0:
            stops.append(got.limit or "time")
        if margin < 0 and got.infeasible:
            return None, math.inf
        if margin < 0 and got.lower_bound() is not None:
            lower = max(lower, got.lower_bound())
        x = built.cleaning(got.x)
        if x is not None and tab.certify(x, T, 0).robust.all():
            return x, lower
    return None, lower


def _built(tab: CleaningTable, T: np.ndarray, winners: list, upper: int, margin: float):
    """The exact program of the points T, or None once it passes ONE_HOT_MAX_COLUMNS
    columns or its solve would not fit in the memory left (checked as it grows)."""
    built = _ExactProgram(tab, upper)
    for t, ws in zip(T, winners):
        built.add_point(t, ws, margin)
        if built.prog.columns > ONE_HOT_MAX_COLUMNS or not built.prog.fits():
            return None
    return built


def _tangent_points(lo: int, hi: int, ratio: float = 1.1) -> list:
    """Where to cut log(u) on [lo, hi] (u integer): every integer up to 10, then a
    geometric grid, and both ends."""
    pts = {max(lo, 1), max(hi, 1)}
    c = max(lo, 1)
    while c < hi:
        pts.add(c)
        c = c + 1 if c < 10 else math.ceil(c * ratio)
    return sorted(pts)


def _relax_point(
    prog: Program, x: dict, tab: CleaningTable, t: np.ndarray, w: int, active: list
) -> None:
    """Point t's rows: per active column tau_j <= log of w's count (tangents), and per
    rival sum tau - sum -log(rival's count) (secants) above the label sizes' gap."""
    obs, hid = tab.obs, tab.hid
    tau = {}
    for j in active:
        g, a0 = (w, j, int(t[j])), int(obs[w, j, t[j]])
        tau[j] = prog.real_var(-2.0, np.inf)
        for c in _tangent_points(a0, a0 + int(hid[g])):  # tau <= log c - 1 + u / c
            prog.row(
                {tau[j]: 1.0, **({x[g]: -1.0 / c} if g in x else {})},
                -np.inf,
                math.log(c) - 1 + a0 / c,
            )
    for l in range(obs.shape[0]):
        if l != w:
            _relax_rival(prog, x, tab, t, w, l, active, tau)


def _relax_rival(
    prog: Program, x: dict, tab: CleaningTable, t, w: int, l: int, active: list, tau: dict
) -> None:
    """Rival l's row for point t and winner w (none when l's largest support is already 0)."""
    obs, hid, N = tab.obs, tab.hid, tab.N
    row, const, worst = {k: 1.0 for k in tau.values()}, math.log(N[w]) - math.log(N[l]), 0.0
    const += len(active) * (math.log(N[l]) - math.log(N[w]))
    killable = []
    for j in active:
        H = int(obs[l, j, t[j]] + hid[l, j].sum())
        drop = [g for g in x if g[0] == l and g[1] == j and g[2] != t[j]]
        B = sum(int(hid[g]) for g in drop)
        if H == 0:
            return  # this rival's largest support is already 0: beaten
        span = B - 1 if H == B else B
        slope = (math.log(H) - math.log(H - span)) / span if span > 0 else 0.0
        const -= math.log(H)
        worst -= math.log(H)
        for g in drop:  # -log(H - b) <= -log H + slope * b
            row[x[g]] = row.get(x[g], 0.0) + slope
        if H == B:
            kappa = prog.int_var(0, 1)
            prog.row(
                {**{x[g]: 1.0 for g in drop}, kappa: -float(B)}, 0, np.inf
            )  # kappa = 1 needs b = B
            killable.append(kappa)
    big = abs(const) + 2.0 * len(active) + abs(worst) + 10.0
    for kappa in killable:
        row[kappa] = big
    prog.row(row, -const, np.inf)


def relaxed_bound(
    tab: CleaningTable,
    T: np.ndarray,
    node_limit: int = 2_000,
    time_limit: float = 60.0,
    stops: list | None = None,
):
    """A proven lower bound on the fewest cleanings certifying every point (alpha = 0).

    Parameters
    ----------
    tab, T, node_limit, time_limit, stops
        As for ``exact_together``.

    Returns
    -------
    int or float
        The bound HiGHS proves for the relaxation (module docstring); math.inf when not
        even the relaxation can be met (no cleaning works).
    """
    obs, hid = tab.obs, tab.hid
    m, d, _ = obs.shape
    prog = Program()
    x = {g: prog.int_var(0, int(hid[g]), 1.0) for g in zip(*np.nonzero(hid))}
    D0 = obs.sum(axis=0) > 0
    robust = tab.certify(np.zeros_like(hid), T, 0).robust
    used = 0
    for t, done in zip(T, robust):
        single = (D0.sum(axis=1) == 1) & D0[np.arange(d), np.maximum(t, 0)] & (t >= 0)
        switch = single & (
            hid.sum(axis=(0, 2)) > hid[:, np.arange(d), np.maximum(t, 0)].sum(axis=0)
        )
        if done or switch.any():
            continue
        winners = _winners(tab, t)
        if len(winners) != 1:
            continue
        used += 1
        active = [j for j in range(d) if not single[j] and t[j] != BLANK]  # others: factor 1
        _relax_point(prog, x, tab, t, winners[0], active)
    if not used:
        return 0
    got = prog.solve(time_limit, node_limit=node_limit)
    if stops is not None and got.limit:
        stops.append(got.limit)
    if got.infeasible:
        return math.inf  # not even the relaxation can be met: no cleaning works
    bound = got.lower_bound()
    return max(0, bound) if bound is not None else 0
