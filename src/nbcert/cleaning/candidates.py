"""The cell model of candidate repairs (alpha = 0): each missing cell takes one of a fixed set.

With a candidate table (``nbcert.stats.candidates``) every missing cell has a set of values
fixed when the table is read: its candidates, or (a cell not listed) the dirty table's
domain.  Cleaning a cell replaces its set by its true value.  Cells of one (label,
column, true value, set) are interchangeable: a *group*, and a cleaning is a count per
group (``x``, at most ``cap``).

For a test point t and a label l, a group's remaining cells add to l's count of t_j at
most (t_j in the set) and at least (the set is {t_j}); a cleaned cell adds 1 to both when
its truth is t_j.  At alpha = 0 the factors are c / N_l whatever the domain, so no domain
is branched over: for a would-be winner w the helpful cleanings are w's cells whose truth
is t_j and whose set is not {t_j} (each raises w's smallest count by one) and a rival's
cells that may take t_j but are truly another value (each lowers its largest count by
one); every other cleaning leaves the bounds alone or moves them the wrong way.  That is
one fixed-domain problem per winner (``CandidateTable.branches``), which the engine
(``nbcert.cleaning.single``, ``nbcert.cleaning.together``, ``nbcert.cleaning.policy``) solves
as it solves the domains' branches.  With alpha > 0 the domain |D_j| (observed and
remaining candidate values) moves with each cleaning and would be branched over value by
value: that is refused (``NEEDS_ZERO_ALPHA``).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np

from ..stats.candidates import Candidates
from ..stats.domains import BLANK
from .fixed import FixedDomain
from .single import Branch
from .table import CellModel, CleaningTable, View

NEEDS_ZERO_ALPHA = (
    "cleaning with candidate repairs is for alpha 0: at alpha > 0 the domain (observed and "
    "candidate values) changes with every cleaning that removes a candidate's last cell or "
    "adds a true value, and the exact search would branch over those values one by one"
)


class CandidateTable(CellModel):
    """The missing cells of a table with candidates, by group (label, column, truth, set).

    ``l, j, v, s, cap`` (G,): each group's label, column, true value, set and cells;
    ``rows[g]``: its cells' rows (in the table's order, ascending); ``member`` (G, K): the
    values of its set; ``single`` (G,): the set has one value.
    """

    programs = False  # nbcert.cleaning.program models domains only

    def __init__(self, tab: CleaningTable, cand: Candidates):
        self.table, self.cand = tab, cand
        r, j = np.nonzero(tab.missing)
        keys = np.stack([tab.labels_of(r), j, tab.values()[r, j], cand.ids[r, j]], axis=1)
        groups, inverse = np.unique(keys.astype(np.int64), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        self.l, self.j, self.v, self.s = (groups[:, i] for i in range(4))
        self.cap = np.bincount(inverse, minlength=len(groups)).astype(np.int64)
        order = np.argsort(inverse, kind="stable")
        self.rows = np.split(r[order], np.cumsum(self.cap)[:-1]) if len(groups) else []
        self._group = np.full(tab.missing.shape, -1, np.int64)
        self._group[r[order], j[order]] = np.repeat(np.arange(len(groups)), self.cap)
        m, d, K = tab.obs.shape
        self.member = np.zeros((len(groups), K), bool)
        for g in range(len(groups)):
            row = cand.member[self.j[g]][self.s[g]]
            self.member[g, : len(row)] = row
        self.single = self.member.sum(axis=1) == 1
        self.size = self.member.sum(axis=1)
        # groups come sorted by (label, column): each (label, column)'s run of groups, and
        # each group's (label, column, value) as an index of the flat (m, d, K) arrays
        self._pair = self.l * d + self.j
        first = np.r_[True, self._pair[1:] != self._pair[:-1]]  # a run's first group
        self._starts, self._run = np.flatnonzero(first), np.cumsum(first) - 1
        self._flat = (self._pair * K + self.v) if len(groups) else np.zeros(0, np.int64)
        self._sets = (self.member.astype(float), (self.member & self.single[:, None]) * 1.0)

    @property
    def G(self) -> int:
        return len(self.cap)

    def state(self, X: np.ndarray) -> tuple:
        """(obs, A, F), each (B, m, d, K), after each of B cleanings X (B, G): the observed
        cells, and per value the remaining cells that may take it and that must (sums over
        each (label, column)'s run of groups)."""
        B, (m, d, K) = len(X), self.table.obs.shape
        obs = np.repeat(self.table.obs[None], B, axis=0)
        np.add.at(obs.reshape(B, -1), (slice(None), self._flat), X)
        A, F = np.zeros_like(obs), np.zeros_like(obs)
        if self.G:
            # each run's sums as one product: (runs, groups) weights @ (groups, K) sets, in
            # floats (exact: integers far below 2**53)
            W = np.zeros((B, len(self._starts), self.G))
            W[:, self._run, np.arange(self.G)] = self.cap - X
            pairs = self._pair[self._starts]
            A.reshape(B, m * d, K)[:, pairs] = (W @ self._sets[0]).astype(np.int64)
            F.reshape(B, m * d, K)[:, pairs] = (W @ self._sets[1]).astype(np.int64)
        return obs, A, F

    def ranges(self, X: np.ndarray) -> tuple:
        """(lo, hi, dom) after each of B cleanings X (B, G): a value's count ranges from
        the observed cells and those that must take it to those and every cell that may;
        the domain is the observed values and those a remaining cell may take."""
        obs, A, F = self.state(X)
        return obs + F, obs + A, (obs.sum(axis=1) > 0) | (A.sum(axis=1) > 0)

    def group_of(self, rows: np.ndarray, j: int) -> np.ndarray:
        """The groups of the cells (rows, column j)."""
        return self._group[rows, j]

    def cells(self, x: np.ndarray) -> list:
        """(row in the table, column) of x's cells: each group's first rows."""
        return [(int(r), int(self.j[g])) for g in np.flatnonzero(x) for r in self.rows[g][: x[g]]]

    def branches(self, x: np.ndarray, t: np.ndarray, alpha, winners=None, limit=None):
        """Per winner (all labels, or ``winners``), the one fixed-domain problem over its
        helpful cells after cleaning x (none where a test value lies outside every
        domain: every support 0, no winner)."""
        keep = np.flatnonzero(t != BLANK)
        if (t[keep] < 0).any():
            return
        state = [a[0] for a in self.state(x[None])]
        helpful = self._helpful(x, t)
        for w in range(len(self.table.N)) if winners is None else winners:
            problem, raise_, lower, rivals = self._problem(x, state, t, w, keep, helpful)
            spend = functools.partial(self._plan, x, keep, w, rivals, raise_, lower)
            yield Branch(w, problem, np.zeros_like(x), spend)

    def _helpful(self, x: np.ndarray, t: np.ndarray) -> tuple:
        """Per group, whether cleaning it raises its label's smallest count of t (truth
        t_j, set not {t_j}) or lowers its largest (set holds t_j, truth another value),
        in the columns where t is not blank."""
        tj = t[self.j]
        used = (tj >= 0) & (self.cap > x)  # a blank (or unseen) t_j is never helped
        holds = self.member[np.arange(self.G), np.maximum(tj, 0)]
        raise_ = used & (self.v == tj) & ~(holds & self.single)
        lower = used & (self.v != tj) & holds
        return raise_, lower

    def _problem(self, x, state, t, w: int, keep: np.ndarray, helpful: tuple) -> tuple:
        """The fixed-domain problem of winner w over the columns ``keep`` (alpha = 0), the
        helpful groups (``helpful``: raise and lower masks) and the rivals."""
        obs, A, F = state
        N = self.table.N
        raise_, lower = helpful
        rest, tk = self.cap - x, t[keep]
        column = np.searchsorted(keep, self.j)  # a group's place among the kept columns

        def caps(mask: np.ndarray, l: int) -> list:
            pick = mask & (self.l == l)
            return np.bincount(column[pick], rest[pick], len(keep)).astype(np.int64).tolist()

        rivals = [l for l in range(len(N)) if l != w]
        h = [(obs[l, keep, tk] + A[l, keep, tk]).tolist() for l in rivals]
        capB = [caps(lower, l) for l in rivals]
        J = len(keep)
        left = [int(N[w]) * int(N[l]) ** J for l in rivals]
        right = [int(N[l]) * int(N[w]) ** J for l in rivals]
        cw = (obs[w, keep, tk] + F[w, keep, tk]).tolist()
        problem = FixedDomain(cw, caps(raise_, w), h, capB, left, right, Fraction(0))
        return problem, raise_, lower, rivals

    def _plan(self, x, keep, w: int, rivals: list, raise_, lower, a, bs) -> np.ndarray:
        """The cleaning of a solution: w's cells a and the rivals' cells b per kept column,
        each spent on the helpful groups of that label and column, largest sets first."""
        add = np.zeros_like(x)
        for i, j in enumerate(keep.tolist()):
            self._spend(x, raise_, w, j, int(a[i]), add)
            for k, l in enumerate(rivals):
                self._spend(x, lower, l, j, int(bs[k][i]), add)
        return add

    def _spend(self, x, mask, l: int, j: int, count: int, out: np.ndarray) -> None:
        """Add ``count`` cleanings of label l's column-j groups of ``mask``, largest sets
        first."""
        pick = np.flatnonzero(mask & (self.l == l) & (self.j == j))
        for g in pick[np.argsort(-self.size[pick], kind="stable")]:
            take = min(count, int(self.cap[g] - x[g] - out[g]))
            out[g] += take
            count -= take
            if count == 0:
                return
        assert count == 0, "internal: not enough cells to spend"

    def view(self, x: np.ndarray, T: np.ndarray) -> tuple:
        """(the policy's View of the points T, the odds (k, m, d) that a remaining cell that
        may hold t_j does, as the worlds weigh them: the mean of 1/|C| over those cells)."""
        obs, A, F = (a[0] for a in self.state(x[None]))
        W = np.zeros(obs.shape, float)  # expected cells on each value: sum of 1/|C|
        rest = (self.cap - x)[:, None] / np.maximum(self.size, 1)[:, None]
        np.add.at(W, (self.l, self.j), rest * self.member)
        dom = (obs.sum(axis=0) > 0) | (A.sum(axis=0) > 0)
        cols, tc = np.arange(obs.shape[1]), np.maximum(T, 0)
        seen = (T >= 0) & dom[cols, tc]

        def at(a):
            return np.where(seen[:, None, :], a[:, cols, tc].transpose(1, 0, 2), 0)

        E, must, may, expected = at(obs), at(F), at(A), at(W)
        free = may - must
        with np.errstate(divide="ignore", invalid="ignore"):
            pi = np.where(free > 0, (expected - must) / free, 0.0)
        return View(E, E + must, E + may, free, dom.sum(axis=1), seen), pi

    def observed(self, x: np.ndarray) -> tuple:
        """What a chooser is given after cleaning x: the cleaning itself."""
        return (x,)

    def scoring(self, x: np.ndarray) -> tuple:
        """What the policy scores (``nbcert.cleaning.policy.policy_path``) after cleaning x:
        the observed cells, the missing cells per (label, column) and the View of any
        points."""
        M = self.table.hid.sum(axis=2) - _cleaned(self, x)
        return self.state(x[None])[0][0], M, functools.partial(self.view, x)


def _cleaned(model: CandidateTable, x: np.ndarray) -> np.ndarray:
    """Cells cleaned per (label, column) by x."""
    m, d = model.table.obs.shape[:2]
    return np.bincount(model._pair, weights=x, minlength=m * d).astype(np.int64).reshape(m, d)
