"""Poisoning several test points at once (beyond the paper, whose section 5.2 proves it
NP-hard for three or more features and stops there).

The fewest cells to blank in a complete table (alpha = 0) so that every given test point
stops being certifiably robust:

* ``greedy``: repeatedly take the still-robust point whose single-point OP plan, worked
  out on the table as poisoned so far, is cheapest, and blank its cells.  Blanking more
  cells never makes a point robust again while every column keeps t_j and another value,
  and the result is checked exactly for every point at the end.
* ``exact``: the best verified answer and a proven lower bound, from a relaxed program
  (``nbcert.poisoning.relaxation``) solved by HiGHS and refined until its answer passes the
  exact check or the time limit.  Each solve's answer is rounded up, checked exactly,
  completed by greedy if needed and pruned (binary search per block of cells); the bounds
  are then refined where they were not exact at it.  The counts are continuous until that
  bound stops rising, then integer; a program over RELAXATION_INTEGER_MAX_COLUMNS columns
  gets its linear relaxation only.  No program is solved when the greedy answer meets the
  largest single-point minimum (OP is exact), which is a lower bound too.  First, when
  the instance is small (``exhaustive``: vectors of group counts between that bound and
  the greedy answer less one, times the points, at most EXHAUSTIVE_MAX_CHECKS), every
  blanking is tried
  instead, and the answer is proven optimal (or proven impossible) by enumeration.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..blanks import leave_out
from ..certification import certify_ranges, extremes
from ..errors import unknown_option
from ..milp import (
    EXHAUSTIVE_BLOCK_ELEMENTS,
    EXHAUSTIVE_MAX_CHECKS,
    RELAXATION_INTEGER_MAX_COLUMNS,
    TogetherPoints,
    count_vectors,
    vectors_between,
)
from ..stats import tally
from ..stats.domains import BLANK, EncodedTable
from .relaxation import Relaxation
from .single import PoisonedCounts, cells_of, plans, poison_encoded, status

METHODS = ("auto", "exact", "greedy")  # params.RULES["method"]["poison_together"]


@dataclass(frozen=True)
class TogetherPoisoning(TogetherPoints):
    """Cells to blank so that every given test point is non-robust at once, as (row
    position in the training table, column name).

    ``optimal`` says whether ``cells`` is proven minimum; ``lower_bound`` is a proven bound
    on the minimum (equal to ``num_cells`` when optimal).  ``possible`` False with
    ``optimal`` True is a proof that no blanking works; otherwise it only says that none
    was found (``status`` names the cases as ``Poisoning.status`` does).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({"f": list("aabbab"), "g": list("xyxyyx"), "y": list("pppqqq")})
    >>> test = pd.DataFrame({"f": ["a", "b"], "g": ["x", "y"]})
    >>> found = nbcert.poison_together(train, test, "y")
    >>> found.cells, found.optimal, found.lower_bound, found.why_not_optimal
    (((3, 'f'), (3, 'g')), True, 2, None)
    """

    @property
    def status(self) -> str:
        """'poisoned', 'already_nonrobust', 'impossible' (proven) or 'none_found'."""
        return status(self.possible, self.cells, self.optimal)


def _names(enc, blanked: np.ndarray) -> tuple:
    r, j = np.nonzero(blanked)
    order = np.lexsort((j, enc.rows[r]))
    return tuple((int(enc.rows[r[o]]), enc.features[j[o]]) for o in order)


def _blank_all(states, blanked, cells):
    """Blank (column, rows) cells in the mask and in every state (the mask is the answer)."""
    for j, rows in cells:
        rows = rows[~blanked[rows, j]]
        blanked[rows, j] = True
        if states:
            values, labels = states[0].enc.X[rows, j], states[0].label_of(rows)
        for st in states:
            st.blank_cells(j, values, labels, rows)


def _states(enc: EncodedTable, T: np.ndarray) -> list:
    """One PoisonedCounts per test point, from one counting pass."""
    counts = tally(enc)
    return [PoisonedCounts(enc, t, counts) for t in T]


def all_nonrobust(enc, T, blanked, counts=None) -> bool:
    """Exact check: after blanking the cells of a mask, is every point non-robust?

    Decided from the counts of the table and of the blanked cells, for all points at once.

    Parameters
    ----------
    enc, T
        As for ``poison_together_encoded``.
    blanked : ndarray of bool, shape (n, d)
        The blanked cells, in ``enc``'s row order; a column left with no observed cell
        makes the answer False.
    counts : ndarray, optional
        The table's ``stats.tally``, if already built.

    Returns
    -------
    bool
    """
    if blanked.all(axis=0).any():
        return False
    counts = tally(enc) if counts is None else counts
    m, d = enc.m, enc.d
    r, j = np.nonzero(blanked)
    lab = np.searchsorted(enc.label_bounds, r, side="right") - 1
    left = counts - np.bincount(lab * enc.n_codes + enc.X[r, j], minlength=m * enc.n_codes).reshape(
        m, -1
    )
    M = np.bincount(lab * d + j, minlength=m * d).reshape(m, d)
    cnt = left.sum(axis=0)
    ndist = np.add.reduceat(cnt > 0, enc.offsets[:-1])  # the missing slot holds no observed cell
    G = enc.global_codes(T)
    A = np.where((T >= 0)[:, None, :], left[:, G].transpose(1, 0, 2), 0)
    seen = (cnt[G] > 0) & (ndist > 0)
    lo, hi = leave_out(
        *extremes(A, M[None], ndist[None, None, :], seen), T == BLANK, enc.label_sizes
    )
    return not certify_ranges(lo, hi, enc.label_sizes, enc.delta, 0).robust.any()


def nonrobust_counts(enc, T, counts, groups, X) -> np.ndarray:
    """``all_nonrobust`` for many blankings at once, each given as group counts.

    Parameters
    ----------
    enc, T
        As for ``poison_together_encoded``.
    counts : ndarray, shape (m, n_codes)
        The table's ``stats.tally``.
    groups : tuple of two int arrays (G,)
        The (label, global code) of each group of interchangeable cells.
    X : ndarray of int, shape (B, G)
        Cells blanked per group, one blanking per row.

    Returns
    -------
    ndarray of bool, shape (B,)
        Whether every point is non-robust after that blanking (False where it empties a
        column), decided exactly as ``all_nonrobust`` decides it.
    """
    B, (m, d) = len(X), (enc.m, enc.d)
    cut = np.zeros((B, *counts.shape), np.int64)
    cut[:, groups[0], groups[1]] = X
    left = counts[None] - cut
    starts = enc.offsets[:-1]
    M = np.add.reduceat(cut, starts, axis=2)  # (B, m, d): blanked per (label, column)
    cnt = left.sum(axis=1)  # (B, n_codes)
    ndist = np.add.reduceat(cnt > 0, starts, axis=1)  # (B, d)
    G = enc.global_codes(T)  # (k, d)
    A = np.where((T >= 0)[None, :, None, :], left[:, :, G].transpose(0, 2, 1, 3), 0)
    seen = (cnt[:, G] > 0) & (ndist[:, None, :] > 0)  # (B, k, d)
    lo, hi = extremes(A, M[:, None], ndist[:, None, None, :], seen)
    lo, hi = leave_out(lo, hi, T == BLANK, enc.label_sizes)
    k = len(T)
    robust = certify_ranges(
        lo.reshape(B * k, m, d), hi.reshape(B * k, m, d), enc.label_sizes, enc.delta, 0
    ).robust.reshape(B, k)
    return (ndist > 0).all(axis=1) & ~robust.any(axis=1)


def exhaustive(enc: EncodedTable, T: np.ndarray, lo: int, hi: int, deadline: float):
    """Try every blanking of lo..hi cells, fewest first: (the first mask that makes every
    point non-robust or None, the fewest cells a blanking may still need: hi + 1 when all
    were tried in vain, less when the deadline stopped the search).

    Cells of one (label, column, value) are interchangeable, so a blanking is a vector of
    counts per group, each checked exactly (``nonrobust_counts``).  Every size is tried:
    blanking more cells can make a point robust again (a column left with t_j alone)."""
    counts = tally(enc)
    groups = np.nonzero(counts)
    rows = max(1, EXHAUSTIVE_BLOCK_ELEMENTS // (enc.m * (counts.shape[1] + len(T) * enc.d)))
    for size in range(lo, hi + 1):
        for X in count_vectors(counts[groups], size, rows):
            if time.monotonic() > deadline:
                return None, size
            ok = np.flatnonzero(nonrobust_counts(enc, T, counts, groups, X))
            if len(ok):
                return _mask(enc, groups, X[ok[0]]), size
    return None, hi + 1


def _mask(enc, groups, x) -> np.ndarray:
    """The (n, d) mask blanking x[g] cells of each group g, first rows first."""
    out = np.zeros((enc.n, enc.d), bool)
    for l, code, c in zip(*groups, x.tolist()):
        if c:
            a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
            j = int(np.searchsorted(enc.offsets, code, side="right")) - 1
            out[a + np.flatnonzero(enc.X[a:b, j] == code)[:c], j] = True
    return out


def small(enc: EncodedTable, k: int, lo: int, hi: int) -> bool:
    """Whether blankings of lo..hi cells, for k points, are few enough to try them all
    (EXHAUSTIVE_MAX_CHECKS)."""
    if hi > EXHAUSTIVE_MAX_CHECKS:  # over a million cells to try: never small
        return False
    limit = EXHAUSTIVE_MAX_CHECKS / max(k, 1)
    counts = tally(enc)
    return vectors_between(counts[counts > 0], lo, hi, limit) <= limit


def greedy(enc: EncodedTable, T: np.ndarray, start: np.ndarray | None = None) -> np.ndarray | None:
    """Blanked-cell mask (n, d) making every point non-robust, or None if greedy fails.

    Each round takes, over the still-robust points, the cheapest single-point plan (worked
    out on the table as poisoned so far) that ends its point's robustness without making
    any other point robust again (a column left with t_j alone forces blanks back).

    Parameters
    ----------
    enc, T
        As for ``poison_together_encoded``.
    start : ndarray of bool, shape (n, d), optional
        Cells blanked before the first round (the answer then contains them).

    Returns
    -------
    ndarray of bool, shape (n, d), or None
    """
    states = _states(enc, T)
    blanked = np.zeros((enc.n, enc.d), bool)
    if start is not None:
        _blank_all(states, blanked, [(j, np.flatnonzero(start[:, j])) for j in range(enc.d)])
    for _ in range(4 * len(T) + 4):
        live = [(st, star) for st in states if (star := st.winner()) >= 0]
        if not live:
            return blanked
        done = len(states) - len(live)
        options = sorted(
            (
                (cost, i, steps)
                for i, (st, star) in enumerate(live)
                for cost, steps in plans(enc, star, st, exact=False)
            ),
            key=lambda o: (o[0], o[1]),
        )
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


def _exact(enc: EncodedTable, T: np.ndarray, start, floor: int, time_limit: float):
    """Solve and refine the relaxation within ``time_limit`` seconds: (best verified mask
    or None, proven lower bound (math.inf: no blanking works), the limit that stopped the
    search: "time", "memory" (a program not expected to fit in the memory left) or None).  Stages: 'linear' (a program over RELAXATION_INTEGER_MAX_COLUMNS
    columns: its linear relaxation only), 'continuous' (0/1 columns integer, counts
    continuous), then 'integer'; a stage ends when refining stops raising its bound."""
    deadline = time.monotonic() + time_limit
    rel = Relaxation(enc, _states(enc, T))
    best, lower, stopped, stage, last = start, floor, None, None, None
    while lower < (cost := int(best.sum()) if best is not None else enc.n * enc.d):
        left = deadline - time.monotonic()
        if left <= 0:
            stopped = "time"
            break
        prog, handles = rel.build(cost - 1, lower)
        if stage is None:
            stage = "linear" if prog.columns > RELAXATION_INTEGER_MAX_COLUMNS else "continuous"
        free = (
            range(prog.columns)
            if stage == "linear"
            else handles[0].values()
            if stage == "continuous"
            else ()
        )
        got = prog.solve(left, rel_gap=min(1e-4, 0.5 / cost), local_search=False, continuous=free)
        stopped = got.limit
        if got.infeasible:  # no blanking of fewer cells than the best
            lower = cost if best is not None else math.inf
            break
        before = lower
        bound = got.lower_bound(linear=stage == "linear")
        if bound is not None:
            lower = max(lower, min(cost, bound))
        if got.x is None:
            break
        # a relaxed stage has done its part when its bound stops rising or meets the budget
        stall = stage != "integer" and (
            lower >= cost - 1 or (last is not None and lower == before and got.value < last + 0.5)
        )
        last = got.value
        best, verified = _candidate(enc, T, rel.blanked(got.x, handles[0]), best)
        if verified and stage == "integer":
            continue
        if not rel.refine(got.x, handles) or stall:
            if stage != "continuous":
                break
            stage = "integer"
    return best, lower, stopped


def _candidate(enc, T, mask, best):
    """The better of ``best`` and the program's answer (pruned), or its greedy completion
    when it is not enough; and whether the program's answer was enough as it was."""
    verified = all_nonrobust(enc, T, mask)
    if not verified:
        mask = greedy(enc, T, mask)
    if mask is not None:
        mask = _prune(enc, T, mask)
        if best is None or mask.sum() < best.sum():
            best = mask
    return best, verified


