"""Reading tables with pyarrow: CSV and Parquet files (or a folder of Parquet files),
whole or in record batches.  This is nbcert's one reader of files.

CSV rules: the first non-blank record is the header; every value is the text written in
the file: only an empty field and the ``missing`` tokens mean missing, so ``NA`` or ``007``
stay categories (once coded, a column whose values all read as numbers is compared by
value: ``nbcert.reading.columns``); blank lines (also lines of spaces only) are skipped.  A header with an
empty or repeated name, a record with too few or too many fields (named by its data row
and line), an empty file, a file with no data rows and a file that is not UTF-8 are
errors naming the file.  Fields are separated by ``sep`` (default a comma); a header
that is one field holding ``;``, ``|`` or a tab, read without ``sep``, is an error naming
the file and that separator.

The CSV half is ``csvfile`` (the file read in pieces of about ``PIECE_BYTES``, parsed on
every core; the table in memory is the pieces' concatenation, streaming hands on each
piece's record batches and lets it go, so memory is bounded by the piece); the Parquet
half is ``parquetfile``.
"""

from __future__ import annotations

import copy
import functools
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..errors import InputError
from . import decimals
from .csvfile import (
    MAX_LINE_BYTES,
    NOT_UTF8,
    CsvReading,
    OnePass,
    Reopened,
    arrow_bytes,
    first_record_end,
    pyarrow_csv,
    too_long,
)
from .parquetfile import PARQUET_SUFFIXES, ParquetReading, folder_size

