"""Cleaning with candidate repairs (alpha = 0): the fewest cells whose true values certify.

With a candidate table (``nbcert.stats.candidates``) every missing cell has a set of values
fixed when the table is read: its candidates, or (a cell not listed) the dirty table's
domain.  Cleaning a cell replaces its set by its true value.  Cells of one (label,
column, true value, set) are interchangeable: a *kind*, and a cleaning is a count per kind
(``x``, at most ``cap``).

For a test point t and a label l, a kind's remaining cells add to l's count of t_j at most
(t_j in the set) and at least (the set is {t_j}); a cleaned cell adds 1 to both when its
truth is t_j.  At alpha = 0 the factors are c / N_l whatever the domain, so no domain is
branched over: for a would-be winner w the helpful cleanings are w's cells whose truth is
t_j and whose set is not {t_j} (each raises w's smallest count by one) and a rival's cells
that may take t_j but are truly another value (each lowers its largest count by one);
every other cleaning leaves the bounds alone or moves them the wrong way.  That is the
fixed-domain problem of ``nbcert.cleaning.fixed`` (water-filling for w, a Pareto search per
rival), solved per winner; the plan is confirmed on the cleaned counts, exactly.  "No
cleaning certifies t" is proven: every winner is infeasible with all its helpful cells
cleaned.

For all points together the pruned greedy of ``nbcert.cleaning.many`` is used, with the
largest single-point minimum (or the need-th smallest, for a share of the points) as its
proven lower bound; where the cleanings between that bound and greedy's answer are few,
every one of them is tried (``exhaustive``), which proves the optimum.  With alpha > 0
the domain |D_j| (observed and remaining candidate values) moves with each cleaning and
would be branched over value by value: that is refused (``NEEDS_ZERO_ALPHA``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import blanks
from ..certification import certify_ranges
from ..milp import EXHAUSTIVE_BLOCK_ELEMENTS, EXHAUSTIVE_MAX_CHECKS, count_vectors, vectors_between
from ..reading.encoding import BLANK
from ..stats.candidates import Candidates
from .fixed import FixedDomain
from .table import CleaningTable

NEEDS_ZERO_ALPHA = (
    "cleaning with candidate repairs is for alpha 0: at alpha > 0 the domain (observed and "
    "candidate values) changes with every cleaning that removes a candidate's last cell or "
    "adds a true value, and the exact search would branch over those values one by one"
)


@dataclass(frozen=True)
class Plan:
    """Cells per kind to clean (``x``, (G,)), their number and the label they certify."""

    x: np.ndarray
    cost: int
    winner: int


class Kinds:
    """The missing cells of a table with candidates, by kind (label, column, truth, set).

    ``l, j, v, s, cap`` (G,): each kind's label, column, true value, set and cells;
    ``rows[g]``: its cells' rows (in the table's order, ascending); ``member`` (G, K): the
    values of its set; ``single`` (G,): the set has one value.
    """

    def __init__(self, tab: CleaningTable, cand: Candidates):
        self.tab, self.cand = tab, cand
        enc = tab.enc
        r, j = np.nonzero(tab.missing)
        y = np.searchsorted(enc.label_bounds, r, side="right") - 1
        v = tab.values()[r, j]
        s = cand.ids[r, j].astype(np.int64)
        keys = np.stack([y, j, v, s], axis=1)
        kinds, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        self.l, self.j, self.v, self.s = (kinds[:, i] for i in range(4))
        self.cap = np.bincount(inverse, minlength=len(kinds)).astype(np.int64)
        order = np.argsort(inverse, kind="stable")
        self.rows = np.split(r[order], np.cumsum(self.cap)[:-1]) if len(kinds) else []
        K = tab.obs.shape[2]
        self.member = np.zeros((len(kinds), K), bool)
        for g in range(len(kinds)):
            row = cand.member[self.j[g]][self.s[g]]
            self.member[g, : len(row)] = row
        self.single = self.member.sum(axis=1) == 1
        self.size = self.member.sum(axis=1)
        m, d = tab.obs.shape[:2]
        # kinds come sorted by (label, column): each (label, column)'s run of kinds, and
        # each kind's (label, column, value) as an index of the flat (m, d, K) arrays
        self._pair = self.l * d + self.j
        self._starts = np.flatnonzero(np.r_[True, self._pair[1:] != self._pair[:-1]])
        self._flat = (self._pair * K + self.v) if len(kinds) else np.zeros(0, np.int64)
        self._singles = self.member & self.single[:, None]

    @property
    def G(self) -> int:
        return len(self.cap)

    def state(self, x: np.ndarray) -> tuple:
        """(obs, A, F), each (m, d, K): observed cells after cleaning x, and per value the
        remaining cells that may take it and that must (sums over each (label, column)'s
        run of kinds)."""
        obs = self.tab.obs.copy()
        m, d, K = obs.shape
        obs.reshape(-1)[:] += np.bincount(self._flat, weights=x, minlength=m * d * K).astype(
            np.int64
        )
        A, F = np.zeros_like(obs), np.zeros_like(obs)
        if self.G:
            rest = (self.cap - x)[:, None]
            pairs = self._pair[self._starts]
            A.reshape(m * d, K)[pairs] = np.add.reduceat(rest * self.member, self._starts)
            F.reshape(m * d, K)[pairs] = np.add.reduceat(rest * self._singles, self._starts)
        return obs, A, F

    def certify(self, x: np.ndarray, T: np.ndarray, alpha=Fraction(0)) -> tuple:
        """(robust, label) per test point after cleaning x (exact)."""
        obs, A, F = self.state(x)
        return certify_state(obs, A, F, self.tab.N, T, alpha)

    def cells(self, x: np.ndarray) -> list:
        """(row in the table, column) of x's cells: each kind's first rows."""
        return [(int(r), int(self.j[g])) for g in np.flatnonzero(x) for r in self.rows[g][: x[g]]]

    def of_cells(self, cells) -> np.ndarray:
        """x of named (row in the table, column) cells."""
        x = np.zeros(self.G, np.int64)
        where = {(int(r), int(self.j[g])): g for g in range(self.G) for r in self.rows[g]}
        for cell in cells:
            x[where[cell]] += 1
        return x


def certify_state(obs, A, F, N, T: np.ndarray, alpha) -> tuple:
    """(robust, label) per test point from the counts of a state: label l's count of t_j
    ranges over obs + F .. obs + A; the domain is the observed values and those a remaining
    cell may take; a blank test cell's feature is left out (``nbcert.blanks``)."""
    robust, label = np.zeros(len(T), bool), np.full(len(T), -1, np.intp)
    dom = (obs.sum(axis=0) > 0) | (A.sum(axis=0) > 0)  # (d, K)
    delta = dom.sum(axis=1)
    for rows, keep in blanks.groups(T):
        if not len(keep):  # every feature blank: the prior decides
            lo = np.broadcast_to(N[:, None], (len(rows), len(N), 1))
            dec = certify_ranges(lo, lo, N, np.ones(1, np.int64), alpha)
        else:
            t = T[np.ix_(rows, keep)]
            seen = t >= 0
            tc = np.maximum(t, 0)
            pick = (slice(None), keep[None, :], tc)  # (m, k, d) after transposing
            base = np.where(seen[:, None, :], obs[:, keep[None, :], tc].transpose(1, 0, 2), 0)
            must = np.where(seen[:, None, :], F[pick].transpose(1, 0, 2), 0)
            may = np.where(seen[:, None, :], A[pick].transpose(1, 0, 2), 0)
            dec = certify_ranges(base + must, base + may, N, delta[keep], alpha)
        robust[rows], label[rows] = dec.robust, dec.label
    return robust, label


