"""Every count vector a label reaches over its rows' repairs, and in how many ways.

Where ties and world counts need more than a label's extremes, its dirty rows' picks are
added up on a dense grid over the features where they differ (``dims``): one group of
interchangeable rows at a time, one row at a time, each pattern's ways times the grid
shifted by the pattern.  The grid has prod over dims of (spread + 1) cells; past ``limit``
cells, or ``limit`` times 64 cell updates in all, nothing is built (None) and the caller
says the answer is not known.  Ways are exact Python integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .patterns import LabelRows


@dataclass(frozen=True)
class Reach:
    """A label's reachable counts on the key's features J: ``counts`` (V, |J|) every count
    vector its dirty rows' picks add (no base), ``ways`` (V,) in how many ways (Python
    ints, the fixed rows' repairs included; None when only reachability was asked)."""

    counts: np.ndarray
    ways: np.ndarray | None


def reach(rows: LabelRows, limit: int, weighted: bool) -> Reach | None:
    """The label's ``Reach`` (``weighted``: with ways), None past ``limit`` (module)."""
    J = len(rows.fixed)
    low = rows.fixed.copy()
    spread = np.zeros(J, np.int64)
    for grp in rows.groups:
        low += grp.g * grp.patterns.min(axis=0)
        spread += grp.g * (grp.patterns.max(axis=0) - grp.patterns.min(axis=0))
    dims = np.flatnonzero(spread > 0)
    shape = tuple((spread[dims] + 1).tolist())
    cells = math.prod(shape)
    work = sum(grp.g * len(grp.patterns) for grp in rows.groups) * cells
    if cells > limit or work > 64 * limit:
        return None
    if not len(dims):  # no dirty row of the label has a choice here
        return Reach(low[None, :], np.array([_fixed_ways(rows)], object) if weighted else None)
    grid = np.zeros(shape, object if weighted else bool)
    grid[(0,) * len(dims)] = _fixed_ways(rows) if weighted else True
    for grp in rows.groups:
        shifts = (grp.patterns - grp.patterns.min(axis=0))[:, dims]
        for _ in range(grp.g):
            grid = _step(grid, shifts, grp.weights if weighted else None)
    at = np.nonzero(grid)
    counts = np.repeat(low[None, :], len(at[0]), axis=0)
    for i, j in enumerate(dims.tolist()):
        counts[:, j] += at[i]
    return Reach(counts, np.asarray(grid[at], object) if weighted else None)


def _fixed_ways(rows: LabelRows) -> int:
    return math.prod(int(w) for w in rows.fixed_ways.tolist() if w > 1)


def _step(grid: np.ndarray, shifts: np.ndarray, weights) -> np.ndarray:
    """One more row: the sum over its patterns of the grid shifted by the pattern (times
    its ways)."""
    out = np.zeros_like(grid)
    for i, s in enumerate(shifts.tolist()):
        dst = tuple(slice(k, None) for k in s)
        src = tuple(slice(0, n - k) for k, n in zip(s, grid.shape))
        if weights is None:
            out[dst] |= grid[src]
        else:
            out[dst] += grid[src] * int(weights[i])
    return out


__all__ = ["Reach", "reach"]
