"""Blanking cells of a large integer-coded table, chunk by chunk, for the scaling study.

``blank_in_place`` blanks a uniformly random set of cells of a given size (the study's
missing cells) without a full-size mask; ``verify_poisoning`` blanks a poisoning's cells
on fresh counts and checks that the point is then non-robust (the answer re-checked
outside the timing), with a bitmap of the cells seen so that a cell named twice fails.
"""

from __future__ import annotations

import numpy as np

from nbcert.methods import Cells, PoisonedCounts

MAX_BLANK_CELLS = 10**9  # numpy's hypergeometric draws need fewer cells than this (blank_in_place)


def _cell_arrays(enc, cells):
    """(table rows, feature indices) of a poisoning's cells (as held, for Cells)."""
    if isinstance(cells, Cells):
        return cells.rows, cells.cols
    col = {f: j for j, f in enumerate(enc.features)}
    return (
        np.array([r for r, _ in cells], np.intp).reshape(-1),
        np.array([col[f] for _, f in cells], np.intp).reshape(-1),
    )


def verify_poisoning(enc, t: np.ndarray, res, chunk: int = 1 << 20) -> bool | None:
    """Whether blanking the answer's cells on fresh counts leaves t non-robust (None if
    no poisoning was found; False also for a cell named twice).  Works ``chunk`` cells at
    a time, with a bitmap of the cells seen."""
    if not res.possible:
        return None
    rows, cols = _cell_arrays(enc, res.cells)
    pos = np.empty(len(enc.rows), np.int32 if len(enc.rows) < 1 << 31 else np.intp)
    pos[enc.rows] = np.arange(len(enc.rows))  # training-table row -> position in enc.X
    seen = np.zeros((enc.n * enc.d + 7) // 8, np.uint8)
    state = PoisonedCounts(enc, t)
    for a in range(0, len(rows), chunk):
        r, c = pos[rows[a : a + chunk]].astype(np.intp), cols[a : a + chunk].astype(np.intp)
        ids = np.sort(r * enc.d + c)
        byte, bit = ids >> 3, (1 << (ids & 7)).astype(np.uint8)
        if (ids[1:] == ids[:-1]).any() or (seen[byte] & bit).any():
            return False
        first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
        seen[byte[first]] |= np.bitwise_or.reduceat(bit, first)
        state.blank_at(r, c)
    return not state.robust()


def blank_in_place(
    X: np.ndarray,
    missing_codes: np.ndarray,
    rate: float,
    rng,
    *,
    skip_rows: int = 0,
    chunk_rows: int = 1 << 16,
) -> float:
    """Blank round(rate * n * d) cells of X (n, d) in place, a uniformly random set of the
    cells below row ``skip_rows`` (all there are if fewer), by writing each column's
    missing code; returns the share of the table blanked.

    Chunk by chunk of rows, the number of cells a chunk gets is drawn from the
    hypergeometric distribution of the cells still to place among the cells still to
    come, then which of its cells: an exactly uniform set of that size, no full-size mask.
    """
    n, d = X.shape
    if n * d >= MAX_BLANK_CELLS:
        raise ValueError(
            f"blank_in_place: {n * d:,} cells; tables of {MAX_BLANK_CELLS:,} or more are not supported"
        )
    flat = X.reshape(-1)
    cells = (n - skip_rows) * d
    want = left = min(round(rate * n * d), cells)
    for a in range(skip_rows * d, n * d, chunk_rows * d):
        size = min(chunk_rows * d, n * d - a)
        k = int(rng.hypergeometric(size, cells - size, left)) if cells > size else left
        pick = a + rng.choice(size, k, replace=False)
        flat[pick] = missing_codes[pick % d]
        cells, left = cells - size, left - k
    return want / (n * d) if n * d else 0.0