# ---------------------------------------------------------------------------------------
# one point


def _helpful(kinds: Kinds, x: np.ndarray, t: np.ndarray, keep: np.ndarray) -> tuple:
    """Per kind, whether cleaning it raises its label's smallest count of t (truth t_j, set
    not {t_j}) or lowers its largest (set holds t_j, truth another value), for the columns
    ``keep``."""
    tj = t[kinds.j]
    used = np.isin(kinds.j, keep) & (tj >= 0) & (kinds.cap > x)
    holds = kinds.member[np.arange(kinds.G), np.maximum(tj, 0)]
    raise_ = used & (kinds.v == tj) & ~(holds & kinds.single)
    lower = used & (kinds.v != tj) & holds
    return raise_, lower


def _problem(kinds: Kinds, x, t, w: int, keep: np.ndarray, state=None):
    """The fixed-domain problem of winner w over the columns ``keep`` (alpha = 0), and the
    helpful kinds: (FixedDomain, raise mask, lower mask), None when a test value lies
    outside every domain (every support 0: no winner).  ``state``: ``kinds.state(x)``."""
    if (t[keep] < 0).any():
        return None
    obs, A, F = kinds.state(x) if state is None else state
    N = kinds.tab.N
    m = len(N)
    raise_, lower = _helpful(kinds, x, t, keep)
    rest = kinds.cap - x
    tk = t[keep]
    cw = obs[w, keep, tk] + F[w, keep, tk]
    capA = np.zeros(len(keep), np.int64)
    pos = {int(j): i for i, j in enumerate(keep)}
    for g in np.flatnonzero(raise_ & (kinds.l == w)):
        capA[pos[int(kinds.j[g])]] += rest[g]
    rivals = [l for l in range(m) if l != w]
    h, capB = [], []
    for l in rivals:
        h.append((obs[l, keep, tk] + A[l, keep, tk]).tolist())
        cb = np.zeros(len(keep), np.int64)
        for g in np.flatnonzero(lower & (kinds.l == l)):
            cb[pos[int(kinds.j[g])]] += rest[g]
        capB.append(cb.tolist())
    J = len(keep)
    left = [int(N[w]) * int(N[l]) ** J for l in rivals]
    right = [int(N[l]) * int(N[w]) ** J for l in rivals]
    problem = FixedDomain(cw.tolist(), capA.tolist(), h, capB, left, right, Fraction(0))
    return problem, raise_, lower, rivals


