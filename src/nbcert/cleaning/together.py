"""The fewest cleanings for several points at once (exact where small, else greedy with a
proven bound), written once against a cell model (``nbcert.cleaning.table``).

``greedy`` repeatedly cleans the cheapest single-point completion on the table cleaned so
far, then prunes each group's count by binary search.  Cleaning c cells lowers another
point's minimum by at most c (the c cells with its new minimum's cells certify it on the
old table), so a lower bound from one round, less c, holds in the next, and each round
searches a point only for a plan that would win.  Its proven lower bound is the larger of
the largest single-point minimum and (domains, alpha = 0) the relaxed bound of
``nbcert.cleaning.program``.  ``exact`` also solves the exact program there (domains, alpha
= 0) and keeps the better verified answer; but first, when the instance is small (vectors
of group counts between that bound and the greedy answer less one, times the points, at
most EXHAUSTIVE_MAX_CHECKS), it tries every cleaning instead (``exhaustive``), which proves
the optimum (or that no cleaning works) by enumeration, with no float in the proof.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..milp import (
    EXHAUSTIVE_BLOCK_ELEMENTS,
    EXHAUSTIVE_MAX_CHECKS,
    TogetherPoints,
    count_vectors,
    vectors_between,
)
from .program import exact_together, relaxed_bound
from .single import cleanable, search, within


@dataclass(frozen=True)
class TogetherCleaning(TogetherPoints):
    """Cells whose cleaning certifies every test point at once, as (row position in the
    training table, column name); ``optimal`` says whether their number is proven minimum,
    ``lower_bound`` is a proven bound on the minimum, and ``why_not_optimal`` why not:
    the limits that cut the search short (``time_limited``, ``node_limited``,
    ``memory_limited``: the exact program outgrew ``ONE_HOT_MAX_COLUMNS``), greedy's
    ``fallback`` where no exact search ran, or a gap between bound and answer.

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
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> together = nbcert.clean_with_truth(train, truth, test, "y").together
    >>> together.cells, together.num_rows, together.excluded, together.certified
    (((3, 'color'),), 1, (), 2)
    """

    excluded: tuple = ()
    target: int | None = None
    certified: int | None = None

    @property
    def num_rows(self) -> int:
        """Training rows the cells lie in (CPClean's unit of cleaning: a row at a time)."""
        return len({r for r, _ in self.cells})

    def record(self, test_key) -> dict:
        """The answer as ``--json`` prints it and a certificate holds it; ``test_key(p)``
        names the test point at position p (its test_index, or that and its id)."""
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
            "why_not_optimal": self.why_not_optimal,
        }


def _limits(stops: list) -> dict:
    """The limits that cut a search short, from the entries of ``stops``."""
    names = ("time_limited", "node_limited", "memory_limited")
    return {name: stop in stops for name, stop in zip(names, ("time", "node", "memory"))}


def _largest_minimum(model, T: np.ndarray, alpha: Fraction, floor: int = 0, known=None):
    """max(floor, the largest single-point minimum of T) (every point cleanable), and the
    plans known: ``known`` ones, and a point searched in full where no plan within the
    floor so far is found without search, its cost then raising the floor."""
    known = dict(known or {})
    for p, t in enumerate(T):
        if p in known:
            floor = max(floor, known[p].cost)
        elif not within(model, t, alpha, floor):
            known[p] = search(model, np.zeros_like(model.cap), t, alpha)[0]
            floor = max(floor, known[p].cost)
    return floor, known


def greedy(model, T: np.ndarray, alpha, need: int | None = None, budget=None, known=None) -> tuple:
    """Greedy rounds until at least ``need`` points of T (default all) are robust, within
    ``budget`` cells: (the cleaning, None) when it gets there, pruned (``prune``) to keep
    ``need`` points robust; else (the cleaning so far, "budget" or "stuck").

    Each round cleans the cheapest single-point minimum completion (on the table as
    cleaned so far; the first point in T's order among equals) among the non-robust
    points.  ``known``: {position in T: its single-point plan on the uncleaned table}, not
    searched again.  A point's minimum drops by at most the c cells a round cleans (those
    c cells and the new minimum's cells certify it on the old table), so a lower bound
    found in one round, less c, holds in the next: a point whose bound cannot beat the best
    so far is only checked for being cleanable at all, and only in the first round.  With
    ``need`` below the points a point that no cleaning of the table as cleaned so far
    certifies is passed over; with every point needed one stops the search ("stuck")."""
    x = np.zeros_like(model.cap)
    need = len(T) if need is None else need
    lower = {int(p): pl.cost for p, pl in (known or {}).items()}
    for step in range(int(model.cap.sum()) + 1):
        robust = model.certify(x, T, alpha).robust
        if robust.sum() >= need:
            return prune(model, T, x, alpha, need), None
        todo = np.flatnonzero(~robust)
        first = (known or {}) if step == 0 else {}
        plan = _cheapest_completion(model, x, T, todo, alpha, lower, first, step > 0, need < len(T))
        if plan is None:
            return x, "stuck"
        if budget is not None and int(x.sum()) + plan.cost > budget:
            return x, "budget"
        x = x + plan.x
        lower = {p: b - plan.cost for p, b in lower.items()}
    raise AssertionError("internal: greedy did not terminate")


