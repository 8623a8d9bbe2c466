"""Count the row worlds that predict each label: exact where each label's states allow.

A world is one pick per dirty row, so the worlds number the product of the rows' distinct
repairs.  Label l's support depends on its own picks only; ``nbcert.repairs.reach`` lists
every count vector its rows reach over the key's features and in how many ways (exact
integers, a dense grid of at most ``max_states`` cells).  Then, as for the per-cell model's
exact counting, the worlds l wins are

    sum over l's supports s of ways_l(s) * prod over k != l of ways_k(support < s),

supports compared exactly on the common denominator (``nbcert.repairs.certify``), and the
ties are the rest.  Where some label's grid would pass ``max_states`` the counts are proven
intervals from the point's certification (a label proven possible wins at least one world,
one proven impossible none, each other proven possible label and a proven tie take at least
one world each; a robust point's winner wins them all), labelled ``bounds``.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import accumulate

import numpy as np

from ..certification import TIE_NO, TIE_YES
from ..count import WorldCounts
from ..count.refine import share_down, share_up
from ..count.total import Worlds as Total
from ..kernel import factor_numerator
from .certify import Point, Worlds, decide, tie
from .reach import reach
from .table import RowRepairs

MAX_STATES = 200_000  # grid cells of one label's count vectors built for an exact count


def worlds_total(rr: RowRepairs) -> Total:
    """The number of worlds (digits written when read): prod over dirty rows of their
    distinct repairs."""
    sizes = np.bincount(np.bincount(rr.owner))  # rows per number of distinct repairs
    return Total(tuple((k, int(c)) for k, c in enumerate(sizes.tolist()) if k > 1 and c))


def count_rows(
    rr: RowRepairs, T: np.ndarray, alpha=0, max_states: int = MAX_STATES, worlds=None
) -> list:
    """World counts per test point over the repaired rows (module docstring).

    Parameters
    ----------
    rr : RowRepairs
        The training table and its repairs.
    T : ndarray (k, d)
        The test points' local codes (-1 unseen, -2 blank: left out).
    alpha : Fraction
        The smoothing.
    max_states : int
        The most grid cells of one label's count vectors built for an exact count.
    worlds : Worlds, optional
        Fronts already built for ``rr`` and ``alpha``.

    Returns
    -------
    list of WorldCounts
        ``exact`` (``counts``, ``ties``) or ``bounds`` (``proven``, ``proven_ties``).
    """
    worlds = worlds or Worlds(rr, alpha)
    total = worlds_total(rr)
    whole = math.prod(k**c for k, c in total.powers)
    base = worlds.patterns.base(T)
    cache: dict = {}
    out = []
    for i in range(len(T)):
        pt = worlds.point(T[i], base[i])
        per = []
        for l in range(rr.m):
            if (pt.key, l) not in cache:
                cache[pt.key, l] = reach(worlds.patterns.rows(pt.key)[l], max_states, True)
            per.append(cache[pt.key, l])
        labels = rr.enc.labels
        if any(p is None for p in per):
            out.append(_bounds(worlds, pt, labels, whole, total))
            continue
        wins = _exact(per, pt, worlds.alpha)
        counts = dict(zip(labels, wins))
        out.append(
            WorldCounts("exact", whole, total.log10, counts, whole - sum(wins), worlds=total)
        )
    return out


def _exact(per: list, pt: Point, alpha) -> list:
    """Worlds each label wins, from every label's (count vectors, ways)."""
    items = []
    for l, got in enumerate(per):
        values = {}
        for c, w in zip((got.counts + pt.B[l]).tolist(), got.ways.tolist()):
            v = pt.scale[l] * pt.other[l] * math.prod(factor_numerator(x, alpha) for x in c)
            values[v] = values.get(v, 0) + w
        keys = sorted(values)
        items.append((keys, [values[k] for k in keys]))
    below = [(keys, list(accumulate(ways, initial=0))) for keys, ways in items]
    wins = []
    for l, (keys, ways) in enumerate(items):
        total = 0
        for v, w in zip(keys, ways):
            for k, (kk, cum) in enumerate(below):
                if k != l:
                    w *= cum[bisect_left(kk, v)]
                    if not w:
                        break
            total += w
        wins.append(total)
    return wins


def _bounds(worlds: Worlds, pt: Point, labels, whole: int, total: Total) -> WorldCounts:
    """Proven intervals from the point's certification (module docstring)."""
    robust, label, possible, _ = decide(pt)
    ties = tie(worlds, pt)
    if robust == 1:
        per = [(whole, whole) if l == label else (0, 0) for l in range(len(labels))]
        tied = (0, 0)
    else:
        sure = int((possible == 1).sum())
        per = []
        for l in range(len(labels)):
            others = sure - int(possible[l] == 1) + int(ties == TIE_YES)
            low = int(possible[l] == 1)
            per.append((low, 0 if possible[l] == 0 else whole - others))
        tied = (int(ties == TIE_YES), 0 if ties == TIE_NO else whole - sure)
    return WorldCounts(
        "bounds",
        whole,
        total.log10,
        worlds=total,
        proven=dict(zip(labels, per)),
        proven_ties=tied,
        proven_shares={
            lab: (share_down(a, whole), share_up(b, whole)) for lab, (a, b) in zip(labels, per)
        },
        proven_tie_shares=(share_down(tied[0], whole), share_up(tied[1], whole)),
    )


__all__ = ["count_rows", "worlds_total", "MAX_STATES"]