def _spend(kinds: Kinds, x, mask, l: int, j: int, count: int, out: np.ndarray) -> None:
    """Add ``count`` cleanings of label l's column-j kinds of ``mask``, largest sets first."""
    pick = np.flatnonzero(mask & (kinds.l == l) & (kinds.j == j))
    for g in pick[np.argsort(-kinds.size[pick], kind="stable")]:
        take = min(count, int(kinds.cap[g] - x[g] - out[g]))
        out[g] += take
        count -= take
        if count == 0:
            return
    assert count == 0, "internal: not enough cells to spend"


def search(kinds: Kinds, x: np.ndarray, t: np.ndarray, limit=math.inf) -> tuple:
    """(the cheapest plan costing less than ``limit`` on the table cleaned by x, or None;
    whether any plan exists; a lower bound on the cheapest).  Winners are tried in order,
    a plan replaces the best only when strictly cheaper (so a limit finds the plan the
    unlimited search finds).  Each plan is checked exactly."""
    keep = np.flatnonzero(t != BLANK)
    zero = np.zeros(kinds.G, np.int64)
    state = kinds.state(x)
    robust, label = certify_state(*state, kinds.tab.N, t[None], Fraction(0))
    if robust[0]:
        return (Plan(zero, 0, int(label[0])) if limit > 0 else None), True, 0
    best, possible, lower = None, False, math.inf
    for w in range(len(kinds.tab.N)):
        built = _problem(kinds, x, t, w, keep, state)
        if built is None or not built[0].feasible():
            continue
        problem, raise_, lower_, rivals = built
        possible = True
        bound = best.cost if best else limit
        res = problem.solve(bound) if bound > 0 else None
        if res is None:
            lower = min(lower, max(bound, problem.lower, 0))
            continue
        cost, a, bs = res
        add = np.zeros(kinds.G, np.int64)
        for i, j in enumerate(keep.tolist()):
            _spend(kinds, x, raise_, w, j, int(a[i]), add)
            for k, l in enumerate(rivals):
                _spend(kinds, x, lower_, l, j, int(bs[k][i]), add)
        robust, label = kinds.certify(x + add, t[None])
        if not robust[0] or label[0] != w or int(add.sum()) != cost:
            raise AssertionError(f"internal: a cleaning plan failed its exact check (winner {w})")
        best = Plan(add, cost, w)
    return best, possible, min(lower, best.cost) if best else lower


