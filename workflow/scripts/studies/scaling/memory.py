"""What a scaling job needs in memory (studies.scaling), without importing it.

Bytes per cell of the n x d table plus fixed amounts, each above what this code holds at n =
10^6 and 10^7 (d = 20, 5 values, 3 labels, 40 % missing) by a fifth or more
(``python -m benchmarks.methods`` checks the study's peak against the model).
The study compares them with the memory available before it builds a size or runs a
method, and the workflow asks the scheduler for ``job_mem_mb``: both read this one model.

* HELD_BYTES: the encoded table kept while the methods run (one byte per cell) and its
  row ids (4 bytes per row).
* SETUP_BYTES: what drawing (one-byte local codes and one column's uniform draws at a
  time), encoding (one-byte global codes beside the local ones) and blanking in place add
  on top of that.
* EXTRA_BYTES, FIXED_BYTES: what each method adds to the held table, per cell and
  whatever n.  Every method works in bounded chunks: counting passes hold 4 M cells
  at a time, Iterate 16 K rows, AD a 4 M-cell block of the filled
  table (and, once per call, where the missing cells are: 5 bytes each, 2 per cell of the
  table at 40 % missing).  RP keeps
  the cells it blanks (5 bytes each, up to a tenth of the table) and a
  bitmap of the cells it has drawn; SR the rows it has drawn.
* STREAM_BYTES: a streamed size holds a record batch and counts (OP's passes the largest),
  whatever n, the interpreter included.
"""

from __future__ import annotations

import math

HELD_BYTES = 1.5
SETUP_BYTES = 2.5
EXTRA_BYTES = {
    "Iterate+Index": 0.0,
    "Iterate": 0.0,
    "AD": 2.5,
    "Monte-Carlo": 0.0,
    "OP": 0.0,
    "SR (incremental)": 0.05,
    "RP (incremental)": 2.0,
}
FIXED_BYTES = {
    "Iterate+Index": 80 * 10**6,
    "Iterate": 10 * 10**6,
    "AD": 80 * 10**6,
    "Monte-Carlo": 80 * 10**6,
    "OP": 80 * 10**6,
    "SR (incremental)": 80 * 10**6,
    "RP (incremental)": 80 * 10**6,
}
BASE_BYTES = 300 * 10**6  # interpreter, numpy, pandas and small arrays
STREAM_BYTES = 1600 * 10**6
MB = 10**6  # memory is reported in decimal megabytes


def estimate_bytes(n: int, d: int, method: str | None = None) -> int:
    """Estimated peak resident bytes of the setup (method None) or of one method."""
    cells = n * d
    if method is None:
        return int(BASE_BYTES + (HELD_BYTES + SETUP_BYTES) * cells)
    return int(BASE_BYTES + (HELD_BYTES + EXTRA_BYTES[method]) * cells + FIXED_BYTES[method])


def added_bytes(n: int, d: int, method: str) -> int:
    """Estimated bytes one method adds to the held table."""
    return int(EXTRA_BYTES[method] * n * d + FIXED_BYTES[method])


def job_mem_mb(n: int, d: int, streamed: bool = False) -> int:
    """Memory a scaling job needs (MB): the largest of its estimates."""
    if streamed:
        return math.ceil((BASE_BYTES + STREAM_BYTES) / MB)
    return math.ceil(max(estimate_bytes(n, d, m) for m in (None, *EXTRA_BYTES)) / MB)
