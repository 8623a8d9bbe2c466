"""Turn a categorical training table into integer codes and a missing mask.

Every algorithm in nbcert works on the arrays built here, so the semantics of the
input live in one place:

* a missing cell is NaN (or one of the ``missing`` tokens); a missing label is an error;
* the domain of feature j is the set of its non-missing training values (closed world);
  a feature with no observed value is an error;
* test values never seen in training are allowed (they get the local code -1).

Cells are stored as *global* codes: feature j's values occupy codes
``offsets[j] .. offsets[j] + delta[j] - 1`` and its missing cells the code
``offsets[j] + delta[j]``.  Rows are grouped by label, so building the count index is
one ``np.bincount`` per label over a contiguous block of cells.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd


class InputError(ValueError):
    """A user mistake in the input; the message is one line meant for the user."""


@dataclass(frozen=True)
class EncodedTable:
    """An integer-coded training table, rows grouped by label."""

    X: np.ndarray  # (n, d) intp global codes, rows grouped by label
    label_bounds: np.ndarray  # (m + 1,) row offsets of each label's block in X
    rows: np.ndarray  # (n,) original 0-based row position of each row of X
    offsets: np.ndarray  # (d + 1,) first global code of each feature
    delta: np.ndarray  # (d,) domain size of each feature
    features: tuple  # feature column names
    categories: tuple  # per feature: pandas Index of its domain values
    labels: tuple  # label values, in label-code order

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def m(self) -> int:
        return len(self.labels)

    @property
    def n_codes(self) -> int:
        return int(self.offsets[-1])

    @property
    def missing_codes(self) -> np.ndarray:
        return self.offsets[1:] - 1

    @property
    def label_sizes(self) -> np.ndarray:
        return np.diff(self.label_bounds)

    def is_missing(self) -> np.ndarray:
        return self.X == self.missing_codes

    def encode_test(self, test: pd.DataFrame, name: str = "test table") -> np.ndarray:
        """Local codes (k, d) of test rows; -1 marks a value unseen in training."""
        missing_cols = [f for f in self.features if f not in test.columns]
        if missing_cols:
            raise InputError(f"{name}: missing feature column {missing_cols[0]!r}")
        out = np.empty((len(test), self.d), dtype=np.intp)
        for j, f in enumerate(self.features):
            col = test[f]
            na = col.isna().to_numpy()
            if na.any():
                raise InputError(f"{name}: data row {int(np.flatnonzero(na)[0])} has a missing value in column {f!r}")
            out[:, j] = self.categories[j].get_indexer(col)
        return out

    def global_codes(self, T: np.ndarray) -> np.ndarray:
        """Global codes of local test codes; unseen values map to the missing slot."""
        return np.where(T >= 0, T + self.offsets[:-1], self.missing_codes)


def _check_shape(path, name: str) -> None:
    """Reject what pandas silently repairs: short rows (padded with NaN), long rows
    (leading fields turned into an index), duplicate or empty header names."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        header, rows, start = None, 0, 1
        for record in reader:
            line, start = start, reader.line_num + 1
            if not record or (len(record) == 1 and not record[0].strip()):
                continue  # pandas skips blank lines too
            if header is None:
                header = record
                if "" in header:
                    raise InputError(f"{name}: column {header.index('') + 1} of the header has no name")
                dup = next((h for i, h in enumerate(header) if h in header[:i]), None)
                if dup is not None:
                    raise InputError(f"{name}: duplicate column {dup!r} in the header")
                continue
            if len(record) != len(header):
                raise InputError(f"{name}: data row {rows} (line {line}) has {len(record)} "
                                 f"field{'s' * (len(record) != 1)}, expected {len(header)}")
            rows += 1


def read_csv(path, missing: Sequence[str] | None = None, name: str | None = None) -> pd.DataFrame:
    """Read a CSV keeping every value as the string written in it.

    Only an empty field (and the given ``missing`` tokens) means missing, so values such
    as ``NA`` or ``null`` stay ordinary categories.  A malformed file is an InputError
    naming the file, and the row and line where that applies.
    """
    name = name or str(path)
    try:
        _check_shape(path, name)
        df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""] + list(missing or []),
                         index_col=False)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, not a CSV file") from None
    except OSError as e:
        raise InputError(f"{name}: cannot read the file ({e.strerror or e})") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{name}: the file is empty") from None
    except (pd.errors.ParserError, csv.Error) as e:
        raise InputError(f"{name}: cannot parse CSV ({str(e).strip().splitlines()[-1]})") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: not a UTF-8 text file") from None
    if len(df) == 0:
        raise InputError(f"{name}: the table has no data rows")
    return df


def _as_missing(df: pd.DataFrame, missing: Iterable | None) -> pd.DataFrame:
    tokens = list(missing or [])
    return df.replace(tokens, np.nan) if tokens else df


