#!/usr/bin/env python3
"""Check an nbcert certificate: ``python3 verify.py CERT [--json]`` (``nbcert verify`` runs this).

This file is the whole checker and needs only Python's standard library: copy it alone (numpy,
where installed, only makes the bounds' tables faster, with the same values).
It reads the certificate's files again (refusing any whose SHA-256 differs), derives the
domains and counts with its own code, and checks every claim in exact rational arithmetic.
It first says the question (the files, the label, alpha, how the files are read), then
prints one line per claim (``ok``, or ``FAIL`` and what is wrong), and exits

* 0 when every claim holds, 1 when one does not;
* 2 when the certificate or one of its files cannot be read as the certificate says (one
  line on stderr: a changed file, a malformed or unknown field, a size past the limits);
* 3 when the checker itself fails (a bug: one line on stderr, never 0 or 1).

``--json`` prints one JSON object instead: the question, the claims and the status.

What is read, and the limits (each checked before the bytes it bounds are read).  Only
regular files (not a device, a FIFO or a folder).  The certificate: UTF-8 JSON of at most
MAX_CERTIFICATE_BYTES, every object's keys distinct, every field one this format has (an
unknown one is refused, none is ignored), integers of at most MAX_DIGITS digits, alpha a
fraction ``p/q`` in lowest terms.  A data file: at most MAX_FILE_BYTES as stored, its text
(``.gz`` and ``.bz2`` decompressed as read) at most MAX_RATIO times that (a larger ratio is a
compression bomb), no line longer than MAX_LINE characters (nbcert's own limit on a line,
so any field nbcert reads is read here), no NUL character, at most MAX_BLANK_LINES blank
lines, and exactly the number of data rows the certificate gives it.

The model.  A feature's *domain* is its observed training values; a *world* fills every
missing cell from its column's domain.  For a test point t, label l's support is

    S(l) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha * delta_j)

over the features j whose test cell is not blank (a blank one is left out); c_lj counts
l's rows holding t_j, delta_j is the domain's size.  A world predicts l when S(l) is the
unique largest; t is *robust* when every world predicts the same label.

Why each check suffices is said in the docstring of the function that makes it.  No check
is a search that may give up: "the fewest", "optimal" and "none" are lower bounds from a
relaxation of one pair of labels that is solved exactly (``needed``, ``never``).  The basic
fact every check shares (``View.extremes``): S(l) depends only on l's cells, and only on how many
hold t_j; c_lj takes every integer from lo to hi (t_j not in the domain: 0; domain {t_j}:
observed + missing; else from the observed cells holding t_j to those plus the missing
ones), independently per label and column, and each factor grows with c_lj.  So l's
smallest and largest supports are at lo and hi.

Reading (the subset of nbcert's rules kept here).  CSV files (``.gz`` and ``.bz2`` too;
Parquet only where pyarrow is installed) with the certificate's separator, encoding,
missing tokens and decimal mark: a field is missing when empty or a missing token; blank
lines are skipped; a number written with the decimal mark (``0,93``) is read with a point.
A feature column is numeric when every observed value is a finite number written as
``[+-]digits[.digits][e[+-]digits]`` (spaces around allowed), and is then compared by value
(``4``, ``4.0`` and `` 4`` are one category), or cut at the certificate's bin edges where it
gives them (x falls in bin ``bisect_right(inner edges, x)``).  Any other column is text,
each value as written; labels are text.  Where this reading and the certificate disagree on
which columns are numeric, the check stops (status 2).
"""

from __future__ import annotations

import bisect
import bz2
import codecs
import csv
import gzip
import hashlib
import heapq
import io
import itertools
import json
import math
import os
import re
import stat
import sys
import zlib
from fractions import Fraction
from typing import NamedTuple

_np = False  # numpy, None without it, False until a bound first asks (``_numpy``)

FORMAT, VERSION = "nbcert certificate", 2
COMMANDS = ("certify", "poison", "poison --together", "clean --truth")
MAX_CERTIFICATE_BYTES = 256 << 20
MAX_FILE_BYTES = 4 << 30  # a data file as stored
MAX_RATIO = 100  # a data file's text per stored byte, decompressed (typical CSV: 5-25)
MAX_LINE = 64 << 20  # characters of a line: nbcert's MAX_LINE_BYTES (a byte is at most one)
MAX_BLANK_LINES = 1_000_000
MAX_DIGITS = 30  # of an integer in the certificate (counts and indices)
MAX_ALPHA_DIGITS = 1000  # of alpha's numerator and denominator
TIE_VECTORS = 4096  # the most count vectors of one label listed to rule out a tie
NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*", re.ASCII)
INTEGER = re.compile(r"\s*[+-]?\d+\s*", re.ASCII)
SHA256 = re.compile(r"[0-9a-f]{64}")


class Unreadable(Exception):
    """The certificate or one of its files cannot be read as needed (exit status 2)."""


class Wrong(Exception):
    """A claim does not hold, or its evidence does not show it."""


class Claim(NamedTuple):
    """One line of the check: what is claimed, whether it holds, and why (or what is wrong)."""

    claim: str
    ok: bool
    message: str = ""


# ---------------------------------------------------------------------------------------
# reading files: regular ones only, every size bounded before it is read


class _Capped(io.RawIOBase):
    """A binary stream read through: Unreadable ``said`` past ``limit`` bytes; hashed.

    Closing it closes the stream only if it ``owns`` it.
    """

    def __init__(self, stream, limit: int, said: str, owns: bool = True):
        self.stream, self.limit, self.said, self.size = stream, limit, said, 0
        self.sha256, self.owns = hashlib.sha256(), owns

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.stream.readinto(buffer)
        self.size += n
        if self.size > self.limit:
            raise Unreadable(self.said)
        self.sha256.update(memoryview(buffer)[:n])
        return n

    def close(self) -> None:
        if self.owns:
            self.stream.close()
        super().close()


def _open(path: str, what: str, limit: int) -> _Capped:
    """A regular file of at most ``limit`` bytes, opened to be read (and hashed).

    Opened without blocking (a FIFO would wait for a writer), then refused unless regular:
    a device such as /dev/zero never ends, a FIFO may never start.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as e:
        raise Unreadable(f"{path}: cannot read the {what} ({getattr(e, 'strerror', e)})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(f"{path}: the {what} is not a regular file")
        if info.st_size > limit:
            raise Unreadable(f"{path}: the {what} has {info.st_size:,} bytes, over {limit:,}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return _Capped(io.FileIO(fd, "rb"), limit, f"{path}: the {what} grew while read")
    except BaseException:
        os.close(fd)
        raise


def _drain(f) -> None:
    while f.read(1 << 20):
        pass


def _hashed(spec: dict, role: str, base: str) -> str:
    """The path of a certificate's file, its SHA-256 checked.

    The path is relative to the certificate's folder ``base`` (where the writer put it);
    where no file there has the bytes hashed, the file of that name beside the certificate
    (a referee may keep the data there).
    """
    given = spec["path"]
    places = [os.path.join(base, given), os.path.join(base, os.path.basename(given))]
    found = [p for p in dict.fromkeys(places) if os.path.lexists(p)]
    if not found:
        raise Unreadable(f"{given}: no {role} file there, nor beside the certificate")
    for path in found:
        with _open(path, f"{role} file", MAX_FILE_BYTES) as f:
            _drain(f)
            if f.sha256.hexdigest() == spec["sha256"]:
                return path
    raise Unreadable(f"{given}: the {role} file has changed (its SHA-256 differs)")


def _lines(text, path: str):
    """The text's lines, each at most MAX_LINE characters and without NUL."""
    while line := text.readline(MAX_LINE + 2):
        if len(line.rstrip("\r\n")) > MAX_LINE:
            raise Unreadable(f"{path}: a line longer than {MAX_LINE:,} characters")
        if "\0" in line:
            raise Unreadable(f"{path}: a NUL character (not text)")
        yield line


def _text(path: str, raw: _Capped, encoding: str):
    """The file's text, decompressed as read (.gz, .bz2), at most MAX_RATIO times its size."""
    lower, limit, said = path.lower(), MAX_FILE_BYTES, f"{path}: grew while read"
    if lower.endswith((".gz", ".bz2")):
        inner = gzip.GzipFile(fileobj=raw) if lower.endswith(".gz") else bz2.BZ2File(raw)
        limit = MAX_RATIO * max(os.fstat(raw.stream.fileno()).st_size, 1 << 16)
        said = f"{path}: its text is more than {MAX_RATIO} times the file (a compression bomb)"
        raw = _Capped(inner, limit, said)
    else:
        raw = _Capped(raw, limit, said, owns=False)  # the file stays open to be hashed to its end
    codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    return io.TextIOWrapper(io.BufferedReader(raw, 1 << 16), encoding=codec, newline="")


