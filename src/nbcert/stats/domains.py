"""The coded training table and its domains: the types every question reads.

Cells are stored as *global* codes: feature j's values occupy codes
``offsets[j] .. offsets[j] + delta[j] - 1`` and its missing cells the code
``offsets[j] + delta[j]``.  Codes take the smallest integer type that holds them
(``code_dtype``: one byte per cell while all domains together have at most 255 values).
Rows are grouped by label, so the count index is a bincount per label over a contiguous
block of cells.  ``nbcert.reading`` builds these from tables; nothing here reads one.

*Numbers compared by value*.  A domain whose values all read as finite numbers
(``as_numbers``: numbers, or text that ``pandas.to_numeric`` reads as one; booleans are
not numbers, as in binning) is a domain of numbers: ``4``, ``4.0``, `` 4``, ``4e0``, a
Parquet int 4 and a float 4.0 are one category, whose value is the number (an integer
where every value of the column is one, else a float); ``merge_numbers`` makes them one.
Test values and values read again are looked up by ``positions``, by number in a numeric
domain.  The work is per distinct value, never per cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError


def code_dtype(n_codes: int) -> np.dtype:
    """The smallest integer type holding codes 0 .. n_codes - 1."""
    if n_codes <= 1 << 8:
        return np.dtype(np.uint8)
    if n_codes <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32 if n_codes <= 1 << 31 else np.int64)


def _no_booleans(objects: np.ndarray) -> np.ndarray:
    """Objects with each boolean made None (booleans are not numbers)."""
    if pd.api.types.infer_dtype(objects, skipna=True) in ("string", "integer", "floating"):
        return objects
    return np.array([None if isinstance(v, (bool, np.bool_)) else v for v in objects], object)


def _to_numbers(objects: np.ndarray) -> pd.Index:
    """Objects as numbers, NaN where one does not read as a number (a boolean among them)."""
    try:
        return pd.to_numeric(pd.Index(_no_booleans(objects), dtype=object), errors="coerce")
    except (TypeError, ValueError):
        return pd.Index(np.full(len(objects), np.nan))


def _finite_numbers(values: pd.Index) -> pd.Index | None:
    """The values as numbers (pandas' integer or float types) if every one reads as a
    finite number, else None."""
    kind = values.dtype.kind
    if kind in "iu":
        return values
    if kind == "f":
        return values if np.isfinite(values.to_numpy()).all() else None
    if kind != "O":
        return None
    objects = values.to_numpy()
    for part in (objects[:64], objects):  # a text column is told by its first values
        nums = _to_numbers(part)
        if nums.dtype.kind not in "iuf" or (
            nums.dtype.kind == "f" and not np.isfinite(nums.to_numpy()).all()
        ):
            return None
    return nums


def as_numbers(values) -> pd.Index | None:
    """A domain's values as numbers, compared by value (see the module), or None when one
    of them does not read as a finite number (or there is none).  Integers where every
    value is one (floats up to 2^53), else floats."""
    values = pd.Index(values)
    if len(values) == 0:
        return None
    nums = _finite_numbers(values)
    if nums is None or nums.dtype.kind != "f":
        return nums
    x = nums.to_numpy(np.float64)
    if np.all(np.abs(x) <= 2.0**53) and np.array_equal(x, np.trunc(x)):
        return pd.Index(x.astype(np.int64))
    return pd.Index(x + 0.0)  # -0.0 is 0.0


def merge_numbers(values: pd.Index) -> tuple:
    """(where each value goes, or None when no two values are one number; the domain): a
    numeric domain (``as_numbers``) with equal numbers made one category, in order of
    first appearance; any other domain as it is."""
    nums = as_numbers(values)
    if nums is None:
        return None, values
    where, merged = pd.factorize(nums)
    if len(merged) == len(nums):
        return None, nums
    return where.astype(np.intp), pd.Index(merged)


def positions(domain: pd.Index, values) -> np.ndarray:
    """The position of each of ``values`` in ``domain`` (-1: not in it, or missing),
    compared by number when the domain is numeric (see the module), else as they are.
    The work is per distinct value."""
    if domain.dtype.kind not in "iuf":
        return domain.get_indexer(values)
    values = pd.Index(values)
    if values.dtype.kind in "iuf":  # numbers already (NaN: missing)
        return domain.get_indexer(values)
    where, distinct = pd.factorize(values.astype(object))
    at = domain.get_indexer(_to_numbers(distinct.to_numpy())) if len(distinct) else []
    return np.append(np.asarray(at, np.intp), -1)[where]  # the last entry: a missing value


UNSEEN = -1  # a test code: a value never seen in training

BLANK = -2  # a test code: a blank test cell, its feature left out (nbcert.blanks)


@dataclass(frozen=True)
class Domains:
    """Feature names, their domains and the labels: what every question needs besides counts."""

    offsets: np.ndarray  # (d + 1,) first global code of each feature
    delta: np.ndarray  # (d,) domain size of each feature
    features: tuple  # feature column names
    categories: tuple  # per feature: pandas Index of its domain values
    labels: tuple  # label values, in label-code order

    @property
    def d(self) -> int:
        return len(self.features)

    @property
    def m(self) -> int:
        return len(self.labels)

    @property
    def n_codes(self) -> int:
        return int(self.offsets[-1])

    @property
    def missing_codes(self) -> np.ndarray:
        return self.offsets[1:] - 1

    def encode_test(
        self, test: pd.DataFrame, name: str = "test table", blanks: str = "leave_out"
    ) -> np.ndarray:
        """Local codes (k, d) of test points: -1 marks a value unseen in training, -2 a blank
        cell (``blanks="leave_out"``: Naive Bayes leaves the feature out, see
        ``nbcert.blanks``; ``"error"``: an InputError naming the row and column)."""
        missing_cols = [f for f in self.features if f not in test.columns]
        if missing_cols:
            raise InputError(f"{name}: missing feature column {missing_cols[0]!r}")
        blank = test[list(self.features)].isna().to_numpy()
        if blanks == "error" and blank.any():
            r, j = map(int, np.argwhere(blank)[0])
            raise InputError(
                f"{name}: data row {r} has a missing value in column {self.features[j]!r} "
                "(blank test cells are refused as asked)"
            )
        out = np.empty((len(test), self.d), dtype=np.intp)
        for j, f in enumerate(self.features):
            out[:, j] = positions(self.categories[j], test[f])
        out[blank] = BLANK
        return out

    def global_codes(self, T: np.ndarray) -> np.ndarray:
        """Global codes of local test codes; unseen values map to the missing slot."""
        return np.where(T >= 0, T + self.offsets[:-1], self.missing_codes)


@dataclass(frozen=True)
class EncodedTable(Domains):
    """An integer-coded training table, rows grouped by label.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> enc = nbcert.encode(train, "y")
    >>> enc.n, enc.d, enc.m, enc.features, enc.labels
    (7, 2, 2, ('color', 'size'), ('a', 'b'))
    >>> int(enc.is_missing().sum())
    2
    """

    X: np.ndarray  # (n, d) global codes (code_dtype), rows grouped by label
    label_bounds: np.ndarray  # (m + 1,) row offsets of each label's block in X
    rows: np.ndarray  # (n,) original 0-based row position of each row of X

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def label_sizes(self) -> np.ndarray:
        return np.diff(self.label_bounds)

    def is_missing(self) -> np.ndarray:
        return self.X == self.missing_codes


__all__ = [
    "BLANK",
    "UNSEEN",
    "Domains",
    "EncodedTable",
    "as_numbers",
    "code_dtype",
    "merge_numbers",
    "positions",
]
