"""Columns of a long table worked on side by side.

Coding and counting a column is a few passes of numpy or Arrow compute over its cells,
and both release the GIL while they pass over a long array, so the columns of a big
part of a table are handed to a small pool of threads and come back in their order: the
same results as a loop, sooner.  The pool has as many threads as Arrow's own (its CPU
count: the cores, or ``OMP_NUM_THREADS`` where that is set, as Snakemake sets it to a
job's ``threads``), at most ``MAX_THREADS``.  A short table, or a single thread, is
worked on in a loop: no thread is started for it, so a small command never creates the
pool.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

PARALLEL_ROWS = 1 << 17  # a part with fewer rows is worked on in a loop
MAX_THREADS = 4


@functools.cache
def threads() -> int:
    """The pool's size: Arrow's CPU count, at most MAX_THREADS."""
    import pyarrow as pa

    return max(1, min(MAX_THREADS, pa.cpu_count()))


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """The shared pool (its threads are joined when the interpreter exits)."""
    return ThreadPoolExecutor(max_workers=threads(), thread_name_prefix="nbcert-columns")


def map_columns(fn: Callable, columns: Sequence, rows: int) -> list:
    """[fn(c) for c in columns], on the pool when ``rows`` (the columns' length) is at least
    PARALLEL_ROWS and there is more than one column and thread."""
    if rows < PARALLEL_ROWS or len(columns) < 2 or threads() < 2:
        return [fn(c) for c in columns]
    return list(_pool().map(fn, columns))
