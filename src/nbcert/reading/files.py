"""Reading tables with pyarrow: CSV and Parquet files (or a folder of Parquet files),
whole or in record batches.  This is nbcert's one reader of files.

CSV rules: the first non-blank record is the header; every value is the text written in
the file: only an empty field and the ``missing`` tokens mean missing, so ``NA`` or ``007``
stay categories; blank lines (also lines of spaces only) are skipped.  A header with an
empty or repeated name, a record with too few or too many fields (named by its data row
and line), an empty file, a file with no data rows and a file that is not UTF-8 are
errors naming the file.  Fields are separated by ``sep`` (default a comma); a header
that is one field holding ``;``, ``|`` or a tab, read without ``sep``, is an error naming
the file and that separator.

How: the file is cut at record ends (a newline outside quotes) into pieces of about
``PIECE_BYTES``, read in one forward pass (a pipe or ``/dev/stdin`` is read once and its
bytes kept for the passes after the first: never read twice), straight into Arrow-owned
buffers.  Each piece is parsed by ``pyarrow.csv.read_csv`` on every core into
dictionary-encoded columns: integer codes with no Python-level pass over cells.  A
threaded read is given no Python object (no row handler, no buffer over Python bytes):
Arrow may release its reader on one of its threads after returning the table, and
releasing a Python object there needs the interpreter's lock, which a thread cannot take
while the interpreter exits (the process then aborts).  A piece with a line of spaces is
parsed again on the calling thread with a handler that skips such lines.  The table in memory is the pieces'
concatenation; streaming hands on each piece's record batches and lets it go, so memory
is bounded by the piece.  A faulty record is located by re-reading only its piece on one
thread, where pyarrow numbers records; the lines before the piece are counted as it goes.
Parquet is read by ``pyarrow.parquet`` with string columns as dictionaries, file by file
(a folder's files in name order), batch by batch.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from .buffers import text_column
from .parallel import map_columns

PIECE_BYTES = 64 << 20  # bytes of file per piece
BLOCK_BYTES = 8 << 20  # bytes per parallel parse block (pyarrow's unit of work)
PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
PARQUET_BATCH_ROWS = 1 << 20
_BOM = b"\xef\xbb\xbf"


def _pa():
    import pyarrow as pa
    import pyarrow.csv as pacsv

    return pa, pacsv


# ---------------------------------------------------------------------------------------
# cutting a byte stream into pieces that end with a record


def _last_newline(b: np.ndarray, stop: int) -> int:
    """The position of the last newline before ``stop`` (-1: none), searched from the end."""
    hi, width = stop, 1 << 16
    while hi > 0:
        lo = max(0, hi - width)
        hit = np.flatnonzero(b[lo:hi] == 10)
        if hit.size:
            return lo + int(hit[-1])
        hi, width = lo, 2 * width
    return -1


def _has_quote(b: np.ndarray) -> bool:
    """Whether the bytes hold a double quote (a byte search over them in place, as
    memchr: many times faster than comparing every byte)."""
    strings = getattr(np, "strings", np.char)
    return bool(b.size) and int(strings.find(b.view(f"S{b.size}"), b'"')[0]) >= 0


def _record_end(b: np.ndarray, stop: int) -> int:
    """The position after the last newline before ``stop`` outside quotes, or 0 (``b``: the
    bytes as uint8, starting at a record's start)."""
    pos = _last_newline(b, stop)
    if pos < 0 or not _has_quote(b[:pos]):
        return pos + 1
    quotes = np.flatnonzero(b[:pos] == 34)
    nl = np.flatnonzero(b[: pos + 1] == 10)
    outside = nl[np.searchsorted(quotes, nl) % 2 == 0]  # newlines after an even number of quotes
    return int(outside[-1]) + 1 if outside.size else 0


def _first_record_end(buf: bytes) -> int:
    """The position after the first record's newline outside quotes (0: none in buf)."""
    pos, quotes = -1, 0
    while True:
        nxt = buf.find(b"\n", pos + 1)
        if nxt < 0:
            return 0
        quotes += buf.count(b'"', pos + 1, nxt)
        pos = nxt
        if quotes % 2 == 0:
            return pos + 1


_TEXT = re.compile(rb"\S")


def arrow_bytes(data):
    """An Arrow-owned copy of bytes (a Python buffer handed to a threaded Arrow reader
    would be released on one of Arrow's threads, which needs the interpreter's lock)."""
    pa, _ = _pa()
    buf = pa.allocate_buffer(len(data))
    np.frombuffer(buf, np.uint8)[:] = np.frombuffer(data, np.uint8)
    return buf


def _read_into(f, out: np.ndarray) -> int:
    """Fill ``out`` from the stream ``f``; the number of bytes read (short only at its end)."""
    view, got = memoryview(out), 0
    while got < len(out):
        n = f.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def _byte_pieces(f, size: int) -> Iterator:
    """Consecutive pieces of the stream ``f``, each ending with a whole record: Arrow
    buffers read straight from the stream (no Python object behind them, no copy on the way
    to the parser but the few bytes of a record cut at a piece's end)."""
    pa, _ = _pa()
    carry = b""
    while True:
        buf = pa.allocate_buffer(len(carry) + size)
        b = np.frombuffer(buf, np.uint8)
        b[: len(carry)] = np.frombuffer(carry, np.uint8)
        end = len(carry) + _read_into(f, b[len(carry) :])
        if end == len(carry):
            if carry:
                yield buf.slice(0, end)
            return
        cut = _record_end(b, end)
        if cut:
            yield buf.slice(0, cut)
        carry = b[cut:end].tobytes()


def _line_of_record(piece: bytes, number: int) -> int:
    """The 1-based physical line (within the piece) where its ``number``-th non-blank
    record starts, counting newlines inside quoted fields as pyarrow and editors do."""
    b = np.frombuffer(piece, np.uint8)
    nl = np.flatnonzero(b == 10)
    quotes = np.flatnonzero(b == 34)
    outside = np.searchsorted(quotes, nl) % 2 == 0
    starts = np.concatenate([[0], nl[outside] + 1])
    starts = starts[starts < len(b)]
    first = b[starts]
    second = b[np.minimum(starts + 1, len(b) - 1)]
    blank = (first == 10) | ((first == 13) & (second == 10))
    record = starts[~blank][number - 1]
    return int(np.searchsorted(nl, record)) + 1


# ---------------------------------------------------------------------------------------
# the CSV reader


def _ragged(e: Exception) -> bool:
    """Whether pyarrow's parse error is about a record's number of fields."""
    return "Expected" in str(e) and "columns" in str(e)


def _handler(log: list | None):
    """pyarrow's invalid-row handler: skip lines of spaces only, stop at any other bad row
    (noting its record number and field count in ``log`` when given)."""

    def handle(row):
        if row.actual_columns == 1 and not row.text.strip():
            if log is not None:
                log.append(None)
            return "skip"
        if log is not None:
            log.append((row.number, row.actual_columns, row.expected_columns))
        return "error"

    return handle


class TableSource:
    """A CSV or Parquet table on disk (or a CSV stream), checked at opening: its file can
    be read and its header names are non-empty and distinct.

    ``missing`` tokens mean missing like an empty field; ``text`` reads every value as
    text (Parquet values that are not strings are turned into their text, as the CLI
    compares them with a CSV test file).
    """

    def __init__(
        self,
        path,
        missing: Sequence[str] | None = None,
        name: str | None = None,
        text: bool = False,
        sep: str | None = None,
    ):
        self.path = path
        self.sep = sep
        self.name = name or str(path)
        self.missing = [str(t) for t in (missing or [])]
        self.text = text
        self.kind, self.size, self._stream = self._open()
        self._header = None
        self.columns = self._read_header()
        self._check_header()

    # -- opening

    def _fail(self, what: str) -> InputError:
        return InputError(f"{self.name}: {what}")

    def _open(self):
        p = os.fspath(self.path)
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise self._fail("no such file") from None
        except OSError as e:
            raise self._fail(f"cannot read the file ({e.strerror or e})") from None
        if stat.S_ISDIR(st.st_mode):
            if any(Path(p).glob("*" + s) for s in PARQUET_SUFFIXES):
                return "parquet", _folder_size(p), None
            raise self._fail("is a directory, not a CSV file")
        if p.lower().endswith(PARQUET_SUFFIXES):
            return "parquet", st.st_size, None
        regular = stat.S_ISREG(st.st_mode)
        try:
            f = open(p, "rb")
        except OSError as e:
            raise self._fail(f"cannot read the file ({e.strerror or e})") from None
        # A pipe or terminal is read once: its pieces are kept for the passes after the first.
        return "csv", st.st_size if regular else None, None if regular else _OnePass(f)

    def _raw(self):
        """A fresh binary stream of the CSV file (a pipe: its buffered copy)."""
        if self._stream is not None:
            return self._stream.reader()
        try:
            return open(os.fspath(self.path), "rb")
        except OSError as e:
            raise self._fail(f"cannot read the file ({e.strerror or e})") from None

    def _read_header(self) -> list:
        if self.kind == "parquet":
            return list(self._parquet_files()[1].names)
        with self._raw() as f:
            head = f.read(1 << 20)
            while True:
                bom = len(_BOM) if head.startswith(_BOM) else 0
                start = len(head) - len(head[bom:].lstrip(b"\r\n"))  # blank lines before the header
                end = _first_record_end(head[start:])
                if end or not (more := f.read(1 << 20)):
                    break
                head += more
        body = head[start : start + end] if end else head[start:]
        self._header = (start + len(body), head[: start + len(body)].count(b"\n"))
        text = body.removeprefix(_BOM).strip(b"\r\n")
        if not text.strip():
            raise self._fail("the file is empty")
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail("not a UTF-8 text file") from None
        pa, pacsv = _pa()
        table = pacsv.read_csv(
            arrow_bytes(text + b"\n"),
            read_options=pacsv.ReadOptions(use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=self.sep or ","),
        )
        return list(table.column_names)

    def _check_header(self):
        if "" in self.columns:
            raise self._fail(f"column {self.columns.index('') + 1} of the header has no name")
        dup = next((h for i, h in enumerate(self.columns) if h in self.columns[:i]), None)
        if dup is not None:
            raise self._fail(f"duplicate column {dup!r} in the header")
        likely = [c for c in ";|\t" if len(self.columns) == 1 and c in self.columns[0]]
        if likely and self.sep is None:
            shown = "tab" if likely[0] == "\t" else likely[0]
            raise self._fail(
                f"the header is one column {self.columns[0]!r}: the fields look separated by "
                f"{shown!r}, not commas (use --sep {shown!r}; sep={shown!r} in Python)"
            )

    # -- CSV

    def _convert(self, dictionary: bool):
        pa, pacsv = _pa()
        typ = pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string()
        return pacsv.ConvertOptions(
            column_types={c: typ for c in self.columns},
            null_values=[""] + self.missing,
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        )

    def _parse(self, piece, dictionary: bool, threads: bool = True, log: list | None = None):
        """The Arrow table of a piece (an Arrow buffer).  A threaded read holds no Python
        object (no row handler): its reader may be released on an Arrow thread after the
        table is returned, even while the interpreter exits.  A piece with a record of the
        wrong width (or a line of spaces) is parsed again on this thread with the handler."""
        pa, pacsv = _pa()
        block = BLOCK_BYTES
        while True:
            try:
                return pacsv.read_csv(
                    piece,
                    read_options=pacsv.ReadOptions(
                        column_names=self.columns, use_threads=threads, block_size=block
                    ),
                    parse_options=pacsv.ParseOptions(
                        delimiter=self.sep or ",",
                        invalid_row_handler=None if threads else _handler(log),
                    ),
                    convert_options=self._convert(dictionary),
                )
            except pa.ArrowInvalid as e:
                if "straddling" in str(e) and block < piece.size:  # a record longer than a block
                    block = min(4 * block, piece.size + 1)
                    continue
                if threads and _ragged(e):
                    return self._parse(piece, dictionary, threads=False, log=log)
                raise

    def _locate(self, piece, rows_before: int, lines_before: int, dictionary: bool) -> InputError:
        """The message for the first bad record of a piece, found on one thread."""
        log: list = []
        try:
            self._parse(piece, dictionary, threads=False, log=log)
        except Exception:
            pass
        bad = [x for x in log if x is not None]
        if not bad:
            return self._fail("cannot parse CSV")
        number, got, expected = bad[0]
        spaces = log.index(bad[0])  # lines of spaces skipped before it
        row = rows_before + number - 1 - spaces
        line = lines_before + _line_of_record(piece, number)
        return self._fail(
            f"data row {row} (line {line}) has {got} field{'s' * (got != 1)}, expected {expected}"
        )

    def _csv_pieces(self, dictionary: bool, piece_bytes: int) -> Iterator[tuple]:
        """(first data row, Arrow table) per piece of the CSV file."""
        pa, _ = _pa()
        header_bytes, _ = self._header
        rows, offset = 0, header_bytes
        with self._raw() as f:
            f.read(header_bytes)
            for piece in _byte_pieces(f, piece_bytes):
                if _TEXT.search(piece):  # stops at the first non-space byte: no copy of the piece
                    try:
                        table = self._parse(piece, dictionary)
                    except pa.ArrowInvalid as e:
                        raise self._csv_error(
                            e, piece, rows, self._lines_before(offset), dictionary
                        ) from None
                    yield rows, table
                    rows += table.num_rows
                offset += piece.size
        if rows == 0:
            raise self._fail("the table has no data rows")

    def _lines_before(self, offset: int) -> int:
        """Newlines in the file before byte ``offset`` (counted only when an error needs a
        line number, by reading the file again up to there)."""
        lines, left = 0, offset
        with self._raw() as f:
            while left > 0 and (block := f.read(min(left, 64 << 20))):
                lines += block.count(b"\n")
                left -= len(block)
        return lines

    def _csv_error(self, e, piece, rows, lines, dictionary) -> InputError:
        msg = str(e)
        if "UTF8" in msg or "UTF-8" in msg:
            return self._fail("not a UTF-8 text file")
        if _ragged(e):
            return self._locate(piece, rows, lines, dictionary)
        return self._fail(
            f"cannot parse CSV ({msg.strip().splitlines()[-1] if msg.strip() else msg})"
        )

    # -- Parquet

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
                for batch in pf.iter_batches(batch_size=_group_batch_rows(pf.metadata, batch_rows)):
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
        pa, _ = _pa()
        cols = map_columns(
            lambda col: (
                col if ints and pa.types.is_integer(col.type) else text_column(col, dictionary)
            ),
            batch.columns,
            batch.num_rows,
        )
        return pa.RecordBatch.from_arrays(cols, names=batch.schema.names)

    # -- public

    def tables(
        self, dictionary: bool = True, piece_bytes: int | None = None, ints: bool = False
    ) -> Iterator[tuple]:
        """(first data row, Arrow table or record batch) of consecutive parts of the file
        (CSV: pieces of about ``piece_bytes``, default PIECE_BYTES); with ``ints``, a
        Parquet integer column is left as integers rather than made text."""
        if self.kind == "parquet":
            return self._parquet_batches(dictionary, PARQUET_BATCH_ROWS, ints)
        return self._csv_pieces(dictionary, piece_bytes or PIECE_BYTES)

    def batches(
        self, batch_rows: int | None = None, piece_bytes: int | None = None, ints: bool = False
    ) -> Iterator[tuple]:
        """(first data row, record batch) of at most ``batch_rows`` rows each, in file order
        (``ints``: see ``tables``)."""
        pa, _ = _pa()
        for start, part in self.tables(True, piece_bytes, ints):
            for batch in part.to_batches() if isinstance(part, pa.Table) else [part]:
                step = batch_rows or batch.num_rows or 1
                for a in range(0, batch.num_rows, step):
                    yield start + a, batch.slice(a, step)
                start += batch.num_rows

    def read(self, dictionary: bool = True):
        """The whole table in memory (an Arrow table)."""
        pa, _ = _pa()
        parts = [t for _, t in self.tables(dictionary)]
        if self.kind == "parquet":
            parts = [pa.Table.from_batches([b]) for b in parts]
        return pa.concat_tables(parts)

    def to_pandas(self):
        """The table as a pandas DataFrame of strings (missing cells NaN/None)."""
        return self.read(dictionary=False).to_pandas()


def _group_batch_rows(meta, batch_rows: int) -> int:
    """Rows per record batch of a Parquet file: its row groups cut into equal pieces of
    at most ``batch_rows`` (a batch across two row groups is put together by copying: a
    quarter more time to read 10^7 rows in groups of 10^6 by batches of 2^20), or
    ``batch_rows`` where the groups are less than half that (several to a batch)."""
    r = max((meta.row_group(i).num_rows for i in range(meta.num_row_groups)), default=0)
    if r < batch_rows // 2:
        return batch_rows
    return -(-r // -(-r // batch_rows))  # ceil(r / ceil(r / batch_rows))


class _OnePass:
    """A pipe read once: the bytes are kept so that later passes can re-read them."""

    def __init__(self, f):
        self._f = f
        self._data = None

    def reader(self):
        import io

        if self._data is None:
            with self._f:
                self._data = self._f.read()
        return io.BytesIO(self._data)


def _folder_size(p: str) -> int:
    return sum(f.stat().st_size for s in PARQUET_SUFFIXES for f in Path(p).glob("*" + s))


def read_csv(
    path, missing: Sequence[str] | None = None, name: str | None = None, sep: str | None = None
):
    """Read a CSV (or Parquet) file keeping every value as the string written in it.

    Only an empty field (and the given ``missing`` tokens) means missing, so values such
    as ``NA`` or ``null`` stay ordinary categories; ``sep`` separates the fields (default ",").  A malformed file is an InputError
    naming the file, and the row and line where that applies.  Returns a pandas DataFrame.
    """
    return TableSource(path, missing, name, text=True, sep=sep).to_pandas()
