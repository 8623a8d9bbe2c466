"""One column into local integer codes and its domain; the label column into label codes.

A column is coded once, by the fastest exact route for its type (``code_column``):
Arrow-backed columns (pandas' ``str`` dtype, Arrow tables read from CSV or Parquet) by
``pyarrow.compute.dictionary_encode``, other strings and objects by ``pandas.factorize``,
small non-negative integers by a lookup table.  Domains are in order of first appearance;
labels are sorted where they can be (else in order of appearance), whatever the path, so
answers never depend on how the table reached us (``code_labels``, ``sort_labels``).

*Numbers compared by value*.  A feature column whose observed values all read
as finite numbers (``as_numbers``: numbers, or text that ``pandas.to_numeric`` reads as
one; booleans are not numbers, as in binning) is a column of numbers: ``4``, ``4.0``,
`` 4``, ``4e0``, a Parquet int 4 and a float 4.0 are one category, whose value is the
number (an integer where every value of the column is one, else a float).  A column with
any other value is text, every value the text written.  Whether a column is numeric
depends on all its values, so it is decided once the whole domain is known: when a whole
column is coded (``code_column(..., numbers=True)``) or when the parts' counts are merged
(``nbcert.reading.counts.Merger``); a part is coded as written.  The work is per distinct
value, never per cell, except the relabelling of cells when two spellings of one number both
occur.
Test values and values read again are looked up by ``positions``, by number in a numeric
domain.

*Labels by the same rule*.  A label column whose labels all read as finite numbers is
compared by value too, once the whole column is known (``code_labels(..., numbers=True)``,
``nbcert.reading.counts.Merger``): ``1`` and ``1.0`` are one label, written as its smallest spelling
(``'1'``), and one DataWarning names the spellings.  Labels that need no merging stay as
written, so a result names a label as the file writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import RowError
from ..stats.domains import as_numbers, code_dtype, merge_numbers, positions
from .buffers import filled, first_seen


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
    """Lookup-table codes of small non-negative integers (stored as ints or floats), in
    order of first appearance, or None."""
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
    values = first_seen(iv, None, int(np.count_nonzero(np.bincount(iv))))  # as every path
    lookup = np.full(int(values.max()) + 1, -1, np.intp)
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


def same_values(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Cell by cell, whether two versions of one column hold the same value: by number
    when every observed value of both reads as a number (see the module), else as they
    are (missing cells compare as unequal to values)."""
    same = np.asarray(a.to_numpy(object) == b.to_numpy(object), bool)
    if same.all():
        return same
    seen = pd.Index(
        pd.unique(np.concatenate([a.dropna().to_numpy(object), b.dropna().to_numpy(object)]))
    )
    nums = as_numbers(seen)
    if nums is None:
        return same
    domain = pd.Index(pd.unique(nums.to_numpy()))
    pa_, pb = positions(domain, a.to_numpy(object)), positions(domain, b.to_numpy(object))
    return same | ((pa_ == pb) & (pa_ >= 0))


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
    col,
    tokens: Sequence = (),
    exact: bool = True,
    compact: bool = True,
    numbers: bool = False,
) -> CodedColumn:
    """Code one column (a pandas Series or a pyarrow array); ``tokens`` are values that
    also mean missing.  With ``exact`` False the domain may list values no cell holds;
    with ``compact`` False the codes may take a wider type (faster where they are only
    counted); with ``numbers`` (the whole column, ``exact``) a column of numbers is
    compared by value (``merge_numbers``), else every value is kept as it is."""
    codes, values = _without_tokens(*_raw_codes(col, exact), tokens)
    if numbers:
        where, values = merge_numbers(values)
        if where is not None:  # two spellings of one number: its cells relabelled
            codes = np.append(where, -1)[_numpy_codes(codes)]
    return CodedColumn(_missing_as(codes, len(values), compact), values)


def code_labels(
    col, name: str, label: str, start: int = 0, tokens: Sequence = (), numbers: bool = False
):
    """Label codes (intp) and the labels, sorted where they can be (else in order of
    appearance); a missing label (or one of the ``tokens``) is an InputError naming its
    data row (``start`` is the row number of the column's first cell).  With ``numbers``
    (the whole column) labels are compared by value as features are (``sort_labels``)."""
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
    ranks, labels = sort_labels(values, numbers, name, label)
    return ranks[codes], labels


def sort_labels(values, numbers: bool = False, name: str = "", label=None) -> tuple:
    """(rank of each value, labels in label-code order): sorted where the values can be
    compared (as ``pandas.factorize(sort=True)`` does), else in their given order.

    With ``numbers`` the labels are compared by value, by the features' rule
    (``merge_numbers``): where every label reads as a finite number, the spellings of one
    number (``1`` and ``1.0``) are one label, written as its smallest spelling (the same
    whatever order the rows come in), and one DataWarning names the table (``name``), the
    label column and the spellings; else every label is its own as written."""
    values = pd.Index(values)
    where = None
    if numbers:
        where, values = _merged_labels(values, name, label)
    try:
        ranks, labels = pd.factorize(values, sort=True)
    except TypeError:  # labels of mixed types: keep their order of appearance
        ranks, labels = pd.factorize(values)
    ranks = ranks.astype(np.intp)
    return (ranks if where is None else ranks[where]), tuple(labels)


def _merged_labels(values: pd.Index, name: str, label) -> tuple:
    """(where each value goes, or None; the labels): the spellings of one number made one
    label, its smallest spelling as text, with a DataWarning naming them."""
    where, _ = merge_numbers(values)
    if where is None:
        return None, values
    text = pd.Series([str(v) for v in values])
    first = text.groupby(where).idxmin()  # per number, the value of its smallest spelling
    merged = pd.Index(values[first.to_numpy()], dtype=values.dtype)
    groups = [list(text[where == g]) for g in range(len(merged)) if (where == g).sum() > 1]
    _warn_labels(name, label, groups)
    return where, merged


def _warn_labels(name: str, label, groups: list) -> None:
    """One DataWarning: the label column writes numbers several ways (``groups``: the
    spellings of each such number), and each number is one label."""
    import warnings

    from ..errors import DataWarning, caller_level

    groups = sorted(sorted(g) for g in groups)  # whatever order the rows came in
    shown = "; ".join(" and ".join(map(repr, g)) for g in groups[:3])
    shown += f"; and {len(groups) - 3} more numbers" if len(groups) > 3 else ""
    msg = (
        f"{name}: label column {label!r} writes {'a number' if len(groups) == 1 else 'numbers'} "
        f"in more than one way ({shown}): labels are compared by value, as features are, so "
        f"each number is one label, shown as the first spelling listed"
    )
    warnings.warn(DataWarning(msg), stacklevel=caller_level())
