"""Turn a categorical training table into integer codes and a missing mask.

Every algorithm in nbcert works on the arrays built here, so the semantics of the
input live in one place:

* a missing cell is NaN/None/null (or one of the ``missing`` tokens); a missing label is
  an error;
* the domain of feature j is the set of its non-missing training values (closed world);
  a feature with no observed value is an error;
* test values never seen in training are allowed (they get the local code -1).

Cells are stored as *global* codes: feature j's values occupy codes
``offsets[j] .. offsets[j] + delta[j] - 1`` and its missing cells the code
``offsets[j] + delta[j]``.  Codes take the smallest integer type that holds them
(``code_dtype``: one byte per cell while all domains together have at most 255 values).
Rows are grouped by label, so the count index is a bincount per label over a contiguous
block of cells.

A column is coded once, by the fastest exact route for its type (``code_column``):
Arrow-backed columns (pandas' ``str`` dtype, Arrow tables read from CSV or Parquet) by
``pyarrow.compute.dictionary_encode``, other strings and objects by ``pandas.factorize``,
small non-negative integers by a lookup table.  Domains are in order of first appearance;
labels are sorted where they can be (else in order of appearance), whatever the path, so
answers never depend on how the table reached us.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError, RowError  # noqa: F401  (re-exported: nbcert.reading.encoding.InputError)
from .parallel import map_columns


def code_dtype(n_codes: int) -> np.dtype:
    """The smallest integer type holding codes 0 .. n_codes - 1."""
    if n_codes <= 1 << 8:
        return np.dtype(np.uint8)
    if n_codes <= 1 << 16:
        return np.dtype(np.uint16)
    return np.dtype(np.int32 if n_codes <= 1 << 31 else np.int64)


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
                raise InputError(
                    f"{name}: data row {int(np.flatnonzero(na)[0])} has a missing value in column {f!r}"
                )
            out[:, j] = self.categories[j].get_indexer(col)
        return out

    def global_codes(self, T: np.ndarray) -> np.ndarray:
        """Global codes of local test codes; unseen values map to the missing slot."""
        return np.where(T >= 0, T + self.offsets[:-1], self.missing_codes)


@dataclass(frozen=True)
class EncodedTable(Domains):
    """An integer-coded training table, rows grouped by label."""

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


# ---------------------------------------------------------------------------------------
# coding one column


@dataclass(frozen=True)
class CodedColumn:
    """One column as local codes: 0 .. k-1 for its k observed values, k for missing."""

    codes: np.ndarray  # (n,) unsigned, the smallest type holding k + 1 codes
    values: pd.Index  # the k observed values, in order of first appearance


def _arrow_backed(dtype) -> bool:
    return isinstance(dtype, getattr(pd, "ArrowDtype", ())) or str(
        getattr(dtype, "storage", "")
    ).startswith("pyarrow")


def _arrow_codes(arr, exact: bool = True):
    """Codes and domain values of a pyarrow Array or ChunkedArray.  The codes are the
    dictionary indices as an Arrow array (null = missing), or a numpy array (-1 = missing)
    where values had to be dropped: a dictionary-typed input may list values that no cell
    holds; with ``exact`` they are dropped here (one counting pass), otherwise the caller
    drops them from its counts.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(arr, pa.Array):
        arr = pa.chunked_array([arr])
    given = pa.types.is_dictionary(arr.type)
    if not given:
        arr = pc.dictionary_encode(arr)  # one dictionary shared by every chunk
    elif arr.num_chunks > 1:
        arr = pa.table({"c": arr}).unify_dictionaries().column(0)
    if arr.num_chunks == 0:
        return np.zeros(0, np.int32), pd.Index([])
    indices = pa.chunked_array([c.indices for c in arr.chunks], type=arr.type.index_type)
    values = pd.Index(
        arr.chunk(0).dictionary.to_pylist(), dtype=object
    )  # object: fast lookups of test values
    if given and exact:
        codes = filled(indices, -1)
        present = np.bincount(codes + 1, minlength=len(values) + 1)[1:] > 0
        if not present.all():
            return _drop_values(codes, values, ~present)
    return indices, values