def _cheapest_completion(model, x, T, todo, alpha, lower: dict, known: dict, able: bool, skip):
    """The cheapest single-point minimum after x among the points ``todo`` (the first in
    T's order among equals), None if one of them has none (``skip``: if none of them has
    one; the others are passed over).  Points are tried in the order of their ``lower``
    bounds (updated), each only for a plan that would win: cheaper than the best so far,
    or as cheap if it comes first; ``known`` plans are not searched, and a point whose
    bound shows it cannot win is only checked for being cleanable (unless ``able``: every
    point of ``todo`` is).  No point of ``todo`` is certain after x."""
    best = None  # (cost, position in todo, plan)
    for i in sorted(range(len(todo)), key=lambda i: lower.get(int(todo[i]), -math.inf)):
        p = int(todo[i])
        limit = math.inf if best is None else best[0] + (i < best[1])
        if p in known:
            plan, possible = (known[p] if known[p].cost < limit else None), True
        elif lower.get(p, -math.inf) >= limit:
            plan, possible = None, able or cleanable(model, T[p], alpha, x, now=-1)
        else:
            plan, possible, lower[p] = search(model, x, T[p], alpha, limit, now=-1)
        if skip and not possible:
            continue
        if not possible or (plan is None and limit == math.inf):
            return None
        if plan is not None:
            best = (plan.cost, i, plan)
    return None if best is None else best[2]


def prune(model, T: np.ndarray, x: np.ndarray, alpha, need: int | None = None) -> np.ndarray:
    """Cut each group's count (largest groups first) to the smallest value that keeps every
    point robust (``need``: at least that many points), found by binary search; only
    checked states are kept.

    Parameters
    ----------
    model, T, alpha
        As for ``clean_together``.
    x : ndarray
        A cleaning (the model's) that makes every point (``need`` points) robust.
    need : int, optional
        The points that must stay robust (default: all of them).

    Returns
    -------
    ndarray
    """
    need = len(T) if need is None else need
    x = x.copy()
    flat = x.reshape(-1)
    for g in np.argsort(-flat, kind="stable"):
        lo, hi = -1, int(flat[g])  # hi: known to work
        while hi - lo > 1:
            mid = (lo + hi) // 2
            flat[g] = mid
            ok = int(model.certify(x, T, alpha).robust.sum()) >= need
            lo, hi = (lo, mid) if ok else (mid, hi)
        flat[g] = hi
    return x