def _prune(enc, T, mask):
    """Drop blanked cells, per (column, label) block, while every point stays non-robust
    (binary search on how many of the block's cells to keep)."""
    mask, counts = mask.copy(), tally(enc)
    for j in range(enc.d):
        for l in range(enc.m):
            a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
            rows = a + np.flatnonzero(mask[a:b, j])
            lo, hi = 0, len(rows)  # keeping hi cells works
            while lo < hi:
                mid = (lo + hi) // 2
                mask[rows[mid:], j] = False
                mask[rows[:mid], j] = True
                lo, hi = (lo, mid) if all_nonrobust(enc, T, mask, counts) else (mid + 1, hi)
            mask[rows[:hi], j] = True
            mask[rows[hi:], j] = False
    return mask


def poison_together_encoded(
    enc: EncodedTable, T: np.ndarray, method: str = "auto", time_limit: float = 30.0
) -> TogetherPoisoning:
    """Fewest cells making every test point non-robust at once.

    Parameters
    ----------
    enc, T : EncodedTable, ndarray of shape (k, d)
        The complete table and the test points as its local codes (-1: unseen).
    method : {"auto", "exact", "greedy"}, default "auto"
        ``greedy``: the heuristic's answer, with the largest single-point minimum as its
        proven lower bound (OP is exact).  ``exact`` and ``auto``: the best verified
        answer with a proven lower bound, raised by the relaxed program solved and refined
        within ``time_limit`` seconds; no program is solved when the greedy answer meets
        the single-point bound, nor when the instance is small: every blanking between
        that bound and the greedy answer is then tried (``exhaustive``), which proves the
        optimum.
    time_limit : float, default 30.0
        Seconds the exact search may take (a result it cuts short says so in
        ``time_limited``: it depends on the machine's speed).

    Returns
    -------
    TogetherPoisoning
        ``why_not_optimal`` says why an answer is not proven optimal.
    """
    if method not in METHODS:
        raise unknown_option("method", method, METHODS)
    kind = "greedy" if method == "greedy" else "exact"  # of an answer proven on the way
    if enc.m == 1:  # one label is predicted in every world, whatever is blanked
        return TogetherPoisoning(False, method=kind, optimal=True)
    start = greedy(enc, T)
    if start is not None and not start.any():
        return TogetherPoisoning(True, (), kind, True, 0)
    if start is not None and not all_nonrobust(enc, T, start):
        start = None  # it emptied a column
    # every point needs at least its own single-point minimum (OP is exact)
    singles = [poison_encoded(enc, t, "op") for t in T]
    if not all(p.possible for p in singles):
        return TogetherPoisoning(False, method=kind, optimal=True)
    floor = max(p.num_cells for p in singles)
    if method == "greedy":
        return _answer(enc, start, "greedy", floor, None, "asked for")
    best, lower, stopped = _search(enc, T, start, floor, time_limit)
    if lower == math.inf:
        return TogetherPoisoning(False, method="exact", optimal=True)
    return _answer(enc, best, "exact", lower, stopped)


