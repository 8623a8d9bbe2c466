"""A training table given as a path: its statistics batch by batch, or the table in memory.

Certification and counting need only the statistics (``nbcert.stats``): the file is read
in record batches whose partial counts are merged, so memory is bounded by the batch
whatever the number of rows, and a value, a label or an error first met in a late batch
is handled as in an early one (an error names its data row and line; nothing is written
before the whole file has been read).  Methods that need rows read the whole table into
memory, unless it is to be streamed (asked for, or the file is larger than memory allows):
then OP plans from the statistics and names its cells in a second pass over the file
(``nbcert.poisoning.streamed``), and the other row methods say that they need the table in
memory.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from ..errors import InputError
from ..stats import Stats
from ..stats.domains import EncodedTable, positions
from .counts import Merger, partial_counts
from .encoding import check_columns, code_frame, encode
from .files import TableSource
from .streaming import too_big


@dataclass(frozen=True)
class StreamedStats(Stats):
    """Stats of a file that stays on disk, with what a second pass over it needs."""

    source: TableSource | None = None
    label: str = ""
    batch_rows: int | None = None

    def coded_batches(self, columns: list):
        """The file again, batch by batch in file order: (its first data row, its rows' label
        codes in these statistics' order, per feature of ``columns`` (positions in
        ``features``) its rows' global codes in these statistics' domains)."""
        source = self.source
        labels = pd.Index(list(self.labels), dtype=object)
        for start, batch in source.batches(self.batch_rows):
            if not batch.num_rows:
                continue
            y, blabels, features, coded = code_frame(
                batch,
                self.label,
                missing=source.missing,
                name=source.name,
                start=start,
                exact=False,
            )
            lab = labels.get_indexer(pd.Index(list(blabels), dtype=object))[y]
            glob = {}
            for j in columns:
                col = coded[list(features).index(self.features[j])]  # self: maybe a projection
                at = np.append(positions(self.categories[j], col.values), self.delta[j])
                glob[j] = at[col.codes] + self.offsets[j]
            yield start, lab, glob


def _features(source: TableSource, label: str) -> tuple:
    return check_columns(source.columns, label, source.name)


def source_stats(source: TableSource, label: str, batch_rows: int | None = None) -> StreamedStats:
    """The statistics of a file, read batch by batch (memory bounded by the batch)."""
    features = _features(source, label)
    merger = Merger(features=features, name=source.name, label=label)
    parts = source.batches(batch_rows, ints=True)  # each batch a part: its own dictionaries
    for start, batch in parts:
        if batch.num_rows:
            merger.add(
                partial_counts(
                    batch,
                    label,
                    missing=source.missing,
                    name=source.name,
                    start=start,
                    features=features,
                    find_missing=merger.first_missing is None,
                )
            )
    stats = merger.finish()
    kept = {f.name: getattr(stats, f.name) for f in fields(Stats)}
    return StreamedStats(**kept, source=source, label=label, batch_rows=batch_rows)


def train_from_path(
    source: TableSource,
    label: str,
    *,
    rows_for: str | None,
    stream: bool | None,
    batch_rows: int | None,
    second_pass: bool = False,
) -> Stats | EncodedTable:
    """Stats of the file (``rows_for`` None), else the table in memory for the method that
    ``rows_for`` names (the method that needs rows, as messages name it); a table to be
    streamed gives a method that can name its cells in a ``second_pass`` over the file (OP)
    its StreamedStats and the others an error."""
    if rows_for is None:
        return source_stats(source, label, batch_rows)
    streamed = stream if stream is not None else too_big(source)
    if not streamed:
        _features(source, label)
        return encode(source.read(), label, missing=source.missing, name=source.name)
    if second_pass:
        return source_stats(source, label, batch_rows)
    size = f"{source.size / 1e9:.1f} GB" if source.size is not None else ""
    why = (
        "it is streamed as asked"
        if stream
        else (f"the file ({size}) is larger than the memory available allows")
    )
    raise InputError(
        f"{source.name}: {rows_for} needs the training table in memory, but {why} "
        f"(certify with method index, count and poison with method op stream it)"
    )


__all__ = ["StreamedStats", "source_stats", "train_from_path", "InputError"]
