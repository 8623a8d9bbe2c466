"""Rows for all test points together, with the truth (alpha 0), and the cleaning curve.

Every point some cleaning certifies (``RowCleaning.possible``) is a *target*; the others
are set aside: proven impossible, or not known (none found, none proven).  The rows found
are the policy's path on the targets (``nbcert.repairs.policy``, the truth revealed as it
cleans), then pruned: a row (or on large tables a block of rows) whose removal leaves
every target certain is dropped, last cleaned first, within a budget of checks.  Cleaning the rows together needs at least each
target's own fewest, so the largest per-point lower bound is a proven lower bound; the
answer is proven fewest where it meets the bound, or where every smaller set of rows (at
most ``TRY_LIMIT`` of them) was tried and none certified every target.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .certify import Worlds, certify_rows
from .clean import point_cleaning
from .patterns import Patterns
from .policy import path
from .table import RowRepairs

TRY_LIMIT = 2000  # smaller sets of rows tried to prove the rows found fewest
PRUNE_LIMIT = 20_000  # point certifications spent pruning the rows found one by one
PRUNE_CHECKS = 24  # certifications of every point spent pruning them block by block


@dataclass(frozen=True)
class TogetherRows:
    """The rows whose cleaning certifies every target at once.

    ``rows`` (positions in the table's order) or None when none were found; ``lower`` a
    proven lower bound on their fewest; ``optimal`` proven fewest; ``targets`` the points
    some cleaning certifies; ``excluded`` the points no cleaning certifies (proven);
    ``unknown`` those neither found nor proven impossible; ``possible`` False where every
    set of rows was tried and none certifies every target at once (each alone can be).
    """

    rows: tuple | None
    lower: int
    optimal: bool
    targets: tuple
    excluded: tuple
    unknown: tuple
    possible: bool | None = True


def certain(rr: RowRepairs, T: np.ndarray, rows, alpha=0) -> np.ndarray:
    """(k,) bool: the points certain once ``rows`` are cleaned."""
    now = rr.cleaned(np.asarray(rows, np.intp)) if len(rows) else rr
    return certify_rows(now, T, alpha, with_ties=False).robust == 1


def points(rr: RowRepairs, T: np.ndarray, **limits) -> list:
    """Each point's ``RowCleaning`` (alpha 0)."""
    worlds = Worlds(rr, 0)
    base = worlds.patterns.base(T)
    return [point_cleaning(worlds, worlds.point(T[i], base[i]), **limits) for i in range(len(T))]


def together(rr: RowRepairs, T: np.ndarray, each: list, batch: int | None = None) -> TogetherRows:
    """The rows for all targets together (module docstring); ``each``: the points'
    ``RowCleaning``."""
    targets = tuple(i for i, p in enumerate(each) if p.possible)
    excluded = tuple(i for i, p in enumerate(each) if p.possible is False)
    unknown = tuple(i for i, p in enumerate(each) if p.possible is None)
    lower = max((each[i].lower for i in targets), default=0)
    if not targets:
        return TogetherRows((), 0, True, targets, excluded, unknown)
    Tt = T[list(targets)]
    rows, ok = path(rr, Tt, 0, batch)
    rows = rows if ok else _completed(rr, Tt, rows)
    if rows is None:
        every = len(_dirty(rr)) + 1
        smaller = _smallest(rr, Tt, lower, every)
        if smaller is not None:
            return TogetherRows(tuple(sorted(smaller)), len(smaller), True, *_sets(each))
        tried = _tried(rr, lower, every)
        return TogetherRows(None, lower, False, *_sets(each), False if tried else None)
    rows = _pruned(rr, Tt, rows)
    if len(rows) > lower:
        smaller = _smallest(rr, Tt, lower, len(rows))
        if smaller is not None:
            return TogetherRows(tuple(sorted(smaller)), len(smaller), True, *_sets(each))
        if _tried(rr, lower, len(rows)):  # every smaller set tried: none certifies all
            lower = len(rows)
    return TogetherRows(tuple(sorted(rows)), lower, len(rows) == lower, *_sets(each))


def _sets(each: list) -> tuple:
    return (
        tuple(i for i, p in enumerate(each) if p.possible),
        tuple(i for i, p in enumerate(each) if p.possible is False),
        tuple(i for i, p in enumerate(each) if p.possible is None),
    )


def _completed(rr: RowRepairs, T: np.ndarray, rows: list):
    """The rows with, while a point is not certain, the rows found for the one (on the
    table as it stands) that needs the fewest; None if that does not end certifying all
    (the policy ranks rows whose repairs differ; a row with one repair may need cleaning
    too)."""
    rows = list(rows)
    for _ in range(len(T)):
        now = rr.cleaned(np.array(rows, np.intp)) if rows else rr
        worlds = Worlds(now, 0)
        ok = certify_rows(now, T, 0, worlds, with_ties=False).robust == 1
        if ok.all():
            return rows
        base = worlds.patterns.base(T)
        found = [point_cleaning(worlds, worlds.point(T[i], base[i])) for i in np.flatnonzero(~ok)]
        found = [p.rows for p in found if p.possible]
        if not found:
            return None
        rows += [r for r in min(found, key=len) if r not in rows]
    return rows if certain(rr, T, rows).all() else None


def _pruned(rr: RowRepairs, T: np.ndarray, rows: list) -> list:
    """The rows without those whose removal leaves every point certain: one at a time
    (last cleaned first) where that takes at most PRUNE_LIMIT point certifications, else
    blocks of the order, halving from half of it, within PRUNE_CHECKS certifications."""
    kept = list(rows)
    if len(rows) * len(T) <= PRUNE_LIMIT:
        for r in reversed(rows):
            without = [x for x in kept if x != r]
            if certain(rr, T, without).all():
                kept = without
        return kept
    size, checks = len(kept) // 2, 0
    while size and checks < PRUNE_CHECKS:
        end = len(kept)
        while end - size >= 0 and checks < PRUNE_CHECKS:
            without = kept[: end - size] + kept[end:]
            checks += 1
            if certain(rr, T, without).all():
                kept = without
            end -= size
        size //= 2
    return kept


def _dirty(rr: RowRepairs) -> list:
    return np.unique(rr.owner).tolist()


def _tried(rr: RowRepairs, low: int, high: int) -> bool:
    """Whether every set of ``low`` .. ``high - 1`` dirty rows is at most TRY_LIMIT."""
    n = len(_dirty(rr))
    return sum(math.comb(n, s) for s in range(low, high)) <= TRY_LIMIT


def _smallest(rr: RowRepairs, T: np.ndarray, low: int, high: int):
    """The first set of ``low`` .. ``high - 1`` dirty rows (by size) certifying every
    point, where there are at most TRY_LIMIT; None otherwise (or none does)."""
    if not _tried(rr, low, high):
        return None
    dirty = _dirty(rr)
    for s in range(low, high):
        for rows in itertools.combinations(dirty, s):
            if certain(rr, T, list(rows)).all():
                return list(rows)
    return None


def curve(rr: RowRepairs, T: np.ndarray, order, alpha=0, points: int = 50) -> dict:
    """Certain points along an order of rows (cleaned to their truth): at about ``points``
    states (the first and last always), the rows cleaned, the points certain and those
    undecided (a search stopped)."""
    order = [int(r) for r in order]
    steps = sorted(set(np.linspace(0, len(order), min(points, len(order) + 1)).round().astype(int)))
    out, memo, first = {"rows": [], "certain": [], "undecided": []}, {}, Patterns(rr)
    for k in steps:
        seen = first.cleaned(np.array(order[:k], np.intp)) if k else first
        worlds = Worlds(seen.rr, alpha, memo=memo, patterns=seen)
        got = certify_rows(seen.rr, T, alpha, worlds, with_ties=False)
        out["rows"].append(k)
        out["certain"].append(int((got.robust == 1).sum()))
        out["undecided"].append(int((got.robust == -1).sum()))
    return out


__all__ = ["TogetherRows", "points", "together", "curve", "certain", "TRY_LIMIT"]