def exhaustive(model, T: np.ndarray, alpha, lo: int, hi: int, deadline: float):
    """Try every cleaning of lo..hi cells, fewest first: (the first cleaning that makes
    every point robust or None, the fewest cells a cleaning may still need: hi + 1 when all
    were tried in vain, less when the deadline stopped the search).

    Every size is tried: cleaning a cell whose truth is new to its column can make a
    robust point non-robust again (the column's domain grows), so larger cleanings do not
    contain the smaller ones' answers."""
    groups = np.flatnonzero(model.cap)
    rows = max(1, EXHAUSTIVE_BLOCK_ELEMENTS // model.check_size(len(T)))
    for size in range(lo, hi + 1):
        for X in count_vectors(model.cap.reshape(-1)[groups], size, rows):
            if time.monotonic() > deadline:
                return None, size
            ok = np.flatnonzero(model.robust_all(X, T, alpha))
            if len(ok):
                x = np.zeros_like(model.cap)
                x.reshape(-1)[groups] = X[ok[0]]
                return x, size
    return None, hi + 1


def small(model, k: int, lo: int, hi: int) -> bool:
    """Whether cleanings of lo..hi cells, for k points, are few enough to try them all
    (EXHAUSTIVE_MAX_CHECKS)."""
    if hi > EXHAUSTIVE_MAX_CHECKS:  # over a million cells to try: never small
        return False
    limit = EXHAUSTIVE_MAX_CHECKS / max(k, 1)
    caps = model.cap.reshape(-1)
    return vectors_between(caps[caps > 0], lo, hi, limit) <= limit


def _found(model, x: np.ndarray, method: str, lower: int, stops: list) -> TogetherCleaning:
    """The answer for a verified cleaning x, optimal when x meets the proven ``lower``."""
    cost = int(x.sum())
    cells = model.table.named(model.cells(x))
    return TogetherCleaning(True, cells, method, cost <= lower, min(lower, cost), **_limits(stops))


def clean_together(
    model,
    T: np.ndarray,
    alpha=0,
    method: str = "auto",
    node_limit: int = 20_000,
    time_limit: float = 60.0,
    target=1,
    budget: int | None = None,
    plans: list | None = None,
) -> TogetherCleaning:
    """Fewest cleanings making the points of T robust at once: every point that some
    cleaning certifies (the others, proven, are set aside), or a share of them.

    Parameters
    ----------
    model, T, alpha
        As for ``minimum_with_truth`` (T: the test points, (k, d)).
    method : {"auto", "exact", "greedy"}, default "auto"
        ``greedy``: the pruned greedy answer with a proven lower bound (the largest
        single-point minimum and, for domains at alpha = 0, the relaxed bound).  ``exact``
        and ``auto`` go on from there to prove what they can within ``time_limit``: every
        cleaning below greedy's answer where those are few (module docstring), else the
        exact program (domains, alpha = 0), keeping the better verified answer; where
        neither applies ``auto`` keeps greedy's answer and says why (``fallback``).  With
        a ``target`` below 1 or a ``budget`` the answer is greedy's.
    node_limit : int, default 20000
        HiGHS's branch-and-bound nodes per solve.
    time_limit : float, default 60.0
        Seconds for the exact search's stages together (a search it cuts short sets
        ``time_limited``).
    target : number in (0, 1], default 1
        The share to certify of the k' points some cleaning certifies: ceil(target k'),
        with the need-th smallest single-point minimum as the proven bound.
    budget : int, optional
        The most cells to clean: greedy stops before a round that would pass it.
    plans : list, optional
        Each point's ``minimum_with_truth`` plan (None: no cleaning certifies it), if known.

    Returns
    -------
    TogetherCleaning
        With ``excluded``, ``target`` and ``certified`` set.
    """
    alpha = Fraction(alpha)
    if plans is None:  # which points some cleaning certifies: proven, without a search
        keep, known = np.flatnonzero([cleanable(model, t, alpha) for t in T]), {}
    else:
        keep = np.flatnonzero([p is not None for p in plans])
        known = {i: plans[p] for i, p in enumerate(keep)}
    need = _needed(target, len(keep))
    if need < len(keep) or budget is not None:
        x, found = _some(model, T[keep], alpha, need, budget, known)
    else:
        limits = (node_limit, time.monotonic() + time_limit)
        x, found = _all(model, T[keep], alpha, method, limits, known)
    certified = None if x is None else int(model.certify(x, T[keep], alpha).robust.sum())
    aside = tuple(p for p in range(len(T)) if p not in set(keep.tolist()))
    return dataclasses.replace(found, excluded=aside, target=need, certified=certified)


def _needed(target, k: int) -> int:
    """ceil(target * k), the target read as the decimal it was written as (0.9 of 10 is 9,
    not the 10 a float's 9.000000000000002 would round up to)."""
    share = Fraction(target).limit_denominator(10**9)
    return min(k, math.ceil(share * k))


SOME = "a share of the points or a budget is asked for"  # why greedy answers those


def _some(model, T, alpha, need: int, budget, known: dict) -> tuple:
    """At least ``need`` points of T robust within ``budget`` cells (greedy), with the
    proven bound: the need-th smallest single-point minimum.  (The cleaning, or None where
    nothing is claimed; the answer.)"""
    zero = np.zeros_like(model.cap)
    known = {p: known.get(p) or search(model, zero, t, alpha)[0] for p, t in enumerate(T)}
    lower = sorted(plan.cost for plan in known.values())[need - 1] if need else 0
    x, stop = greedy(model, T, alpha, need, budget, known)
    if stop is None:
        found = _found(model, x, "greedy", lower, [])
        return x, dataclasses.replace(found, fallback=None if found.optimal else SOME)
    cells = model.table.named(model.cells(x)) if stop == "budget" else ()
    limited = dict(budget_limited=stop == "budget", fallback=SOME)
    return (x if stop == "budget" else None), TogetherCleaning(
        False, cells, "greedy", False, lower, **limited
    )


def _all(model, T, alpha, method, limits: tuple, known: dict) -> tuple:
    """Fewest cleanings making every point of T robust at once (each point cleanable),
    within ``limits`` (HiGHS's nodes, a deadline): (the cleaning found, or None; the
    answer)."""
    zero, every = np.zeros_like(model.cap), model.cap.copy()
    kind = "greedy" if method == "greedy" else "exact"  # of an answer proven on the way
    if model.certify(zero, T, alpha).robust.all():
        return zero, TogetherCleaning(True, (), kind, True, 0)
    floor, stops = 0, []
    if model.programs and alpha == 0:
        floor = relaxed_bound(model, T, limits[0], _left(limits[1], stops), stops)
        if floor == math.inf:
            return None, TogetherCleaning(False, (), "exact", True, None)
    floor, known = _largest_minimum(model, T, alpha, floor, known)
    if floor >= int(every.sum()) and model.certify(every, T, alpha).robust.all():
        # some point needs every cell (BabyProduct at alpha 0): cleaning them all is optimal
        return every, _found(model, every, kind, floor, stops)
    first = first_places(T)  # a repeated point is the same question again: asked once
    start, stop = greedy(model, T[first], alpha, known=_at(known, first))
    start = None if stop is not None else start
    upper = int((every if start is None else start).sum())
    top = upper - (start is not None)  # the most cells worth trying
    if start is not None and floor > top:  # greedy's answer meets the proven bound
        return start, _found(model, start, kind, floor, stops)
    why = "asked for" if method == "greedy" else _no_exact(model, alpha, len(T), floor, top)
    if why:
        found = _found(model, start, "greedy", floor, stops) if start is not None else None
        found = found or TogetherCleaning(False, (), "greedy", False, floor, **_limits(stops))
        return start, dataclasses.replace(found, fallback=why)
    best, lower = _exact(model, T, alpha, floor, (top, upper), limits, stops)
    if lower == math.inf:
        return None, TogetherCleaning(False, (), "exact", True, None, **_limits(stops))
    found = [b for b in (best, start) if b is not None]
    if not found:
        return None, TogetherCleaning(False, (), "exact", False, lower, **_limits(stops))
    x = min(found, key=lambda b: int(b.sum()))
    return x, _found(model, x, "exact", lower, stops)


def first_places(T: np.ndarray) -> np.ndarray:
    """The place of each distinct point's first occurrence in T, in T's order.

    Greedy on those points alone makes every round's choice it makes on T: a repeated
    point has its first occurrence's minimum and comes after it among equals, and is robust
    when it is."""
    return np.sort(np.unique(T, axis=0, return_index=True)[1])


def _at(known: dict, first: np.ndarray) -> dict:
    """``known`` plans (by place in T) by place among the ``first`` places."""
    return {i: known[p] for i, p in enumerate(first.tolist()) if p in known}


def _no_exact(model, alpha, k: int, floor: int, top: int) -> str | None:
    """Why no exact search applies between ``floor`` and ``top`` cells (None: one does)."""
    if small(model, k, floor, top) or (model.programs and alpha == 0):
        return None
    if not model.programs:
        return "no exact program with candidate repairs, and too many cleanings to try"
    return "no exact program at alpha > 0, and too many cleanings to try"


def _left(deadline: float, stops: list) -> float:
    """Seconds left before the deadline (at least a moment: a solver needs some)."""
    left = deadline - time.monotonic()
    if left <= 0 and "time" not in stops:
        stops.append("time")
    return max(left, 0.01)


def _exact(model, T, alpha, floor: int, ends: tuple, limits: tuple, stops: list) -> tuple:
    """The exact search between the proven ``floor`` and ``top`` cells (``ends``: top and
    the most cells a cleaning may take): every cleaning where they are few, else the exact
    program.  (The best cleaning found or None, the proven lower bound: math.inf when no
    cleaning works.)"""
    (top, upper), (nodes, deadline) = ends, limits
    if small(model, len(T), floor, top):
        best, lower = exhaustive(model, T, alpha, floor, top, deadline)
        if best is None and lower <= top:
            stops.append("time")  # the time limit stopped it: lower is what it proved
        elif best is None and top == upper:
            lower = math.inf  # every cleaning tried: none certifies every point
        return best, lower
    return exact_together(model, T, upper, floor, nodes, _left(deadline, stops), stops)