def _valid(arr) -> np.ndarray | None:
    """The validity bitmap of an Arrow array as booleans (None: no null)."""
    validity = arr.buffers()[0]
    if arr.null_count == 0 or validity is None:
        return None
    n, off = len(arr), arr.offset
    return np.unpackbits(np.frombuffer(validity, np.uint8), count=off + n, bitorder="little")[
        off:
    ].view(bool)


def _values(arr) -> np.ndarray:
    """The values buffer of a fixed-width Arrow array (an integer array, or a dictionary
    array's indices) as numpy, read in place: a null cell's bytes are arbitrary."""
    n, off = len(arr), arr.offset
    return np.frombuffer(arr.buffers()[1], arr.type.to_pandas_dtype(), count=off + n)[off:]


def _chunk_filled(chunk, fill: int) -> np.ndarray:
    """An Arrow integer array as numpy, its null cells set to ``fill``: the values buffer
    read in place and the validity bitmap unpacked (Arrow's fill_null is many times
    slower on dictionary indices)."""
    if len(chunk) == 0 or chunk.buffers()[1] is None:
        return np.zeros(len(chunk), np.int32)
    values = _values(chunk)
    valid = _valid(chunk)
    if valid is None:
        return values
    dt = np.promote_types(values.dtype, np.min_scalar_type(fill))
    out = np.subtract(
        values, fill, dtype=dt
    )  # fill + valid * (value - fill): branch-free, unlike np.where
    out *= valid
    out += dt.type(fill)
    return out


INT_SPAN_MAX = (
    1 << 16
) - 1  # integer columns spanning at most this many values: coded by a lookup table


def first_seen(rel: np.ndarray, valid: np.ndarray | None, present: int) -> np.ndarray:
    """The distinct values of ``rel`` at the valid cells, in order of first appearance
    (``present`` of them): found in a prefix that grows until it holds them all."""
    m = 1 << 12
    while True:
        u = pd.unique(rel[:m] if valid is None else rel[:m][valid[:m]])
        if len(u) == present or m >= len(rel):
            return u
        m *= 8


def int_dictionary(arr):
    """``pyarrow.compute.dictionary_encode`` of an integer Array whose values and 0 span
    at most INT_SPAN_MAX values (and no more than its length), by a few numpy passes over
    its buffers instead of hashing every cell: the same dictionary (the values in order
    of first appearance) and the same indices.  None for any other array.

    A null cell's bytes are arbitrary, so they are first set to 0 (hence 0 in the span)
    and taken out of 0's count.  The offset of a cell from the smallest value is then
    taken modulo 2^64: exact, as the span is below 2^16, whatever the integer type."""
    import pyarrow as pa

    if (
        not isinstance(arr, pa.Array)
        or not pa.types.is_integer(arr.type)
        or arr.null_count == len(arr)
    ):
        return None
    n = len(arr)
    x = _values(arr)
    valid = _valid(arr)
    if valid is not None:
        x = x * valid
    lo, hi = x.min(), x.max()
    span = int(hi) - int(lo) + 1
    if span > min(INT_SPAN_MAX, n):
        return None
    rel = np.subtract(
        x, lo, dtype=np.intp, casting="unsafe"
    )  # intp: bincount and take need no copy
    counts = np.bincount(rel, minlength=span)
    if valid is not None:
        counts[-int(lo)] -= arr.null_count  # the nulls, set to 0
    seen = first_seen(rel, valid, int(np.count_nonzero(counts)))
    lookup = np.zeros(span, np.int32)
    lookup[seen] = np.arange(len(seen), dtype=np.int32)
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    index = pa.Array.from_buffers(
        pa.int32(), n, [bitmap, pa.py_buffer(lookup[rel])], arr.null_count
    )
    values = np.add(seen.astype(x.dtype), lo, dtype=x.dtype, casting="unsafe")
    return pa.DictionaryArray.from_arrays(index, pa.array(values, type=arr.type), safe=False)


