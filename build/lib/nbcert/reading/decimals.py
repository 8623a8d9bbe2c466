"""Numbers written with another decimal mark than a point (``0,92815``): ``decimal=``.

nbcert reads a CSV as the text written in it and decides later which columns hold numbers
(``nbcert.reading.columns``, ``nbcert.reading.binning``), by what ``pandas.to_numeric``
reads, so ``0,92815`` would be text.  With ``decimal=","`` (``--decimal ,``, pandas'
``decimal=``) a value that is a number written with that mark, and only such a value, is
read as the same number written with a point: ``-1,5`` and ``1,5e3`` become ``-1.5`` and
``1.5e3``, while ``Smith, John``, ``1,2,3`` or ``1.234,5`` stay as written (a text column
keeps its commas).  The rewrite is per distinct value of a dictionary-encoded column (the
CSV reader's), per cell of a plain one, in Arrow; a DataFrame's text columns are rewritten
by pandas.

Without ``decimal``, ``looks_decimal`` tells a column whose values read as numbers once
their commas are points, for the hint that names the option.
"""

from __future__ import annotations

import re

import numpy as np

COMMA = ","


def pattern(decimal: str) -> str:
    """The regular expression (RE2 and Python alike) of a number written with ``decimal``
    as its mark: digits on at least one side of the one mark, an optional sign and exponent,
    spaces around."""
    d = re.escape(decimal)
    return rf"^\s*[+-]?(\d+{d}\d*|{d}\d+)([eE][+-]?\d+)?\s*$"


def _fixed(values, decimal: str):
    """An Arrow string array with each number written with ``decimal`` written with a point
    (None: no value changes)."""
    import pyarrow.compute as pc

    hits = pc.match_substring_regex(values, pattern(decimal))
    if not pc.any(hits).as_py():
        return None
    return pc.if_else(hits, pc.replace_substring(values, decimal, "."), values)


def _chunk(chunk, decimal: str):
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(chunk.type):
        if not (
            pa.types.is_string(chunk.type.value_type)
            or pa.types.is_large_string(chunk.type.value_type)
        ):
            return chunk
        new = _fixed(chunk.dictionary, decimal)
        if new is None:
            return chunk
        if pc.count_distinct(new).as_py() < len(new):  # 1,5 and 1.5 are now one value
            return pc.dictionary_encode(pc.take(new, chunk.indices))
        return pa.DictionaryArray.from_arrays(chunk.indices, new)
    if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
        new = _fixed(chunk, decimal)
        return chunk if new is None else new
    return chunk


def arrow(table, decimal: str | None):
    """An Arrow Table or RecordBatch with its numbers written with ``decimal`` rewritten
    with a point (the table itself when ``decimal`` is None or a point)."""
    import pyarrow as pa

    if decimal in (None, "."):
        return table
    if isinstance(table, pa.RecordBatch):
        columns = [_chunk(c, decimal) for c in table.columns]
    else:
        columns = [
            pa.chunked_array([_chunk(c, decimal) for c in col.chunks]) if col.num_chunks else col
            for col in table.columns
        ]
    return type(table).from_arrays(columns, names=table.column_names)


def frame(df, decimal: str | None):
    """A pandas DataFrame whose text values that are numbers written with ``decimal`` are
    written with a point (the same frame when nothing changes)."""
    import pandas as pd

    if decimal in (None, ".") or not isinstance(df, pd.DataFrame):
        return df
    out = None
    for c in df.columns:
        col = df[c]
        if col.dtype.kind not in "OUST" and not isinstance(col.dtype, pd.StringDtype):
            continue
        hits = col.str.fullmatch(pattern(decimal)).fillna(False).astype(bool).to_numpy()
        if hits.any():
            out = df.copy() if out is None else out
            out[c] = col.where(~hits, col.str.replace(decimal, ".", regex=False))
    return df if out is None else out


def looks_decimal(values, decimal: str = COMMA, stray: int = 10):
    """A value of ``values`` (a column's distinct values) written with ``decimal`` when the
    column reads as numbers once ``decimal`` is a point (numbers as they are, numbers
    written with ``decimal``, at most ``stray`` other tokens and fewer than those), else None."""
    import pandas as pd

    values = pd.Index(values)
    if values.dtype.kind not in "OUST" and not isinstance(values.dtype, pd.StringDtype):
        return None
    text = pd.Series(values.to_numpy(object))
    strings = text.map(lambda v: isinstance(v, str)).to_numpy(bool)
    written = np.zeros(len(text), bool)
    written[strings] = text[strings].astype(str).str.fullmatch(pattern(decimal)).to_numpy(bool)
    if not written.any():
        return None
    numbers = pd.to_numeric(text.where(~written), errors="coerce").notna().to_numpy() & ~written
    other = int((~written & ~numbers).sum())
    if other > stray or other >= int(written.sum()):
        return None
    return str(text[written].iloc[0])


__all__ = ["COMMA", "pattern", "arrow", "frame", "looks_decimal"]
