"""Turn a categorical training table into integer codes and a missing mask.

Every algorithm in nbcert works on the arrays built here, so the semantics of the
input live in one place:

* a missing cell is NaN/None/null (or one of the ``missing`` tokens); a missing label is
  an error;
* the domain of feature j is the set of its non-missing training values (closed world);
  a feature with no observed value is an error;
* test values never seen in training are allowed (they get the local code -1);
* a feature column whose observed values all read as numbers is compared by value (``4``
  and ``4.0`` are one category, in training and test alike); any other, as written
  (``columns``); so are labels (``1`` and ``1.0`` are one label, with a DataWarning).

Cells are stored as *global* codes: feature j's values occupy codes
``offsets[j] .. offsets[j] + delta[j] - 1`` and its missing cells the code
``offsets[j] + delta[j]``.  Codes take the smallest integer type that holds them
(``code_dtype``: one byte per cell while all domains together have at most 255 values).
Rows are grouped by label, so the count index is a bincount per label over a contiguous
block of cells.

Columns are coded by ``columns`` (the fastest exact route for each type); labels are
sorted where they can be, whatever the path, so answers never depend on how the table
reached us.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError
from ..stats.domains import EncodedTable, code_dtype
from .columns import code_column, code_labels
from .parallel import map_columns

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
            + _separated(columns, label)
        )
    dup = pd.Index(columns).duplicated()
    if dup.any():
        raise InputError(f"{name}: duplicate column {pd.Index(columns)[dup][0]!r}")
    features = tuple(c for c in columns if c != label)
    if not features:
        raise InputError(f"{name}: no feature columns besides the label {label!r}")
    return features


def _separated(columns: list, label) -> str:
    """Where the label is a part of a column's name split at a separator (``'b;y'``: the
    file read with another one), the hint to read it with that separator."""
    for sep in ",;|\t":
        if any(label in str(c).split(sep) for c in columns if sep in str(c)):
            shown = "tab" if sep == "\t" else sep
            return (
                f": the fields look separated by {shown!r} (use --sep {shown!r}; sep={shown!r} "
                "in Python)"
            )
    return ""


def code_frame(
    frame,
    label: str,
    *,
    missing: Iterable | None = None,
    name: str = "training table",
    start: int = 0,
    exact: bool = True,
    compact: bool = True,
    numbers: bool = False,
):
    """(label codes, labels, features, coded columns) of a pandas DataFrame or Arrow table
    (``start``: the row number of its first row, for messages; ``exact``, ``compact``,
    ``numbers``: see code_column; ``numbers`` only for a whole table)."""
    if not isinstance(frame, pd.DataFrame) and not hasattr(frame, "column_names"):
        raise InputError(f"{name}: expected a pandas DataFrame, got {type(frame).__name__}")
    features = check_frame(frame, label, name)
    tokens = list(missing or [])
    y, labels = code_labels(_column(frame, label), name, label, start, tokens, numbers)
    columns = map_columns(
        lambda f: code_column(_column(frame, f), tokens, exact, compact, numbers),
        features,
        len(frame),
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
    the column or row at fault.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> enc = nbcert.encode(train, "y")
    >>> [list(values) for values in enc.categories]
    [['red', 'blue'], ['S', 'L']]
    >>> nbcert.certify(enc, test, "y")["robust"].tolist()  # an encoded table is a training table
    [False, True]
    """
    y, labels, features, columns = code_frame(
        train, label, missing=missing, name=name, numbers=True
    )
    return assemble(y, labels, features, columns, name)


def as_missing(df: pd.DataFrame, missing: Iterable | None) -> pd.DataFrame:
    """The DataFrame with the ``missing`` tokens replaced by NaN."""
    tokens = list(missing or [])
    return df.replace(tokens, np.nan) if tokens else df


CHUNK_ROWS = 1 << 16


def from_codes(X, y, domain_sizes: Sequence[int]) -> EncodedTable:
    """Build an EncodedTable from local integer codes (-1 = missing) and label codes.

    The entry point for callers who already hold integer-coded data: values of feature j
    must lie in ``0 .. domain_sizes[j] - 1``, each of them occurring, and labels in
    ``0 .. m - 1``.  Every function of the API takes the table as its training table (its
    features are named 0 .. d-1 and its values are the codes, so test points are a DataFrame
    of codes; the label argument is not used).  Works in row chunks, so no full-size wide
    temporary is made.

    Parameters
    ----------
    X : array-like of int, shape (n, d)
        Feature codes, -1 for a missing cell.
    y : array-like of int, shape (n,)
        Label codes 0 .. m-1 (text labels: code them first, e.g. ``pandas.factorize``, or
        use ``nbcert.CertifiedNB``, which takes any labels).
    domain_sizes : sequence of int, shape (d,)
        Values per feature.

    Returns
    -------
    EncodedTable

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> enc = nbcert.from_codes([[0, 1], [1, -1], [1, 0]], [0, 1, 1], domain_sizes=[2, 2])
    >>> enc.n, enc.d, enc.m
    (3, 2, 2)
    >>> nbcert.certify(enc, pd.DataFrame([[0, 1], [1, 0]]), None)  # test points as codes
       robust  label possible_labels  tie_possible
    0    True      0             [0]         False
    1    True      1             [1]         False
    """
    X, y, delta = _checked_codes(np.asarray(X), np.asarray(y), domain_sizes)
    return _encoded_codes(X, y, delta)


def _checked_codes(X: np.ndarray, y: np.ndarray, domain_sizes) -> tuple:
    """(X, y, domain sizes) of ``from_codes``, each checked against its rule."""
    delta = np.asarray(domain_sizes, dtype=np.intp)
    if X.ndim != 2 or y.shape != (X.shape[0],) or delta.shape != (X.shape[1],):
        raise InputError("from_codes: X must be (n, d), y (n,) and domain_sizes (d,)")
    if y.dtype.kind not in "iu" or (y.size and y.min() < 0):
        raise InputError(
            f"from_codes: y must hold label codes 0 .. m-1 (integers), got {y.dtype} values; "
            "code text labels first (pandas.factorize), or fit nbcert.CertifiedNB, which "
            "takes any labels"
        )
    if X.size and X.dtype.kind not in "iu":
        raise InputError(f"from_codes: X must hold integer codes (-1: missing), got {X.dtype}")
    if X.size and (X.min() < -1 or (X.max(axis=0) >= delta).any()):
        raise InputError("from_codes: a code lies outside its feature's domain")
    return X, y, delta


def _encoded_codes(X, y, delta) -> EncodedTable:
    """``from_codes`` on checked codes: rows sorted by label, global codes a chunk of rows
    at a time."""
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