def filled(codes, fill: int) -> np.ndarray:
    """Arrow integer codes (Array or ChunkedArray; null = missing) as a numpy array with
    the missing cells set to ``fill``."""
    import pyarrow as pa

    chunks = codes.chunks if isinstance(codes, pa.ChunkedArray) else [codes]
    parts = [_chunk_filled(c, fill) for c in chunks]
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, np.int32)


def _numpy_codes(codes) -> np.ndarray:
    """Codes as numpy, -1 = missing."""
    return codes if isinstance(codes, np.ndarray) else filled(codes, -1)


def _missing_as(codes, k: int, compact: bool) -> np.ndarray:
    """Codes with the missing cells as k: in the smallest type holding k + 1 codes when
    ``compact``, else as they come (Arrow's int32)."""
    dt = code_dtype(k + 1)
    if isinstance(codes, np.ndarray):
        out = codes.astype(dt if compact else np.int32 if k < 1 << 31 else np.int64)
        out[codes < 0] = k
        return out
    out = filled(codes, k)
    return out.astype(dt) if compact else out


def _small_int_codes(x: np.ndarray):
    """Lookup-table codes of small non-negative integers (stored as ints or floats), or None."""
    observed = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(len(x), bool)
    v = x[observed]
    if not (
        v.size
        and v.min() >= 0
        and v.max() < 1 << 20
        and (x.dtype.kind != "f" or np.array_equal(v, np.floor(v)))
    ):
        return None
    iv = v.astype(np.intp)
    values = np.flatnonzero(np.bincount(iv))
    lookup = np.full(values[-1] + 1, -1, np.intp)
    lookup[values] = np.arange(len(values))
    codes = np.full(len(x), -1, np.intp)
    codes[observed] = lookup[iv]
    return codes, pd.Index(values.astype(x.dtype))


def _raw_codes(col, exact: bool = True):
    """Codes (-1 = missing) and domain values of a column, by the fastest exact route.

    Arrow data is dictionary-encoded by Arrow; Python strings and objects are hashed as
    plain object arrays; small non-negative integers (even stored as floats with NaN)
    are coded by a lookup table; anything else goes to pandas.factorize.
    """
    if not isinstance(col, pd.Series):
        return _arrow_codes(col, exact)
    if _arrow_backed(col.dtype):
        import pyarrow as pa

        return _arrow_codes(pa.array(col.array), exact)
    if pd.api.types.is_string_dtype(col):
        codes, values = pd.factorize(col.to_numpy(dtype=object))
        return codes, pd.Index(values, dtype=object)
    x = col.to_numpy()
    if x.dtype.kind in "iuf" and x.size:
        coded = _small_int_codes(x)
        if coded is not None:
            return coded
    codes, values = pd.factorize(col)
    return codes, pd.Index(values)


def _drop_values(codes: np.ndarray, values: pd.Index, drop: np.ndarray):
    """Codes and values with the values marked in ``drop`` turned into missing cells."""
    keep = ~drop
    lookup = np.full(len(values) + 1, -1, np.intp)  # the last entry serves code -1
    lookup[:-1][keep] = np.arange(int(keep.sum()))
    return lookup[codes], values[keep]


def _without_tokens(codes, values: pd.Index, tokens: Sequence):
    if len(tokens) and len(values):
        drop = np.asarray(values.isin(list(tokens)), bool)
        if drop.any():
            return _drop_values(_numpy_codes(codes), values, drop)
    return codes, values


def code_column(
    col, tokens: Sequence = (), exact: bool = True, compact: bool = True
) -> CodedColumn:
    """Code one column (a pandas Series or a pyarrow array); ``tokens`` are values that
    also mean missing.  With ``exact`` False the domain may list values no cell holds;
    with ``compact`` False the codes may take a wider type (faster where they are only
    counted)."""
    codes, values = _without_tokens(*_raw_codes(col, exact), tokens)
    return CodedColumn(_missing_as(codes, len(values), compact), values)


