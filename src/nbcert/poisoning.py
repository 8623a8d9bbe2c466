"""Data poisoning for a single test point (paper section 5.1): OP, SR and RP."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Poisoning:
    """Cells to blank so a test point is no longer certifiably robust.

    ``cells`` lists (row position in the training table, column name); it is empty when
    the point is already non-robust, and ``possible`` is False (``cells`` empty) when no
    set of cells can do it.
    """

    possible: bool
    cells: tuple = ()

    @property
    def num_cells(self) -> int | None:
        return len(self.cells) if self.possible else None