def cleanable(kinds: Kinds, x: np.ndarray, t: np.ndarray) -> bool:
    """Does some cleaning (after x) certify t?  Proven either way: some winner is feasible
    with every helpful cell cleaned."""
    state = kinds.state(x)
    if certify_state(*state, kinds.tab.N, t[None], Fraction(0))[0][0]:
        return True
    keep = np.flatnonzero(t != BLANK)
    for w in range(len(kinds.tab.N)):
        built = _problem(kinds, x, t, w, keep, state)
        if built is not None and built[0].feasible():
            return True
    return False


# ---------------------------------------------------------------------------------------
# all points together


def greedy(kinds: Kinds, T: np.ndarray, need: int, budget=None, known=None) -> tuple:
    """Greedy rounds until ``need`` points are robust: each round cleans the cheapest
    single-point plan on the table cleaned so far; then each kind is cut back as far as
    ``need`` points stay robust.  (x, None) when it gets there, else (x so far, "budget"
    or "stuck")."""
    x = np.zeros(kinds.G, np.int64)
    lower = dict(known or {})
    for _ in range(int(kinds.cap.sum()) + 1):
        robust, _ = kinds.certify(x, T)
        if robust.sum() >= need:
            return _prune(kinds, T, x, need), None
        best = None
        for p in sorted(np.flatnonzero(~robust).tolist(), key=lambda p: lower.get(p, 0)):
            limit = math.inf if best is None else best.cost
            if lower.get(p, 0) >= limit:
                continue
            plan, possible, lower[p] = search(kinds, x, T[p], limit)
            if plan is not None:
                best = plan
            elif not possible and need >= len(T):
                return x, "stuck"
        if best is None:
            return x, "stuck"
        if budget is not None and int(x.sum()) + best.cost > budget:
            return x, "budget"
        x = x + best.x
        lower = {p: b - best.cost for p, b in lower.items()}
    raise AssertionError("internal: greedy did not terminate")


def _prune(kinds: Kinds, T, x: np.ndarray, need: int) -> np.ndarray:
    """Each kind's count (largest first) cut to the least that keeps ``need`` points
    robust, by binary search on exact checks."""
    x = x.copy()
    for g in np.argsort(-x, kind="stable").tolist():
        lo, hi = -1, int(x[g])
        while hi - lo > 1:
            mid = (lo + hi) // 2
            x[g] = mid
            ok = kinds.certify(x, T)[0].sum() >= need
            lo, hi = (lo, mid) if ok else (mid, hi)
        x[g] = hi
    return x


