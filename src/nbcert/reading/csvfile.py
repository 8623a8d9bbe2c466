"""CSV files with pyarrow: a byte stream cut into pieces that end with a record, each
parsed into dictionary-encoded columns (``CsvReading``, the CSV half of ``TableSource``).

The file is cut at record ends (a newline outside quotes) into pieces of about
``PIECE_BYTES``, read in one forward pass (a pipe or ``/dev/stdin`` is read once and its
bytes kept for the passes after the first: never read twice), straight into Arrow-owned
buffers.  Each piece is parsed by ``pyarrow.csv.read_csv`` on every core into
dictionary-encoded columns: integer codes with no Python-level pass over cells.  A
threaded read is given no Python object (no row handler, no buffer over Python bytes):
Arrow may release its reader on one of its threads after returning the table, and
releasing a Python object there needs the interpreter's lock, which a thread cannot take
while the interpreter exits (the process then aborts).  A piece with a line of spaces is
parsed again on the calling thread with a handler that skips such lines.  A faulty record
is located by re-reading only its piece on one thread, where pyarrow numbers records; the
lines before the piece are counted as it goes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from ..errors import InputError

NOT_UTF8 = "not a UTF-8 text file (name its encoding: --encoding latin-1; encoding= in Python)"

BLOCK_BYTES = 8 << 20  # bytes per parallel parse block (pyarrow's unit of work)
MAX_LINE_BYTES = 64 << 20
"""The longest line nbcert reads (the header or a record; a quoted field's newlines are
inside its record): a longer one is refused as not a table, so a file of one endless line
(``/dev/zero`` through a pipe, a binary file) cannot take the machine.  Reading holds at most
one line of this size besides its piece."""


class LineTooLong(Exception):
    """A record longer than MAX_LINE_BYTES begins ``offset`` bytes into the stream."""

    def __init__(self, offset: int):
        super().__init__(offset)
        self.offset = offset


def too_long(what: str) -> str:
    """The message for a line longer than MAX_LINE_BYTES (``what``: which line)."""
    n = MAX_LINE_BYTES
    size = f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"
    return f"{what} is longer than {size}, the longest line nbcert reads: not a CSV table"


def pyarrow_csv():
    """(pyarrow, pyarrow.csv), imported when first needed."""
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


def _first_end(b: np.ndarray, lo: int, stop: int) -> int:
    """The position after the first newline outside quotes at or after ``lo`` in
    ``b[:stop]`` (``b`` starts at a record's start), or ``stop + 1`` when there is none."""
    if not _has_quote(b[:stop]):
        width = 1 << 16
        while lo < stop:
            hit = np.flatnonzero(b[lo : min(lo + width, stop)] == 10)
            if hit.size:
                return lo + int(hit[0]) + 1
            lo, width = lo + width, 2 * width
        return stop + 1
    quotes = np.flatnonzero(b[:stop] == 34)
    nl = lo + np.flatnonzero(b[lo:stop] == 10)
    outside = nl[np.searchsorted(quotes, nl) % 2 == 0]
    return int(outside[0]) + 1 if outside.size else stop + 1


def first_record_end(buf, start: int = 0) -> int:
    """The position after the first newline outside quotes at or after ``start`` in
    ``buf`` (bytes or a bytearray, searched in place), or 0 when it has none."""
    pos, quotes = start - 1, 0
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
    pa, _ = pyarrow_csv()
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


def byte_pieces(f, size: int) -> Iterator:
    """Consecutive pieces of the stream ``f``, each ending with a whole record: Arrow
    buffers read straight from the stream (no Python object behind them, no copy on the way
    to the parser but the few bytes of a record cut at a piece's end).  A record longer
    than MAX_LINE_BYTES raises LineTooLong (its offset in the stream)."""
    pa, _ = pyarrow_csv()
    carry, offset = b"", 0
    while True:
        if len(carry) > MAX_LINE_BYTES:
            raise LineTooLong(offset)
        buf = pa.allocate_buffer(len(carry) + size)
        b = np.frombuffer(buf, np.uint8)
        b[: len(carry)] = np.frombuffer(carry, np.uint8)
        end = len(carry) + _read_into(f, b[len(carry) :])
        if end == len(carry):
            if carry:
                yield buf.slice(0, end)
            return
        if carry and end > MAX_LINE_BYTES and _first_end(b, len(carry), end) > MAX_LINE_BYTES:
            raise LineTooLong(offset)  # the record carried over ends beyond the limit
        cut = _record_end(b, end)
        if cut:
            yield buf.slice(0, cut)
        carry, offset = b[cut:end].tobytes(), offset + cut


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


class Reopened:
    """A file decoded on the way in (decompressed, transcoded), opened afresh for every
    pass: nothing of it is kept in memory, so a compressed file larger than memory
    streams.  ``open_`` gives a new stream of its decoded bytes."""

    def __init__(self, open_):
        self._open = open_

    def reader(self):
        return self._open()


class OnePass:
    """A pipe read once: the bytes are kept as they are read, so that later passes can
    re-read them.  A pass reads the pipe only as far as it needs (the header's pass stops
    at the header), so a pipe that is not a table is refused before it fills memory."""

    def __init__(self, f):
        self._f = f
        self._kept: list = []  # the bytes read so far, in order
        self._ended = False

    def reader(self):
        return _Replay(self)

    def _more(self, size: int) -> bytes:
        """The pipe's next bytes (at most ``size``), kept; b"" at its end."""
        if self._ended:
            return b""
        data = self._f.read(size)
        if data:
            self._kept.append(bytes(data))
        else:
            self._ended = True
            self._f.close()
        return data


class _Replay:
    """One pass over a OnePass pipe: its kept bytes, then the pipe's next ones."""

    def __init__(self, pipe: OnePass):
        self._pipe, self._chunk, self._at = pipe, 0, 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def read(self, size: int | None = None) -> bytes:
        want = (1 << 62) if size is None or size < 0 else size
        parts, got = [], 0
        while got < want:
            kept = self._pipe._kept
            step = min(max(want - got, 1 << 16), 64 << 20)  # a read never asks a pipe for more
            if self._chunk == len(kept) and not self._pipe._more(step):
                break
            chunk = kept[self._chunk]
            part = chunk[self._at : self._at + want - got]
            parts.append(part)
            got += len(part)
            self._at += len(part)
            if self._at == len(chunk):
                self._chunk, self._at = self._chunk + 1, 0
        return b"".join(parts)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        memoryview(buffer).cast("B")[: len(data)] = data
        return len(data)


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
            log.append((row.number, row.actual_columns, row.expected_columns, row.text))
        return "error"

    return handle


class CsvReading:
    """The CSV half of ``TableSource``: its pieces parsed, a faulty record located (the
    source gives ``header``, ``columns`` (those read), ``sep``, ``missing``, ``_header``,
    ``_raw`` and ``_fail``)."""

    def _convert(self, dictionary: bool):
        pa, pacsv = pyarrow_csv()
        typ = pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string()
        return pacsv.ConvertOptions(
            include_columns=self.columns,  # the header's, but for those left out
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
        pa, pacsv = pyarrow_csv()
        block = BLOCK_BYTES
        while True:
            try:
                return pacsv.read_csv(
                    piece,
                    read_options=pacsv.ReadOptions(
                        column_names=self.header, use_threads=threads, block_size=block
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
        number, got, expected, text = bad[0]
        spaces = log.index(bad[0])  # lines of spaces skipped before it
        row = rows_before + number - 1 - spaces
        line = lines_before + _line_of_record(piece, number)
        return self._fail(
            f"data row {row} (line {line}) has {got} field{'s' * (got != 1)}, expected {expected}"
            + self._separator_hint(text)
        )

    def _separator_hint(self, record: str) -> str:
        """Where the header and a record of the wrong width both split into the same number
        of fields (more than one) by another separator, the hint to use it: a ``;`` file
        whose header holds a comma (``a;b, c;y``) read with a comma."""
        import csv

        given = self.sep or ","
        header = given.join(self.header)  # as written, but for quotes

        def fields(text: str, sep: str) -> int:
            return len(next(csv.reader([text], delimiter=sep), []))

        for sep in ",;|\t":
            n = fields(header, sep) if sep != given else 0
            if n > 1 and fields(record, sep) == n:
                shown, said = ("tab" if c == "\t" else c for c in (sep, given))
                return (
                    f": the fields look separated by {shown!r}, not {said!r} "
                    f"(use --sep {shown!r}; sep={shown!r} in Python)"
                )
        return ""

    def _csv_pieces(self, dictionary: bool, piece_bytes: int) -> Iterator[tuple]:
        """(first data row, Arrow table) per piece of the CSV file."""
        pa, _ = pyarrow_csv()
        header_bytes, _ = self._header
        rows, offset = 0, header_bytes
        with self._raw() as f:
            f.read(header_bytes)
            pieces = byte_pieces(f, piece_bytes)
            while (piece := self._next_piece(pieces, rows, offset)) is not None:
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

    def _next_piece(self, pieces: Iterator, rows: int, offset: int):
        """The next of ``pieces`` (None after the last); a record longer than
        MAX_LINE_BYTES, after ``rows`` data rows ending at byte ``offset``, is an InputError
        naming its data row and line."""
        try:
            return next(pieces, None)
        except LineTooLong:
            line = self._lines_before(offset) + 1
            raise self._fail(too_long(f"data row {rows} (line {line})")) from None

    def _lines_before(self, offset: int) -> int:
        """Newlines in the file before byte ``offset`` (counted only when an error needs a
        line number, by reading the file again up to there)."""
        lines, left = 0, offset
        with self._raw() as f:
            while left > 0 and (block := f.read(min(left, 8 << 20))):
                lines += block.count(b"\n")
                left -= len(block)
        return lines

    def _csv_error(self, e, piece, rows, lines, dictionary) -> InputError:
        msg = str(e)
        if "UTF8" in msg or "UTF-8" in msg:
            return self._fail(NOT_UTF8)
        if _ragged(e):
            return self._locate(piece, rows, lines, dictionary)
        return self._fail(
            f"cannot parse CSV ({msg.strip().splitlines()[-1] if msg.strip() else msg})"
        )
