"""Parquet files (or a folder of them) with ``pyarrow.parquet`` (``ParquetReading``, the
Parquet half of ``TableSource``): string columns as dictionaries, file by file (a folder's
files in name order), batch by batch.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .buffers import text_column
from .parallel import map_columns

PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")


class ParquetReading:
    """The Parquet half of ``TableSource`` (the source gives ``path``, ``columns`` (those
    read), ``text`` and ``_fail``)."""

    def _parquet_files(self):
        import pyarrow.parquet as pq

        p = os.fspath(self.path)
        files = (
            sorted(str(f) for s in PARQUET_SUFFIXES for f in Path(p).glob("*" + s))
            if os.path.isdir(p)
            else [p]
        )
        try:
            schema = pq.read_schema(files[0])
        except Exception as e:
            raise self._fail(f"cannot read Parquet ({str(e).strip().splitlines()[-1]})") from None
        return files, schema

    def _parquet_batches(
        self, dictionary: bool, batch_rows: int, ints: bool = False
    ) -> Iterator[tuple]:
        import pyarrow.parquet as pq

        files, schema = self._parquet_files()
        strings = [
            c for c, t in zip(schema.names, schema.types) if str(t) in ("string", "large_string")
        ]
        rows = 0
        for path in files:
            try:
                pf = pq.ParquetFile(path, read_dictionary=strings if dictionary else None)
                if pf.schema_arrow.names != schema.names:
                    raise self._fail(
                        f"{path} has columns {pf.schema_arrow.names}, not {schema.names}"
                    )
                size = _group_batch_rows(pf.metadata, batch_rows)
                for batch in pf.iter_batches(batch_size=size, columns=self.columns):
                    batch = self._as_text(batch, dictionary, ints)
                    yield rows, batch
                    rows += batch.num_rows
            except InputError:
                raise
            except Exception as e:
                raise self._fail(
                    f"cannot read Parquet ({str(e).strip().splitlines()[-1]})"
                ) from None
        if rows == 0:
            raise self._fail("the table has no data rows")

    def _as_text(self, batch, dictionary: bool = False, ints: bool = False):
        """With ``text``, every non-string column as the text of its values (an integer
        column left as it is with ``ints``: its counter takes its text from the values)."""
        if not self.text:
            return batch
        import pyarrow as pa

        cols = map_columns(
            lambda col: (
                col if ints and pa.types.is_integer(col.type) else text_column(col, dictionary)
            ),
            batch.columns,
            batch.num_rows,
        )
        return pa.RecordBatch.from_arrays(cols, names=batch.schema.names)


def _group_batch_rows(meta, batch_rows: int) -> int:
    """Rows per record batch of a Parquet file: its row groups cut into equal pieces of
    at most ``batch_rows`` (a batch across two row groups is put together by copying: a
    quarter more time to read 10^7 rows in groups of 10^6 by batches of 2^20), or
    ``batch_rows`` where the groups are less than half that (several to a batch)."""
    r = max((meta.row_group(i).num_rows for i in range(meta.num_row_groups)), default=0)
    if r < batch_rows // 2:
        return batch_rows
    return -(-r // -(-r // batch_rows))  # ceil(r / ceil(r / batch_rows))


def folder_size(p: str) -> int:
    return sum(f.stat().st_size for s in PARQUET_SUFFIXES for f in Path(p).glob("*" + s))
