"""Repaired rows coded: a training table whose dirty rows each take one of their repairs.

A *dirty* row has a missing cell.  Each dirty row has one or more *repairs*, complete
fillings of all its missing cells at once (``nbcert.reading.repairs``); a world picks one
distinct repaired row per dirty row (repairs that fill the row alike count once, after
binning), so a row with one distinct repair is fixed.  The domain of feature j is

    D_j = (observed values of j) ∪ (every value a repair gives a cell of j),

fixed across the worlds (the candidate model's rule, ``nbcert.stats.candidates``): |D_j|
is what alpha's denominators count, so a label's support depends on its own rows only and
labels stay independent.  The same repairs read cell by cell (each missing cell any value a
repair gives it, independently of the row's other cells) are ``RowRepairs.cand``: a
superset of the row worlds, the per-cell model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..stats import candidates
from ..stats.domains import EncodedTable, positions


@dataclass(frozen=True)
class RowRepairs:
    """A training table with its rows' repairs, coded.

    ``enc``: the table with every repair value in its domains (rows grouped by label;
    with the truth, the truth's cells); ``X`` (n, d): local codes, -1 for a missing cell;
    ``y`` (n,): label codes; ``fills`` (R, d): the local codes of every distinct repaired
    row (its observed cells the row's own); ``owner`` (R,): its row in ``enc``'s order,
    nondecreasing; ``cand``: the same repairs as per-cell candidates; ``truth`` (n, d):
    the truth's local codes, or None.
    """

    enc: EncodedTable
    X: np.ndarray
    y: np.ndarray
    fills: np.ndarray
    owner: np.ndarray
    cand: candidates.Candidates
    truth: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def m(self) -> int:
        return self.enc.m

    @property
    def missing(self) -> np.ndarray:
        return self.X < 0

    @property
    def label_sizes(self) -> np.ndarray:
        return self.enc.label_sizes

    @property
    def delta(self) -> np.ndarray:
        return self.enc.delta

    def ways(self) -> np.ndarray:
        """(n,) each row's distinct repairs (1 for a clean row)."""
        return np.maximum(np.bincount(self.owner, minlength=self.n), 1)

    def total(self) -> int:
        """The number of worlds: the product of every dirty row's distinct repairs."""
        sizes = np.bincount(np.bincount(self.owner))  # rows per number of repairs
        return math.prod(k ** int(c) for k, c in enumerate(sizes.tolist()) if k > 1)

    def cleaned(self, rows: np.ndarray) -> RowRepairs:
        """The table with ``rows`` (positions in ``enc``'s order) cleaned to their truth:
        each keeps one repair, its true row (which need not be one of its repairs)."""
        if self.truth is None:
            raise ValueError("no truth to clean with")
        rows = np.unique(np.asarray(rows, np.intp))
        gone = np.isin(self.owner, rows)
        fills = np.concatenate([self.fills[~gone], self.truth[rows]])
        owner = np.concatenate([self.owner[~gone], rows])
        order = np.argsort(owner, kind="stable")
        return RowRepairs(
            self.enc, self.X, self.y, fills[order], owner[order], self.cand, self.truth
        )


def _local(enc: EncodedTable) -> np.ndarray:
    """(n, d) local codes of ``enc``, -1 for a missing cell."""
    X = enc.X.astype(np.int64) - enc.offsets[:-1]
    return np.where(X == enc.delta, -1, X)


def _entries(enc: EncodedTable, table: pd.DataFrame, name: str) -> tuple:
    """(row in ``enc``'s order, feature, repair id) of every entry, its rows, columns and
    values checked already (``candidates.code``); an entry naming no repair is an
    InputError naming the repairs table's data row."""
    blank = pd.isna(table["repair"]).to_numpy()
    if blank.any():
        raise InputError(f"{name}: data row {int(np.flatnonzero(blank)[0])}: it names no repair")
    feature = {f: j for j, f in enumerate(enc.features)}
    j_of = np.array([feature[c] for c in table["column"].to_numpy(object)], np.intp)
    rows = pd.to_numeric(pd.Series(table["row"].to_numpy(object))).to_numpy(np.int64)
    where = np.empty(enc.n, np.intp)
    where[enc.rows] = np.arange(enc.n)
    pair = pd.factorize(pd.Series(list(zip(rows, table["repair"].astype(str)))))[0]
    return where[rows], j_of, pair


def code(enc: EncodedTable, table: pd.DataFrame, name: str, train: str, missing=None) -> tuple:
    """(the table with its domains extended by the repair values, its RowRepairs).

    Parameters
    ----------
    enc : EncodedTable
        The training table (for cleaning: the truth).
    table : DataFrame
        The repairs, ``row, repair, column, value`` (values binned where their column is).
    name, train : str
        The repairs' and the training table's names in messages.
    missing : ndarray of bool (n, d), optional
        The missing cells in ``enc``'s row order (default ``enc``'s own; with the truth,
        the dirty table's).

    Returns
    -------
    (EncodedTable, RowRepairs)

    Raises
    ------
    InputError
        For an entry naming a column that is not a feature, a row out of range, a cell that
        is not missing, no repair or no value; a repair giving one cell two values or
        leaving one of its row's missing cells unfilled; a dirty row without a repair.
    """
    truth = enc if missing is not None else None
    missing = enc.is_missing() if missing is None else missing
    values = table["value"].to_numpy(object)
    columns = table["column"].to_numpy(object)
    listed = candidates.Listed(table["row"].to_numpy(object), columns, values, name)
    coded, cand = candidates.code(enc, listed, train, missing)  # the entries' checks
    at, j_of, pair = _entries(enc, table, name)
    enc = coded
    codes = np.full(len(values), -1, np.int64)
    for j in range(enc.d):
        here = np.flatnonzero(j_of == j)
        if len(here):
            codes[here] = positions(enc.categories[j], values[here])
    X = _local(enc)
    if truth is not None:
        X = np.where(missing, -1, X)
    fills, owner = _fills(X, at, j_of, pair, codes, table, name, enc)
    y = np.repeat(np.arange(enc.m), enc.label_sizes)
    truth_codes = _local(enc) if truth is not None else None
    return enc, RowRepairs(enc, X, y, fills, owner, cand, truth_codes)


def _fills(X, at, j_of, pair, codes, table, name: str, enc: EncodedTable) -> tuple:
    """(fills, owner): every distinct repaired row, by row; InputError for a repair that
    gives a cell two values or leaves a missing cell of its row blank, or a dirty row with
    no repair."""
    n_pairs = int(pair.max()) + 1 if len(pair) else 0
    row_of = np.zeros(n_pairs, np.intp)
    row_of[pair] = at
    fills = X[row_of].copy()
    cell = pd.DataFrame({"p": pair, "j": j_of, "v": codes})
    twice = cell.drop_duplicates().duplicated(["p", "j"], keep=False).to_numpy()
    if twice.any():
        i = int(cell.drop_duplicates().index[np.flatnonzero(twice)[0]])
        raise InputError(f"{name}: data row {i}: {_repair(table, i)} gives this cell two values")
    fills[pair, j_of] = codes
    blank = (fills < 0).any(axis=1)
    if blank.any():
        p = int(np.flatnonzero(blank)[0])
        i = int(np.flatnonzero(pair == p)[0])
        j = int(np.flatnonzero(fills[p] < 0)[0])
        raise InputError(
            f"{name}: {_repair(table, i)} does not fill column {enc.features[j]!r} (a "
            "repair fills every missing cell of its row)"
        )
    dirty = np.flatnonzero((X < 0).any(axis=1))
    bare = np.setdiff1d(dirty, row_of)
    if len(bare):
        r = int(enc.rows[bare[0]])
        raise InputError(
            f"{name}: row {r} of the training table has missing cells but no repair (every "
            "dirty row takes one of its repairs; candidates let cells vary one by one)"
        )
    rows = np.column_stack([row_of, fills])
    rows = np.unique(rows, axis=0) if len(rows) else rows.reshape(0, X.shape[1] + 1)
    return rows[:, 1:], rows[:, 0]


def _repair(table: pd.DataFrame, i: int) -> str:
    return f"repair {str(table['repair'].iloc[i])!r} of row {table['row'].iloc[i]}"


__all__ = ["RowRepairs", "code"]