def code_labels(col, name: str, label: str, start: int = 0, tokens: Sequence = ()):
    """Label codes (intp) and the labels, sorted where they can be (else in order of
    appearance); a missing label (or one of the ``tokens``) is an InputError naming its
    data row (``start`` is the row number of the column's first cell)."""
    codes, values = _without_tokens(*_raw_codes(col), tokens)
    codes = _numpy_codes(codes)
    missing = codes < 0
    if missing.any():

        def esc(text: str) -> str:
            return text.replace("{", "{{").replace("}", "}}")

        raise RowError(
            f"{esc(name)}: data row {{row}} has no value in label column {esc(repr(label))}",
            start + int(np.flatnonzero(missing)[0]),
        )
    ranks, labels = sort_labels(values)
    return ranks[codes], labels


def sort_labels(values) -> tuple:
    """(rank of each value, labels in label-code order): sorted where the values can be
    compared (as ``pandas.factorize(sort=True)`` does), else in their given order."""
    values = pd.Index(values)
    try:
        ranks, labels = pd.factorize(values, sort=True)
    except TypeError:  # labels of mixed types: keep their order of appearance
        ranks, labels = pd.factorize(values)
    return ranks.astype(np.intp), tuple(labels)


# ---------------------------------------------------------------------------------------
# coding a table


def column_names(frame) -> list:
    return list(frame.columns) if isinstance(frame, pd.DataFrame) else list(frame.column_names)


def _column(frame, name):
    return frame[name] if isinstance(frame, pd.DataFrame) else frame.column(name)


def check_frame(frame, label: str, name: str) -> tuple:
    """The feature names of a table (pandas DataFrame or Arrow table), after the checks
    every input path shares."""
    features = check_columns(column_names(frame), label, name)
    if len(frame) == 0:
        raise InputError(f"{name}: the table has no data rows")
    return features


def check_columns(columns: list, label: str, name: str) -> tuple:
    """The feature names of a table with these columns; the label must be one of them."""
    if label not in columns:
        raise InputError(
            f"{name}: no label column {label!r} (columns: {', '.join(map(repr, columns))})"
        )
    dup = pd.Index(columns).duplicated()
    if dup.any():
        raise InputError(f"{name}: duplicate column {pd.Index(columns)[dup][0]!r}")
    features = tuple(c for c in columns if c != label)
    if not features:
        raise InputError(f"{name}: no feature columns besides the label {label!r}")
    return features


def code_frame(
    frame,
    label: str,
    *,
    missing: Iterable | None = None,
    name: str = "training table",
    start: int = 0,
    exact: bool = True,
    compact: bool = True,
):
    """(label codes, labels, features, coded columns) of a pandas DataFrame or Arrow table
    (``start``: the row number of its first row, for messages; ``exact``, ``compact``: see
    code_column)."""
    if not isinstance(frame, pd.DataFrame) and not hasattr(frame, "column_names"):
        raise InputError(f"{name}: expected a pandas DataFrame, got {type(frame).__name__}")
    features = check_frame(frame, label, name)
    tokens = list(missing or [])
    y, labels = code_labels(_column(frame, label), name, label, start, tokens)
    columns = map_columns(
        lambda f: code_column(_column(frame, f), tokens, exact, compact), features, len(frame)
    )
    return y, labels, features, columns


def no_observed_value(name: str, feature) -> InputError:
    return InputError(f"{name}: feature column {feature!r} has no observed value")