def _csv(path: str, spec: dict, reading: dict) -> tuple:
    """(header, records) of a CSV file: each field as text, None where missing."""
    rows, missing = spec["rows"], {""} | set(reading["missing"])
    old = csv.field_size_limit(MAX_LINE)
    try:
        with _open(path, "file", MAX_FILE_BYTES) as raw:
            reader = csv.reader(_lines(_text(path, raw, reading["encoding"]), path),
                                delimiter=reading["sep"])  # fmt: skip
            header = next((r for r in reader if r), None)
            if header is None:
                raise Unreadable(f"{path}: the file is empty")
            body, blank = [], 0
            for r in reader:
                if not r or (len(header) > 1 and len(r) == 1 and not r[0].strip()):
                    blank += 1  # a line of spaces is no record (in one column, a value)
                    if blank > MAX_BLANK_LINES:
                        raise Unreadable(f"{path}: more than {MAX_BLANK_LINES:,} blank lines")
                    continue
                if len(r) != len(header):
                    raise Unreadable(f"{path}: data row {len(body)} has {len(r)} fields, "
                                     f"not {len(header)}")  # fmt: skip
                if len(body) == rows:
                    raise Unreadable(f"{path}: more than the {rows} data rows the "
                                     "certificate says")  # fmt: skip
                body.append([None if v in missing else v for v in r])
            _unchanged(raw, spec, path)
    except UnicodeDecodeError as e:
        raise Unreadable(
            f"{path}: cannot decode it as {reading['encoding']} ({e.reason})"
        ) from None
    except csv.Error as e:
        raise Unreadable(f"{path}: not CSV as the certificate reads it ({e})") from None
    except EOFError:
        raise Unreadable(f"{path}: the compressed file ends too early (truncated)") from None
    except (OSError, zlib.error) as e:
        raise Unreadable(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    finally:
        csv.field_size_limit(old)
    if len(body) != rows:
        raise Unreadable(f"{path}: {len(body)} data rows, not the {rows} the certificate says")
    return header, body


def _unchanged(raw: _Capped, spec: dict, path: str) -> None:
    """The rest of the file read, and its bytes those hashed (they may change between reads)."""
    _drain(raw)
    if raw.sha256.hexdigest() != spec["sha256"]:
        raise Unreadable(f"{path}: the file changed while it was read")


def _records(path: str, spec: dict, reading: dict) -> tuple:
    """(header, rows) of a file: each field as text (or as Parquet holds it), None where missing."""
    lower = path.lower()
    if lower.endswith((".parquet", ".parq", ".pq")):
        return _parquet(path, spec)
    if lower.endswith((".zst", ".lz4", ".br", ".xz", ".zip")):
        raise Unreadable(f"{path}: this checker reads .csv, .csv.gz and .csv.bz2 files only")
    return _csv(path, spec, reading)


def _parquet(path: str, spec: dict) -> tuple:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise Unreadable(f"{path}: reading Parquet needs pyarrow, which is not installed") from None
    with _open(path, "file", MAX_FILE_BYTES) as f:  # a regular file, its size bounded
        data = f.read()
        _unchanged(f, spec, path)
    try:
        table = pq.read_table(io.BytesIO(data))
    except Exception as e:  # pyarrow's errors name no common base
        raise Unreadable(f"{path}: not Parquet ({' '.join(str(e).split())})") from None
    rows = spec["rows"]
    if table.num_rows != rows:
        raise Unreadable(f"{path}: {table.num_rows} rows, not the {rows} the certificate says")
    columns = [table.column(c).to_pylist() for c in table.column_names]
    return list(table.column_names), [list(r) for r in zip(*columns)]


def _decimal(value, mark):
    """A number written with the decimal mark ``mark`` (``0,93``), written with a point."""
    if mark == "." or not isinstance(value, str):
        return value
    d = re.escape(mark)
    written = re.fullmatch(rf"\s*[+-]?(\d+{d}\d*|{d}\d+)([eE][+-]?\d+)?\s*", value, re.ASCII)
    return value.replace(mark, ".") if written else value


def _number(value):
    """The finite number a value reads as (an int where written as one), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        if not NUMBER.fullmatch(value):
            return None
        if not INTEGER.fullmatch(value):
            value = float(value)
        elif len(value.strip().lstrip("+-")) <= 309:  # more digits: past the largest float
            value = int(value)
        else:
            return None
    if isinstance(value, int) and abs(value) <= sys.float_info.max:
        return value
    return value if isinstance(value, float) and math.isfinite(value) else None


class Table:
    """A table as this checker reads it.

    ``features`` (the header without the label), ``y`` (each row's label), ``cols[j][r]``
    (a category, None where missing), which columns are ``numeric`` and which of them are
    not binned (``numbers``: those whose categories are numbers).
    """

    def __init__(self, features: list, y: list, cols: list, numeric: list, bins=()):
        self.features, self.y, self.cols, self.numeric = features, y, cols, numeric
        self.numbers = [num and f not in bins for f, num in zip(features, numeric)]
        self.labels = sorted(set(y))


def _category(value, numeric: bool, bins, where: str):
    """A value's category in its column (None: missing)."""
    if value is None:
        return None
    if bins is not None:
        x = _number(value)
        if x is None:
            raise Unreadable(f"{where} holds {value!r:.40}, not a number (the column is binned)")
        return bins["names"][bisect.bisect_right(bins["edges"][1:-1], float(x))]
    if numeric:  # a test value that is no number is in no numeric domain
        x = _number(value)
        return str(value) if x is None else x
    return value if isinstance(value, str) else str(value)


def _read(cert: dict, role: str, base: str) -> tuple:
    """(path, header, rows) of a certificate's file, its bytes those hashed."""
    spec = cert["inputs"]["files"][role]
    path = _hashed(spec, role, base)
    header, rows = _records(path, spec, cert["inputs"]["reading"])
    twice = next((h for i, h in enumerate(header) if h in header[:i]), None)
    if twice is not None:
        raise Unreadable(f"{path}: two columns named {twice!r}")
    return path, [str(h) for h in header], rows


def read_table(cert: dict, role: str, base: str, numeric: list | None = None) -> Table:
    """Read a file of the certificate as a Table.

    ``numeric``: which columns are numeric (default: as this file's values say, which the
    certificate must say too).
    """
    reading, label = cert["inputs"]["reading"], cert["inputs"]["label"]
    mark = reading["decimal"]
    path, header, rows = _read(cert, role, base)
    if label not in header:
        raise Unreadable(f"{path}: no label column {label!r}")
    at = header.index(label)
    if any(r[at] is None for r in rows):
        raise Unreadable(f"{path}: a row has no label")
    y = [str(_decimal(r[at], mark)) for r in rows]
    features = [h for h in header if h != label]
    raw = [[_decimal(r[header.index(f)], mark) for r in rows] for f in features]
    bins = reading["bins"]
    said = set(reading["numeric"]) | set(bins)
    if numeric is None:
        numeric = [
            any(v is not None for v in c) and all(v is None or _number(v) is not None for v in c)
            for c in raw
        ]
    for f, mine in zip(features, numeric):
        if mine != (f in said):
            how = "numbers here, text" if mine else "text here, numbers"
            raise Unreadable(f"{path}: column {f!r} reads as {how} in the certificate")
    absent = sorted(said - set(features))
    if absent:
        raise Unreadable(f"{path}: no column {absent[0]!r}, which the certificate reads as numbers")
    cols = [
        [_category(v, num, bins.get(f), f"{path}: column {f!r}") for v in c]
        for f, num, c in zip(features, numeric, raw)
    ]
    return Table(features, y, cols, numeric, bins)


def read_test(cert: dict, base: str, train: Table) -> tuple:
    """Read the test file: (rows, ids).

    Its rows as categories of the training table's columns (None: blank), and the id
    column's values (None: no id column).
    """
    reading = cert["inputs"]["reading"]
    path, header, rows = _read(cert, "test", base)
    absent = [f for f in train.features if f not in header]
    if absent:
        raise Unreadable(f"{path}: no feature column {absent[0]!r}")
    ids = None
    if reading["id"] is not None:
        if reading["id"] not in header or reading["id"] in train.features:
            raise Unreadable(f"{path}: no id column {reading['id']!r} beside the features")
        ids = [r[header.index(reading["id"])] for r in rows]
    bins, mark = reading["bins"], reading["decimal"]
    kinds = list(zip(train.features, train.numeric, [header.index(f) for f in train.features]))
    points = [
        [_category(_decimal(r[a], mark), num, bins.get(f), f"{path}: {f!r}") for f, num, a in kinds]
        for r in rows
    ]
    return points, ids


# ---------------------------------------------------------------------------------------
# the certificate: strict JSON, every field known and of its type


def _object(pairs: list) -> dict:
    """A JSON object whose keys are distinct (json keeps the last of two silently)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise Unreadable(f"the key {k!r:.60} twice in one object")
        out[k] = v
    return out


def _integer(written: str) -> int:
    if len(written.lstrip("-")) > MAX_DIGITS:
        raise Unreadable(f"an integer of {len(written):,} digits (at most {MAX_DIGITS})")
    return int(written)


def _real(written: str) -> float:
    x = float(written) if len(written) <= 40 else math.inf
    if not math.isfinite(x):
        raise Unreadable(
            f"the number {written:.40} is not a finite number of at most 40 characters"
        )
    return x


def _constant(name: str):
    raise Unreadable(f"{name} is not a JSON number")


def natural(v, where: str) -> None:
    if type(v) is not int or v < 0:
        raise Unreadable(f"{where} is not a whole number")


def boolean(v, where: str) -> None:
    if type(v) is not bool:
        raise Unreadable(f"{where} is not true or false")


def text(v, where: str) -> None:
    if type(v) is not str:
        raise Unreadable(f"{where} is not a string")


def value(v, where: str) -> None:
    """A domain value as JSON holds it: a string, or a number for a numeric column."""
    if type(v) not in (str, int, float):
        raise Unreadable(f"{where} is not a value (a string or a number)")


def char(v, where: str) -> None:
    if type(v) is not str or len(v) != 1 or v in '\r\n"':
        raise Unreadable(f"{where} is not one character")


def codec(v, where: str) -> None:
    text(v, where)
    try:
        codecs.lookup(v)
    except LookupError:
        raise Unreadable(f"{where}: no encoding {v!r:.40}") from None


def sha256(v, where: str) -> None:
    if type(v) is not str or not SHA256.fullmatch(v):
        raise Unreadable(f"{where} is not a SHA-256 in hex")


def alpha(v, where: str) -> None:
    """Check alpha as the writer writes it.

    ``p`` or ``p/q`` in lowest terms, digits only, of a bounded size (``1e100000`` would be
    a number of 100,000 digits).
    """
    fine = type(v) is str and len(v) <= 2 * MAX_ALPHA_DIGITS + 1
    if not (fine and re.fullmatch(r"(0|[1-9]\d*)(/[1-9]\d*)?", v) and str(Fraction(v)) == v):
        raise Unreadable(f"{where} is not a fraction p/q in lowest terms")


def either(*choices):
    def check(v, where: str) -> None:
        if not any(type(v) is type(c) and v == c for c in choices):
            raise Unreadable(f"{where} is not one of {', '.join(map(json.dumps, choices))}")

    return check


def maybe(kind):
    def check(v, where: str) -> None:
        if v is not None:
            kind(v, where)

    return check


def listed(kind, distinct: bool = False):
    def check(v, where: str) -> None:
        if type(v) is not list:
            raise Unreadable(f"{where} is not a list")
        for i, x in enumerate(v):
            kind(x, f"{where}[{i}]")
        if distinct and len({json.dumps(x) for x in v}) != len(v):
            raise Unreadable(f"{where} lists a value twice")

    return check


def keyed(kind):
    def check(v, where: str) -> None:
        if type(v) is not dict:
            raise Unreadable(f"{where} is not an object")
        for k, x in v.items():
            kind(x, f"{where}[{json.dumps(k)[:60]}]")

    return check


def fields(need: dict, may: dict | None = None):
    """An object with every key of ``need``, any of ``may``, no other, each of its kind."""
    every = {**need, **(may or {})}

    def check(v, where: str) -> None:
        if type(v) is not dict:
            raise Unreadable(f"{where} is not an object")
        absent = [k for k in need if k not in v]
        if absent:
            raise Unreadable(f"{where} has no {absent[0]!r}")
        unknown = [k for k in v if k not in every]
        if unknown:
            raise Unreadable(f"{where} has a field this format does not: {unknown[0]!r:.60}")
        for k, x in v.items():
            every[k](x, f"{where}.{k}")

    return check


def both(*kinds):
    def check(v, where: str) -> None:
        for kind in kinds:
            kind(v, where)

    return check


def _bins(v, where: str) -> None:
    edges, names = v["edges"], v["names"]
    if len(edges) < 2 or len(names) != len(edges) - 1 or edges != sorted(edges):
        raise Unreadable(f"{where}: {len(edges)} edges in order for {len(names)} bins")


def _world(v, where: str) -> None:
    """Check the shape of a world.

    The label it is won by (``wins``) or those that tie at its top (``tie``), and its
    filling: per label and column, one value, or [[value, cells], ...].
    """
    claim = {"wins": text} if type(v) is dict and "wins" in v else {"tie": listed(text, True)}
    fields({**claim, "fill": keyed(keyed(_entry))})(v, where)


def _entry(e, where: str) -> None:
    """The values of a label's missing cells in a column: one, or [[value, cells], ...]."""
    if type(e) is not list:
        return value(e, where)
    for i, p in enumerate(e):
        if type(p) is not list or len(p) != 2 or type(p[1]) is not int or p[1] <= 0:
            raise Unreadable(f"{where}[{i}] is not [value, cells]")
        value(p[0], f"{where}[{i}][0]")


def _test_key(v, where: str) -> None:
    """A test point as a result names it: its test_index, or that and its id."""
    (natural if type(v) is not dict else fields({"test_index": natural, "id": maybe(text)}))(
        v, where
    )


FILE = fields({"path": text, "sha256": sha256, "rows": natural})
BINS = both(fields({"edges": listed(value), "names": listed(text, True)}), _bins)
READING = fields(
    {
        "sep": char,
        "encoding": codec,
        "missing": listed(text, True),
        "decimal": char,
        "id": maybe(text),
        "numeric": listed(text, True),
        "bins": keyed(BINS),
    }
)
CELL = fields({"row": natural, "column": text})
CELLS = listed(CELL)
COUNTS = fields({"counts": keyed(natural)})
BOUND = fields(
    {"label": text, "by": text, "strict": boolean, "largest": COUNTS, "smallest": COUNTS}
)
WORLDS = listed(_world)
ROBUST = {"label": text, "bounds": listed(BOUND)}
ID = {"id": maybe(text)}
SOURCE = fields({"test_index": natural})  # the point whose own bound bounds them all
STATUS = either("poisoned", "already_nonrobust", "impossible", "none_found")

RESULTS = {
    "certify": fields(
        {
            "test_index": natural,
            "robust": boolean,
            "label": maybe(text),
            "possible_labels": listed(text, True),
            "tie_possible": maybe(boolean),
            "evidence": fields(
                {"bounds": listed(BOUND)}, {"worlds": WORLDS, "no_tie": either("listed")}
            ),
        },
        ID,
    ),
    "poison": fields(
        {
            "test_index": natural,
            "num_cells": maybe(natural),
            "cells": CELLS,
            "status": STATUS,
            "evidence": fields({}, {"after": WORLDS, "lower_bound": maybe(natural)}),
        },
        ID,
    ),
    "poison --together": fields(
        {
            "test_indices": listed(natural),
            "num_cells": maybe(natural),
            "cells": CELLS,
            "status": STATUS,
            "optimal": boolean,
            "lower_bound": maybe(natural),
            "evidence": fields(
                {},
                {
                    "after": listed(fields({"test_index": natural, "worlds": WORLDS})),
                    "lower_bound": SOURCE,
                },
            ),
        },
        {"ids": listed(maybe(text))},
    ),
    "clean --truth": fields(
        {
            "test_index": natural,
            "num_cells": maybe(natural),
            "cells": CELLS,
            "label": maybe(text),
            "evidence": fields({}, {"after": fields(ROBUST), "lower_bound": maybe(natural)}),
        },
        ID,
    ),
}
ROW_PROOF = fields({"test_index": natural, **ROBUST})
LEFT = fields({"test_index": natural, "worlds": WORLDS})
TOGETHER = fields(
    {
        "num_cells": maybe(natural),
        "num_rows": maybe(natural),
        "cells": CELLS,
        "excluded": listed(_test_key),
        "target_rows": natural,
        "certified_rows": maybe(natural),
        "optimal": boolean,
        "lower_bound": maybe(natural),
        "evidence": fields({"after": listed(ROW_PROOF)}, {"lower_bound": SOURCE}),
    }
)


def _path_proof(v, where: str) -> None:
    """A row certified on the path's table, or one left not robust (its worlds)."""
    (LEFT if type(v) is dict and "worlds" in v else ROW_PROOF)(v, where)


PATH = fields(
    {
        "num_cells": natural,
        "cells": CELLS,
        "certifies_all": boolean,
        "evidence": fields({"after": listed(_path_proof)}),
    }
)


def _document(command: str):
    """The kind of a whole certificate of ``command``."""
    roles = ("train", "test", "truth") if command == "clean --truth" else ("train", "test")
    inputs = fields(
        {
            "files": fields({role: FILE for role in roles}),
            "label": text,
            "alpha": alpha,
            "reading": READING,
            "nbcert": text,
        },
        {"test_indices": listed(natural, True)},
    )
    top = {
        "format": text,
        "version": natural,
        "command": text,
        "inputs": inputs,
        "results": listed(RESULTS[command]),
    }
    if command == "clean --truth":
        top.update(together=TOGETHER, path=PATH)
    return fields(top)


def load(path: str) -> dict:
    """The certificate's document: strict JSON, its format, version and every field checked."""
    with _open(path, "certificate", MAX_CERTIFICATE_BYTES) as f:
        data = f.read()
    try:
        doc = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_object,
            parse_int=_integer,
            parse_float=_real,
            parse_constant=_constant,
        )
    except UnicodeDecodeError:
        raise Unreadable(f"{path}: not UTF-8 text, so not a certificate") from None
    except RecursionError:
        raise Unreadable(f"{path}: nested too deeply to be a certificate") from None
    except json.JSONDecodeError as e:
        raise Unreadable(f"{path}: not JSON ({e.msg}, line {e.lineno} column {e.colno})") from None
    except Unreadable as e:
        raise Unreadable(f"{path}: {e}") from None
    if type(doc) is not dict or doc.get("format") != FORMAT:
        raise Unreadable(f"{path}: not an nbcert certificate")
    version = doc.get("version")
    if type(version) is not int or version != VERSION:
        newer = type(version) is int and version > VERSION
        said = "newer than this checker's" if newer else "not this checker's"
        raise Unreadable(f"{path}: certificate format {str(version):.20} is {said} ({VERSION})")
    if doc.get("command") not in COMMANDS:
        raise Unreadable(f"{path}: unknown command {str(doc.get('command')):.40}")
    try:
        _document(doc["command"])(doc, "the certificate")
    except Unreadable as e:
        raise Unreadable(f"{path}: {e}") from None
    return doc


# ---------------------------------------------------------------------------------------
# counts, extremes and supports


class State:
    """A table state's counts.

    A table state's counts: ``obs[j][l]`` {value: observed cells}, ``miss[j][l]`` missing
    cells, ``N[l]`` rows, per feature j and label l (the label's text).
    """

    def __init__(self, table: Table):
        self.labels = table.labels
        self.N = {l: table.y.count(l) for l in self.labels}
        self.obs = [{l: {} for l in self.labels} for _ in table.features]
        self.miss = [{l: 0 for l in self.labels} for _ in table.features]
        for j, col in enumerate(table.cols):
            for l, v in zip(table.y, col):
                if v is None:
                    self.miss[j][l] += 1
                else:
                    self.obs[j][l][v] = self.obs[j][l].get(v, 0) + 1

    @classmethod
    def counted(cls, N: dict, obs: list, miss: list) -> State:
        """A state given by its counts (as the class says), not read from a table."""
        new = object.__new__(cls)
        new.labels, new.N, new.obs, new.miss = sorted(N), N, obs, miss
        return new

    def copy(self) -> State:
        new = object.__new__(State)
        new.labels, new.N = self.labels, self.N
        new.obs = [{l: dict(c) for l, c in col.items()} for col in self.obs]
        new.miss = [dict(col) for col in self.miss]
        return new

    def move(self, j: int, l: str, value, k: int) -> None:
        """Observe k of label l's missing cells in column j as ``value`` (k < 0: blanked)."""
        self.obs[j][l][value] = self.obs[j][l].get(value, 0) + k
        self.miss[j][l] -= k

    def domain(self, j: int) -> set:
        return {v for c in self.obs[j].values() for v, k in c.items() if k > 0}

    def cells(self, j: int, value) -> int:
        return sum(c.get(value, 0) for c in self.obs[j].values())


class View:
    """A test point on a state.

    A test point t on a state: its used features (test cell not blank), each with its
    domain and whether t_j is in it.
    """

    def __init__(self, state: State, t: list, alpha: Fraction):
        self.state, self.t, self.alpha = state, t, alpha
        self.used = [j for j, v in enumerate(t) if v is not None]
        self.domains = {j: state.domain(j) for j in self.used}
        self.seen = {j: t[j] in self.domains[j] for j in self.used}

    def extremes(self, l: str) -> tuple:
        """(lo, hi): label l's smallest and largest count per used feature (check 1)."""
        lo, hi = [], []
        for j in self.used:
            e = self.state.obs[j][l].get(self.t[j], 0) if self.seen[j] else 0
            m = self.state.miss[j][l] if self.seen[j] else 0
            lo.append(e + (m if len(self.domains[j]) == 1 else 0))
            hi.append(e + m)
        return lo, hi

    def factors(self, l: str, counts: list) -> tuple:
        """Give S(l) at the counts as a fraction.

        (numerator, denominator) of S(l) at the counts, alpha = p/q: N_l prod (q c + p)
        over n prod (q N_l + p delta_j).
        """
        p, q, N = self.alpha.numerator, self.alpha.denominator, self.state.N[l]
        num = N * math.prod(q * c + p for c in counts)
        den = sum(self.state.N.values())
        return num, den * math.prod(q * N + p * len(self.domains[j]) for j in self.used)

    def support(self, l: str, counts: list) -> Fraction:
        return Fraction(*self.factors(l, counts))

    def smin(self, l: str) -> Fraction:
        return self.support(l, self.extremes(l)[0])

    def smax(self, l: str) -> Fraction:
        return self.support(l, self.extremes(l)[1])

    def top(self, counts: dict) -> list:
        """The labels of largest support at the counts (per label)."""
        s = {l: self.support(l, counts[l]) for l in self.state.labels}
        return [l for l in self.state.labels if s[l] == max(s.values())]

    def robust_label(self):
        """The label that wins every world (its smin above every other smax), or None."""
        labels = self.state.labels
        smax = {l: self.smax(l) for l in labels}
        for k in labels:
            if all(self.smin(k) > smax[l] for l in labels if l != k):
                return k
        return None

    def ties(self) -> bool | None:
        """Decide whether some world ties at the top.

        Whether some world ties at the top, by listing the count vectors of the labels
        that can reach it (None: more than TIE_VECTORS of one label).
        """
        labels = self.state.labels
        smin = {l: self.smin(l) for l in labels}
        reach = [l for l in labels if not any(smin[x] > self.smax(l) for x in labels)]
        values = {}
        for l in reach:
            lo, hi = self.extremes(l)
            if math.prod(b - a + 1 for a, b in zip(lo, hi)) > TIE_VECTORS:
                return None
            ranges = [range(a, b + 1) for a, b in zip(lo, hi)]
            values[l] = {self.support(l, list(c)) for c in itertools.product(*ranges)}
        for l, l2 in itertools.combinations(reach, 2):
            rest = max((smin[x] for x in labels if x not in (l, l2)), default=Fraction(0))
            if any(v >= rest for v in values[l] & values[l2]):
                return True
        return False


# ---------------------------------------------------------------------------------------
# the evidence: worlds and bounds


def world(view: View, w: dict, table: Table) -> tuple:
    """Check a certificate's world and say what it predicts.

    ('wins', label) or ('tie', labels) of a certificate's world, checked: it fills every
    missing cell of each label and used column, in data-row order, with its entry (one
    value, or [[value, cells], ...]), every value from the domain, and predicts as said.
    Only the counts of the test values matter (``View.extremes``), so the world's counts
    are those of its entries; its supports are computed exactly.
    """
    fill, counts, used = w["fill"], {}, {table.features[j] for j in view.used}
    if set(fill) - set(view.state.labels) or any(set(c) - used for c in fill.values()):
        raise Wrong("a world fills labels or columns the point's support does not have")
    for l in view.state.labels:
        row = []
        for j in view.used:
            col, m = table.features[j], view.state.miss[j][l]
            entry = fill.get(l, {}).get(col)
            if (entry is None) != (m == 0):
                raise Wrong(f"a world fills {col!r} of label {l} wrongly ({m} cells missing)")
            parts = entry if isinstance(entry, list) else [[entry, m]]
            if m and sum(k for _, k in parts) != m:
                raise Wrong(f"a world fills {m} cells of label {l} in {col!r} wrongly")
            for v, _ in parts if m else []:
                if not _same_kind(v, table.numbers[j]) or v not in view.domains[j]:
                    raise Wrong(f"a world puts {v!r:.40} in {col!r}, not in its domain")
            holds = sum(k for v, k in parts if m and view.seen[j] and v == view.t[j])
            row.append((view.state.obs[j][l].get(view.t[j], 0) if view.seen[j] else 0) + holds)
        counts[l] = row
    top = view.top(counts)
    if "wins" in w:
        if top != [w["wins"]]:
            raise Wrong(f"in a witness world for {w['wins']} the top is {', '.join(top)}")
        return "wins", w["wins"]
    if len(top) < 2 or not set(w["tie"]) <= set(top):
        raise Wrong(f"a world said to tie has {', '.join(top)} alone at the top")
    return "tie", tuple(top)


def _same_kind(value, numeric: bool) -> bool:
    """A numeric column's value is a JSON number, any other's a string."""
    if numeric:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def bound(view: View, b: dict, table: Table) -> tuple:
    """Check a bound smax(l) <= smin(k): l never beats k (strict: never reaches it).

    (l, k, strict), checked: the counts it names are l's largest and k's smallest (the
    extremes of ``View.extremes``), and at them S(l) <= S(k) exactly; then in every world
    S(l) <= smax(l) <= smin(k) <= S(k).
    """
    l, k, strict = b["label"], b["by"], b["strict"]
    if {l, k} - set(view.state.labels) or l == k:
        raise Wrong(f"a bound of {l} by {k} names labels the table does not have")
    names = [table.features[j] for j in view.used]
    for side, label, at in (("largest", l, 1), ("smallest", k, 0)):
        counts = dict(zip(names, view.extremes(label)[at]))
        if b[side]["counts"] != counts:
            raise Wrong(f"{label}'s {side} counts are {counts}, not {b[side]['counts']}")
    hi, lo = view.smax(l), view.smin(k)
    if hi > lo or (strict and hi == lo):
        raise Wrong(f"{l}'s largest support {_short(hi)} is not below {k}'s smallest {_short(lo)}")
    return l, k, strict


def _short(x: Fraction) -> str:
    """A fraction as text, its digits elided past 40 (an exact support can be long)."""
    s = str(x) if max(x.numerator.bit_length(), x.denominator.bit_length()) < 4000 else "a fraction"
    return s if len(s) <= 40 else f"{float(x):.12g} ({len(s)} characters exactly)"


def robust(view: View, label, bounds: list, table: Table) -> str:
    """Check that every other label stays strictly below ``label``: the point is robust."""
    below = {l for l, k, strict in (bound(view, b, table) for b in bounds) if k == label and strict}
    left = [l for l in view.state.labels if l != label and l not in below]
    if left:
        raise Wrong(f"nothing shows {left[0]} strictly below {label}")
    return f"{len(below)} rival{'s' * (len(below) != 1)} below its smallest support"


def not_robust(view: View, worlds: list, table: Table) -> str:
    """Check worlds that show the point not robust: two winners differ, or a tie."""
    seen = [world(view, w, table) for w in worlds]
    wins = sorted({x for kind, x in seen if kind == "wins"})
    ties = [x for kind, x in seen if kind == "tie"]
    if len(wins) >= 2:
        return f"worlds won by {', '.join(wins)}"
    if ties:
        return f"a world where {', '.join(ties[0])} tie"
    raise Wrong("no two worlds with different winners and no tied world")


# ---------------------------------------------------------------------------------------
# the claims


class Checker:
    """The claims of one certificate, checked against the files it names (``run``)."""

    def __init__(self, cert: dict, base: str):
        self.cert, self.base = cert, base
        self.alpha = Fraction(cert["inputs"]["alpha"])
        self.claims: list = []

    def add(self, claim: str, ok: bool, message: str = "") -> None:
        self.claims.append(Claim(claim, ok, message))

    def checked(self, claim: str, check) -> bool:
        """Check one claim.

        The claim holds if ``check()`` returns (its message); it fails with what is wrong if
        it raises Wrong, or if its evidence does not fit the table (a label, column or row
        it does not have).  Every check ends: none is a search that may give up.
        """
        try:
            said = check()
        except Wrong as e:
            self.add(claim, False, str(e))
            return False
        except (KeyError, ValueError, IndexError) as e:
            self.add(claim, False, f"evidence that does not fit the table ({type(e).__name__})")
            return False
        self.add(claim, True, said)
        return True

    def run(self) -> list:
        runs = {
            "certify": self.certify,
            "poison": self.poison,
            "poison --together": self.together,
            "clean --truth": self.clean,
        }
        runs[self.cert["command"]]()
        return self.claims

    def start(self, complete: bool = False) -> State:
        self.train = read_table(self.cert, "train", self.base)
        self.test, self.ids = read_test(self.cert, self.base, self.train)
        state = State(self.train)
        if complete and any(n for col in state.miss for n in col.values()):
            raise Unreadable("poisoning is about a complete table; this one has blanks")
        return state

    def view(self, state: State, i: int) -> View:
        return View(state, self.test[i], self.alpha)

    def answered(self) -> list:
        """List the test points the certificate answers (their test_index, in order).

        Every one, unless its inputs list some (``test_indices``: a program that answered a
        few).
        """
        every = list(range(len(self.test)))
        said = self.cert["inputs"].get("test_indices", every)
        if not set(said) <= set(every):
            raise Unreadable(f"its test_indices name a point past the test file's {len(every)}")
        return said

    def named(self, i: int, said) -> str:
        """A test point's name in a claim; Wrong unless ``said`` is its id (or there is none)."""
        if self.ids is None:
            return f"test point {i}"
        if said != self.ids[i]:
            raise Wrong(f"test point {i}'s id is {self.ids[i]!r}, not {said!r}")
        return f"test point {i} ({said})"

    def rows(self):
        """List (result, name, test_index, evidence) of each result.

        First a claim that they answer each test point once, in order, each with its id
        where the file has ids.
        """
        results, every = self.cert["results"], self.answered()
        indices = [r["test_index"] for r in results]
        of = "" if len(every) == len(self.test) else f" listed ({len(every)} of {len(self.test)})"
        claim = f"the results answer each of the {len(every)} test points{of} once"
        ids = {("id" in r) for r in results} <= {self.ids is not None}
        self.add(claim, indices == every and ids, "" if ids else "ids where the file has none")
        for r in results:
            if r["test_index"] in every:
                try:
                    name = self.named(r["test_index"], r.get("id"))
                except Wrong as e:
                    self.add(f"test point {r['test_index']}: its id", False, str(e))
                    continue
                yield r, name, r["test_index"], r["evidence"]

    # -- certify

    def certify(self) -> None:
        state = self.start()
        for r, name, i, ev in self.rows():
            view = self.view(state, i)
            if r["robust"]:
                claim = f"{name}: robust, every world predicts {r['label']}"
                self.checked(claim, lambda: self.robust_row(view, r, ev))
                continue
            shown = ", ".join(r["possible_labels"]) or "none (every world ties)"
            claim = f"{name}: not robust; possible labels {shown}"
            self.checked(claim, lambda: self.possible(view, r, ev))
            if r["tie_possible"] is not None:
                said = "a world ties" if r["tie_possible"] else "no world ties"
                self.checked(f"{name}: {said}", lambda: self.tie(view, r, ev))

    def robust_row(self, view: View, r: dict, ev: dict) -> str:
        if r["possible_labels"] != [r["label"]] or r["tie_possible"] is not False:
            raise Wrong("a robust point's only possible label is its label, and no world ties")
        if "worlds" in ev or "no_tie" in ev:
            raise Wrong("a robust point's evidence is its bounds alone")
        return robust(view, r["label"], ev["bounds"], self.train)

    def possible(self, view: View, r: dict, ev: dict) -> str:
        """Check the possible labels of a point that is not robust.

        Each possible label wins a world given; every other label has a bound (it never
        wins); and two winners, or a tie, show the point not robust.
        """
        labels = r["possible_labels"]
        if r["label"] is not None:
            raise Wrong("a point that is not robust has no label")
        seen = [world(view, w, self.train) for w in ev.get("worlds", [])]
        wins = {x for kind, x in seen if kind == "wins"}
        if wins != set(labels):
            raise Wrong(f"the witness worlds are won by {sorted(wins)}")
        blocked = {bound(view, b, self.train)[0] for b in ev["bounds"]}
        left = [l for l in view.state.labels if l not in wins | blocked]
        if left:
            raise Wrong(f"nothing shows that {left[0]} never wins")
        if len(wins) < 2 and not any(kind == "tie" for kind, _ in seen):
            raise Wrong("one possible label and no tied world: nothing shows it not robust")
        return f"{len(wins)} witness worlds, {len(blocked)} bounds"

    def tie(self, view: View, r: dict, ev: dict) -> str:
        """Check whether a world ties.

        A tie: a tied world (checked by ``world``).  No tie: every count vector of the
        labels that can reach the top listed, and no two supports meet there (at most
        TIE_VECTORS per label; the writer claims no tie only where that listing is short).
        """
        if r["tie_possible"]:
            ties = [world(view, w, self.train) for w in ev.get("worlds", []) if "tie" in w]
            if not ties:
                raise Wrong("no tied world given")
            return f"{', '.join(ties[0][1])} tie in a world"
        if ev.get("no_tie") != "listed" or view.ties() is not False:
            raise Wrong("listing the top labels' supports does not rule out a tie")
        return "the supports of the labels that reach the top listed: none meet there"

    # -- answers with cells: poison, poison --together, clean --truth

    def changed(self, state: State, cells: list, blank: bool) -> State:
        """Blank or clean cells.

        The state with ``cells`` (distinct) blanked (observed ones; every column keeps a
        value) or cleaned (missing ones set to the truth).
        """
        out, done = state.copy(), set()
        for c in cells:
            r, f = c["row"], c["column"]
            if (r, f) in done or f not in self.train.features or r >= len(self.train.y):
                raise Wrong(f"cell {r}:{f} is repeated or not a cell of the table")
            j = self.train.features.index(f)
            if (self.dirty.cols[j][r] is None) == blank:
                raise Wrong(f"cell {r}:{f} is {'already' if blank else 'not'} missing")
            done.add((r, f))
            out.move(j, self.train.y[r], self.train.cols[j][r], -1 if blank else 1)
        if any(not out.domain(j) for j in range(len(self.train.features))):
            raise Wrong("the blanking empties a column")
        return out

    def counted(self, part: dict) -> None:
        if part["num_cells"] != len(part["cells"]):
            raise Wrong(f"num_cells is {part['num_cells']} for {len(part['cells'])} cells")

    def bound_line(self, name: str, n, low, what: str) -> str:
        """The words of a bound claim: the fewest, or a bound and what was found."""
        if low is None:
            return f"{name}no {what}"
        if n is not None and low == n:
            return f"{name}{n} cells are the fewest"
        found = "none found" if n is None else f"{n} found"
        return f"{name}at least {low} cells are needed ({found})"

    def within(self, low) -> None:
        """A bound no larger than the table's cells (past them, a bound says "none")."""
        cells = len(self.train.y) * len(self.train.features)
        if low is not None and low > cells:
            raise Wrong(f"a bound of {low} cells, past the table's {cells}")

    def blank_bound(self, state: State, i: int, cells) -> str:
        """Check that no blanking of fewer than ``cells`` cells makes point i not robust.

        ``cells`` None: no blanking at all.  The point is robust on the table as read, its label K winning every world.  Not
        robust after a blanking means K no longer wins every world: some rival l reaches
        it (smax(l) >= smin(K)).  So a blanking that does it answers at least one rival's
        relaxed question (``blanking``): if every rival needs ``cells`` cells at least
        (``fewer``), or never reaches K (``never``), so does the point.
        """
        self.within(cells)
        view = self.view(state, i)
        K = view.robust_label()
        if K is None:
            raise Wrong("it is not robust on the table as read")
        for l in (x for x in state.labels if x != K):
            C, columns = blanking(view, K, l)
            said = (
                never(columns, C, False) if cells is None else fewer([(C, columns, False)], cells)
            )
        return f"for every rival of {K}: {said}" if len(state.labels) > 1 else "one label"

    def clean_bound(self, state: State, i: int, cells) -> str:
        """Check that no cleaning of fewer than ``cells`` cells makes point i robust.

        ``cells`` None: no cleaning at all.  Robust after a cleaning means some label K beats every rival l in every world
        (smin(K) > smax(l)).  K's cells raise its side for every rival at once; each
        rival's cells are its own.  So a cleaning that makes K win answers all of K's
        relaxed questions (``cleaning``) together: if, for every K, they need ``cells``
        cells at least (``fewer``, the x sides shared), or one of them is never answered
        (``never``), no cleaning of fewer cells makes the point robust.
        """
        self.within(cells)
        view = self.view(state, i)
        for K in state.labels:
            pairs = [cleaning(view, self.truth, K, l) + (True,) for l in state.labels if l != K]
            if cells is not None and pairs:
                fewer(pairs, cells)
            elif cells is None and not any(
                holds(never, columns, C, True) for C, columns, _ in pairs
            ):
                raise Wrong(f"nothing shows that no cleaning makes {K} win")
        return f"for each of the {len(state.labels)} labels"

    def poison(self) -> None:
        state = self.start(complete=True)
        self.dirty = self.train
        for r, name, i, ev in self.rows():
            n, status, low = r["num_cells"], r["status"], ev.get("lower_bound", 0)
            if status in ("poisoned", "already_nonrobust"):
                said = f"blanking {n} cells makes it" if status == "poisoned" else "already"
                claim = f"{name}: {said} not robust"
                if (
                    self.checked(claim, lambda: self.blanked(state, r, i, ev))
                    and "lower_bound" in ev
                ):
                    line = self.bound_line(f"{name}: ", n, low, "")
                    self.checked(line, lambda: self.poison_bound(state, i, n, low))
            elif n is None and not r["cells"] and "after" not in ev and status != "poisoned":
                if status == "impossible" or "lower_bound" in ev:
                    what = "blanking makes it not robust"
                    line = self.bound_line(f"{name}: ", None, low, what)
                    if status == "impossible" and low is not None:
                        self.add(line, False, "impossible, but the bound is a number of cells")
                    else:
                        self.checked(line, lambda: self.blank_bound(state, i, low))
            else:
                self.add(f"{name}: status {status}", False, f"it does not fit {n} cells")

    def poison_bound(self, state: State, i: int, n: int, low) -> str:
        if low is None or low > n:
            raise Wrong(f"a bound of {low} cells for {n} found")
        return self.blank_bound(state, i, low)

    def blanked(self, state: State, r: dict, i: int, ev: dict) -> str:
        self.counted(r)
        if (r["status"] == "poisoned") != (r["num_cells"] > 0):
            raise Wrong(f"status {r['status']} with {r['num_cells']} cells")
        if r["status"] == "already_nonrobust" and "lower_bound" in ev:
            raise Wrong("a bound for a point that is not robust already")
        after = self.changed(state, r["cells"], blank=True)
        return not_robust(self.view(after, i), ev.get("after", []), self.train)

    def together(self) -> None:
        state = self.start(complete=True)
        self.dirty = self.train
        results, every = self.cert["results"], self.answered()
        if len(results) != 1:
            self.add("the result", False, f"{len(results)} results, not one")
            return
        r = results[0]
        ev, n, status = r["evidence"], r["num_cells"], r["status"]
        ids = r.get("ids")
        right = r["test_indices"] == every and (ids is None) == (self.ids is None)
        if right and ids is not None:
            right = ids == [self.ids[i] for i in every]
        self.add(f"the result is about all {len(every)} test points", right)
        if status in ("poisoned", "already_nonrobust"):
            claim = f"blanking {n} cells makes all {len(every)} test points not robust"
            if not self.checked(claim, lambda: self.all_blanked(state, r, ev)):
                return
        elif status not in ("impossible", "none_found") or n is not None or r["cells"]:
            self.add(f"status {status}", False, f"it does not fit {n} cells")
            return
        if status == "impossible" or r["lower_bound"] is not None:
            what = f"blanking makes all {len(every)} test points not robust"
            line = self.bound_line("", n, r["lower_bound"], what)
            self.checked(line, lambda: self.together_bound(state, r, ev.get("lower_bound")))
        elif r["optimal"] or "lower_bound" in ev:
            self.add("optimal, or a source of a bound", False, "with no bound")

    def together_bound(self, state: State, r: dict, src) -> str:
        """Check all points' bound: one point's own (``blank_bound``), a point of the set.

        A blanking that makes every point not robust makes that one not robust: it needs
        at least that point's cells.  "Optimal": the bound meets the answer; "impossible":
        the point needs a number of cells no blanking has.
        """
        n, low, impossible = r["num_cells"], r["lower_bound"], r["status"] == "impossible"
        if src is None or src["test_index"] not in r["test_indices"]:
            where = "none" if src is None else f"test point {src['test_index']}"
            raise Wrong(f"the bound's source, {where}, is not one of the points")
        if impossible != (low is None) or (n is not None and low > n):
            raise Wrong(f"a bound of {low} cells does not fit {n} cells, {r['status']}")
        if r["optimal"] != (impossible or low == n):
            raise Wrong(f"optimal is {r['optimal']} for a bound of {low} and {n} cells")
        return self.blank_bound(state, src["test_index"], low)

    def all_blanked(self, state: State, r: dict, ev: dict) -> str:
        self.counted(r)
        after = self.changed(state, r["cells"], blank=True)
        worlds = ev.get("after", [])
        if sorted(w["test_index"] for w in worlds) != sorted(r["test_indices"]):
            raise Wrong("worlds are not given for each point once")
        for w in worlds:
            not_robust(self.view(after, w["test_index"]), w["worlds"], self.train)
        return f"worlds for each of the {len(r['test_indices'])} points"

    def clean(self) -> None:
        truth = read_table(self.cert, "truth", self.base)  # nbcert codes the truth's values
        self.dirty = read_table(self.cert, "train", self.base, truth.numeric)
        if self.dirty.features != truth.features or self.dirty.y != truth.y:
            raise Unreadable("the truth's header, rows or labels are not the training table's")
        self.train, state = truth, State(truth)
        self.test, self.ids = read_test(self.cert, self.base, truth)
        self.truth = [{l: {} for l in truth.labels} for _ in truth.features]
        for j, (dirty, true) in enumerate(zip(self.dirty.cols, truth.cols)):
            for r, (a, b) in enumerate(zip(dirty, true)):
                if a is None:
                    state.move(j, truth.y[r], b, -1)
                    held = self.truth[j][truth.y[r]]
                    held[b] = held.get(b, 0) + 1
                elif a != b:
                    where = f"{r}:{truth.features[j]}"
                    raise Unreadable(f"the truth disagrees with the training table at {where}")
        for r, name, i, ev in self.rows():
            self.clean_row(state, r, name, i, ev)
        for which in ("together", "path"):
            part = self.cert[which]
            self.clean_all(state, part, which, part["evidence"])

    def clean_row(self, state: State, r: dict, name: str, i: int, ev: dict) -> None:
        n, low = r["num_cells"], ev.get("lower_bound", 0)
        if n is None:
            line = self.bound_line(f"{name}: ", None, low, "cleaning makes it robust")
            if r["cells"] or r["label"] is not None or "after" in ev or "lower_bound" not in ev:
                self.add(line, False, "cells or a label given, or no bound")
            else:
                self.checked(line, lambda: self.clean_bound(state, i, low))
            return
        claim = f"{name}: cleaning {n} cells makes it robust, label {r['label']}"
        if self.checked(claim, lambda: self.cleaned(state, r, [(i, r["label"], ev["after"])])):
            if n == 0 and "lower_bound" in ev:
                self.add(f"{name}: a bound", False, "for a point robust already")
            elif n and "lower_bound" in ev:
                line = self.bound_line(f"{name}: ", n, low, "")
                self.checked(line, lambda: self.clean_point_bound(state, i, n, low))

    def clean_point_bound(self, state: State, i: int, n: int, low) -> str:
        if low is None or low > n:
            raise Wrong(f"a bound of {low} cells for {n} found")
        return self.clean_bound(state, i, low)

    def cleaned(self, state: State, part: dict, proofs: list) -> str:
        """The cells cleaned, each (point, label, its proof) robust on that table."""
        self.counted(part)
        after = self.changed(state, part["cells"], blank=False)
        for i, label, proof in proofs:
            if proof["label"] != label:
                raise Wrong(f"the evidence certifies {proof['label']}, not {label}")
            robust(self.view(after, i), label, proof["bounds"], self.train)
        return f"bounds for each of the {len(proofs)} points"

    def left(self, state: State, part: dict, proof: dict) -> str:
        """A point not robust after the cells are cleaned: its worlds."""
        self.counted(part)
        after = self.changed(state, part["cells"], blank=False)
        return not_robust(self.view(after, proof["test_index"]), proof["worlds"], self.train)

    def set_aside(self, which: str):
        """The points all points together and the path are about.

        Every point but those set aside (together's ``excluded``), which must be exactly
        the points whose own result says no cleaning makes them robust (each checked
        there); None, with a failed claim, when they are not.
        """
        every = self.answered()
        aside = []
        for a in self.cert["together"]["excluded"]:
            i = a["test_index"] if isinstance(a, dict) else a
            if isinstance(a, dict) != (self.ids is not None) or (
                i in every and self.ids is not None and a["id"] != self.ids[i]
            ):
                self.add(f"{which}: points set aside", False, f"test point {i}'s id")
                return None
            aside.append(i)
        never = sorted(r["test_index"] for r in self.cert["results"] if r["num_cells"] is None)
        if sorted(aside) != never:
            self.add(f"{which}: points set aside", False, "not the points no cleaning makes robust")
            return None
        return [i for i in every if i not in set(aside)]

    def clean_all(self, state: State, part: dict, which: str, ev: dict) -> None:
        n, every = part["num_cells"], self.set_aside(which)
        if every is None:
            return
        if which == "path" and not part["certifies_all"]:
            claim = f"the policy's path of {n} cells leaves a point not robust"
            proof = ev["after"][0] if len(ev["after"]) == 1 else {}
            if proof.get("test_index") not in every or "worlds" not in proof:
                self.add(claim, False, "one point not set aside, and its worlds, are not given")
            else:
                self.checked(claim, lambda: self.left(state, part, proof))
            return
        if which == "together":
            self.tallied(part, every)
        if n is not None:
            proofs = ev["after"]
            if (
                any("worlds" in a for a in proofs)
                or sorted(a["test_index"] for a in proofs) != every
            ):
                self.add(f"{which}: evidence", False, "not bounds for each test point once")
                return
            proofs = [(a["test_index"], a["label"], a) for a in proofs]
            aside = len(self.answered()) - len(every)
            but = f" (but the {aside} set aside)" if aside else ""
            claim = f"{which}: cleaning {n} cells makes all {len(every)} points robust{but}"
            if not self.checked(claim, lambda: self.cleaned(state, part, proofs)):
                return
        if which == "together" and (part["lower_bound"] is not None or part["optimal"]):
            line = self.bound_line("together: ", n, part["lower_bound"], "")
            self.checked(line, lambda: self.together_clean_bound(state, part, every, ev))

    def together_clean_bound(self, state: State, part: dict, every: list, ev: dict) -> str:
        """Check all points' bound: one point's own (``clean_bound``), a point of the set.

        A cleaning that makes every point robust makes that one robust: it needs at least
        that point's cells.  "Optimal": the bound meets the answer.
        """
        n, low, src = part["num_cells"], part["lower_bound"], ev.get("lower_bound")
        if src is None or src["test_index"] not in every:
            where = "none" if src is None else f"test point {src['test_index']}"
            raise Wrong(f"the bound's source, {where}, is not one of the points")
        if low is None or (n is not None and low > n) or part["optimal"] != (low == n):
            raise Wrong(f"a bound of {low} cells, optimal {part['optimal']}, for {n} cells")
        return self.clean_bound(state, src["test_index"], low)

    def tallied(self, part: dict, every: list) -> None:
        """Check the counts that all points together states.

        The training rows its cells lie in, the points it is asked to certify (all but
        those set aside) and those it does.
        """
        rows = None if part["num_cells"] is None else len({c["row"] for c in part["cells"]})
        certified = None if part["num_cells"] is None else len(every)
        said = (part["num_rows"], part["target_rows"], part["certified_rows"])
        ok = said == (rows, len(every), certified)
        message = "" if ok else f"they are {rows}, {len(every)} and {certified}"
        self.add("together: its cells' rows, the points asked for and certified", ok, message)


# ---------------------------------------------------------------------------------------
# lower bounds on the fewest cells: one pair of labels, relaxed, and weak duality


class Column(NamedTuple):
    """What cells can do to one used column's factor of a pair's ratio (a relaxation).

    The factor is ``g * (x + u) / (y - v)`` for (g, w) in ``bases``, u <= cap cells of
    ``up`` = (x, cap) and v <= cap cells of ``down`` = (y, cap), at a cost of at least
    w + u + v cells (y - cap > 0); or ``r`` for (r, w) in ``options``, at a cost of at
    least w.  ``zero``: the fewest cells that make the pair's denominator factor 0 (the
    callers say what that answers), None when no cells do.
    """

    bases: tuple
    up: tuple = (Fraction(0), 0)
    down: tuple = (Fraction(1), 0)
    options: tuple = ()
    zero: int | None = None


def never(columns: list, C: Fraction, strict: bool) -> str:
    """Check that no plan of any number of cells makes a pair's ratio reach 1.

    The ratio is C * prod_j factor_j, which must pass 1 when ``strict``.  Each column's
    factor is at most its largest over every plan (all the cells it may take), so if the
    product of those largest factors stays below 1 (at most 1 when strict) no plan
    reaches it, unless it zeroes a denominator (``zero``).
    """
    if any(c.zero is not None for c in columns):
        raise Wrong("cells can zero a denominator, so some plan may answer")
    value = C * math.prod(_largest(c) for c in columns)
    if value > 1 or (value == 1 and not strict):
        raise Wrong("with every cell it may take, the relaxed ratio reaches 1")
    return "not with every cell each column may take"


def holds(check, *args) -> bool:
    """Whether ``check(*args)`` passes (raises no Wrong)."""
    try:
        check(*args)
    except Wrong:
        return False
    return True


def _largest(col: Column) -> Fraction:
    (x, cap), (y, top) = col.up, col.down
    best = max((g * (x + cap) / (y - top) for g, _ in col.bases), default=Fraction(0))
    return max([best] + [r for r, _ in col.options])


def fewer(pairs: list, cells: int) -> str:
    """Check that no plan of fewer than ``cells`` cells answers every pair of ``pairs``.

    Each pair (C, columns, strict) asks whether its ratio C * prod_j factor_j reaches 1
    (passes 1 when strict), its columns as ``Column`` says; all pairs share their columns'
    x sides (the same label's cells raise them), and their other cells are their own.
    ``needed`` gives a number of cells that no plan answering them all can do with less:
    first with its quick relaxation, then its tight one, each in floats rounded up (which
    can only lower it), and last in exact fractions.
    """
    if cells == 0:
        return "nothing to show"
    for tight, exact in ((False, False), (True, False), (True, True)):
        if needed(pairs, cells - 1, tight, exact) >= cells:
            return "water-filling and a knapsack over the columns"
    raise Wrong(f"the relaxation is answered with {cells - 1} cells")


def needed(pairs: list, B: int, tight: bool = True, exact: bool = False) -> int:
    """A lower bound on the cells a plan needs to answer every pair (B + 1: more than B).

    A column's factor is at most (x'_j + u_j) * h_j, where h_j = g / (y - v) (regular) or
    r / x'_j (an option, as r <= (r / x')(x' + u)), and x' = x; where x is 0 (alpha 0) the
    regular factor is 0 until one cell raises it, so x' = 1, that first cell is charged to
    the first pair's regular choices (once: the other pairs share it) and u counts the
    cells after it.  A plan puts U cells on the
    shared x sides and V_i on pair i's own, so pair i answered means C_i W(U) D_i(V_i) >= 1
    (> 1 when strict), where

    * W(U) = max prod (x'_j + u_j), sum u_j <= U: water-filling, exact for a product of
      concave logs (raise the smallest first; the design notes' Lemma 2);
    * D_i(V) = max prod h_j over the columns' choices costing V: each 1 / (y - v) is
      log-convex, so a best plan has at most one column with 0 < v < cap (two such
      columns with denominators s <= t: a cell moved from t's to s's gives (s - 1)(t + 1)
      < st, until one is at 0 or cap): ``_knapsack`` over v in {0, cap} and the other
      choices, with one partial column (``tight``), or times the best y / (y - v) of any
      column (quicker, and an upper bound: that column may be used twice);
    * or pair i is answered by zeroing a denominator, for at least its ``zero`` cells.

    So a plan costs at least min over U of U + sum_i V_i(U), V_i(U) the least V (or zero)
    that answers pair i with W(U): that is the bound.  Exact with ``exact``; otherwise in
    floats rounded up (math.nextafter after every operation: an upper bound on every value
    whatever the rounding), so that every V_i, and the bound, can only come out lower.
    """
    ar = _arithmetic(exact)
    first = pairs[0][1]
    lift = _lift(first)
    W = _water([(x, c.up[1] - s) for (x, s), c in zip(lift, first)], B, ar)
    tables = []
    for i, (C, columns, strict) in enumerate(pairs):
        D = _knapsack(columns, [(x, s * (i == 0)) for x, s in lift], B, ar, tight)
        zero = min((c.zero for c in columns if c.zero is not None), default=B + 1)
        tables.append((ar.num(C), D, strict, zero))
    return ar.fewest(tables, W, B)


def _lift(columns: list) -> list:
    """Per column of the first pair: (x', the cells charged first).

    x' is x, or 1 after one cell where x is 0.
    """
    return [(x, 0) if x > 0 else (Fraction(1), 1) for x, _ in (c.up for c in columns)]


class _Exact:
    """Exact fractions, in lists."""

    num = staticmethod(lambda x: x)
    mul = staticmethod(lambda a, b: a * b)
    scale = staticmethod(lambda values, h: [a * h for a in values])
    zeros = staticmethod(lambda n: [0] * n)
    full = staticmethod(lambda n, x: [x] * n)
    rising = staticmethod(lambda a: list(itertools.accumulate(a, max)))
    larger = staticmethod(lambda a, b: list(map(max, a, b)))

    @classmethod
    def raise_to(cls, dst: list, lo: int, src: list, h) -> None:
        """dst[V] = max(dst[V], src[V - lo] * h) for V >= lo."""
        dst[lo:] = map(max, dst[lo:], cls.scale(src[: len(dst) - lo], h))

    @classmethod
    def spread(cls, dst: list, src: list, h: list, lo: int, hi: int) -> None:
        """dst[V] = max(dst[V], src[V - v] * h[v]) for lo <= v < hi, V >= v."""
        for v in range(lo, hi):
            cls.raise_to(dst, v, src, h[v])

    @classmethod
    def ratios(cls, g, y, lo: int, hi: int) -> list:
        """Give g / (y - v) for lo <= v < hi, as ``quotients`` of integers."""
        g, y = Fraction(g), Fraction(y)
        a = g.numerator * y.denominator
        return cls.quotients(
            [a] * (hi - lo),
            [g.denominator * (y.numerator - v * y.denominator) for v in range(lo, hi)],
        )

    @classmethod
    def quotients(cls, a: list, b: list) -> list:
        """Give a_i / b_i of integers."""
        return [cls.num(Fraction(x, y)) for x, y in zip(a, b)]

    @classmethod
    def fewest(cls, tables: list, W: list, B: int) -> int:
        """Give the fewest cells of ``needed``'s tables.

        min(B + 1, min over U of U + sum_i min(zero_i, V_i(U))), V_i(U) the least V <= B - U
        with C_i W(U) D_i(V) >= 1 (> 1 when strict), else B - U + 1.
        """
        best = B + 1
        for U in range(B + 1):
            total = U
            for C, D, strict, zero in tables:
                value = lambda V: cls.mul(C, cls.mul(W[U], D[V]))  # noqa: E731
                total += min(zero, _least(value, strict, B - U))
                if total >= best:
                    break
            best = min(best, total)
        return best


class _Upward(_Exact):
    """Floats no smaller than the exact values.

    Each result is correctly rounded (IEEE 754), then taken one step up (even past an
    overflow, to inf, or an underflow, above 0).
    """

    @staticmethod
    def num(x) -> float:
        try:
            return math.nextafter(float(x), math.inf)
        except OverflowError:
            return math.inf

    mul = staticmethod(lambda a, b: math.nextafter(a * b, math.inf))
    scale = staticmethod(lambda values, h: [math.nextafter(a * h, math.inf) for a in values])


class _UpwardArrays(_Upward):
    """``_Upward`` with its tables in numpy arrays, where numpy is installed.

    The same IEEE operations, one array at a time: the same values, bit for bit.
    """

    zeros = staticmethod(lambda n: _np.zeros(n))
    full = staticmethod(lambda n, x: _np.full(n, x))
    rising = staticmethod(lambda a: _np.maximum.accumulate(a))
    larger = staticmethod(lambda a, b: _np.fmax(a, b))

    @staticmethod
    def raise_to(dst, lo: int, src, h) -> None:
        """As ``_Exact.raise_to``.

        fmax keeps dst where a product is NaN (0 * inf), as Python's max(dst, nan) does.
        """
        with _np.errstate(over="ignore", invalid="ignore"):
            up = _np.nextafter(src[: len(dst) - lo] * h, _np.inf)
        _np.fmax(dst[lo:], up, out=dst[lo:])

    @staticmethod
    def spread(dst, src, h, lo: int, hi: int) -> None:
        """As ``_Exact.spread``: the shifted products a block of v at a time.

        Row v of a block is src shifted right by v, NaN in front (fmax passes over NaN, as
        ``raise_to`` leaves those V alone).  Each product is taken up after the block's
        largest is found: the step up is increasing, so it gives the same value.
        """
        n = len(dst)
        pad = _np.concatenate([_np.full(hi, _np.nan), src[:n]])
        shifted = _np.lib.stride_tricks.sliding_window_view(pad, n)  # row k: shifted by hi - k
        step = max(1, (1 << 20) // n)
        for a in range(lo, hi, step):
            v = _np.arange(a, min(hi, a + step))
            with _np.errstate(over="ignore", invalid="ignore"):
                up = shifted[hi - v]
                up *= h[v, None]
                top = _np.nextafter(_np.fmax.reduce(up, axis=0), _np.inf)
            _np.fmax(dst, top, out=dst)

    @classmethod
    def quotients(cls, a: list, b: list) -> list:
        """As ``_Exact.quotients``, as Python floats.

        One float division each where the integers are positive and below 2**53 (exact as
        floats: one correctly rounded division, as ``Fraction.__float__``).
        """
        if not a or min(min(a), min(b)) <= 0 or max(max(a), max(b)) >= 1 << 53:
            return super().quotients(a, b)
        return _np.nextafter(_np.array(a, float) / _np.array(b, float), _np.inf).tolist()

    @staticmethod
    def fewest(tables: list, W: list, B: int) -> int:
        """As ``_Exact.fewest``: every U's binary search at once, the same midpoints."""
        U = _np.arange(B + 1)
        W, total = _np.asarray(W, dtype=float), U.copy()
        for C, D, strict, zero in tables:
            lo, hi = _np.zeros(B + 1, dtype=_np.int64), B - U + 1
            while (open_ := lo < hi).any():
                mid = (lo + hi) // 2
                with _np.errstate(over="ignore", invalid="ignore"):
                    at = _np.nextafter(W * D[_np.minimum(mid, B)], _np.inf)
                    v = _np.nextafter(C * at, _np.inf)
                reached = (v > 1) | ((v == 1) & (not strict))
                hi = _np.where(open_ & reached, mid, hi)
                lo = _np.where(open_ & ~reached, mid + 1, lo)
            total += _np.minimum(zero, lo)
        return int(min(B + 1, total.min()))


def _arithmetic(exact: bool):
    """Exact fractions, or upward floats (in arrays where numpy is installed)."""
    if exact:
        return _Exact
    return _Upward if _numpy() is None else _UpwardArrays


def _numpy():
    """Give numpy where installed, None without it.

    It is imported when a bound first needs it, only to go faster: every check runs with the
    standard library alone.
    """
    global _np
    if _np is False:
        try:
            import numpy

            _np = numpy
        except ImportError:
            _np = None
    return _np


def _least(value, strict: bool, top: int) -> int:
    """Find the least V <= top with value(V) >= 1 (> 1 when strict), or top + 1.

    ``value`` is non-decreasing in V: a binary search.
    """
    lo, hi = 0, top + 1
    while lo < hi:
        mid = (lo + hi) // 2
        v = value(mid)
        if v > 1 or (v == 1 and not strict):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _water(sides: list, B: int, ar) -> list:
    """W(U), U = 0..B: the largest prod (x_j + u_j), u_j <= cap_j, sum u_j <= U.

    The smallest x is raised first (x on a common denominator q: integers p = q x); each
    raise multiplies W by (x + 1) / x = (p + q) / p.
    """
    q = math.lcm(*(Fraction(x).denominator for x, _ in sides))
    heap = [(int(x * q), j) for j, (x, cap) in enumerate(sides) if cap > 0]
    heapq.heapify(heap)
    used, raised = [0] * len(sides), []
    while len(raised) < B and heap:
        p, j = heapq.heappop(heap)
        raised.append(p)
        used[j] += 1
        if used[j] < sides[j][1]:
            heapq.heappush(heap, (p + q, j))
    out = [ar.num(math.prod(x for x, _ in sides))]
    for f in ar.quotients([p + q for p in raised], raised):
        out.append(ar.mul(out[-1], f))
    return out + [out[-1]] * (B + 1 - len(out))


def _knapsack(columns: list, lift: list, B: int, ar, tight: bool) -> list:
    """D(V), V = 0..B: the largest product of one choice h_j per column costing V at most.

    ``lift``: per column (x', the cells charged first to its regular choices).

    F0 without a partial column, F1 with one (``tight``); else times ``_partial``'s bound.
    """
    F0, F1 = ar.full(B + 1, ar.num(1)), ar.zeros(B + 1)
    for (x, first), c in zip(lift, columns):
        y, top = c.down
        bases = [(g, w + first) for g, w in c.bases] if c.up[0] > 0 or c.up[1] > 0 else []
        choices = [(g / y, w) for g, w in bases]
        choices += [(g / (y - top), w + top) for g, w in bases if top]
        choices += [(r / x, w) for r, w in c.options]
        new0, new1 = ar.zeros(B + 1), ar.zeros(B + 1)
        for h, w in ((ar.num(h), w) for h, w in choices if w <= B):
            ar.raise_to(new0, w, F0, h)
            if tight:
                ar.raise_to(new1, w, F1, h)
        for g, w in bases if tight else ():
            end = min(top, B + 1 - w)  # the partial amounts p < end
            if end > 1:
                P = ar.zeros(B + 1)
                P[w + 1 : w + end] = ar.ratios(g, y, 1, end)
                ar.spread(new1, F0, P, w + 1, w + end)
        F0, F1 = ar.rising(new0), ar.rising(new1)
    return ar.larger(F0, F1) if tight else _partial(F0, columns, B, ar)


def _partial(F, columns: list, B: int, ar):
    """D(V) <= max(F(V), F(V - v) * P(v)), P(v) the largest y / (y - v) of any column."""
    P, done = ar.zeros(B + 1), 1
    for y, top in sorted(c.down for c in columns if c.bases):
        # y / (y - v) falls as y grows: the least y of the columns reaching v gives P(v)
        end = min(top, B + 1)
        if end > done:
            P[done:end] = ar.ratios(y, y, done, end)
            done = end
    out = ar.larger(F, F)  # a copy
    ar.spread(out, F, P, 1, done)
    return out


def blanking(view: View, K: str, l: str) -> tuple:
    """(C, columns) of the question "does a blanking let l reach K", S(l) >= S(K), relaxed.

    For a complete table; factor_j = (hi_l + alpha)(N_K + alpha d)/((lo_K + alpha)(N_l +
    alpha d)), C = N_l/N_K, d the column's domain size after the blanking.  A blanking
    does one of three things to a used column (t_j in its domain, d >= 2): it keeps t_j
    and another value (regular: hi_l = l's t_j cells plus the b of l's other cells blanked,
    lo_K = K's t_j cells less the a blanked; removing r other values costs at least the r
    smallest counts of cells not l's), it removes every other value (forced: every factor
    is 1), or it removes t_j (every count 0: at alpha 0 every support is 0 and l reaches
    K).  Each is an option here at a cost no larger than the blanking's and a factor no
    smaller, so every blanking's ratio and cost are bounded as ``needed`` requires.  At
    alpha 0, blanking K's a = all t_j cells zeroes K's support (l reaches it): ``zero``.
    """
    s, a = view.state, view.alpha
    C, columns = Fraction(s.N[l], s.N[K]), []
    g = lambda d: (s.N[K] + a * d) / (s.N[l] + a * d)  # noqa: E731
    for j in view.used:
        t, n = view.t[j], {v: s.cells(j, v) for v in view.domains[j]}
        d, rest = len(n), sorted(c for v, c in n.items() if v != t)
        if not view.seen[j]:  # every count is 0 (at alpha 0 the point is not robust)
            removed = tuple((g(d - r), sum(rest[:r])) for r in range(d))
            columns.append(Column((), options=removed))
            continue
        if d == 1:  # forced: no blanking changes a factor (removing t_j empties the column)
            columns.append(Column(((Fraction(1), 0),), (Fraction(1), 0)))
            continue
        kt, lt = s.obs[j][K].get(t, 0), s.obs[j][l].get(t, 0)
        waste = sorted(c - s.obs[j][l].get(v, 0) for v, c in n.items() if v != t)
        bases = tuple((g(d - r), sum(waste[:r])) for r in range(d - 1))
        others = sum(c for v, c in s.obs[j][l].items() if v != t)
        options = [(Fraction(1), sum(rest))]  # forced
        if a:
            options += [(g(d - 1 - r), n[t] + sum(rest[:r])) for r in range(d - 1)]
            down = (kt + a, kt - (n[t] == kt))
        else:
            down = (Fraction(kt), max(kt - 1, 0))
        column = Column(bases, (lt + a, others), down, tuple(options), None if a else kt)
        columns.append(column)
    return C, columns


def cleaning(view: View, truth: list, K: str, l: str) -> tuple:
    """(C, columns) of the question "does a cleaning make K beat l", S(K) > S(l), relaxed.

    ``truth[j][x][v]``: label x's missing cells in column j whose true value is v.
    factor_j = (lo_K + alpha)(N_l + alpha d)/((hi_l + alpha)(N_K + alpha d)), C = N_K/N_l.
    A cleaning sets missing cells to their true values: lo_K = K's t_j cells plus the a of
    K's cleaned cells whose truth is t_j, hi_l = l's t_j cells and missing cells less the b
    of l's cleaned cells whose truth is another value; values it brings in can only grow
    the domain, to at most every value observed or true (d's two ends bound the factor, as
    it is monotone in d), make t_j seen, or end a domain {t_j} (forced: every factor 1);
    t_j never true nor observed: every count 0 (at alpha 0 every support 0: K never beats
    l).  Each case is a plan here costing no more and with no smaller a factor (the
    cells that bring values in are not charged).  At alpha 0, cleaning every one of l's
    missing cells when none holds t_j zeroes l's support: ``zero`` (K may then beat l).
    """
    s, a = view.state, view.alpha
    C, columns = Fraction(s.N[K], s.N[l]), []
    g = lambda d: (s.N[l] + a * d) / (s.N[K] + a * d)  # noqa: E731
    for j in view.used:
        t, true = view.t[j], truth[j]
        seen = set(view.domains[j])
        every = seen | {v for x in true.values() for v, c in x.items() if c}
        G = max(g(len(seen)), g(len(every)))
        if t not in every:  # t_j never in the domain: every count is 0
            columns.append(Column((), options=((G, 0),) if a else ()))
            continue
        kt, lt = s.obs[j][K].get(t, 0), s.obs[j][l].get(t, 0)
        cut = sum(c for v, c in true.get(l, {}).items() if v != t)
        y = lt + s.miss[j][l]
        options = ((Fraction(1), 0),) if seen <= {t} else ()
        options += ((G, 0),) if a and t not in seen else ()
        up = (kt + a, true.get(K, {}).get(t, 0))
        if a or y - cut > 0:
            column = Column(((G, 0),), up, (y + a, cut), options)
        elif y == 0:  # l counts 0 already: nothing shows a bound through this rival
            column = Column(((G, 0),), up, (Fraction(1), 0), options, 0)
        else:
            column = Column(((G, 0),), up, (Fraction(y), cut - 1), options, cut)
        columns.append(column)
    return C, columns


# ---------------------------------------------------------------------------------------
# the certificate checked, and what is printed


def question(cert: dict) -> dict:
    """Say what the certificate answers.

    The command, each file (path, SHA-256, data rows), the label, alpha, the reading
    options and the test points.
    """
    inputs, reading = cert["inputs"], cert["inputs"]["reading"]
    return {
        "command": cert["command"],
        "files": {role: dict(spec) for role, spec in inputs["files"].items()},
        "label": inputs["label"],
        "alpha": inputs["alpha"],
        "reading": dict(reading),
        "test_indices": inputs.get("test_indices", "all"),
        "written_by": f"nbcert {inputs['nbcert']}",
    }


def _said(q: dict) -> list:
    """The question as the first lines of the text output."""
    r = q["reading"]
    files = ", ".join(
        f"{role} {spec['path']} ({spec['rows']} rows, sha256 {spec['sha256'][:12]}…)"
        for role, spec in q["files"].items()
    )
    sizes = sorted({len(b["names"]) for b in r["bins"].values()})
    binned = f"{_few(list(r['bins']))} ({'/'.join(map(str, sizes))} bins)" if sizes else "none"
    points = q["test_indices"]
    return [
        f"question: {q['command']}, written by {q['written_by']}",
        f"  files: {files}",
        f"  label {q['label']!r}, alpha {q['alpha']}, test points: "
        + (points if points == "all" else _few(list(map(str, points)))),
        f"  read with separator {r['sep']!r}, encoding {r['encoding']}, decimal mark "
        f"{r['decimal']!r}, missing: {', '.join(map(repr, r['missing'])) or 'empty fields'}, "
        f"id column: {r['id'] if r['id'] is not None else 'none'}",
        f"  numbers: {_few(r['numeric']) if r['numeric'] else 'none'}; binned: {binned}",
    ]


def _few(names: list) -> str:
    """Names listed, the first three and how many more."""
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _checked(path: str) -> tuple:
    cert = load(path)
    claims = Checker(cert, os.path.dirname(os.path.abspath(path))).run()
    return question(cert), claims


def check(path) -> list:
    """Check a certificate.

    Parameters
    ----------
    path : str or path
        The certificate (JSON) that ``--certificate`` or ``nbcert.certificate`` wrote.

    Returns
    -------
    list of Claim
        One per claim: ``(claim, ok, message)``; ``ok`` True when it holds, False when it
        does not (``message`` says what is wrong).

    Raises
    ------
    Unreadable
        The certificate or one of its files cannot be read as needed (a changed or missing
        file, another format, a malformed or unknown field); its message is one line.
    """
    return _checked(os.fspath(path))[1]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:2000] or "an empty message"


def main(argv=None, prog: str = "verify.py") -> int:
    """Check the certificate named by ``argv``: the question, one line per claim, the status.

    0: every claim holds; 1: one does not; 2: the certificate or a file cannot be read;
    3: the checker failed (a bug).  ``--json``: one JSON object on stdout instead.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    as_json = "--json" in args
    rest = [a for a in args if a != "--json"]
    if len(rest) != 1 or rest[0].startswith("-"):
        sys.stderr.write(f"usage: {prog} CERTIFICATE [--json]\n")
        return 2
    try:
        q, claims = _checked(rest[0])
        status, error = (1 if not all(c.ok for c in claims) else 0), None
    except Unreadable as e:
        status, error = 2, _one_line(e)
    except (MemoryError, RecursionError) as e:
        status, error = 2, f"{rest[0]}: too large to check here ({type(e).__name__})"
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except Exception as e:  # a bug: said, and never the status of a check that ran
        status, error = 3, f"the checker failed ({type(e).__name__}: {_one_line(e)}); a bug"
    if error is not None:
        sys.stderr.write(f"{prog}: error: {error}\n")
        if as_json:
            sys.stdout.write(json.dumps({"status": status, "error": error}) + "\n")
        return status
    if as_json:
        out = {
            "status": status,
            "question": q,
            "claims": [{"claim": c.claim, "holds": c.ok, "why": c.message} for c in claims],
        }
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return status
    lines = _said(q) + [
        f"{'ok  ' if c.ok else 'FAIL'}  {c.claim}" + (f": {c.message}" if c.message else "")
        for c in claims
    ]
    failed = sum(not c.ok for c in claims)
    summary = f"{len(claims) - failed} claims hold" + (f", {failed} fail" if failed else "")
    lines.append(f"{prog}: {summary}")
    sys.stdout.write("\n".join(lines) + "\n")
    return status


__all__ = ["check", "main", "question", "Claim", "Unreadable", "Wrong", "FORMAT", "VERSION"]

if __name__ == "__main__":
    sys.exit(main())
