"""Which rows to clean first, without the truth (a heuristic), and the rows' cleaning path.

For each test point not certain, the label w with the largest midpoint of its smallest and
largest supports (logs, a world at each) is taken as the likely winner, and the rivals
are the labels whose largest support reaches w's smallest.  A dirty row can help only by
narrowing its label's choice: a row of w whose repairs differ on a feature may raise w's
smallest count there, a rival's may lower the rival's largest.  Its *potential* is the sum,
over the features where its repairs differ, of the log-gain of one more (one fewer) match
at the extreme world; its share of the point is potential / (potential + gap), the gap the
log distance from w's smallest support to the largest rival's; each feature's gain is
weighed by the odds that the truth moves it the right way, taken as the share of the row's
distinct repairs that match t_j (for w) or do not (for a rival).  A row's score is its sum
of shares over the points; rows are cleaned by falling score.  Nothing here is proven: the
ranking is a heuristic's, and ``path`` says only what the truth revealed along it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .certify import Point, Worlds, decide
from .patterns import Patterns
from .table import RowRepairs

BIG = 20.0  # the log-gain of a match where the count (plus alpha) is 0


def variable(worlds: Worlds, key: tuple) -> tuple:
    """(rows, share): the dirty rows whose repairs differ on some feature of the key's J,
    and (rows, |J|) the share of each one's distinct repairs that match t_j there (0 where
    they all agree)."""
    rr = worlds.rr
    J, tJ = np.array(key[0], np.intp), np.array(key[1])
    if not len(rr.owner) or not len(J):
        return np.zeros(0, np.intp), np.zeros((0, len(J)))
    pat = worlds.patterns.match(J, tJ).astype(np.int64)
    starts, sizes = worlds.patterns.blocks
    share = np.add.reduceat(pat, starts, axis=0) / sizes[:, None]
    share = np.where((share > 0) & (share < 1), share, 0.0)
    some = (share > 0).any(axis=1)
    return rr.owner[starts][some], share[some]


def _log(v: int) -> float:
    return math.log(v) if v > 0 else -math.inf


def _gains(c: np.ndarray, alpha: float, up: bool) -> np.ndarray:
    """Per feature the log-gain of one more (``up``) or one fewer match at counts c."""
    a = c + alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.log((a + 1) / a) if up else np.log(a / (a - 1))
    return np.where(np.isfinite(g) & (g > 0), np.minimum(g, BIG), BIG)


def point_shares(worlds: Worlds, pt: Point, cache: dict) -> tuple:
    """(rows, shares) of one non-certain point (module docstring)."""
    m = len(pt.lo)
    lo = [_log(pt.lo[l][1]) for l in range(m)]
    hi = [_log(pt.hi[l][0]) for l in range(m)]
    mid = [(a + b) / 2 if a > -math.inf else -math.inf for a, b in zip(lo, hi)]
    w = int(np.argmax(mid)) if max(mid) > -math.inf else int(np.argmax(hi))
    rivals = [l for l in range(m) if l != w and pt.hi[l][0] >= pt.lo[w][1]]
    top = max((hi[l] for l in rivals), default=lo[w])
    gap = min(top - lo[w], BIG * max(1, len(pt.key[0])))
    if (pt.key, w, tuple(rivals)) not in cache:
        cache[pt.key, w, tuple(rivals)] = _potential(worlds, pt, w, rivals, cache)
    rows, potential = cache[pt.key, w, tuple(rivals)]
    return rows, potential / (potential + max(gap, 0.0))


def _potential(worlds: Worlds, pt: Point, w: int, rivals: list, cache: dict) -> tuple:
    """(rows, potential > 0) of the point's key with likely winner w against ``rivals``
    (the same for every point of the key: its extreme worlds are the key's)."""
    if pt.key not in cache:
        cache[pt.key] = variable(worlds, pt.key)
    rows, share = cache[pt.key]
    label = worlds.rr.y[rows]
    alpha = float(worlds.alpha)
    potential = np.zeros(len(rows))
    mine = label == w
    potential[mine] = share[mine] @ _gains(pt.worlds_lo[w].astype(float), alpha, True)
    for l in rivals:
        theirs = label == l
        odds = np.where(share[theirs] > 0, 1 - share[theirs], 0.0)
        potential[theirs] = odds @ _gains(pt.worlds_hi[l].astype(float), alpha, False)
    keep = potential > 0
    return rows[keep], potential[keep]


@dataclass(frozen=True)
class Ranking:
    """Rows (positions in the table's order) by falling ``score``, with ``points`` (how
    many non-certain points each may help) and ``certain``, the points certain now."""

    rows: np.ndarray
    score: np.ndarray
    points: np.ndarray
    certain: int


def rank(worlds: Worlds, T: np.ndarray) -> Ranking:
    """The policy's ranking of the dirty rows for the test points T (local codes)."""
    n = worlds.rr.n
    cache, certain, found = {}, 0, [(np.zeros(0, np.intp), np.zeros(0))]
    base, asked = worlds.patterns.base(T), {}  # asked: a repeated point's shares, found once
    for i in range(len(T)):
        if T[i].tobytes() not in asked:
            pt = worlds.point(T[i], base[i])
            asked[T[i].tobytes()] = None if decide(pt)[0] == 1 else point_shares(worlds, pt, cache)
        if asked[T[i].tobytes()] is None:
            certain += 1
            continue
        found.append(asked[T[i].tobytes()])
    rows = np.concatenate([r for r, _ in found])
    # summed in the points' order, row by row, as adding each point's shares in turn
    score = np.bincount(rows, np.concatenate([s for _, s in found]), minlength=n)
    helps = np.bincount(rows, minlength=n)
    order = np.lexsort((np.arange(n), -score))
    order = order[score[order] > 0]
    return Ranking(order, score[order], helps[order], certain)


def path(rr: RowRepairs, T: np.ndarray, alpha, batch: int | None = None, rows=None) -> tuple:
    """(rows in the order the policy cleans them, the truth revealed as it goes; whether
    every point ends certain): each round ranks the rows on the table as it stands and
    cleans the ``batch`` best (default: about 2 % of the dirty rows), until every point is
    certain or no row may help; ``rows``: a first cleaning already done."""
    dirty = len(np.unique(rr.owner))
    batch = batch or max(1, math.ceil(dirty / 50))
    done = [] if rows is None else [int(r) for r in rows]
    memo: dict = {}  # the rounds' tables differ in a few rows: many groups recur
    first = Patterns(rr)  # and their rows' patterns are the first table's
    while True:
        seen = first.cleaned(np.array(done, np.intp)) if done else first
        ranking = rank(Worlds(seen.rr, alpha, memo=memo, patterns=seen), T)
        if ranking.certain == len(T):
            return done, True
        taken = set(done)
        fresh = [int(r) for r in ranking.rows if int(r) not in taken][:batch]
        if not fresh:
            return done, False
        done += fresh


__all__ = ["Ranking", "rank", "path", "point_shares", "variable"]
