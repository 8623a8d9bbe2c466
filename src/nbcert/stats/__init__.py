"""The sufficient statistics of a training table: the paper's index.

Certification (Iterate+Index), world counting (exact and Monte-Carlo) and OP's plan need
only, per label, the count of every (feature, value) and of every feature's missing
cells, plus the domains and the labels.  ``Stats`` is that object, and the seam between
where the data is and what is asked: it is built here from an EncodedTable (one chunked
bincount per label block), and by ``nbcert.reading.counts`` from a table in one pass, or
from any number of record batches or Dask partitions, whose partial counts are merged with
their domains aligned.  Nothing here reads a table: the coded table and its domains are
``domains``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .domains import Domains, EncodedTable

CHUNK_CELLS = 1 << 22  # cells per bincount call: its intp copy stays at 32 MB


@dataclass(frozen=True)
class Stats(Domains):
    """Per-label counts of every global code (values and each feature's missing slot).

    ``first_missing`` is the (data row, feature) of the first missing feature cell, or
    None for a complete table: poisoning needs a complete table and says where it is not.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> from nbcert.reading.counts import frame_stats
    >>> stats = frame_stats(train, "y")
    >>> stats.label_sizes.tolist(), stats.n, stats.missing_per_feature.tolist()
    ([3, 4], 7, [1, 1])
    >>> stats.first_missing
    (1, 'size')
    """

    counts: np.ndarray  # (m, n_codes) int64
    missing_at: tuple | None = None  # see first_missing
    locate: object = field(
        default=None, compare=False, repr=False
    )  # finds missing_at when first asked

    @property
    def first_missing(self) -> tuple | None:
        """(data row, feature name) of the first missing feature cell, or None (found when first asked)."""
        if self.locate is not None:
            object.__setattr__(self, "missing_at", self.locate())
            object.__setattr__(self, "locate", None)
        return self.missing_at

    @property
    def label_sizes(self) -> np.ndarray:
        """(m,) rows of each label, N_l."""
        return self.counts[:, self.offsets[0] : self.offsets[1]].sum(axis=1)

    @property
    def n(self) -> int:
        """Rows of the table."""
        return int(self.label_sizes.sum())

    @property
    def missing_per_feature(self) -> np.ndarray:
        """(d,) missing cells of each feature."""
        return self.counts[:, self.missing_codes].sum(axis=0)


def tally(enc: EncodedTable) -> np.ndarray:
    """Tally the table: per label, the rows holding each value and the missing cells.

    The paper's index (the statistics, ``Stats.counts``): bincounts over X's label
    blocks, a bounded number of cells at a time.

    Parameters
    ----------
    enc : EncodedTable
        The table, rows grouped by label.

    Returns
    -------
    ndarray of int64, shape (m, n_codes)
        Per label, the count of each feature value and of each feature's missing slot.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbcert.methods import encode, tally
    >>> train = pd.DataFrame({"color": ["red", "blue", None], "y": ["a", "a", "b"]})
    >>> enc = encode(train, "y")
    >>> enc.categories[0].tolist()  # codes 0, 1; code 2 is the column's missing slot
    ['red', 'blue']
    >>> tally(enc)
    array([[1, 1, 0],
           [0, 0, 1]])
    """
    idx = np.zeros((enc.m, enc.n_codes), dtype=np.int64)
    step = max(1, CHUNK_CELLS // max(1, enc.d))
    for l in range(enc.m):
        for a in range(enc.label_bounds[l], enc.label_bounds[l + 1], step):
            b = min(a + step, enc.label_bounds[l + 1])
            idx[l] += np.bincount(enc.X[a:b].ravel(), minlength=enc.n_codes)
    return idx


def _first_missing_of_table(enc: EncodedTable, counts: np.ndarray):
    """(data row, feature) of the first missing cell in the table's row order, or None."""
    if not counts[:, enc.missing_codes].any():
        return None
    miss = enc.is_missing()
    where = np.flatnonzero(miss.any(axis=1))
    r = where[np.argmin(enc.rows[where])]
    return int(enc.rows[r]), enc.features[int(np.argmax(miss[r]))]


def from_table(enc: EncodedTable, counts: np.ndarray | None = None) -> Stats:
    """The statistics of an encoded table.

    Parameters
    ----------
    enc : EncodedTable
    counts : ndarray of shape (m, n_codes), optional
        Its count index (:func:`tally`), if already built.

    Returns
    -------
    Stats
        Its first missing cell is located only when first asked.
    """
    counts = tally(enc) if counts is None else counts
    return Stats(
        offsets=enc.offsets,
        delta=enc.delta,
        features=enc.features,
        categories=enc.categories,
        labels=enc.labels,
        counts=counts,
        locate=partial(_first_missing_of_table, enc, counts),  # picklable: a model saves
    )


def as_stats(source) -> Stats:
    """Stats as they are, or built from an EncodedTable.

    Parameters
    ----------
    source : Stats or EncodedTable

    Returns
    -------
    Stats
    """
    return source if isinstance(source, Stats) else from_table(source)


# ---------------------------------------------------------------------------------------
# partial statistics and their merge