def _factorize(col: pd.Series):
    """Codes (-1 = missing) and domain values of one column, by the fastest exact route.

    Small non-negative integer values (integer-coded data, even stored as floats with NaN)
    are coded by a lookup table in a few array passes; strings are hashed as plain object
    arrays; anything else goes to pandas.factorize.
    """
    if pd.api.types.is_string_dtype(col):
        return pd.factorize(col.to_numpy(dtype=object))
    x = col.to_numpy()
    if x.dtype.kind in "iuf" and x.size:
        observed = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(len(x), bool)
        v = x[observed]
        if v.size and v.min() >= 0 and v.max() < 1 << 20 and (x.dtype.kind != "f" or np.array_equal(v, np.floor(v))):
            iv = v.astype(np.intp)
            values = np.flatnonzero(np.bincount(iv))
            lookup = np.full(values[-1] + 1, -1, np.intp)
            lookup[values] = np.arange(len(values))
            codes = np.full(len(x), -1, np.intp)
            codes[observed] = lookup[iv]
            return codes, values.astype(x.dtype)
    return pd.factorize(col)


def encode(train: pd.DataFrame, label: str, *, missing: Iterable | None = None,
           name: str = "training table") -> EncodedTable:
    """Encode a training DataFrame; raise InputError naming the column or row at fault."""
    if not isinstance(train, pd.DataFrame):
        raise InputError(f"{name}: expected a pandas DataFrame, got {type(train).__name__}")
    if label not in train.columns:
        raise InputError(f"{name}: no label column {label!r} (columns: {', '.join(map(repr, train.columns))})")
    if len(train) == 0:
        raise InputError(f"{name}: the table has no data rows")
    if train.columns.duplicated().any():
        raise InputError(f"{name}: duplicate column {train.columns[train.columns.duplicated()][0]!r}")
    train = _as_missing(train, missing)
    features = tuple(c for c in train.columns if c != label)
    if not features:
        raise InputError(f"{name}: no feature columns besides the label {label!r}")

    y_col = train[label]
    na = y_col.isna().to_numpy()
    if na.any():
        raise InputError(f"{name}: data row {int(np.flatnonzero(na)[0])} has no value in label column {label!r}")
    try:
        y, labels = pd.factorize(y_col, sort=True)
    except TypeError:  # labels of mixed types: keep their order of appearance
        y, labels = pd.factorize(y_col)

    n, d = len(train), len(features)
    order = np.argsort(y, kind="stable")
    grouped = bool(np.all(order == np.arange(n)))
    by_feature = np.empty((d, n), dtype=np.intp)  # built column by column, contiguous
    cats = []
    offsets = np.zeros(d + 1, dtype=np.intp)
    for j, f in enumerate(features):
        codes, uniques = _factorize(train[f])
        if len(uniques) == 0:
            raise InputError(f"{name}: feature column {f!r} has no observed value")
        cats.append(pd.Index(uniques))
        offsets[j + 1] = offsets[j] + len(uniques) + 1
        codes[codes < 0] = len(uniques)  # the missing slot
        codes += offsets[j]
        by_feature[j] = codes if grouped else codes[order]
    delta = np.diff(offsets) - 1
    X = np.ascontiguousarray(by_feature.T)
    bounds = np.zeros(len(labels) + 1, dtype=np.intp)
    np.cumsum(np.bincount(y, minlength=len(labels)), out=bounds[1:])
    return EncodedTable(X=X, label_bounds=bounds, rows=order.astype(np.intp), offsets=offsets,
                        delta=delta, features=features, categories=tuple(cats), labels=tuple(labels))


def from_codes(X: np.ndarray, y: np.ndarray, delta: Sequence[int]) -> EncodedTable:
    """Build an EncodedTable from local integer codes (-1 = missing) and label codes.

    The entry point for callers who already hold integer-coded data: values of feature j
    must lie in ``0 .. delta[j] - 1`` and labels in ``0 .. m - 1``.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    delta = np.asarray(delta, dtype=np.intp)
    if X.ndim != 2 or y.shape != (X.shape[0],) or delta.shape != (X.shape[1],):
        raise InputError("from_codes: X must be (n, d), y (n,) and delta (d,)")
    if X.size and (X.min() < -1 or (X.max(axis=0) >= delta).any()):
        raise InputError("from_codes: a code lies outside its feature's domain")
    m = int(y.max()) + 1 if y.size else 0
    offsets = np.zeros(X.shape[1] + 1, dtype=np.intp)
    np.cumsum(delta + 1, out=offsets[1:])
    sorted_ = bool(np.all(y[1:] >= y[:-1]))
    order = np.arange(len(y), dtype=np.intp) if sorted_ else np.argsort(y, kind="stable").astype(np.intp)
    Xs = X if sorted_ else X[order]
    glob = np.where(Xs >= 0, Xs, delta).astype(np.intp, copy=False) + offsets[:-1]
    bounds = np.zeros(m + 1, dtype=np.intp)
    np.cumsum(np.bincount(y, minlength=m), out=bounds[1:])
    present = np.zeros(offsets[-1], dtype=bool)
    present[glob.ravel()] = True
    for j in range(X.shape[1]):
        if not present[offsets[j]:offsets[j] + delta[j]].all():
            raise InputError(f"from_codes: feature {j} has a domain value that never occurs")
    cats = tuple(pd.RangeIndex(int(k)) for k in delta)
    return EncodedTable(X=np.ascontiguousarray(glob), label_bounds=bounds, rows=order, offsets=offsets,
                        delta=delta, features=tuple(range(X.shape[1])), categories=cats,
                        labels=tuple(range(m)))
