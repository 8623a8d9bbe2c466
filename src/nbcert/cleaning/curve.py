"""The cleaning curve: how many test points are certain, and how accurate Naive Bayes is, as
cells (or training rows) are cleaned in a given order.

An *order* is a sequence of missing cells (rows of the table, columns): the truth-free
policy's path (``nbcert.cleaning.policy``, with or without candidate repairs), or a random permutation of the missing cells or of the training rows
that have one (CPClean's RandomClean cleans a row at a time).  With unit "rows" an order of
cells becomes an order of rows: each row, at its first cell, is cleaned whole.

At each state of the order the curve gives the cells and the rows cleaned so far, the
points certifiably robust (exact: the cell model's ``certify``) and, given
the points' true labels, the accuracy of the Naive Bayes classifier trained on the table
as it stands: cleaned cells at their truth, the other missing cells either left out of the
counts (``CertifiedNB.predict``'s classifier: each label's denominator counts its observed
cells of the column) or filled from a repaired copy of the table (``fill``: CPClean's
default repair is its ``mean.csv``).  A prediction is the first label of largest support,
decided exactly where the top two supports are within rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..kernel import exact_support, first_argmax, log_factors, log_tolerance
from ..stats.domains import BLANK
from .table import CleaningTable


@dataclass(frozen=True)
class Curve:
    """One curve: per state, ``cells`` and ``rows`` cleaned, ``certain`` points, and
    ``correct`` predictions (None without labels); ``order`` its name, ``points`` the test
    points."""

    order: str
    cells: np.ndarray
    rows: np.ndarray
    certain: np.ndarray
    correct: np.ndarray | None
    points: int


def random_order(tab: CleaningTable, unit: str, seed) -> list:
    """The missing cells in a random order (``unit`` "rows": the rows with a missing cell in
    a random order, each row's cells together), as (row in the table, column)."""
    rng = np.random.default_rng(seed)
    r, j = np.nonzero(tab.missing)
    if unit == "cells":
        pick = rng.permutation(len(r))
        return list(zip(r[pick].tolist(), j[pick].tolist()))
    rows = rng.permutation(np.unique(r))
    return by_rows([(int(x), 0) for x in rows], tab)


def by_rows(cells: list, tab: CleaningTable) -> list:
    """The order of cells as an order of rows: at a row's first cell, all its missing cells
    (columns in order), each row once."""
    out, done = [], set()
    for r, _ in cells:
        if r not in done:
            done.add(r)
            out.extend((r, int(j)) for j in np.flatnonzero(tab.missing[r]))
    return out


def states(n: int, points: int) -> np.ndarray:
    """The prefix lengths (cells cleaned) at which the curve is evaluated: at most about
    ``points`` of them, evenly spaced, the first and last always."""
    step = max(1, math.ceil(n / max(points, 1)))
    return np.unique(np.append(np.arange(0, n + 1, step), n))


def predict(C: np.ndarray, observed: np.ndarray, N: np.ndarray, T: np.ndarray, alpha) -> np.ndarray:
    """Naive Bayes' prediction (label codes) for test codes T (k, d) from the counts C
    (m, d, K) of a table: ``N_l prod_j (C + alpha) / (observed_lj + alpha delta_j)`` over
    the features not blank, delta_j the values a cell of column j holds; a label without
    observed cells in a column gets 1/delta_j there (as ``CertifiedNB.predict``)."""
    m, d, K = C.shape
    delta = np.maximum((C.sum(axis=0) > 0).sum(axis=1), 1)
    cols, tc = np.arange(d), np.maximum(T, 0)
    agree = np.where((T >= 0)[:, None, :], C[:, cols, tc].transpose(1, 0, 2), 0)  # (k, m, d)
    none = observed == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = log_factors(agree, np.where(none, 1, observed), delta, alpha)
    logs = np.where(none, -np.log(delta.astype(float)), logs)
    logs = np.where((T == BLANK)[:, None, :], 0.0, logs)
    total = np.log(N.astype(float)) + logs.sum(axis=2)

    def exact_row(r):
        keep = T[r] != BLANK
        return [
            exact_support(agree[r, l, keep], N[l], delta[keep], alpha, observed[l, keep])
            for l in range(m)
        ]

    return first_argmax(total, log_tolerance(d, int(N.sum()), alpha), exact_row)


def accuracy_counts(obs: np.ndarray, fill: np.ndarray | None, tab: CleaningTable) -> tuple:
    """(counts (m, d, K + 1), observed cells (m, d)) of the classifier trained on a state
    with observed cells ``obs`` (m, d, K): without ``fill`` the missing cells are left out;
    with ``fill`` (m, d, K + 1: the filled values of the cells still missing, the last
    slot a value outside the domain) they count as filled."""
    m, d, K = obs.shape
    C = np.zeros((m, d, K + 1), np.int64)
    C[..., :K] = obs
    if fill is None:
        return C, obs.sum(axis=2)
    C += fill
    return C, np.broadcast_to(tab.N[:, None], (m, d))


def fill_counts(tab: CleaningTable, codes: np.ndarray) -> np.ndarray:
    """The counts (m, d, K + 1) of every missing cell's fill value (``codes`` (n, d): -1
    outside the domain, the last slot); a state's are these less the cells cleaned."""
    m, d, K = tab.obs.shape
    out = np.zeros((m, d, K + 1), np.int64)
    r, j = np.nonzero(tab.missing)
    y = np.searchsorted(tab.enc.label_bounds, r, side="right") - 1
    v = np.where(codes[r, j] >= 0, codes[r, j], K)
    np.add.at(out, (y, j, v), 1)
    return out


def follow_curve(
    model,
    T: np.ndarray,
    order: list,
    alpha,
    labels: np.ndarray | None = None,
    fill: np.ndarray | None = None,
    points: int = 200,
    name: str = "order",
) -> Curve:
    """The curve along ``order`` (cells as (row in the table, column)).

    Parameters
    ----------
    model : CleaningTable or CandidateTable
        The dirty table with its truth (a cell model: with candidate repairs the certain
        points are those of the candidate worlds).
    T : ndarray (k, d)
        The test points (codes of the true table).
    order : list of (int, int)
        The cells in cleaning order (each missing cell at most once).
    alpha : Fraction
        The smoothing parameter.
    labels : ndarray (k,), optional
        The points' true labels as label codes (-1: a label not in the table).
    fill : ndarray (n, d), optional
        A repaired copy of the table as codes of the true table (-1 outside its domains):
        the cells not yet cleaned count as these values for the accuracy.
    points : int, default 200
        About how many states to evaluate.
    name : str
        The order's name.

    Returns
    -------
    Curve
    """
    tab = model.table
    filled = None if fill is None else fill_counts(tab, fill)
    at = states(len(order), points)
    rows, certain, correct = [], [], []
    x, obs = np.zeros_like(model.cap), tab.obs.copy()
    r_all, j_all = np.array(order, np.intp).reshape(-1, 2).T
    for start, stop in zip(np.r_[0, at[:-1]], at):
        _clean(model, x, obs, filled, fill, r_all[start:stop], j_all[start:stop])
        rows.append(len(np.unique(r_all[:stop])))
        certain.append(int(model.certify(x, T, alpha).robust.sum()))
        if labels is not None:
            C, observed = accuracy_counts(obs, filled, tab)
            correct.append(int((predict(C, observed, tab.N, T, alpha) == labels).sum()))
    found = None if labels is None else np.array(correct)
    return Curve(name, at, np.array(rows), np.array(certain), found, len(T))


def _clean(model, x, obs, filled, fill, r: np.ndarray, j: np.ndarray) -> None:
    """Clean the cells (r, j): in the model's cleaning x, the observed cells obs and the
    fill values' counts ``filled`` of the cells still missing (if any)."""
    tab = model.table
    for c in np.unique(j):
        np.add.at(x.reshape(-1), model.group_of(r[j == c], c), 1)
    np.add.at(obs, (tab.labels_of(r), j, tab.values()[r, j]), 1)
    if filled is not None:
        K = tab.obs.shape[2]
        np.add.at(filled, (tab.labels_of(r), j, np.where(fill[r, j] >= 0, fill[r, j], K)), -1)


__all__ = [
    "Curve",
    "random_order",
    "by_rows",
    "states",
    "predict",
    "follow_curve",
]
