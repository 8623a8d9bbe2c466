"""Table states a certificate speaks of, as count matrices: the table as read, a complete
table with cells blanked (poisoning), a dirty table with cells cleaned (cleaning with the
truth).

A state is ``counts`` (m, n_codes): the observed cells of each label per global code, and
each feature's missing cells in its last slot (``nbcert.stats``'s index).  A value that no
observed cell holds is not in the state's domain (``evidence.point``).
"""

from __future__ import annotations

import numpy as np

from ..stats import Stats, as_stats
from ..stats.domains import EncodedTable


def as_read(table: Stats | EncodedTable) -> np.ndarray:
    """The counts of the table as read."""
    return as_stats(table).counts


def _positions(rows: np.ndarray, data_rows) -> np.ndarray:
    """Positions in an encoded table (whose original rows are ``rows``) of data rows."""
    order = np.argsort(rows)
    return order[np.searchsorted(rows, data_rows, sorter=order)]


def _cells(features, cells) -> tuple:
    """(data rows, feature indices) of (data row, column name) cells."""
    index = {f: j for j, f in enumerate(features)}
    rows = np.array([int(r) for r, _ in cells], np.intp)
    cols = np.array([index[c] for _, c in cells], np.intp)
    return rows, cols


def blanked(enc: EncodedTable, counts: np.ndarray, cells) -> np.ndarray:
    """The counts of the encoded table ``enc`` (its counts ``counts``) with ``cells``,
    (data row, column name) pairs of observed cells, made missing."""
    rows, cols = _cells(enc.features, cells)
    out = counts.copy()
    if not len(rows):
        return out
    pos = _positions(enc.rows, rows)
    labels = np.searchsorted(enc.label_bounds, pos, side="right") - 1
    np.subtract.at(out, (labels, enc.X[pos, cols].astype(np.intp)), 1)
    np.add.at(out, (labels, enc.missing_codes[cols]), 1)
    return out


def cleaned(tab, cells) -> np.ndarray:
    """The counts of a dirty table (``nbcert.cleaning.CleaningTable``: the truth's codes,
    the dirty table's missing cells) with ``cells``, (data row, column name) pairs of
    missing cells, set to their true values."""
    enc = tab.enc
    obs, hid = tab.obs.copy(), tab.hid.copy()
    rows, cols = _cells(enc.features, cells)
    if len(rows):
        pos = _positions(enc.rows, rows)
        labels = np.searchsorted(enc.label_bounds, pos, side="right") - 1
        values = tab.values()[pos, cols]
        np.add.at(obs, (labels, cols, values), 1)
        np.subtract.at(hid, (labels, cols, values), 1)
    out = np.zeros((enc.m, enc.n_codes), np.int64)
    for j in range(enc.d):
        a = int(enc.offsets[j])
        out[:, a : a + int(enc.delta[j])] = obs[:, j, : enc.delta[j]]
        out[:, enc.missing_codes[j]] = hid[:, j].sum(axis=1)
    return out


__all__ = ["as_read", "blanked", "cleaned"]
