"""Blank test cells: Naive Bayes leaves a missing test feature out of the product.

A test point whose feature j is missing is classified by ``N_l/n * prod_{j' != j} factor``:
feature j's factor is 1 (``CategoricalNB`` and every textbook Naive Bayes do the same).  That
is the classifier of the training table without column j, on the same rows and labels, so
each question about such a row is the same question about the table's *projection* onto
the row's observed features: same label sizes, same domains and missing cells in the kept
columns.  The cells of the left-out columns cannot change the row's prediction:

* certification, possible labels, poisoning and the per-row cleaning minimum are answered on
  the projection as they stand (a poisoning or cleaning never names a left-out cell);
* a count of worlds is the projection's count times the fillings of the left-out columns'
  missing cells, ``prod_j delta_j ** M_j`` over them (every such filling gives each world
  of the projection once more, with the same prediction).

Rows are grouped by their pattern of blank cells and each group is answered on one
projection.  A row with every feature blank is classified by the prior alone; its
projection keeps one column made constant (one value, no missing cell), whose factor is
``(N_l + alpha) / (N_l + alpha)`` = 1 in every world.

Test codes: ``BLANK`` (-2) marks a blank test cell (``UNSEEN``, -1, a value never seen in
training); the questions below the front ends never see ``BLANK``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .stats import Stats
from .stats.domains import BLANK, UNSEEN, EncodedTable, code_dtype


def groups(T: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(rows, kept features) per pattern of blank cells in the test codes T, rows in order;
    one group of every row and feature when no cell is blank."""
    blank = T == BLANK
    if not blank.any():
        return [(np.arange(len(T)), np.arange(T.shape[1]))]
    patterns, inverse = np.unique(blank, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return [(np.flatnonzero(inverse == g), np.flatnonzero(~p)) for g, p in enumerate(patterns)]


def _offsets(delta: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(delta + 1)]).astype(np.int64)


def _constant(table):
    """The table with its features replaced by one constant column (the prior alone)."""
    offsets, delta = np.array([0, 2], np.int64), np.array([1], np.int64)
    domains = dict(offsets=offsets, delta=delta, features=("",), categories=(None,))
    if isinstance(table, EncodedTable):
        X = np.zeros((table.n, 1), dtype=code_dtype(2))
        return dataclasses.replace(table, X=X, **domains)
    counts = np.zeros((table.m, 2), np.int64)
    counts[:, 0] = table.label_sizes
    return dataclasses.replace(table, counts=counts, locate=None, **domains)


def project(table: Stats | EncodedTable, keep: np.ndarray) -> Stats | EncodedTable:
    """The table restricted to the features ``keep`` (their codes renumbered), same rows
    and labels; with no feature kept, one constant column (see the module docstring)."""
    if len(keep) == table.d:
        return table
    if len(keep) == 0:
        return _constant(table)
    delta = table.delta[keep]
    offsets = _offsets(delta)
    domains = dict(
        offsets=offsets,
        delta=delta,
        features=tuple(table.features[j] for j in keep),
        categories=tuple(table.categories[j] for j in keep),
    )
    if isinstance(table, EncodedTable):
        shift = (offsets[:-1] - table.offsets[keep]).astype(np.int64)
        X = (table.X[:, keep].astype(np.int64) + shift).astype(code_dtype(int(offsets[-1])))
        return dataclasses.replace(table, X=X, **domains)
    codes = np.concatenate([np.arange(table.offsets[j], table.offsets[j + 1]) for j in keep])
    first = table.first_missing  # poisoning's check of a complete table: the whole table's
    return dataclasses.replace(
        table, counts=table.counts[:, codes], missing_at=first, locate=None, **domains
    )


def test_codes(T: np.ndarray, rows: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The rows' codes of the kept features (one constant column's code 0 when none is)."""
    if len(keep) == 0:
        return np.zeros((len(rows), 1), dtype=T.dtype)
    return T[np.ix_(rows, keep)]


def free_worlds(table: Stats | EncodedTable, keep: np.ndarray) -> int:
    """The fillings of the missing cells outside ``keep``: prod_j delta_j ** M_j over the
    left-out features j (1 when none is left out)."""
    if isinstance(table, Stats):
        missing = table.missing_per_feature
    else:
        missing = (table.X == table.missing_codes).sum(axis=0)
    out = np.setdiff1d(np.arange(table.d), keep)
    return math.prod(int(table.delta[j]) ** int(missing[j]) for j in out)


def leave_out(lo: np.ndarray, hi: np.ndarray, free: np.ndarray, N: np.ndarray):
    """Extreme counts lo, hi (..., m, d) with each blank test cell's factor made 1: where
    ``free`` (..., d) is true both become the label sizes N (m,), so the factor is N_l / N_l
    in every world.  For alpha = 0 only (with alpha > 0 a factor (N_l + alpha) / (N_l +
    alpha delta_j) is not 1): the joint poisoning engines, which take one table for points
    with different blank cells."""
    free = free[..., None, :]
    size = N[:, None]
    return np.where(free, size, lo), np.where(free, size, hi)


def per_group(table, T: np.ndarray, answer) -> list:
    """``answer(projection, codes, rows, keep)`` for each group of rows, its per-row results
    (a list as long as ``rows``) put back in the rows' order."""
    out = [None] * len(T)
    for rows, keep in groups(T):
        results = answer(project(table, keep), test_codes(T, rows, keep), rows, keep)
        for r, res in zip(rows.tolist(), results, strict=True):
            out[r] = res
    return out


__all__ = [
    "BLANK",
    "UNSEEN",
    "groups",
    "project",
    "test_codes",
    "free_worlds",
    "per_group",
    "leave_out",
]