def robust_many(kinds: Kinds, T: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Per cleaning (rows of X, (B, G)), whether every point of T is robust after it."""
    return np.array([kinds.certify(x, T)[0].all() for x in X], bool)


def exhaustive(kinds: Kinds, T: np.ndarray, lo: int, hi: int, deadline: float) -> tuple:
    """Every cleaning of lo..hi cells, fewest first: (the first that certifies every point
    or None, the fewest cells a cleaning may still need)."""
    rows = max(1, EXHAUSTIVE_BLOCK_ELEMENTS // max(1, kinds.G * len(T)))
    for size in range(lo, hi + 1):
        for X in count_vectors(kinds.cap, size, rows):
            if time.monotonic() > deadline:
                return None, size
            ok = np.flatnonzero(robust_many(kinds, T, X))
            if len(ok):
                return X[ok[0]].astype(np.int64), size
    return None, hi + 1


def small(kinds: Kinds, k: int, lo: int, hi: int) -> bool:
    """Whether the cleanings of lo..hi cells, for k points, are few enough to try."""
    limit = EXHAUSTIVE_MAX_CHECKS / max(k, 1) / 64  # each check here is a whole decision
    return hi <= EXHAUSTIVE_MAX_CHECKS and vectors_between(kinds.cap, lo, hi, limit) <= limit


def together(
    kinds: Kinds,
    T: np.ndarray,
    minima: list,
    method: str = "auto",
    time_limit: float = 60.0,
    target=1,
    budget=None,
):
    """The fewest cells certifying the points of T some cleaning certifies (``minima``:
    each point's single-point minimum, None where none), or a ``target`` share of them,
    within ``budget`` cells: ``clean_many``'s answer with candidates (greedy with a proven
    bound; the optimum proven by trying every cleaning where those are few, unless
    ``method`` is "greedy")."""
    from .many import TogetherCleaning, _needed

    able = np.array([c is not None for c in minima], bool)
    keep = np.flatnonzero(able)
    Tk, costs = T[keep], [minima[p] for p in keep]
    need = _needed(target, len(keep))
    lower = sorted(costs)[need - 1] if need else 0
    x, stop = greedy(kinds, Tk, need, budget, dict(enumerate(costs)))
    stops = []
    if stop is None and method != "greedy" and need == len(keep) and budget is None:
        top = int(x.sum()) - 1
        if lower <= top and small(kinds, len(Tk), lower, top):
            best, lower = exhaustive(kinds, Tk, lower, top, time.monotonic() + time_limit)
            if best is not None:
                x = best
            elif lower <= top:
                stops.append("time")
    found = dict(
        excluded=tuple(int(p) for p in np.flatnonzero(~able)),
        target=need,
        time_limited="time" in stops,
    )
    cells = kinds.tab.named(kinds.cells(x))
    certified = int(kinds.certify(x, Tk)[0].sum())
    kind = "greedy" if method == "greedy" else "exact"
    if stop is None:
        cost = int(x.sum())
        return TogetherCleaning(
            True, cells, kind, cost <= lower, min(lower, cost), certified=certified, **found
        )
    return TogetherCleaning(
        False,
        cells if stop == "budget" else (),
        "greedy",
        False,
        lower,
        budget_limited=stop == "budget",
        certified=certified if stop == "budget" else None,
        **found,
    )


# ---------------------------------------------------------------------------------------
# the truth-free policy with candidates


def view(kinds: Kinds, x: np.ndarray, T: np.ndarray) -> tuple:
    """(the policy's View of the points T, the odds (k, m, d) that a remaining cell that may
    hold t_j does, as the worlds weigh them: the mean of 1/|C| over those cells)."""
    from .policy import View

    obs, A, F = kinds.state(x)
    W = np.zeros(obs.shape, float)  # expected cells on each value: sum of 1/|C|
    rest = (kinds.cap - x)[:, None] / np.maximum(kinds.size, 1)[:, None]
    np.add.at(W, (kinds.l, kinds.j), rest * kinds.member)
    dom = (obs.sum(axis=0) > 0) | (A.sum(axis=0) > 0)
    d = obs.shape[1]
    cols, tc = np.arange(d), np.maximum(T, 0)
    seen = (T >= 0) & dom[cols, tc]

    def at(a):
        return np.where(seen[:, None, :], a[:, cols, tc].transpose(1, 0, 2), 0)

    E, must, may, expected = at(obs), at(F), at(A), at(W.astype(float))
    free = may - must
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = np.where(free > 0, (expected - must) / free, 0.0)
    return View(E, E + must, E + may, free, dom.sum(axis=1), seen), pi


def scores(kinds: Kinds, x: np.ndarray, T: np.ndarray, alpha, prior: str):
    """The policy's ``GroupScores`` (m, d) of cleaning one more cell of each (label, column),
    summed over the groups of points with the same blank cells (each on its kept columns)."""
    from .policy import GroupScores, View, group_scores, truth_odds

    obs = kinds.state(x)[0]
    m, d = obs.shape[:2]
    score, won, rival = np.zeros((m, d)), np.zeros((m, d), int), np.zeros((m, d), int)
    helped, todo = np.zeros((len(T), m, d), bool), 0
    for rows, keep in blanks.groups(T):
        if not len(keep):
            continue
        full = np.full((len(rows), d), BLANK, T.dtype)
        full[:, keep] = T[np.ix_(rows, keep)]
        seen, pi = view(kinds, x, full)
        part = View(*(a[..., keep] for a in seen[:4]), seen.delta[keep], seen.seen[:, keep])
        if prior == "observed":
            pi = truth_odds(obs[:, keep], full[:, keep], prior)
        else:
            pi = pi[..., keep]
        M = part.free.max(axis=0)  # only the view's counts are read
        gs = group_scores(obs[:, keep], M, kinds.tab.N, full[:, keep], alpha, prior, part, pi)
        score[:, keep] += gs.score
        won[:, keep] += gs.as_winner
        rival[:, keep] += gs.as_rival
        helped[np.ix_(rows, np.arange(m), keep)] = gs.helped
        todo += gs.todo
    return GroupScores(score, won, rival, todo, helped)


def follow(
    kinds: Kinds,
    T: np.ndarray,
    alpha,
    prior: str = "observed",
    batch: int = 1,
    need=None,
    budget=None,
    choose=None,
) -> tuple:
    """The policy's path with candidates (``nbcert.cleaning.policy.follow``): each step
    cleans ``batch`` cells of the (label, column) the policy scores best (or that
    ``choose(x)`` names), in row order, until ``need`` points are robust, ``budget`` cells
    are cleaned or none is left.  Returns (cells as (row, column), history of (cells
    cleaned, robust points), whether ``need`` points are robust)."""
    m, d = kinds.tab.N.shape[0], kinds.tab.obs.shape[1]
    kind_of = np.full(kinds.tab.missing.shape, -1, np.int64)
    for g, rows in enumerate(kinds.rows):
        kind_of[rows, kinds.j[g]] = g
    queue = {}
    for l in range(m):
        a, b = kinds.tab.enc.label_bounds[l], kinds.tab.enc.label_bounds[l + 1]
        for j in range(d):
            queue[(l, j)] = list(a + np.flatnonzero(kinds.tab.missing[a:b, j]))
    x = np.zeros(kinds.G, np.int64)
    need = len(T) if need is None else need
    cells, history = [], []
    while True:
        count = int(kinds.certify(x, T, alpha)[0].sum())
        history.append((len(cells), count))
        left = {g: q for g, q in queue.items() if q}
        if count >= need or not left or (budget is not None and len(cells) >= budget):
            return cells, history, count >= need
        if choose is not None:
            l, j = choose(x)
        else:
            s = scores(kinds, x, T, alpha, prior).score
            sizes = np.zeros((m, d))
            for (l, j), q in left.items():
                sizes[l, j] = len(q)
            pick = np.where(sizes > 0, s, -1.0)
            if pick.max() <= 0:
                pick = np.where(sizes > 0, sizes, -1.0)
            l, j = np.unravel_index(int(np.argmax(pick)), pick.shape)
        take = queue[(int(l), int(j))][:batch]
        if budget is not None:
            take = take[: budget - len(cells)]
        del queue[(int(l), int(j))][: len(take)]
        for r in take:
            x[kind_of[r, j]] += 1
            cells.append((int(r), int(j)))


__all__ = [
    "Kinds",
    "Plan",
    "NEEDS_ZERO_ALPHA",
    "certify_state",
    "search",
    "cleanable",
    "greedy",
    "exhaustive",
    "small",
    "robust_many",
    "together",
    "view",
    "scores",
    "follow",
]
