"""Arrow columns as codes, read from their buffers: where an Arrow column becomes codes
for counting (``nbcert.reading.counts.partial_counts`` counts them without a coded copy).

A dictionary-encoded column gives its indices in place; an integer column of a narrow
span is coded by its offset from the lowest value, its values then put in order of first
appearance and made text, as Arrow's dictionary would have them.  A null, whatever its
bytes, goes to the last slot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .buffers import INT_SPAN_MAX, buffer_values, first_seen, text_column, valid_mask


@dataclass
class ColumnCodes:
    """A column's codes as they arrive: code - ``shift`` in 0..K - 2, a null (whatever its
    bytes) in slot K - 1; ``finish`` turns its (m, K) counts into (values, counts)."""

    codes: np.ndarray
    shift: object
    valid: np.ndarray | None
    K: int
    finish: object


def dictionary_codes(col) -> ColumnCodes:
    """The indices of a dictionary-encoded Arrow array, read from its buffers (no filled
    copy), a null counted as k."""
    values = pd.Index(col.dictionary.to_pylist(), dtype=object)
    return ColumnCodes(
        buffer_values(col.indices),
        0,
        valid_mask(col.indices),
        len(values) + 1,
        lambda counts: (values, counts),
    )


def _int_span(col):
    """(values as numpy, lowest value, span) of an integer Arrow array whose values span
    at most INT_SPAN_MAX values and no more than its length; None for any other.  The
    range is first taken over every cell, null ones included (their bytes are arbitrary,
    but usually 0, and any range holding the values will do: the nulls go to their own
    slot); only when that is too wide is it taken over the values alone."""
    import pyarrow.compute as pc

    x = buffer_values(col)
    if len(x) == 0:
        return None
    lo, hi = int(x.min()), int(x.max())
    if hi - lo + 1 > min(INT_SPAN_MAX, len(col)) and col.null_count:
        lo_hi = pc.min_max(col)  # the values alone (Arrow skips the nulls): several times slower
        lo, hi = lo_hi["min"].as_py(), lo_hi["max"].as_py()
    if lo is None or hi - lo + 1 > min(INT_SPAN_MAX, len(col)):
        return None
    return x, x.dtype.type(lo), hi - lo + 1


def int_codes(col) -> ColumnCodes:
    """An integer Arrow array as the text of its values, coded by offset from the lowest
    value (span + 1 slots); its values present are then put in order of first appearance
    and made text, as Arrow's dictionary would have them.  A column of a wider span is
    dictionary-encoded first."""
    import pyarrow as pa

    got = _int_span(col)
    if got is None:
        return dictionary_codes(text_column(col, True))
    x, lo, span = got
    valid = valid_mask(col)

    def finish(wide):
        seen = first_seen(x, valid, int(np.count_nonzero(wide[:, :span].any(axis=0))))
        at = np.subtract(seen, lo, dtype=np.intp, casting="unsafe")
        values = pd.Index(pa.array(seen, type=col.type).cast(pa.string()).to_pylist(), dtype=object)
        return values, np.concatenate([wide[:, at], wide[:, span:]], axis=1)

    return ColumnCodes(x, lo, valid, span + 1, finish)


def is_int(col) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(col.type)


def as_text(col):
    """An integer column as the text of its values; any other as it is."""
    return text_column(col, True) if is_int(col) else col


def ints_as_text(frame):
    """A record batch with its integer columns as text (for the general path)."""
    import pyarrow as pa

    if not isinstance(frame, pa.RecordBatch):
        return frame
    if not any(pa.types.is_integer(t) for t in frame.schema.types):
        return frame
    return pa.RecordBatch.from_arrays([as_text(c) for c in frame.columns], names=frame.schema.names)


__all__ = ["ColumnCodes", "dictionary_codes", "int_codes", "is_int", "as_text", "ints_as_text"]
