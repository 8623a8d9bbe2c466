"""Method ``bounds``: the grid refined until every proven interval is narrow enough.

One point's shares are bounded on a coarse grid first (``bounds.shares_at``), then on
finer ones: the uncertain probability grows about linearly with the grid width eps, so
the next eps is chosen from the width reached, and a grid is built only while its
predicted time fits in the time limit.  Every grid's bounds are proofs, so the answer is
their intersection.  Tails of probability up to ``NEGLECT`` times the requested width
are left out (they widen every upper bound by that much); where a label or the ties
does win in some world but its share is far below the width and not yet bounded
within a factor ``RARE_RATIO``, grids keeping every tail, then finer ones, bound it until it shows its order of
magnitude (down to about 1e-300, the smallest share a float holds), within half the
time limit.

The exact decision of which labels some world predicts, and whether some world ties
(``nbcert.certification.possible_index``), sharpens the counts: a label no world predicts wins 0
worlds, one that some world predicts at least 1; likewise the ties.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..certification import TIE_NO, TIE_YES
from .bounds import OutOfReach, keyed_basis, shares_at
from .points import Point

FIRST_EPS = 2.0**-7  # the first grid's width (log support)
NEGLECT = Fraction(1, 10**6)  # probability per label left out, as a share of the width
RARE_RATIO = 10  # a rare share's interval is refined until high <= RARE_RATIO * low
RARE_FLOOR = Fraction(1, 10**280)  # ... where its upper bound is above this
RARE_STEPS = 3  # ... by at most this many more grids
RARE_TIME = 0.5  # ... within this share of the time limit
WIDTH = Fraction(1, 1000)  # default requested width: 0.1 percentage point
TIME_LIMIT = 2.0  # default seconds per test point


@dataclass(frozen=True)
class Proven:
    """Proven bounds on the shares of the worlds each label wins, and of the ties.

    ``low``/``high`` are exact fractions per label; ``eps`` is the finest grid width
    built, ``seconds`` the time taken.
    """

    low: tuple
    high: tuple
    tie_low: Fraction
    tie_high: Fraction
    eps: float
    seconds: float

    @property
    def width(self) -> Fraction:
        """The widest interval, over the labels and the ties."""
        return max([h - lo for lo, h in zip(self.low, self.high)] + [self.tie_high - self.tie_low])


def _combine(low, high, possible, tie, eps, seconds) -> Proven:
    """Proven shares from label bounds: labels no world predicts are 0, and the ties are
    what the labels leave (clipped to the exact decision of whether a world ties)."""
    low = [Fraction(0) if p is not None and not p else x for x, p in zip(low, possible)]
    high = [Fraction(0) if p is not None and not p else x for x, p in zip(high, possible)]
    tie_low, tie_high = max(Fraction(0), 1 - sum(high)), min(Fraction(1), 1 - sum(low))
    if tie == TIE_NO:
        tie_low = tie_high = Fraction(0)
    # the ties' bounds give back to the labels: l wins at most what the others leave
    rest_low = [1 - tie_high - (sum(high) - h) for h in high]
    rest_high = [1 - tie_low - (sum(low) - x) for x in low]
    low = [max(x, r) for x, r in zip(low, rest_low)]
    high = [min(h, r) for h, r in zip(high, rest_high)]
    return Proven(tuple(low), tuple(high), tie_low, tie_high, eps, seconds)


def _intersect(best: Proven | None, new: Proven) -> Proven:
    if best is None:
        return new
    low = tuple(max(a, b) for a, b in zip(best.low, new.low))
    high = tuple(min(a, b) for a, b in zip(best.high, new.high))
    return Proven(
        low,
        high,
        max(best.tie_low, new.tie_low),
        min(best.tie_high, new.tie_high),
        min(best.eps, new.eps),
        new.seconds,
    )


def _rare(p: Proven, width: Fraction, possible, tie) -> bool:
    """Whether a label some world predicts (or the ties, where some world ties) has a share
    far below the width whose interval does not yet give its order of magnitude (and
    could: a share below RARE_FLOOR is beyond a float's relative precision)."""
    pairs = list(zip(p.low, p.high, possible)) + [(p.tie_low, p.tie_high, tie == TIE_YES)]
    return any(
        can is True and RARE_FLOOR < h < width and (lo == 0 or h > RARE_RATIO * lo)
        for lo, h, can in pairs
    )


def _grid(pt, N, delta, alpha, basis, possible, tie, start, eps, neglect, deadline) -> Proven:
    """The proven shares of one grid (OutOfReach past the deadline)."""
    sh = shares_at(pt, N, delta, alpha, eps, neglect, basis, deadline)
    return _combine(sh.low, sh.high, possible, tie, eps, time.perf_counter() - start)


def _next(best: Proven, eps, neglect, width, possible, tie, rare_steps: int):
    """The next grid: (eps, neglect, 1 if it refines a rare share else 0), or None when
    the intervals are narrow enough and every rare share's order of magnitude is proven
    (or RARE_STEPS grids have tried)."""
    if best.width > width:  # the uncertain probability shrinks about as eps does
        return eps * max(1 / 64, min(0.5, 0.7 * float(width / best.width))), neglect, 0
    if rare_steps >= RARE_STEPS or not _rare(best, width, possible, tie):
        return None
    if neglect:  # a rare share: first keep every tail, on the same grid
        return eps, 0, 1
    return eps / 4, 0, 1


def _affordable(finer: float, eps: float, cost: float, left: float) -> float | None:
    """The grid width to build next: ``finer`` if its predicted time (the last grid's
    ``cost`` scaled by eps / finer) fits in the ``left`` seconds, else the finest that
    does, if it is at least 1.5 times finer than eps (None: nothing worth building)."""
    if cost * eps / finer <= left:
        return finer
    fits = eps * cost / left if left > 0 else math.inf
    return fits if fits * 1.5 <= eps else None


def prove(
    pt: Point,
    N,
    delta,
    alpha,
    width: Fraction = WIDTH,
    time_limit: float = TIME_LIMIT,
    possible=None,
    tie=None,
    must: bool = True,
) -> Proven | None:
    """Proven share bounds of one point, refined until the widest interval is at most
    ``width`` or the next grid would not fit in ``time_limit`` seconds.

    Parameters
    ----------
    pt, N, delta, alpha
        As for :func:`nbcert.count.exact.count_exact` (at least two labels).
    width : Fraction
        The requested width of every interval (a share of the worlds).
    time_limit : float
        Seconds for this point.
    possible : sequence of bool, optional
        Per label whether some world predicts it (exact), if known.
    tie : int, optional
        TIE_YES, TIE_NO or TIE_UNKNOWN: whether some world ties, if known.
    must : bool, default True
        Build the first (coarsest) grid whatever the time it takes; otherwise None when
        even that grid does not fit in the time limit.

    Returns
    -------
    Proven or None
    """
    start = time.perf_counter()
    if len(N) == 1:  # the one label wins every world
        return Proven((Fraction(1),), (Fraction(1),), Fraction(0), Fraction(0), 0.0, 0.0)
    deadline = start + time_limit
    possible = [None] * len(N) if possible is None else list(possible)
    basis = keyed_basis(pt, N, delta, alpha)
    grid = functools.partial(_grid, pt, N, delta, alpha, basis, possible, tie, start)
    best, eps, neglect, rare_steps, until = None, FIRST_EPS, NEGLECT * width, 0, deadline
    while True:
        t0 = time.perf_counter()
        try:
            new = grid(eps, neglect, None if (best is None and must) else until)
        except OutOfReach:
            break
        best, cost = _intersect(best, new), time.perf_counter() - t0
        step = _next(best, eps, neglect, width, possible, tie, rare_steps)
        if step is None:
            break
        until = start + RARE_TIME * time_limit if step[2] else deadline
        finer = _affordable(step[0], eps, cost, until - time.perf_counter())
        if finer is None:
            break
        eps, neglect, rare_steps = finer, step[1], rare_steps + step[2]
    return None if best is None else replace(best, seconds=time.perf_counter() - start)


def _ceil(total: int, x: Fraction) -> int:
    return -((-total * x.numerator) // x.denominator)


def _floor(total: int, x: Fraction) -> int:
    return total * x.numerator // x.denominator


def proven_counts(p: Proven, total: int, possible=None, tie=None) -> tuple:
    """Counts of worlds from proven shares: ``([(low, high)] per label, (low, high) of the
    ties)``, integers.  A count is an integer at least total * low, so at least its
    ceiling (at most the floor of total * high); a label some world predicts wins at least
    1 world, a tie that occurs at least 1; then each count is at most what the others
    leave (the counts add up to the total)."""
    m = len(p.low)
    possible = [None] * m if possible is None else list(possible)
    low = [_ceil(total, x) for x in p.low]
    high = [_floor(total, x) for x in p.high]
    low = [max(x, 1) if can else x for x, can in zip(low, possible)]
    tie_low, tie_high = _ceil(total, p.tie_low), _floor(total, p.tie_high)
    tie_low = max(tie_low, 1) if tie == TIE_YES else tie_low
    tie_low, tie_high = max(tie_low, total - sum(high)), min(tie_high, total - sum(low))
    high = [min(h, total - tie_low - (sum(low) - x)) for x, h in zip(low, high)]
    low = [max(x, total - tie_high - (sum(high) - h)) for x, h in zip(low, high)]
    return list(zip(low, high)), (tie_low, tie_high)


def share_down(count: int, total: int) -> float:
    """count / total as a float rounded down (int / int is correctly rounded; one step
    down where that rounded up)."""
    x = count / total
    n, d = Fraction(x).as_integer_ratio()
    return float(np.nextafter(x, 0.0)) if n * total > count * d else x


def share_up(count: int, total: int) -> float:
    """count / total as a float rounded up."""
    x = count / total
    n, d = Fraction(x).as_integer_ratio()
    return float(np.nextafter(x, 2.0)) if n * total < count * d else x