PIECE_BYTES = 64 << 20  # bytes of file per piece
STDIN = "-"  # the path that means standard input
# file name endings -> the codec pyarrow decompresses them with
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4", ".br": "brotli"}
PARQUET_BATCH_ROWS = 1 << 20
_BOM = b"\xef\xbb\xbf"
NOT_TEXT = (
    "its first line holds NUL bytes: not a text table (a binary file? UTF-16 text: name "
    "its encoding, --encoding utf-16; encoding= in Python)"
)
_BLANK_LINES = re.compile(rb"[\r\n]*")
_DEVICES = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _not_a_file(mode: int) -> str | None:
    """What a file of this mode is when it is neither a regular file, a folder, a pipe nor
    a socket (a device: ``/dev/zero`` would be read forever), else None."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return None
    return next((kind for test, kind in _DEVICES if test(mode)), "a special file")


class TableSource(CsvReading, ParquetReading):
    """A CSV or Parquet table on disk (or a CSV stream), checked at opening: its file can
    be read and its header names are non-empty and distinct.

    ``missing`` tokens mean missing like an empty field; ``text`` reads every value as
    text (Parquet values that are not strings are turned into their text, as the CLI
    compares them with a CSV test file); ``decimal`` (``","``) reads a number written with
    that decimal mark as the number (``nbcert.reading.decimals``).

    Examples
    --------
    >>> import nbcert
    >>> with open("train.csv", "w") as f:
    ...     _ = f.write("color,size,y\\nred,S,a\\n,L,b\\n")
    >>> source = nbcert.TableSource("train.csv")
    >>> source.columns, source.format
    (['color', 'size', 'y'], 'csv')
    >>> nbcert.certify(source, nbcert.read_csv("train.csv").drop(columns="y"), "y")["robust"].tolist()
    [True, True]
    """

    def __init__(
        self,
        path,
        missing: Sequence[str] | None = None,
        name: str | None = None,
        text: bool = False,
        sep: str | None = None,
        encoding: str | None = None,
        decimal: str | None = None,
    ):
        self.path = path
        self.sep, self.encoding, self.decimal = sep, encoding, decimal
        self.name = name or ("standard input" if str(path) == STDIN else str(path))
        self.missing = [str(t) for t in (missing or [])]
        self.text = text
        self.format, self.size, self._stream = self._open()
        self._header = None
        self.header = self._read_header()  # every column of the file
        self.columns = list(self.header)  # those read: all but the ones left out (``without``)
        self._check_header()

    # -- opening

    def _fail(self, what: str) -> InputError:
        return InputError(f"{self.name}: {what}")

    def _refuse_device(self, mode: int) -> None:
        kind = _not_a_file(mode)
        if kind is not None:
            raise self._fail(f"is {kind}, not a file or a pipe: nbcert reads tables from files")

    def _open(self):
        p = os.fspath(self.path)
        if p == STDIN:  # read once, its bytes kept for the passes after the first
            stdin = sys.stdin.buffer
            if not stdin.isatty():  # a terminal may type a table; /dev/zero may not
                self._refuse_device(os.fstat(stdin.fileno()).st_mode)
            return "csv", None, OnePass(self._decoded(stdin))
        try:
            st = os.stat(p)
        except FileNotFoundError:
            raise self._fail("no such file") from None
        except OSError as e:
            raise self._fail(f"cannot read the file ({e.strerror or e})") from None
        self._refuse_device(st.st_mode)
        if stat.S_ISDIR(st.st_mode):
            if any(any(Path(p).glob("*" + s)) for s in PARQUET_SUFFIXES):
                return "parquet", folder_size(p), None
            raise self._fail(
                "is a directory without Parquet files (.parquet, .parq, .pq), not a table"
            )
        if p.lower().endswith(PARQUET_SUFFIXES):
            return "parquet", st.st_size, None
        regular = stat.S_ISREG(st.st_mode)
        try:
            f = open(p, "rb")
        except OSError as e:
            raise self._fail(f"cannot read the file ({e.strerror or e})") from None
        codec = _compression(p)
        if codec or self.encoding not in (None, "utf-8"):
            f.close()  # opened only to say here whether it can be read
            if regular:  # decoded afresh on every pass, never held whole
                return "csv", None, Reopened(functools.partial(self._decoded, p, codec))
            return "csv", None, OnePass(self._decoded(p, codec))
        # A pipe or terminal is read once: its pieces are kept for the passes after the first.
        return "csv", st.st_size if regular else None, None if regular else OnePass(f)

    def _decoded(self, source, compression: str | None = None):
        """A file's path (or standard input) as a stream of UTF-8 bytes:
        decompressed (``compression``: a codec pyarrow reads) and transcoded from
        ``encoding``; opened again for every pass (``Reopened``), or for standard input and
        pipes read once, in memory, by ``OnePass``."""
        pa, _ = pyarrow_csv()
        stream = pa.input_stream(source, compression=compression)
        if self.encoding not in (None, "utf-8"):
            stream = pa.transcoding_input_stream(stream, self.encoding, "utf-8")
        return _Checked(stream, self._fail)

    def _raw(self):
        """A fresh binary stream of the CSV file (a pipe: its buffered copy)."""
        if self._stream is not None:
            return self._stream.reader()
        try:
            return open(os.fspath(self.path), "rb")
        except OSError as e:
            raise self._fail(f"cannot read the file ({e.strerror or e})") from None

    def _read_header(self) -> list:
        if self.format == "parquet":
            return list(self._parquet_files()[1].names)
        with self._raw() as f:
            head, start, end = bytearray(), 0, 0
            while not end:  # reads doubling in size, searched in place: a few passes
                room = MAX_LINE_BYTES + 1 - (len(head) - start)
                more = f.read(min(max(1 << 20, len(head)), room))
                head += more
                bom = len(_BOM) if head.startswith(_BOM) else 0
                start = _BLANK_LINES.match(head, bom).end()  # blank lines before the header
                end = first_record_end(head, start)
                stop = end or len(head)
                if head.find(b"\0", start, stop) >= 0:
                    raise self._fail(NOT_TEXT)
                if stop - start > MAX_LINE_BYTES:
                    raise self._fail(too_long("the first line (the header)"))
                if start > MAX_LINE_BYTES:
                    raise self._fail(too_long("the run of blank lines before the header"))
                if not more:
                    break
            stop = end or len(head)
        self._header = (stop, head.count(b"\n", 0, stop))
        body = bytes(head[start:stop])
        del head
        text = body.strip(b"\r\n")
        if not text.strip():
            raise self._fail("the file is empty")
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            raise self._fail(NOT_UTF8) from None
        pa, pacsv = pyarrow_csv()
        table = pacsv.read_csv(
            arrow_bytes(text + b"\n"),
            read_options=pacsv.ReadOptions(
                use_threads=False, block_size=max(1 << 20, len(text) + 2)
            ),
            parse_options=pacsv.ParseOptions(delimiter=self.sep or ","),
        )
        return list(table.column_names)

    def _check_header(self):
        if "" in self.columns:
            raise self._fail(f"column {self.columns.index('') + 1} of the header has no name")
        dup = next((h for i, h in enumerate(self.columns) if h in self.columns[:i]), None)
        if dup is not None:
            raise self._fail(f"duplicate column {dup!r} in the header")
        given = self.sep or ","
        likely = [c for c in ",;|\t" if len(self.columns) == 1 and c in self.columns[0]]
        likely = [c for c in likely if c != given]
        if likely:
            said, shown = _shown(given), _shown(likely[0])
            raise self._fail(
                f"the header is one column {self.columns[0]!r}: the fields look separated by "
                f"{shown!r}, not {said!r} (use --sep {shown!r}; sep={shown!r} in Python)"
            )

    # -- public

    def without(self, columns) -> TableSource:
        """This table with ``columns`` left out: never read (a CSV's fields are skipped, a
        Parquet file's columns not loaded); a name that is not a column is an InputError.

        Examples
        --------
        >>> import nbcert
        >>> with open("train.csv", "w") as f:
        ...     _ = f.write("name,color,y\\nAx,red,a\\nBo,,b\\n")
        >>> nbcert.TableSource("train.csv").without(["name"]).to_pandas().columns.tolist()
        ['color', 'y']
        """
        absent = [c for c in columns if c not in self.columns]
        if absent:
            raise self._fail(
                f"no column {absent[0]!r} to drop (columns: {', '.join(map(repr, self.columns))})"
            )
        out = copy.copy(self)
        out.columns = [c for c in self.columns if c not in set(columns)]
        return out

    def tables(
        self, dictionary: bool = True, piece_bytes: int | None = None, ints: bool = False
    ) -> Iterator[tuple]:
        """(first data row, Arrow table or record batch) of consecutive parts of the file
        (CSV: pieces of about ``piece_bytes``, default PIECE_BYTES); with ``ints``, a
        Parquet integer column is left as integers rather than made text."""
        if self.format == "parquet":
            parts = self._parquet_batches(dictionary, PARQUET_BATCH_ROWS, ints)
        else:
            parts = self._csv_pieces(dictionary, piece_bytes or PIECE_BYTES)
        if self.decimal in (None, "."):
            return parts
        return ((start, decimals.arrow(part, self.decimal)) for start, part in parts)

    def batches(
        self, batch_rows: int | None = None, piece_bytes: int | None = None, ints: bool = False
    ) -> Iterator[tuple]:
        """(first data row, record batch) of at most ``batch_rows`` rows each, in file order
        (``ints``: see ``tables``)."""
        pa, _ = pyarrow_csv()
        for start, part in self.tables(True, piece_bytes, ints):
            for batch in part.to_batches() if isinstance(part, pa.Table) else [part]:
                step = batch_rows or batch.num_rows or 1
                for a in range(0, batch.num_rows, step):
                    yield start + a, batch.slice(a, step)
                start += batch.num_rows

    def read(self, dictionary: bool = True):
        """The whole table in memory (an Arrow table)."""
        pa, _ = pyarrow_csv()
        parts = [t for _, t in self.tables(dictionary)]
        if self.format == "parquet":
            parts = [pa.Table.from_batches([b]) for b in parts]
        return pa.concat_tables(parts)

    def to_pandas(self):
        """The table as a pandas DataFrame of strings (missing cells NaN/None)."""
        return self.read(dictionary=False).to_pandas()


def _shown(sep: str) -> str:
    """A separator as a user types it (a tab as ``tab``)."""
    return "tab" if sep == "\t" else sep


def _compression(path: str) -> str | None:
    """The codec a file name's ending asks for (``.csv.gz``: gzip), or None."""
    return next((c for end, c in COMPRESSIONS.items() if path.lower().endswith(end)), None)


class _Checked:
    """A decoded stream whose read errors (a corrupt archive, bytes the encoding does not
    have) become one InputError naming the file."""

    def __init__(self, stream, fail):
        self._stream, self._fail = stream, fail

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._stream.close()

    def close(self):
        self._stream.close()

    def read(self, size: int | None = None):
        return self._checked(self._stream.read, size)

    def readinto(self, buffer) -> int:
        return self._checked(self._stream.readinto, buffer)

    def _checked(self, call, *args):
        try:
            return call(*args)
        except (OSError, ValueError) as e:
            raise self._fail(f"cannot decode the file ({' '.join(str(e).split())})") from None


def read_csv(
    path,
    missing: Sequence[str] | None = None,
    name: str | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    decimal: str | None = None,
):
    """Read a CSV (or Parquet) file keeping every value as the string written in it.

    Only an empty field (and the given ``missing`` tokens) means missing, so values such
    as ``NA`` or ``null`` stay ordinary categories; ``sep`` separates the fields (default
    ",").  ``path`` may be compressed (``.csv.gz``, ``.bz2``, ``.zst``, ``.lz4``, ``.br``),
    ``"-"`` for standard input, and in another ``encoding`` than UTF-8 (``latin-1``);
    ``decimal`` (``","``) reads numbers written with that decimal mark with a point.  A
    malformed file is an InputError naming the file, and the row and line where that
    applies.  Returns a pandas DataFrame.
    """
    source = TableSource(
        path, missing, name, text=True, sep=sep, encoding=encoding, decimal=decimal
    )
    return source.to_pandas()
