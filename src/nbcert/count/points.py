"""One test point's counts, and what each cell of its label-feature grid can contribute.

For a test point t and label l, feature j has E_lj observed cells of label l that agree
with t_j and M_lj missing cells.  In a world, beta_lj of those missing cells take t_j
and the count is c_lj = E_lj + beta_lj; by Lemma 4.4 there are
C(M, beta) (delta - 1)^(M - beta) ways to fill the cells so.  Two cases differ from the
formula as the paper writes it: when t_j is not in the domain no cell can take it (beta
= 0, delta^M ways), and when delta = 1 every cell must (the formula gives weight 0 to
every beta < M, as 0^k = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..certification import point_counts
from ..stats import Stats, as_stats
from ..stats.domains import EncodedTable


class TooLarge(Exception):
    """Exact counting would need more states than allowed (``count_encoded`` turns it
    into an InputError for the user, or into Monte-Carlo under ``auto``)."""


@dataclass(frozen=True)
class Point:
    """Per-point statistics: observed agreeing counts E and missing counts M (m, d).

    With candidate repairs (``ways`` given) E also holds the missing cells that must take
    t_j, M only those that may take it or not, and ``ways[l][j][b]`` is the number of
    fillings of label l's missing cells in feature j with b of those M on t_j
    (``nbcert.stats.candidates``)."""

    E: np.ndarray
    M: np.ndarray
    seen: np.ndarray  # (d,) the test value occurs in the feature's domain
    ways: tuple | None = None


def point_stats(source: Stats | EncodedTable, T: np.ndarray, cand=None) -> list[Point]:
    """The counts of each test point, from the table's statistics.

    Parameters
    ----------
    source : Stats or EncodedTable
        The training table's statistics (built from an EncodedTable if given one).
    T : ndarray of shape (k, d)
        Test points as local codes (-1 for a value outside the domain).
    cand : Candidates, optional
        The table's candidate repairs.

    Returns
    -------
    list of Point
        One per test point.
    """
    E, M = point_counts(as_stats(source), T)
    seen = T >= 0
    if cand is None:
        return [Point(E[p], M, seen[p]) for p in range(len(T))]
    out = []
    m, d = M.shape
    for p in range(len(T)):
        per = [[cand.fillings(l, j, int(T[p, j])) for j in range(d)] for l in range(m)]
        forced = np.array([[f for f, _, _ in row] for row in per], np.int64)
        free = np.array([[len(w) - 1 for _, w, _ in row] for row in per], np.int64)
        ways = tuple(tuple(w for _, w, _ in row) for row in per)
        out.append(Point(E[p] + forced, free, seen[p], ways))
    return out


def feature_options(E: int, M: int, dj: int, seen: bool) -> list:
    """The counts one label and feature can reach, and in how many ways.

    Parameters
    ----------
    E, M : int
        Observed agreeing cells and missing cells of the label in the feature.
    dj : int
        The feature's domain size.
    seen : bool
        Whether the test value occurs in the domain.

    Returns
    -------
    list of (int, int)
        (count c = E + beta, number of ways) over the feasible beta.
    """
    if not seen:
        return [(E, dj**M)]
    return [
        (E + b, math.comb(M, b) * (dj - 1) ** (M - b)) for b in range(M + 1) if dj > 1 or b == M
    ]


def point_options(pt: Point, delta: np.ndarray, l: int, j: int) -> list:
    """:func:`feature_options` of one label and feature of a point.

    Parameters
    ----------
    pt : Point
    delta : ndarray of shape (d,)
        Domain sizes.
    l, j : int
        The label and the feature.

    Returns
    -------
    list of (int, int)
    """
    if pt.ways is not None:
        return [(int(pt.E[l, j]) + b, w) for b, w in enumerate(pt.ways[l][j])]
    return feature_options(int(pt.E[l, j]), int(pt.M[l, j]), int(delta[j]), bool(pt.seen[j]))


def fillings(pt: Point, delta: np.ndarray, l: int, j: int) -> int:
    """The fillings of label l's missing cells in feature j: delta_j ** M_lj, or with
    candidate repairs the sum of ``ways``."""
    if pt.ways is not None:
        return sum(pt.ways[l][j])
    return int(delta[j]) ** int(pt.M[l, j])


def fixed_counts(pt: Point, delta: np.ndarray) -> np.ndarray:
    """(m, d) the count of each one-option feature (and the smallest count of the others):
    E, plus every missing cell where the domain has the one value t_j."""
    if pt.ways is not None:
        return pt.E
    return pt.E + np.where(pt.seen & (delta == 1), pt.M, 0)


def option_counts(pt: Point, delta: np.ndarray) -> np.ndarray:
    """How many values each c_lj takes over all worlds.

    Parameters
    ----------
    pt : Point
    delta : ndarray of shape (d,)
        Domain sizes.

    Returns
    -------
    ndarray of shape (m, d)
        M_lj + 1 where the count is free (test value seen, more than one value), else 1.
    """
    if pt.ways is not None:
        return pt.M + 1
    return np.where(pt.seen & (delta > 1), pt.M + 1, 1)


def winner(values: list) -> int:
    """The index of the single largest value, or -1 on a tie for the largest.

    Parameters
    ----------
    values : list
        Comparable values, one per label.

    Returns
    -------
    int
    """
    top = max(values)
    return values.index(top) if values.count(top) == 1 else -1