def _search(enc: EncodedTable, T: np.ndarray, start, floor: int, time_limit: float):
    """The exact search above ``floor`` cells, from greedy's answer ``start``: every
    blanking where they are few, else the relaxation.  (Best verified mask or None, proven
    lower bound (math.inf: no blanking works), the limit that stopped it or None.)"""
    # the most cells worth trying: one fewer than greedy's, or all but one per column
    top = int(start.sum()) - 1 if start is not None else enc.n * enc.d - enc.d
    if floor > top:
        return start, floor, None
    if not small(enc, len(T), floor, top):
        return _exact(enc, T, start, floor, time_limit)
    found, lower = exhaustive(enc, T, floor, top, time.monotonic() + time_limit)
    timed_out = found is None and lower <= top
    if found is None and not timed_out and start is None:
        lower = math.inf  # every allowed blanking tried: none works
    return (start if found is None else found), lower, "time" if timed_out else None


def _answer(enc, mask, method: str, lower: int, stopped, fallback=None):
    """The answer for a verified mask (None: none found), optimal when it meets ``lower``;
    ``stopped``: the limit that stopped the search, if any."""
    limits = dict(time_limited=stopped == "time", memory_limited=stopped == "memory")
    if mask is None:
        return TogetherPoisoning(
            False, method=method, lower_bound=lower, fallback=fallback, **limits
        )
    cells = int(mask.sum())
    optimal = cells <= lower
    fallback = None if optimal else fallback
    return TogetherPoisoning(
        True, _names(enc, mask), method, optimal, min(lower, cells), fallback=fallback, **limits
    )