def assemble(
    y: np.ndarray, labels: tuple, features: tuple, columns: list, name: str
) -> EncodedTable:
    """The EncodedTable of coded columns: global codes, rows grouped by label."""
    for f, c in zip(features, columns):
        if len(c.values) == 0:
            raise no_observed_value(name, f)
    n, d = len(y), len(features)
    delta = np.array([len(c.values) for c in columns], dtype=np.intp)
    offsets = np.zeros(d + 1, dtype=np.intp)
    np.cumsum(delta + 1, out=offsets[1:])
    dt = code_dtype(int(offsets[-1]))
    order = np.argsort(y, kind="stable")
    grouped = bool(np.all(order == np.arange(n)))
    by_feature = np.empty((d, n), dtype=dt)  # built column by column, contiguous
    for j, c in enumerate(columns):
        g = c.codes.astype(dt)
        g += dt.type(offsets[j])
        by_feature[j] = g if grouped else g[order]
    bounds = np.zeros(len(labels) + 1, dtype=np.intp)
    np.cumsum(np.bincount(y, minlength=len(labels)), out=bounds[1:])
    return EncodedTable(
        X=np.ascontiguousarray(by_feature.T),
        label_bounds=bounds,
        rows=_row_ids(order),
        offsets=offsets,
        delta=delta,
        features=features,
        categories=tuple(c.values for c in columns),
        labels=tuple(labels),
    )


def _row_ids(order: np.ndarray) -> np.ndarray:
    return order.astype(np.int32 if len(order) < 1 << 31 else np.intp)


def encode(
    train, label: str, *, missing: Iterable | None = None, name: str = "training table"
) -> EncodedTable:
    """Encode a training table (pandas DataFrame or Arrow table); raise InputError naming
    the column or row at fault."""
    y, labels, features, columns = code_frame(train, label, missing=missing, name=name)
    return assemble(y, labels, features, columns, name)


def as_missing(df: pd.DataFrame, missing: Iterable | None) -> pd.DataFrame:
    """The DataFrame with the ``missing`` tokens replaced by NaN."""
    tokens = list(missing or [])
    return df.replace(tokens, np.nan) if tokens else df


_as_missing = as_missing  # the name the pipeline's older code uses

CHUNK_ROWS = 1 << 16


def from_codes(X: np.ndarray, y: np.ndarray, delta: Sequence[int]) -> EncodedTable:
    """Build an EncodedTable from local integer codes (-1 = missing) and label codes.

    The entry point for callers who already hold integer-coded data: values of feature j
    must lie in ``0 .. delta[j] - 1`` and labels in ``0 .. m - 1``.  Works in row chunks,
    so no full-size wide temporary is made.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    delta = np.asarray(delta, dtype=np.intp)
    if X.ndim != 2 or y.shape != (X.shape[0],) or delta.shape != (X.shape[1],):
        raise InputError("from_codes: X must be (n, d), y (n,) and delta (d,)")
    if X.size and (X.min() < -1 or (X.max(axis=0) >= delta).any()):
        raise InputError("from_codes: a code lies outside its feature's domain")
    n, d = X.shape
    m = int(y.max()) + 1 if y.size else 0
    offsets = np.zeros(d + 1, dtype=np.intp)
    np.cumsum(delta + 1, out=offsets[1:])
    dt = code_dtype(int(offsets[-1]))
    sorted_ = bool(np.all(y[1:] >= y[:-1]))
    order = np.arange(n, dtype=np.intp) if sorted_ else np.argsort(y, kind="stable").astype(np.intp)
    glob = np.empty((n, d), dt)
    present = np.zeros(offsets[-1], dtype=bool)
    for a in range(0, n, CHUNK_ROWS):
        part = X[a : a + CHUNK_ROWS] if sorted_ else X[order[a : a + CHUNK_ROWS]]
        g = np.where(part >= 0, part, delta) + offsets[:-1]
        glob[a : a + CHUNK_ROWS] = g
        present[g.ravel()] = True
    bounds = np.zeros(m + 1, dtype=np.intp)
    np.cumsum(np.bincount(y, minlength=m), out=bounds[1:])
    for j in range(d):
        if not present[offsets[j] : offsets[j] + delta[j]].all():
            raise InputError(f"from_codes: feature {j} has a domain value that never occurs")
    cats = tuple(pd.RangeIndex(int(k)) for k in delta)
    return EncodedTable(
        X=glob,
        label_bounds=bounds,
        rows=_row_ids(order),
        offsets=offsets,
        delta=delta,
        features=tuple(range(d)),
        categories=cats,
        labels=tuple(range(m)),
    )
