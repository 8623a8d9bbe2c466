"""The fewest cleanings for several points at once (exact where small, else greedy with a
proven bound).

``greedy`` repeatedly cleans the cheapest single-point completion on the table cleaned so
far, then prunes each group's count by binary search.  Cleaning c cells lowers another
point's minimum by at most c (the c cells with its new minimum's cells certify it on the
old table), so a lower bound from one round, less c, holds in the next, and each round
searches a point only for a plan that would win.  Its proven lower bound is the larger of
the largest single-point minimum and (alpha = 0) the relaxed bound of
``nbcert.cleaning.program``.  ``exact`` (alpha = 0) also solves the exact program there and
keeps the better verified answer; but first, when the instance is small (vectors of group
counts between that bound and the greedy answer less one, times the points, at most
EXHAUSTIVE_MAX_CHECKS), it tries every cleaning instead (``exhaustive``), which proves the
optimum (or that no cleaning works) by enumeration, with no float in the proof.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..certification import certify_ranges, extremes
from ..milp import (
    AUTO_EXACT_CELLS_CLEAN,
    EXHAUSTIVE_BLOCK_ELEMENTS,
    EXHAUSTIVE_MAX_CHECKS,
    ManyPoints,
    count_vectors,
    vectors_between,
)
from ..reading.encoding import BLANK
from .program import exact_many, relaxed_bound
from .single import cleanable, search_with_truth, within
from .table import CleaningTable, after, all_robust, by_blanks, state_certification


@dataclass(frozen=True)
class TogetherCleaning(ManyPoints):
    """Cells whose cleaning certifies every test point at once, as (row position in the
    training table, column name); ``optimal`` says whether their number is proven minimum,
    ``lower_bound`` is a proven bound on the minimum; ``time_limited`` and ``node_limited``:
    the time limit or the node limit cut a search short (a larger one may prove more);
    ``memory_limited``: the exact program outgrew its size limit (``ONE_HOT_MAX_COLUMNS``)
    and was not solved.

    The test points that no cleaning certifies (proven, each on its own) are set aside:
    ``excluded`` lists their positions, and the answer is about the others.  ``target``
    is how many of those the cells must certify (all of them unless a smaller share was
    asked for) and ``certified`` how many they do; ``num_rows`` the training rows the cells
    lie in.  ``budget_limited``: the search stopped at its budget of cells before the
    target (``possible`` False; ``cells`` are those cleaned until then, certifying
    ``certified`` points).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> together = nbcert.clean_with_truth(train, truth, test, "y").together
    >>> together.cells, together.num_rows, together.excluded, together.certified
    (((3, 'color'),), 1, (), 2)
    """

    node_limited: bool = False
    memory_limited: bool = False
    excluded: tuple = ()
    target: int | None = None
    certified: int | None = None
    budget_limited: bool = False

    @property
    def num_rows(self) -> int:
        """Training rows the cells lie in (CPClean's unit of cleaning: a row at a time)."""
        return len({r for r, _ in self.cells})

    def record(self, test_key) -> dict:
        """The answer as ``--json`` prints it and a certificate holds it; ``test_key(p)``
        names the test row at position p (its test_index, or that and its id)."""
        return {
            "num_cells": self.num_cells,
            "num_rows": self.num_rows if self.possible else None,
            "cells": [{"row": int(r), "column": str(c)} for r, c in self.cells],
            "excluded": [test_key(p) for p in self.excluded],
            "target_rows": self.target,
            "certified_rows": self.certified,
            "budget_limited": bool(self.budget_limited),
            "method": self.method,
            "optimal": bool(self.optimal),
            "lower_bound": self.lower_bound,
            "time_limited": bool(self.time_limited),
            "node_limited": bool(self.node_limited),
            "memory_limited": bool(self.memory_limited),
        }


def _limits(stops: list) -> dict:
    """The limits that cut a search short, from the entries of ``stops``."""
    return {
        "time_limited": "time" in stops,
        "node_limited": "node" in stops,
        "memory_limited": "memory" in stops,
    }


def _largest_minimum(tab: CleaningTable, T: np.ndarray, alpha: Fraction, floor: int = 0):
    """max(floor, the largest single-point minimum of T) (every point cleanable), and the
    plans searched: a point is searched in full only when no plan within the floor so far
    is found without search, and its cost may then raise the floor."""
    known = {}
    for p, t in enumerate(T):
        if within(tab, t, alpha, floor):
            continue
        known[p] = search_with_truth(tab, t, alpha)[0]
        floor = max(floor, known[p].cost)
    return floor, known


def greedy_many(
    tab: CleaningTable, T: np.ndarray, alpha=0, known: dict | None = None
) -> np.ndarray | None:
    """Group counts making every point robust, or None if greedy gets stuck.

    Repeatedly cleans the cheapest single-point minimum completion (on the table as
    cleaned so far; the first point in T's order among equals) among the non-robust
    points, then prunes: each group's count is cut to the smallest that keeps every point
    robust (binary search, each answer checked).  ``known``: minimum_with_truth plans on
    ``tab`` of some points (by position in T), not searched again.

    A point's minimum drops by at most the c cells a round cleans (those c cells and the
    new minimum's cells certify it on the old table), so a lower bound found in one round,
    less c, holds in the next: a point whose bound cannot beat the best so far is only
    checked for being cleanable at all, and only in the first round.  Cleaning keeps a
    cleanable point cleanable and a robust one robust (the cleaned table's worlds are a
    subset of the old table's worlds with the same cells cleaned), so every point still
    to do after the first round was shown cleanable there.

    Parameters
    ----------
    tab, T, alpha
        As for ``clean_many``.
    known : dict, optional
        {position in T: its ``minimum_with_truth`` plan on ``tab``}.

    Returns
    -------
    ndarray of shape (m, d, K) or None
    """
    x, stop = greedy_some(tab, T, alpha, len(T), known=known)
    return None if stop else x


def greedy_some(
    tab: CleaningTable,
    T: np.ndarray,
    alpha,
    need: int,
    budget: int | None = None,
    known: dict | None = None,
) -> tuple:
    """``greedy_many`` until at least ``need`` points of T are robust, within ``budget``
    cells: (group counts, None) when it gets there, pruned (``prune``) to keep ``need``
    points robust; else (the counts cleaned so far, "budget" or "stuck").

    With ``need`` below the points a point that no cleaning of the table as cleaned so far
    certifies is passed over; with every point needed one stops the search ("stuck")."""
    x = np.zeros_like(tab.hid)
    lower = {int(p): pl.cost for p, pl in (known or {}).items()}
    skip = need < len(T)
    for step in range(int(tab.hid.sum()) + 1):
        cur = after(tab, x)
        robust = state_certification(cur.obs, cur.hid.sum(axis=2), cur.N, T, alpha).robust
        if robust.sum() >= need:
            return prune(tab, T, x, alpha, need), None
        todo = np.flatnonzero(~robust)
        plan = _cheapest_completion(
            cur, T, todo, alpha, lower, (known or {}) if step == 0 else {}, step > 0, skip
        )
        if plan is None:
            return x, "stuck"
        if budget is not None and int(x.sum()) + plan.cost > budget:
            return x, "budget"
        x = x + plan.x
        lower = {p: b - plan.cost for p, b in lower.items()}
    raise AssertionError("internal: greedy did not terminate")


def _cheapest_completion(
    tab: CleaningTable,
    T: np.ndarray,
    todo: np.ndarray,
    alpha: Fraction,
    lower: dict,
    known: dict,
    cleanable_known: bool,
    skip: bool = False,
):
    """The cheapest single-point minimum among the points ``todo`` (the first in T's order
    among equals), None if one of them has none (``skip``: if none of them has one; the
    others are passed over).  Points are tried in the order of their
    ``lower`` bounds (updated), each only for a plan that would win: cheaper than the best
    so far, or as cheap if it comes first; ``known`` plans are not searched, and a point
    whose bound shows it cannot win is only checked for being cleanable (unless
    ``cleanable_known``: every point of ``todo`` is)."""
    best = None  # (cost, position in todo, plan)
    for i in sorted(range(len(todo)), key=lambda i: lower.get(int(todo[i]), -math.inf)):
        p = int(todo[i])
        limit = math.inf if best is None else best[0] + (i < best[1])
        if p in known:
            plan, possible = (known[p] if known[p].cost < limit else None), True
        elif lower.get(p, -math.inf) >= limit:
            plan, possible = None, cleanable_known or cleanable(tab, T[p], alpha)
        else:
            plan, possible, lower[p] = search_with_truth(tab, T[p], alpha, limit)
        if skip and not possible:
            continue
        if not possible or (plan is None and limit == math.inf):
            return None
        if plan is not None:
            best = (plan.cost, i, plan)
    return None if best is None else best[2]


def prune(
    tab: CleaningTable, T: np.ndarray, x: np.ndarray, alpha, need: int | None = None
) -> np.ndarray:
    """Cut each group's count (largest groups first) to the smallest value that keeps every
    point robust (``need``: at least that many points), found by binary search; only
    checked states are kept.

    Parameters
    ----------
    tab, T, alpha
        As for ``clean_many``.
    x : ndarray, shape (m, d, K)
        Group counts that make every point (``need`` points) robust.
    need : int, optional
        The points that must stay robust (default: all of them).

    Returns
    -------
    ndarray, shape (m, d, K)
    """
    x = x.copy()
    for g in np.argsort(-x, axis=None, kind="stable"):
        g = np.unravel_index(g, x.shape)
        lo, hi = -1, int(x[g])  # hi: known to work
        while hi - lo > 1:
            mid = (lo + hi) // 2
            x[g] = mid
            lo, hi = (lo, mid) if _enough(tab, T, x, alpha, need) else (mid, hi)
        x[g] = hi
    return x


def _enough(tab: CleaningTable, T: np.ndarray, x: np.ndarray, alpha, need) -> bool:
    """After cleaning x, are all points (at least ``need`` of them) robust?"""
    if need is None or need >= len(T):
        return all_robust(tab, T, x, alpha)
    cur = after(tab, x)
    return (
        int(state_certification(cur.obs, cur.hid.sum(axis=2), cur.N, T, alpha).robust.sum()) >= need
    )


def robust_counts(tab: CleaningTable, T: np.ndarray, groups, X: np.ndarray, alpha) -> np.ndarray:
    """``all_robust`` for many cleanings at once, each given as group counts.

    Parameters
    ----------
    tab, T, alpha
        As for ``clean_many``.
    groups : tuple of three int arrays (G,)
        The (label, column, true value) of each group of missing cells.
    X : ndarray of int, shape (B, G)
        Cells cleaned per group, one cleaning per row.

    Returns
    -------
    ndarray of bool, shape (B,)
        Whether every point is certifiably robust after that cleaning, decided exactly as
        ``all_robust`` decides it (domains recomputed per cleaning).
    """
    if not (T == BLANK).any():
        return _robust_counts(tab.obs, tab.hid, tab.N, T, groups, X, alpha)
    out = np.ones(len(X), bool)
    for _, keep, codes, (obs, hid) in by_blanks(T, tab.N, tab.obs, tab.hid):
        kept = np.isin(groups[1], keep)  # the groups of the kept columns, renumbered
        sub = (groups[0][kept], np.searchsorted(keep, groups[1][kept]), groups[2][kept])
        out &= _robust_counts(obs, hid, tab.N, codes, sub, X[:, kept], alpha)
    return out


def _robust_counts(obs0, hid, N, T, groups, X, alpha) -> np.ndarray:
    """``robust_counts`` for test points without blank cells, on the arrays of a table."""
    (B, k), (m, d, _) = (len(X), len(T)), obs0.shape
    add = np.zeros((B, *obs0.shape), np.int64)
    add[:, groups[0], groups[1], groups[2]] = X
    obs = obs0[None] + add
    M = (hid[None] - add).sum(axis=3)  # (B, m, d)
    dom = obs.sum(axis=1) > 0  # (B, d, K)
    delta = dom.sum(axis=2)  # (B, d)
    cols, Tc = np.arange(d)[None, :], np.maximum(T, 0)
    seen = (T >= 0)[None] & dom[:, cols, Tc]  # (B, k, d)
    E = np.where(seen[:, :, None, :], obs[:, :, cols, Tc].transpose(0, 2, 1, 3), 0)
    lo, hi = extremes(E, M[:, None], delta[:, None, None, :], seen)
    robust = np.zeros((B, k), bool)
    # alpha = 0: the domain sizes are in no support; else one decision per distinct domain
    kinds = [(np.arange(B), delta[0])] if alpha == 0 or B == 0 else []
    if not kinds:
        sizes, which = np.unique(delta, axis=0, return_inverse=True)
        kinds = [(np.flatnonzero(which.ravel() == i), sz) for i, sz in enumerate(sizes)]
    for rows, sz in kinds:
        shape = (len(rows) * k, m, d)
        dec = certify_ranges(lo[rows].reshape(shape), hi[rows].reshape(shape), N, sz, alpha)
        robust[rows] = dec.robust.reshape(len(rows), k)
    return robust.all(axis=1)


def exhaustive(tab: CleaningTable, T: np.ndarray, alpha, lo: int, hi: int, deadline: float):
    """Try every cleaning of lo..hi cells, fewest first: (the first group counts that make
    every point robust or None, the fewest cells a cleaning may still need: hi + 1 when all
    were tried in vain, less when the deadline stopped the search).

    Every size is tried: cleaning a cell whose truth is new to its column can make a
    robust point non-robust again (the column's domain grows), so larger cleanings do not
    contain the smaller ones' answers."""
    groups = np.nonzero(tab.hid)
    m, d, K = tab.obs.shape
    rows = max(1, EXHAUSTIVE_BLOCK_ELEMENTS // (m * d * (K + len(T))))
    for size in range(lo, hi + 1):
        for X in count_vectors(tab.hid[groups], size, rows):
            if time.monotonic() > deadline:
                return None, size
            ok = np.flatnonzero(robust_counts(tab, T, groups, X, alpha))
            if len(ok):
                x = np.zeros_like(tab.hid)
                x[groups] = X[ok[0]]
                return x, size
    return None, hi + 1


def small(tab: CleaningTable, k: int, lo: int, hi: int) -> bool:
    """Whether cleanings of lo..hi cells, for k points, are few enough to try them all
    (EXHAUSTIVE_MAX_CHECKS)."""
    if hi > EXHAUSTIVE_MAX_CHECKS:  # over a million cells to try: never small
        return False
    limit = EXHAUSTIVE_MAX_CHECKS / max(k, 1)
    return vectors_between(tab.hid[tab.hid > 0], lo, hi, limit) <= limit


def _found(
    tab: CleaningTable, x: np.ndarray, method: str, lower: int, stops: list
) -> TogetherCleaning:
    """The answer for verified group counts x, optimal when x meets the proven ``lower``."""
    cost = int(x.sum())
    return TogetherCleaning(
        True, tab.named(tab.cells(x)), method, cost <= lower, min(lower, cost), **_limits(stops)
    )


def clean_many(
    tab: CleaningTable,
    T: np.ndarray,
    alpha=0,
    method: str = "auto",
    node_limit: int = 20_000,
    time_limit: float = 60.0,
    target=1,
    budget: int | None = None,
    minima: list | None = None,
) -> TogetherCleaning:
    """Fewest cleanings making the points of T robust at once: every point that some
    cleaning certifies (the others, proven, are set aside), or a share of them.

    Parameters
    ----------
    tab, alpha
        As for ``minimum_with_truth``.
    T : ndarray, shape (k, d)
        The test points, each as ``minimum_with_truth``'s t.
    method : {"auto", "exact", "greedy"}, default "auto"
        ``greedy`` returns the pruned greedy answer with a proven lower bound: the largest
        single-point minimum and, for alpha = 0, the relaxed bound.  ``exact`` (alpha = 0
        only) also solves the exact program and keeps the better verified answer; it is
        optimal when it meets the program's proven bound.  On a small instance (module
        docstring) it tries every cleaning below the greedy answer instead, which proves
        the optimum.  ``auto`` is ``exact`` when
        alpha = 0 and the greedy answer has at most AUTO_EXACT_CELLS_CLEAN cells.  With a
        ``target`` below 1 or a ``budget`` the answer is greedy's.
    node_limit : int, default 20000
        HiGHS's branch-and-bound nodes per solve.
    time_limit : float, default 60.0
        Seconds per solve (a safety net; a solve it cuts short sets ``time_limited``).
    target : number in (0, 1], default 1
        The share of the certifiable points to certify: ceil(target k') of the k' points
        some cleaning certifies.  Its proven lower bound is the need-th smallest
        single-point minimum (certifying a set of points costs at least each one's
        minimum).
    budget : int, optional
        The most cells to clean (early termination): greedy stops before a round that
        would pass it, and says how many points the cells cleaned so far certify.
    minima : list, optional
        Each point's single-point minimum (a cost, or None when no cleaning certifies it),
        if known.

    Returns
    -------
    TogetherCleaning
        With ``excluded``, ``target`` and ``certified`` set.
    """
    if minima is None:  # which points some cleaning certifies: proven, without a search
        able = np.array([cleanable(tab, t, alpha) for t in T], bool)
    else:
        able = np.array([c is not None for c in minima], bool)
    keep = np.flatnonzero(able)
    need = _needed(target, len(keep))
    if need < len(keep) or budget is not None:
        costs = [_minimum(tab, T[p], alpha) if minima is None else minima[p] for p in keep]
        found = _some(tab, T[keep], alpha, need, budget, costs)
    else:
        found = _all(tab, T[keep], alpha, method, node_limit, time_limit)
    certified = None
    if found.possible or found.budget_limited:
        certified = _certified(tab, T[keep], found.cells, alpha)
    return dataclasses.replace(
        found,
        excluded=tuple(int(p) for p in np.flatnonzero(~able)),
        target=need,
        certified=certified,
    )


def _minimum(tab: CleaningTable, t: np.ndarray, alpha) -> int | None:
    """One point's fewest cells, or None when no cleaning certifies it."""
    plan = search_with_truth(tab, t, alpha)[0]
    return None if plan is None else plan.cost


def _needed(target, k: int) -> int:
    """ceil(target * k), the target read as the decimal it was written as (0.9 of 10 is 9,
    not the 10 a float's 9.000000000000002 would round up to)."""
    share = Fraction(target).limit_denominator(10**9)
    return min(k, math.ceil(share * k))


def _certified(tab: CleaningTable, T: np.ndarray, cells, alpha) -> int:
    """How many points of T the named cells certify, counted on the cleaned table."""
    x = tab.counts_of(cells)
    cur = after(tab, x)
    return int(state_certification(cur.obs, cur.hid.sum(axis=2), cur.N, T, alpha).robust.sum())


def _some(tab, T, alpha, need: int, budget, costs: list) -> TogetherCleaning:
    """At least ``need`` points of T robust within ``budget`` cells (greedy), with the
    proven bound: the need-th smallest single-point minimum."""
    lower = sorted(costs)[need - 1] if need else 0
    x, stop = greedy_some(tab, T, alpha, need, budget)
    if stop is None:
        return _found(tab, x, "greedy", lower, [])
    cells = tab.named(tab.cells(x)) if stop == "budget" else ()
    return TogetherCleaning(False, cells, "greedy", False, lower, budget_limited=stop == "budget")


def _all(tab, T, alpha, method, node_limit, time_limit) -> TogetherCleaning:
    """Fewest cleanings making every point of T robust at once (each point cleanable)."""
    zero = np.zeros_like(tab.hid)
    if all_robust(tab, T, zero, alpha):
        return TogetherCleaning(True, (), "greedy", True, 0)
    floor, stops = 0, []
    if alpha == 0:
        floor = relaxed_bound(tab, T, node_limit, time_limit, stops)
        if floor == math.inf:
            return TogetherCleaning(False, (), "greedy", True, None)
    floor, known = _largest_minimum(tab, T, alpha, floor)
    if floor >= int(tab.hid.sum()) and all_robust(tab, T, tab.hid, alpha):
        # some point needs every cell (BabyProduct at alpha 0): cleaning them all is optimal
        return _found(tab, tab.hid.copy(), "exact" if method == "exact" else "greedy", floor, stops)
    start = greedy_many(tab, T, alpha, known)
    few = start is not None and start.sum() <= AUTO_EXACT_CELLS_CLEAN
    if not (method == "exact" or (method == "auto" and alpha == 0 and few)):
        if start is None:
            return TogetherCleaning(False, (), "greedy", False, floor, **_limits(stops))
        return _found(tab, start, "greedy", floor, stops)
    upper = int(start.sum()) if start is not None else int(tab.hid.sum())
    top = upper - 1 if start is not None else upper  # the most cells worth trying
    if start is not None and floor > top:  # greedy's answer meets the proven bound
        return _found(tab, start, "exact", floor, stops)
    if small(tab, len(T), floor, top):
        best, lower = exhaustive(tab, T, alpha, floor, top, time.monotonic() + time_limit)
        if best is None and lower <= top:
            stops.append("time")  # the time limit stopped it: lower is what it proved
        elif best is None and start is None:
            lower = math.inf  # every cleaning tried: none certifies every point
    else:
        best, lower = exact_many(tab, T, upper, floor, node_limit, time_limit, stops)
    if lower == math.inf:
        return TogetherCleaning(False, (), "exact", True, None, **_limits(stops))
    found = [b for b in (best, start) if b is not None]
    if not found:
        return TogetherCleaning(False, (), "exact", False, lower, **_limits(stops))
    return _found(tab, min(found, key=lambda b: int(b.sum())), "exact", lower, stops)
