"""What exact counting holds at once, sized from the counts before anything is built.

Exact counting (``exact``, ``batch``) keeps, per label, its distinct supports (an int64
key each) and their numbers of ways (Python integers, as large as the label's fillings:
on a 20,000-row table with 5 % blanks about 8,000 bits, 1 KB each), their running sums
and their exact ranks; then one product per support of all labels' ways.  So its memory
is about the number of supports times the size of those integers, which the counts give
before any distribution is built: ``exact_bytes`` (the supports' number from
``nbcert.count.states.support_counts``) and ``batch_bytes``.  Past ``MEMORY_BYTES`` the
count refuses (``TooLarge``: under ``auto`` the bounds answer, else one line naming the
ways on), so a count stays within a few hundred MB of its process's size; the
products of one more feature are formed ``chunk_rows`` at a time, within ``CHUNK_BYTES``.
"""

from __future__ import annotations

import math

import numpy as np

from .points import Point, TooLarge, fillings

MEMORY_BYTES = 1 << 30  # the most exact counting may hold at once (estimated)
CHUNK_BYTES = 32 << 20  # the products of one more feature formed at a time
_KEYED = 8 * 7  # bytes per support besides its ways: keys, ranks, their sorting and pointers


def int_bytes(bits: float) -> int:
    """The bytes of a Python integer of ``bits`` bits (30-bit digits and a header)."""
    return 28 + 4 * (int(bits) // 30 + 1)


def label_bits(pt: Point, delta: np.ndarray) -> list:
    """Per label, log2 of the number of fillings of its missing cells: the largest number
    of ways one of its supports can have."""
    m, d = pt.E.shape
    if pt.ways is None:
        return (pt.M * np.log2(np.maximum(delta, 1))).sum(axis=1).tolist()
    return [sum(math.log2(max(fillings(pt, delta, l, j), 1)) for j in range(d)) for l in range(m)]


def exact_bytes(states: list, bits: list) -> int:
    """Bytes the per-label method holds at once: per label its supports' keys, ways,
    running sums and ranks, and the products of every label's ways for the label counted
    last (two alive at a time)."""
    held = sum(s * (_KEYED + 2 * int_bytes(b)) for s, b in zip(states, bits))
    return held + 2 * max(states) * (8 + int_bytes(sum(bits))) + 2 * CHUNK_BYTES


def batch_bytes(size: int, m: int, bits: list) -> int:
    """Bytes Algorithm 2 holds at once: ``size`` joint states, each with m ranks and
    indices and the product of every label's ways."""
    return size * (16 * m + 2 * int_bytes(sum(bits))) + 2 * CHUNK_BYTES


def chunk_rows(bits: float) -> int:
    """How many products of ways of ``bits`` bits fit in ``CHUNK_BYTES``."""
    return max(1, CHUNK_BYTES // (24 + int_bytes(bits)))


def check(need: int, what: str) -> None:
    """Raise TooLarge when ``need`` bytes pass ``MEMORY_BYTES`` (``what``: what they hold)."""
    if need > MEMORY_BYTES:
        raise TooLarge(
            f"about {need / 2**30:.1f} GB for {what}, more than the "
            f"{MEMORY_BYTES / 2**30:g} GB exact counting may hold"
        )


__all__ = [
    "MEMORY_BYTES",
    "CHUNK_BYTES",
    "int_bytes",
    "label_bits",
    "exact_bytes",
    "batch_bytes",
    "chunk_rows",
    "check",
]
