"""Whether a file's table fits in memory: the memory available now and what a table in
memory costs per byte of file (``nbcert.reading.streamed`` decides by it whether to stream).
"""

from __future__ import annotations

from ..memory import mem_available
from .files import TableSource

MEMORY_PER_FILE_BYTE = 3  # an in-memory CSV table holds about this many bytes per byte of file


def too_big(source: TableSource) -> bool:
    """Whether the file's table would not fit in the memory available now."""
    avail = mem_available()
    return (
        source.size is not None
        and avail is not None
        and source.size * MEMORY_PER_FILE_BYTE > 0.8 * avail
    )


__all__ = ["MEMORY_PER_FILE_BYTE", "too_big"]
