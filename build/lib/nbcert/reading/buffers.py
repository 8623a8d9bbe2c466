"""Arrow arrays read from their buffers: validity, values, integer dictionaries, text.

The low level under coding (``columns``), counting (``arrow``) and reading (``files``):
a fixed-width array's values buffer and validity bitmap are read in place as numpy (a
null cell's bytes are arbitrary), null cells filled branch-free, an integer array of a
narrow span dictionary-encoded by a few numpy passes instead of hashing every cell, and a
column made the text of its values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def valid_mask(arr) -> np.ndarray | None:
    """The validity bitmap of an Arrow array as booleans (None: no null)."""
    validity = arr.buffers()[0]
    if arr.null_count == 0 or validity is None:
        return None
    n, off = len(arr), arr.offset
    return np.unpackbits(np.frombuffer(validity, np.uint8), count=off + n, bitorder="little")[
        off:
    ].view(bool)


def buffer_values(arr) -> np.ndarray:
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
    values = buffer_values(chunk)
    valid = valid_mask(chunk)
    if valid is None:
        return values
    dt = np.promote_types(values.dtype, np.min_scalar_type(fill))
    out = np.subtract(
        values, fill, dtype=dt
    )  # fill + valid * (value - fill): branch-free, unlike np.where
    out *= valid
    out += dt.type(fill)
    return out


# integer columns spanning at most this many values: coded by a lookup table
INT_SPAN_MAX = (1 << 16) - 1


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
    x = buffer_values(arr)
    valid = valid_mask(arr)
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


def text_column(col, dictionary: bool):
    """A column as the text of its values.  Integers, when a dictionary is wanted, are
    dictionary-encoded first and only the distinct values turned into text (the same
    values in the same order of first appearance: an integer's text is unique to it); a
    column of a narrow span by ``int_dictionary``, without hashing every cell."""
    import pyarrow as pa
    import pyarrow.compute as pc

    is_dict = pa.types.is_dictionary(col.type)
    typ = col.type.value_type if is_dict else col.type
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return col
    if dictionary and pa.types.is_integer(typ):
        coded = col if is_dict else int_dictionary(col)
        coded = pc.dictionary_encode(col) if coded is None else coded
        return pa.DictionaryArray.from_arrays(
            coded.indices, coded.dictionary.cast(pa.string()), safe=False
        )
    return pc.cast(col.dictionary_decode() if is_dict else col, pa.string())
