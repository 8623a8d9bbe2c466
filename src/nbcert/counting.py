"""Counting the possible worlds that predict each label (paper section 4)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class WorldCounts:
    """Worlds per predicted label for one test point.

    Exact methods fill ``counts`` (label value -> int), ``ties`` and ``total``; they sum
    up.  ``montecarlo`` fills ``fractions``, ``tie_fraction`` and ``intervals`` (label ->
    (low, high) at the requested confidence) and leaves ``counts``/``ties`` None;
    ``total`` is always the exact number of worlds.
    """

    method: str
    total: int
    counts: dict | None = None
    ties: int | None = None
    fractions: dict | None = None
    tie_fraction: float | None = None
    intervals: dict | None = None
    samples: int | None = None
