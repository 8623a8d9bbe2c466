#!/usr/bin/env python3
"""Check an nbcert certificate: ``python3 verify.py CERT`` (``nbcert verify CERT`` runs this).

This file is the whole checker and imports only Python's standard library: copy it alone.
It reads the certificate's files again (refusing any whose SHA-256 differs), derives the
domains and counts with its own code, and checks every claim in exact rational arithmetic.
It prints one line per claim (``ok``; ``FAIL`` and what is wrong; ``--`` and why a claim is
not checked) and exits 0 only if every checked claim holds (1 if one fails, 2 if the
certificate or its files cannot be read).

The model.  A feature's *domain* is its observed training values; a *world* fills every
missing cell from its column's domain.  For a test row t, label l's support is

    S(l) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha * delta_j)

over the features j whose test cell is not blank (a blank one is left out); c_lj counts
l's rows holding t_j, delta_j is the domain's size.  A world predicts l when S(l) is the
unique largest; t is *robust* when every world predicts the same label.

Why each check suffices.

1. *Extremes.*  S(l) depends only on l's cells, and only on how many hold t_j; c_lj takes
   every integer from lo to hi (t_j not in the domain: 0; domain {t_j}: observed +
   missing; else from the observed cells holding t_j to those plus the missing ones),
   independently per label and column, and each factor grows with c_lj.  So l's smallest
   and largest supports are at lo and hi (``View.extremes``).
2. *certify.*  A possible label has a *witness world*, filled in and evaluated here.  A
   label said not to be possible has a *bound* smax(l) <= smin(k): S(l) <= S(k) in every
   world.  Robust with label k: smax(l) < smin(k) for every other l.  Not robust: two
   worlds with different winners, or one with a tie.  "No world ties": the count vectors
   of the labels that can reach the top are listed, and no two supports meet there.
3. *poison.*  The cells are blanked (observed ones, no column emptied, domains recomputed)
   and worlds of the blanked table show the row not robust.  "The fewest" (OP) is checked
   by ``fewest_blanks``, whose docstring gives the argument.
4. *poison --together.*  Worlds for every row of the one blanked table; the lower bound is
   a row's own minimum (3.), or a search of every blanking from there up to it.
5. *clean --truth.*  The cells are missing ones, set to the truth's values; on that table
   bounds show the row robust (2.).  "The fewest" and "no cleaning does" are checked by
   trying every smaller cleaning where there are at most LIMIT, else not checked.  All rows
   together and the policy's path are about the rows some cleaning makes robust: the rows
   set aside (``excluded``) must be exactly those whose own result says none does.

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
import csv
import gzip
import hashlib
import io
import itertools
import json
import math
import os
import re
import sys
from fractions import Fraction
from typing import NamedTuple

FORMAT, VERSION = "nbcert certificate", 1
LIMIT = 20_000  # the most configurations, blankings or cleanings one search tries
TIE_VECTORS = 4096  # the most count vectors of one label listed to rule out a tie
NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*", re.ASCII)
INTEGER = re.compile(r"\s*[+-]?\d+\s*", re.ASCII)


class Unreadable(Exception):
    """The certificate or one of its files cannot be read as needed (exit status 2)."""


class Wrong(Exception):
    """A claim does not hold, or its evidence is missing or malformed."""


class Claim(NamedTuple):
    """One line of the check: what is claimed, whether it holds (None: not checked), why."""

    claim: str
    ok: bool | None
    message: str = ""


# ---------------------------------------------------------------------------------------
# reading the files


def _file(spec, role: str, base: str) -> tuple:
    """Read a certificate's file, its SHA-256 checked.

    (path, bytes) of a certificate's file, its SHA-256 checked; a relative path is
    looked for where the checker runs, then beside the certificate.
    """
    given = spec.get("path") if isinstance(spec, dict) else None
    if not isinstance(given, str):
        raise Unreadable(f"the certificate names no {role} file")
    path = given if os.path.isabs(given) or os.path.exists(given) else os.path.join(base, given)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Unreadable(f"{given}: cannot read the {role} file ({e.strerror or e})") from None
    if hashlib.sha256(data).hexdigest() != spec.get("sha256"):
        raise Unreadable(f"{given}: the {role} file has changed (its SHA-256 differs)")
    return path, data


def _records(path: str, data: bytes, reading: dict) -> tuple:
    """(header, rows) of a file: each field as text, None where missing."""
    lower = path.lower()
    if lower.endswith((".parquet", ".parq", ".pq")):
        return _parquet(path)
    if lower.endswith((".zst", ".lz4", ".br")):
        raise Unreadable(f"{path}: this checker reads .csv, .csv.gz and .csv.bz2 files only")
    data = gzip.decompress(data) if lower.endswith(".gz") else data
    data = bz2.decompress(data) if lower.endswith(".bz2") else data
    encoding = reading.get("encoding") or "utf-8"
    try:
        text = data.decode("utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding)
    except (UnicodeDecodeError, LookupError) as e:
        raise Unreadable(f"{path}: cannot decode it as {encoding} ({e})") from None
    sep = reading.get("sep") or ","
    rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=sep) if r]
    if not rows:
        raise Unreadable(f"{path}: the file is empty")
    header, body = rows[0], rows[1:]
    if len(header) > 1:  # a line of spaces is no record (in a one-column table it is a value)
        body = [r for r in body if not (len(r) == 1 and not r[0].strip())]
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise Unreadable(f"{path}: data row {i} has {len(r)} fields, not {len(header)}")
    missing = {""} | set(reading.get("missing") or [])
    return header, [[None if v in missing else v for v in r] for r in body]


def _parquet(path: str) -> tuple:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise Unreadable(f"{path}: reading Parquet needs pyarrow, which is not installed") from None
    table = pq.read_table(path)
    columns = [table.column(c).to_pylist() for c in table.column_names]
    return list(table.column_names), [list(r) for r in zip(*columns)]


def _decimal(value, mark):
    """A number written with the decimal mark ``mark`` (``0,93``), written with a point."""
    if mark in (None, ".") or not isinstance(value, str):
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
        value = int(value) if INTEGER.fullmatch(value) else float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return value
    return None


class Table:
    """A table as this checker reads it.

    A table as this checker reads it: ``features`` (the header without the label),
    ``y`` (each row's label), ``cols[j][r]`` (a category, None where missing), which columns
    are ``numeric`` and which of them are binned (``numbers``: those whose categories are
    numbers).
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
            raise Unreadable(f"{where} holds {value!r}, not a number (the column is binned)")
        return bins["names"][bisect.bisect_right(bins["edges"][1:-1], float(x))]
    if numeric:  # a test value that is no number is in no numeric domain
        x = _number(value)
        return str(value) if x is None else x
    return value if isinstance(value, str) else str(value)


def read_table(cert: dict, role: str, base: str, numeric: list | None = None) -> Table:
    """Read a file of the certificate as a Table.

    A file of the certificate as a Table.  ``numeric``: which columns are numeric
    (default: as this file's values say, which the certificate must say too).
    """
    inputs = cert["inputs"]
    reading, label, mark = inputs["reading"], inputs["label"], inputs["reading"].get("decimal")
    path, data = _file(inputs["files"].get(role), role, base)
    header, rows = _records(path, data, reading)
    if label not in header:
        raise Unreadable(f"{path}: no label column {label!r}")
    if any(r[header.index(label)] is None for r in rows):
        raise Unreadable(f"{path}: a row has no label")
    y = [str(_decimal(r[header.index(label)], mark)) for r in rows]
    features = [h for h in header if h != label]
    raw = [[_decimal(r[header.index(f)], mark) for r in rows] for f in features]
    bins = reading.get("bins") or {}
    said = set(reading.get("numeric") or []) | set(bins)
    if numeric is None:
        numeric = [
            any(v is not None for v in c) and all(v is None or _number(v) is not None for v in c)
            for c in raw
        ]
    for f, mine in zip(features, numeric):
        if mine != (f in said):
            how = "numbers here, text" if mine else "text here, numbers"
            raise Unreadable(f"{path}: column {f!r} reads as {how} in the certificate")
    cols = [
        [_category(v, num, bins.get(f), f"{path}: column {f!r}") for v in c]
        for f, num, c in zip(features, numeric, raw)
    ]
    return Table(features, y, cols, numeric, bins)


def read_test(cert: dict, base: str, train: Table) -> list:
    """The test file's rows as categories of the training table's columns (None: blank)."""
    reading = cert["inputs"]["reading"]
    path, data = _file(cert["inputs"]["files"].get("test"), "test", base)
    header, rows = _records(path, data, reading)
    absent = [f for f in train.features if f not in header]
    if absent:
        raise Unreadable(f"{path}: no feature column {absent[0]!r}")
    bins, mark = reading.get("bins") or {}, reading.get("decimal")
    kinds = list(zip(train.features, train.numeric, [header.index(f) for f in train.features]))
    return [
        [_category(_decimal(r[a], mark), num, bins.get(f), f"{path}: {f!r}") for f, num, a in kinds]
        for r in rows
    ]


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
    """A test row on a state.

    A test row t on a state: its used features (test cell not blank), each with its
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
    """
    fill, counts, used = w["fill"], {}, {table.features[j] for j in view.used}
    if set(fill) - set(view.state.labels) or any(set(c) - used for c in fill.values()):
        raise Wrong("a world fills labels or columns the row's support does not have")
    for l in view.state.labels:
        row = []
        for j in view.used:
            col, m = table.features[j], view.state.miss[j][l]
            entry = fill.get(l, {}).get(col)
            if (entry is None) != (m == 0):
                raise Wrong(f"a world fills {col!r} of label {l} wrongly ({m} cells missing)")
            parts = entry if isinstance(entry, list) else [[entry, m]]
            if m and sum(_part(p, m) for p in parts) != m:
                raise Wrong(f"a world fills {m} cells of label {l} in {col!r} wrongly")
            for value, _ in parts if m else []:
                if not _same_kind(value, table.numbers[j]) or value not in view.domains[j]:
                    raise Wrong(f"a world puts {value!r} in {col!r}, not in its domain")
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


def _part(part, m: int) -> int:
    if not (isinstance(part, list) and len(part) == 2 and type(part[1]) is int and part[1] > 0):
        raise Wrong(f"a world's entry {part!r} is not [value, cells]")
    return part[1]


def _same_kind(value, numeric: bool) -> bool:
    """A numeric column's value is a JSON number, any other's a string."""
    if numeric:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def bound(view: View, b: dict, table: Table) -> tuple:
    """Check a bound smax(l) <= smin(k).

    (l, k, strict) of a bound smax(l) <= smin(k) (strict: <), checked: its counts are
    l's largest and k's smallest (check 1), its supports exact.
    """
    l, k, strict = b["label"], b["by"], b["strict"]
    if {l, k} - set(view.state.labels) or l == k:
        raise Wrong(f"a bound of {l} by {k} names labels the table does not have")
    names = [table.features[j] for j in view.used]
    for side, label, at in (("largest", l, 1), ("smallest", k, 0)):
        counts = view.extremes(label)[at]
        if b[side]["counts"] != dict(zip(names, counts)):
            raise Wrong(f"{label}'s {side} counts are {dict(zip(names, counts))}")
        if Fraction(b[side]["support"]) != view.support(label, counts):
            raise Wrong(f"{label}'s {side} support is {view.support(label, counts)}")
    hi, lo = view.smax(l), view.smin(k)
    if hi > lo or (strict and hi == lo):
        raise Wrong(f"{l}'s largest support {hi} is not below {k}'s smallest {lo}")
    return l, k, strict


def robust(view: View, label, bounds: list, table: Table) -> str:
    """Check that every other label stays strictly below ``label``: the row is robust."""
    below = {l for l, k, strict in (bound(view, b, table) for b in bounds) if k == label and strict}
    left = [l for l in view.state.labels if l != label and l not in below]
    if left:
        raise Wrong(f"nothing shows {left[0]} strictly below {label}")
    return f"{len(below)} rival{'s' * (len(below) != 1)} below its smallest support"


def not_robust(view: View, worlds: list, table: Table) -> str:
    """Check worlds that show the row not robust: two winners differ, or a tie."""
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
        if self.alpha < 0:
            raise Unreadable("alpha is negative")
        self.claims: list = []

    def add(self, claim: str, ok: bool | None, message: str = "") -> None:
        self.claims.append(Claim(claim, ok, message))

    def checked(self, claim: str, check) -> bool:
        """Check one claim.

        The claim holds if ``check()`` returns (its message); it fails with what is
        wrong if it raises Wrong, or on malformed evidence; it is not checked if the
        check returns None (a search larger than LIMIT).
        """
        try:
            said = check()
        except Wrong as e:
            self.add(claim, False, str(e))
            return False
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as e:
            self.add(claim, False, f"malformed ({type(e).__name__}: {e})")
            return False
        self.add(claim, None if said is None else True, said or f"more than {LIMIT} to search")
        return said is not None

    def run(self) -> list:
        runs = {
            "certify": self.certify,
            "poison": self.poison,
            "poison --together": self.together,
            "clean --truth": self.clean,
        }
        command = self.cert.get("command")
        if command not in runs:
            raise Unreadable(f"unknown command {command!r}")
        runs[command]()
        return self.claims

    def start(self, complete: bool = False) -> State:
        self.train = read_table(self.cert, "train", self.base)
        self.test = read_test(self.cert, self.base, self.train)
        state = State(self.train)
        if complete and any(n for col in state.miss for n in col.values()):
            raise Unreadable("poisoning is about a complete table; this one has blanks")
        return state

    def view(self, state: State, i: int) -> View:
        return View(state, self.test[i], self.alpha)

    def answered(self) -> list:
        """List the test rows the certificate answers.

        The test rows the certificate answers: every one, unless its inputs list some
        (``test_rows``: a program that certified a few rows says which).
        """
        every = list(range(len(self.test)))
        said = self.cert["inputs"].get("test_rows", every)
        if not isinstance(said, list) or not set(said) <= set(every) or len(set(said)) != len(said):
            raise Unreadable("its test_rows are not distinct rows of the test file")
        return said

    def rows(self, keys: set):
        """List the results whose keys are ``keys``.

        (result, name, test row index, evidence) of each result whose keys are ``keys``
        (and id, evidence); first a claim that they answer each test row once.
        """
        results, every = self.cert["results"], self.answered()
        indices = [r.get("test_index") for r in results if isinstance(r, dict)]
        of = "" if len(every) == len(self.test) else f" listed ({len(every)} of {len(self.test)})"
        self.add(
            f"the results answer each of the {len(every)} test rows{of} once", indices == every
        )
        for r in results:
            if not isinstance(r, dict) or set(r) - {"id", "evidence"} != keys:
                self.add("a result", False, f"its keys are not {', '.join(sorted(keys))}")
            elif r["test_index"] in every:
                name = f"test row {r['test_index']}" + (f" ({r['id']})" if r.get("id") else "")
                yield r, name, r["test_index"], r.get("evidence") or {}

    # -- certify

    def certify(self) -> None:
        state = self.start()
        for r, name, i, ev in self.rows({"test_index", "robust", "label", "possible_labels",
                                         "tie_possible"}):  # fmt: skip
            view = self.view(state, i)
            if r["robust"] is True:
                claim = f"{name}: robust, every world predicts {r['label']}"
                self.checked(claim, lambda: self.robust_row(view, r, ev))
                continue
            shown = ", ".join(map(str, r["possible_labels"])) or "none (every world ties)"
            claim = f"{name}: not robust; possible labels {shown}"
            self.checked(claim, lambda: self.possible(view, r, ev))
            if r["tie_possible"] is not None:
                said = "a world ties" if r["tie_possible"] else "no world ties"
                self.checked(f"{name}: {said}", lambda: self.tie(view, r, ev))

    def robust_row(self, view: View, r: dict, ev: dict) -> str:
        if r["possible_labels"] != [r["label"]] or r["tie_possible"] is not False:
            raise Wrong("a robust row's only possible label is its label, and no world ties")
        return robust(view, r["label"], ev["bounds"], self.train)

    def possible(self, view: View, r: dict, ev: dict) -> str:
        labels = r["possible_labels"]
        if r["robust"] is not False or r["label"] is not None or len(set(labels)) != len(labels):
            raise Wrong("not robust means no label, and the possible labels listed once")
        seen = [world(view, w, self.train) for w in ev["worlds"]]
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
        if r["tie_possible"] is True:
            ties = [world(view, w, self.train) for w in ev["worlds"] if "tie" in w]
            if not ties:
                raise Wrong("no tied world given")
            return f"{', '.join(ties[0][1])} tie in a world"
        if ev.get("no_tie") != "listed" or view.ties() is not False:
            raise Wrong("listing the top labels' supports does not rule out a tie")
        return "the supports of the labels that reach the top listed: none meet there"

    # -- answers with cells: poison, poison --together, clean --truth

    def changed(self, state: State, cells: list, blank: bool) -> State:
        """Blank or clean ``cells`` of a state.

        The state with ``cells`` ({"row", "column"}, distinct) blanked (observed ones;
        every column keeps a value) or cleaned (missing ones set to the truth).
        """
        out, done = state.copy(), set()
        for c in cells:
            r, f = c["row"], c["column"]
            if (r, f) in done or f not in self.train.features or r not in range(len(self.train.y)):
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

    def bounded(self, part: dict, what: str, search) -> None:
        """Check a lower bound on the fewest cells.

        A lower bound on the fewest cells (and "optimal"): no larger than the answer's
        cells, equal to them when optimal, and checked by ``search(bound)`` (None: no
        number of cells works at all).
        """
        n, low, optimal = part["num_cells"], part["lower_bound"], part["optimal"]
        if low is None and not optimal:
            return
        if n is not None and (low is None or low > n or (optimal and low != n)):
            self.add(f"lower bound {low}", False, f"it does not fit an answer of {n} cells")
            return
        bound = None if n is None and optimal else low
        noun, verb = what
        said = f"no {noun}" if bound is None else f"no {noun} of fewer than {bound} cells"
        self.checked(f"{said} {verb}", lambda: search(bound))

    def poison(self) -> None:
        state = self.start(complete=True)
        self.dirty = self.train
        for r, name, i, ev in self.rows({"test_index", "num_cells", "cells", "status"}):
            n, status = r["num_cells"], r["status"]
            if status in ("poisoned", "already_nonrobust"):
                said = f"blanking {n} cells makes it" if status == "poisoned" else "already"
                ok = self.checked(
                    f"{name}: {said} not robust", lambda: self.blanked(state, r, i, ev)
                )
                if ok and status == "poisoned":
                    self.fewest(state, i, n, ev.get("minimal"), name)
            elif status == "impossible" and n is None and not r["cells"]:
                self.fewest(state, i, None, ev.get("minimal"), name)
            elif status == "none_found" and n is None and not r["cells"]:
                self.add(f"{name}: no blanking claimed", None, "none found by a randomized search")
            else:
                self.add(f"{name}: status {status}", False, f"it does not fit {n} cells")

    def blanked(self, state: State, r: dict, i: int, ev: dict) -> str:
        self.counted(r)
        if (r["status"] == "poisoned") != (r["num_cells"] > 0):
            raise Wrong(f"status {r['status']} with {r['num_cells']} cells")
        after = self.changed(state, r["cells"], blank=True)
        return not_robust(self.view(after, i), ev["after"], self.train)

    def fewest(self, state: State, i: int, k, minimal, name: str) -> None:
        said = "no blanking makes it not robust" if k is None else f"{k} cells are the fewest"
        if not (isinstance(minimal, dict) and minimal.get("proven") is True):
            if k is None:
                self.add(f"{name}: {said}", False, "impossible, but not proven")
            else:
                self.add(f"{name}: minimality not claimed", None, str(minimal.get("by", "")))
            return
        self.checked(f"{name}: {said}", lambda: fewest_blanks(state, self.test[i], k, self.alpha))

    def together(self) -> None:
        state = self.start(complete=True)
        self.dirty = self.train
        keys = {"test_indices", "num_cells", "cells", "status", "method", "optimal",
                "lower_bound", "time_limited"}  # fmt: skip
        results = self.cert["results"]
        if len(results) != 1 or set(results[0]) - {"ids", "evidence"} != keys:
            self.add("the result", False, f"one result, whose keys are {', '.join(sorted(keys))}")
            return
        r, every = results[0], self.answered()
        ev, n, status = r.get("evidence") or {}, r["num_cells"], r["status"]
        self.add(f"the result is about all {len(every)} test rows", r["test_indices"] == every)
        if status in ("poisoned", "already_nonrobust"):
            claim = f"blanking {n} cells makes all {len(every)} test rows not robust"
            if not self.checked(claim, lambda: self.all_blanked(state, r, ev)):
                return
        elif status == "none_found" and n is None and not r["cells"]:
            self.add("no blanking claimed", None, f"none found by {r['method']}, not a proof")
        elif status != "impossible" or n is not None or r["cells"]:
            self.add(f"status {status}", False, f"it does not fit {n} cells")
            return
        src = ev.get("lower_bound") or {}
        what = ("blanking", "makes every row not robust")
        self.bounded(r, what, lambda bound: self.together_bound(state, r, src, bound))

    def all_blanked(self, state: State, r: dict, ev: dict) -> str:
        self.counted(r)
        after = self.changed(state, r["cells"], blank=True)
        if sorted(w["test_index"] for w in ev["after"]) != sorted(r["test_indices"]):
            raise Wrong("worlds are not given for each row once")
        for w in ev["after"]:
            not_robust(self.view(after, w["test_index"]), w["worlds"], self.train)
        return f"worlds for each of the {len(r['test_indices'])} rows"

    def together_bound(self, state: State, r: dict, src: dict, bound):
        """Check a lower bound from one row's own minimum.

        A lower bound from one row's own minimum (k None: that row cannot be made not
        robust), or from that and every blanking between it and the bound.
        """
        if src.get("from") == "single":
            if src["cells"] != bound:
                raise Wrong(f"the bound is {bound}, test row {src['test_index']}'s minimum not")
            return fewest_blanks(state, self.test[src["test_index"]], bound, self.alpha)
        floor = src["floor"]
        if fewest_blanks(state, self.test[floor["test_index"]], floor["cells"], self.alpha):
            points = [self.test[i] for i in r["test_indices"]]
            return few_blankings(state, points, floor["cells"], bound, self.alpha)
        return None

    def clean(self) -> None:
        truth = read_table(self.cert, "truth", self.base)  # nbcert codes the truth's values
        self.dirty = read_table(self.cert, "train", self.base, truth.numeric)
        if self.dirty.features != truth.features or self.dirty.y != truth.y:
            raise Unreadable("the truth's header, rows or labels are not the training table's")
        self.train, self.test, state = truth, read_test(self.cert, self.base, truth), State(truth)
        for j, (dirty, true) in enumerate(zip(self.dirty.cols, truth.cols)):
            for r, (a, b) in enumerate(zip(dirty, true)):
                if a is None:
                    state.move(j, truth.y[r], b, -1)
                elif a != b:
                    where = f"{r}:{truth.features[j]}"
                    raise Unreadable(f"the truth disagrees with the training table at {where}")
        self.groups = [
            (j, truth.y[r], truth.cols[j][r])
            for j, col in enumerate(self.dirty.cols)
            for r, v in enumerate(col)
            if v is None
        ]
        for r, name, i, ev in self.rows({"test_index", "num_cells", "cells", "label"}):
            self.clean_row(state, r, name, i, ev)
        for which in ("together", "path"):
            part = self.cert.get(which)
            if not isinstance(part, dict):
                self.add(which, False, "missing")
            else:
                self.clean_all(state, part, which, part.get("evidence") or {})

    def cleanings(self, state: State, rows: list, k):
        return few_cleanings(state, [self.test[i] for i in rows], k, self.groups, self.alpha)

    def clean_row(self, state: State, r: dict, name: str, i: int, ev: dict) -> None:
        n = r["num_cells"]
        if n is None:
            if r["cells"] or r["label"] is not None:
                self.add(f"{name}: no cleaning makes it robust", False, "cells or a label given")
            else:
                claim = f"{name}: no cleaning makes it robust"
                self.checked(claim, lambda: self.cleanings(state, [i], None))
            return
        claim = f"{name}: cleaning {n} cells makes it robust, label {r['label']}"
        if self.checked(claim, lambda: self.cleaned(state, r, [(i, r["label"], ev["after"])])):
            if n:
                self.checked(
                    f"{name}: {n} cells are the fewest", lambda: self.cleanings(state, [i], n)
                )

    def cleaned(self, state: State, part: dict, proofs: list) -> str:
        """The cells cleaned, each (row, label, its proof) robust on that table."""
        self.counted(part)
        after = self.changed(state, part["cells"], blank=False)
        for i, label, proof in proofs:
            if proof["label"] != label:
                raise Wrong(f"the evidence certifies {proof['label']}, not {label}")
            robust(self.view(after, i), label, proof["bounds"], self.train)
        return f"bounds for each of the {len(proofs)} rows"

    def left(self, state: State, part: dict, proof: dict) -> str:
        """A row not robust after the cells are cleaned: its worlds."""
        self.counted(part)
        after = self.changed(state, part["cells"], blank=False)
        return not_robust(self.view(after, proof["test_index"]), proof["worlds"], self.train)

    def set_aside(self, which: str):
        """List the rows that all rows together and the path are about.

        The rows all rows together and the path are about: every row but those set aside
        (together's ``excluded``), which must be exactly the rows whose own result says no
        cleaning makes them robust (each checked there); None, with a failed claim, when
        they are not.
        """
        every = self.answered()
        said = (self.cert.get("together") or {}).get("excluded", [])
        if not isinstance(said, list):
            said = [None]
        aside = [a.get("test_index") if isinstance(a, dict) else a for a in said]
        never = sorted(r["test_index"] for r in self.cert["results"] if r.get("num_cells") is None)
        if not isinstance(aside, list) or sorted(aside) != never:
            self.add(f"{which}: rows set aside", False, "not the rows no cleaning makes robust")
            return None
        return [i for i in every if i not in set(aside)]

    def clean_all(self, state: State, part: dict, which: str, ev: dict) -> None:
        n, every = part.get("num_cells"), self.set_aside(which)
        if every is None:
            return
        if which == "path" and part.get("certifies_all") is False:
            claim = f"the policy's path of {n} cells leaves a row not robust"
            proof = ev["after"][0]
            if proof.get("test_index") not in every:
                self.add(claim, False, "the row shown is set aside")
            else:
                self.checked(claim, lambda: self.left(state, part, proof))
            return
        if n is not None:
            proofs = ev["after"]
            if sorted(a["test_index"] for a in proofs) != every:
                self.add(f"{which}: evidence", False, "not for each test row once")
                return
            proofs = [(a["test_index"], a["label"], a) for a in proofs]
            aside = len(self.answered()) - len(every)
            but = f" (but the {aside} set aside)" if aside else ""
            claim = f"{which}: cleaning {n} cells makes all {len(every)} rows robust{but}"
            if not self.checked(claim, lambda: self.cleaned(state, part, proofs)):
                return
        if which == "together":
            what = ("cleaning", "makes every row robust")
            self.bounded(part, what, lambda bound: self.cleanings(state, every, bound))


# ---------------------------------------------------------------------------------------
# searches: the fewest blanks (OP), and every small blanking or cleaning


def fewest_blanks(state: State, t: list, k, alpha: Fraction):
    """Check that no blanking of fewer than ``k`` cells makes t not robust.

    Check that no blanking of fewer than ``k`` cells (None: of any number) of the
    complete table makes t not robust: a message, None when that needs more than LIMIT
    configurations, Wrong naming a cheaper blanking.

    The argument (nbcert's docs/design.md, "One-point poisoning"), in the form checked:

    * A blanking B removes some values (blanks all their cells): its *configuration*.  At
      alpha > 0 that is the set of removed values (a domain's size is in every
      denominator); at alpha = 0 only which columns lose t_j or every other value matters.
      B costs its configuration's cells and its other blanks.
    * With the configuration's removals alone either no label wins every world (then they
      make t not robust), or one label K does.  Blanks that keep the configuration only
      lower smallest counts and raise largest ones, so no other label can come to win
      every world: t is not robust iff some rival l reaches K, smax(l) >= smin(K).
    * smax(l) grows only with b_j, l's blanked cells holding other values than t_j in a
      regular column (t_j and another value observed); smin(K) falls only with a_j, K's
      blanked t_j cells there.  Caps keep the configuration: K keeps a t_j cell where only
      K holds t_j; l keeps a cell of each value only l holds (alpha = 0: a cell of another
      value where only l holds any).
    * l's side is best by water-filling (``raises``: a separable concave log-product).
      K's side: a separable concave minimum lies at a vertex, so one column at most is
      partly blanked; a fully blanked column can swap with a partial or untouched one of
      the same count left and a smaller count at equal cost and product, so the fully
      blanked ones are a prefix by count in each such class; and r blanks of a partial
      column are best where t_j's count is smallest among those with r to spare
      (``shapes``).  Every split of the budget is tried.
    """
    if k == 0:
        return "no blanking of fewer than 0 cells: nothing to search"
    used = [j for j, v in enumerate(t) if v is not None]
    moves = []  # (cost, column, values removed)
    for j in used:
        values = sorted(state.domain(j), key=repr)
        if alpha:
            moves += [(state.cells(j, v), j, (v,)) for v in values]
        elif t[j] in values and len(values) >= 2:  # t_j's removal, or every other value's
            others = tuple(v for v in values if v != t[j])
            moves.append((state.cells(j, t[j]), j, (t[j],)))
            moves.append((sum(state.cells(j, v) for v in others), j, others))
    moves.sort(key=lambda m: m[0])
    budget, count = math.inf if k is None else k, [0]

    def search(start: int, removed: dict, cost: int) -> bool:
        count[0] += 1
        if count[0] > LIMIT:
            return False
        _configuration(state, t, removed, cost, budget, alpha)
        for i in range(start, len(moves)):
            c, j, values = moves[i]
            gone = removed.get(j, ()) + values
            if cost + c >= budget:
                break
            if len(gone) < len(state.domain(j)) and not search(
                i + 1, {**removed, j: gone}, cost + c
            ):
                return False
        return True

    if not search(0, {}, 0):
        return None
    said = "no blanking at all" if k is None else f"no blanking of fewer than {k} cells"
    return f"{said}: {count[0]} configuration(s), every rival and split searched"


def _configuration(state: State, t: list, removed: dict, cost: int, budget, alpha) -> None:
    """Check the blankings that remove exactly the values ``removed``.

    Wrong if a blanking that removes exactly the values ``removed`` (column -> values;
    ``cost`` cells) makes t not robust with fewer than ``budget`` cells in all.
    """
    s = state.copy()
    for j, values in removed.items():
        for v in values:
            for l in s.labels:
                s.move(j, l, v, -s.obs[j][l].get(v, 0))
    view, p, q = View(s, t, alpha), alpha.numerator, alpha.denominator
    what = ", ".join(f"{v!r} of column {j}" for j, vs in removed.items() for v in vs)
    K = view.robust_label()
    if K is None:
        raise Wrong(f"blanking every cell of {what} ({cost} cells) already makes it not robust")
    regular = [i for i, j in enumerate(view.used) if view.seen[j] and len(view.domains[j]) >= 2]
    for l in s.labels:
        if l == K:
            continue
        X, Y = view.extremes(l)[1], view.extremes(K)[0]
        # S(l) >= S(K) iff CL prod_reg f(X + b) >= CR prod_reg f(Y - a), f(c) = q c + p: the
        # priors, the other columns' factors and the denominators (crossed) in CL and CR
        CL = s.N[l] * _outside(X, regular, p, q) * view.factors(K, Y)[1]
        CR = s.N[K] * _outside(Y, regular, p, q) * view.factors(l, X)[1]
        reg = [view.used[i] for i in regular]
        capA = [
            s.obs[j][K].get(t[j], 0) - (s.obs[j][K].get(t[j], 0) == s.cells(j, t[j])) for j in reg
        ]
        capB = [_rival_cap(s.obs[j], l, t[j], alpha) for j in reg]
        X, Y = [X[i] for i in regular], [Y[i] for i in regular]
        plan = _split(X, capB, Y, capA, CL, CR, budget - 1 - cost, p, q)
        if plan is not None:
            where = f" once every cell of {what} is blank" if removed else ""
            raise Wrong(
                f"{plan[0]} cells of {K} holding the test value and {plan[1]} of {l} holding "
                f"others{where} ({cost + sum(plan)} in all) let {l} reach {K}"
            )


def _outside(counts: list, regular: list, p: int, q: int) -> int:
    """The product of the factors' numerators q c + p of the columns not in ``regular``."""
    return math.prod(q * c + p for i, c in enumerate(counts) if i not in regular)


def _rival_cap(obs_j: dict, l: str, tj, alpha: Fraction) -> int:
    """Count the cells a blanking may take from l in a column.

    How many of l's cells holding other values than t_j a blanking may take in a column
    without removing a value (alpha > 0) or every other value (alpha = 0).
    """
    mine = {v: c for v, c in obs_j[l].items() if v != tj and c > 0}
    others = {v for x, c in obs_j.items() if x != l for v, k in c.items() if v != tj and k > 0}
    if alpha:
        return sum(c - (v not in others) for v, c in mine.items())
    return sum(mine.values()) - (bool(mine) and not others)


def raises(X: list, cap: list, budget: int, p: int, q: int) -> list:
    """Water-fill the largest products, per number of blanks.

    Water-filling: out[b], the largest prod (q (X_j + b_j) + p) with b_j <= cap_j and
    sum b_j = b, for each b it can reach up to ``budget``.
    """
    cur, out = list(X), [math.prod(q * x + p for x in X)]
    for _ in range(budget):
        room = [j for j in range(len(cur)) if cur[j] < X[j] + cap[j]]
        if not room:
            break
        cur[min(room, key=lambda j: cur[j])] += 1
        out.append(math.prod(q * x + p for x in cur))
    return out


def shapes(Y: list, cap: list, budget: int, p: int, q: int):
    """Plan the K side's blanks within ``budget``.

    (blanks, product) of K-side plans within ``budget`` that include a smallest
    prod (q (Y_j - a_j) + p) for every number of blanks (``fewest_blanks``): per class of
    Y_j - cap_j a prefix by Y fully blanked, and one column partly blanked.
    """
    f = [q * y + p for y in Y]
    cols = sorted((j for j in range(len(Y)) if cap[j] > 0), key=lambda j: (Y[j], j))
    classes = {}
    for j in cols:
        classes.setdefault(Y[j] - cap[j], []).append(j)
    for lengths in itertools.product(*[range(len(g) + 1) for g in classes.values()]):
        full = [j for g, n in zip(classes.values(), lengths) for j in g[:n]]
        cost = sum(cap[j] for j in full)
        if cost > budget:
            continue
        base = math.prod(q * (Y[j] - cap[j]) + p if j in full else f[j] for j in range(len(Y)))
        yield cost, base
        best, reach = {}, 0  # r -> the column of smallest Y with r cells to spare
        for j in (j for j in cols if j not in full):
            for r in range(reach + 1, min(cap[j], budget - cost) + 1):
                best[r] = j
            reach = max(reach, cap[j])
        for r, j in best.items():
            yield cost + r, base // f[j] * (f[j] - q * r)


def _split(X, capB, Y, capA, CL, CR, left, p, q):
    """Find a split of ``left`` cells that reverses an inequality.

    (a, b), a + b <= left, with CL prod (q (X + b) + p) >= CR prod (q (Y - a) + p), or
    None (left inf: every cell the caps allow).
    """
    if left < 0:
        return None
    if left == math.inf:
        top = math.prod(q * (x + c) + p for x, c in zip(X, capB))
        low = math.prod(q * (y - c) + p for y, c in zip(Y, capA))
        return (sum(capA), sum(capB)) if CL * top >= CR * low else None
    up = raises(X, capB, left, p, q)
    for a, product in shapes(Y, capA, left, p, q):
        b = min(left - a, len(up) - 1)
        if CL * up[b] >= CR * product:
            return a, b
    return None


def _vectors(caps: list, lo: int, hi: int):
    """Every vector 0 <= x <= caps with lo <= sum(x) <= hi, or None when more than LIMIT."""
    hi = min(hi, sum(caps))
    ways = [1] + [0] * max(hi, 0)  # ways[s]: vectors of the groups so far summing to s
    for c in caps:
        run = list(itertools.accumulate(ways, initial=0))
        ways = [min(run[s + 1] - run[max(0, s - c)], LIMIT + 1) for s in range(len(ways))]
    if sum(ways[max(lo, 0) :]) > LIMIT:
        return None
    reach = list(itertools.accumulate(reversed(caps), initial=0))[::-1]

    def grow(i, prefix, total):
        if i == len(caps):
            yield prefix
            return
        for x in range(max(0, lo - total - reach[i + 1]), min(caps[i], hi - total) + 1):
            yield from grow(i + 1, prefix + [x], total + x)

    return grow(0, [], 0) if lo <= hi else iter(())


def few_blankings(state: State, points: list, lo: int, bound, alpha: Fraction):
    """Check that no blanking of ``lo`` to ``bound`` - 1 cells makes every point not robust.

    Check that no blanking of ``lo`` to ``bound`` - 1 cells (bound None: of lo or more)
    makes every point not robust, trying each as counts per (column, label, value); None
    when more than LIMIT.
    """
    used = sorted({j for t in points for j, v in enumerate(t) if v is not None})
    groups = [(j, l, v) for j in used for l in state.labels for v in state.obs[j][l]]
    caps = [state.obs[j][l][v] for j, l, v in groups]
    found = _vectors(caps, lo, sum(caps) if bound is None else bound - 1)
    if found is None:
        return None
    for x in found:
        s = state.copy()
        for (j, l, v), k in zip(groups, x):
            s.move(j, l, v, -k)
        if all(s.domain(j) for j in range(len(s.obs))) and not any(
            View(s, t, alpha).robust_label() for t in points
        ):
            raise Wrong(f"a blanking of {sum(x)} cells makes every row not robust")
    return (
        f"every blanking of {lo} cells or more tried"
        if bound is None
        else (f"every blanking of {lo} to {bound - 1} cells tried")
    )


def few_cleanings(state: State, points: list, k, groups: list, alpha: Fraction):
    """Check that no cleaning of fewer than ``k`` cells makes every point robust.

    Check that no cleaning of fewer than ``k`` cells (None: of any number) makes every
    point robust, trying each as counts per (column, label, true value) of the missing
    cells ``groups``; None when more than LIMIT.
    """
    used = {j for t in points for j, v in enumerate(t) if v is not None}
    tally = {}
    for g in groups:
        if g[0] in used:
            tally[g] = tally.get(g, 0) + 1
    keys = sorted(tally, key=repr)
    hi = sum(tally.values()) if k is None else k - 1
    found = _vectors([tally[g] for g in keys], 0, hi)
    if found is None:
        return None
    for x in found:
        s = state.copy()
        for (j, l, v), n in zip(keys, x):
            s.move(j, l, v, n)
        if all(View(s, t, alpha).robust_label() is not None for t in points):
            raise Wrong(f"a cleaning of {sum(x)} cells does")
    return f"every cleaning of up to {hi} cells tried"


# ---------------------------------------------------------------------------------------
# the certificate


def load(path: str) -> dict:
    """The certificate's document, its format and version checked."""
    try:
        with open(path, encoding="utf-8") as f:
            cert = json.load(f)
    except OSError as e:
        raise Unreadable(f"{path}: cannot read it ({e.strerror or e})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise Unreadable(f"{path}: not a JSON certificate ({e})") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise Unreadable(f"{path}: not an nbcert certificate")
    version = cert.get("version")
    if type(version) is not int or version > VERSION:
        raise Unreadable(f"{path}: certificate format {version} is newer than this checker's")
    inputs = cert.get("inputs")
    if not isinstance(inputs, dict) or not isinstance(cert.get("results"), list):
        raise Unreadable(f"{path}: no inputs or results")
    absent = [k for k in ("files", "label", "alpha", "reading") if k not in inputs]
    if absent:
        raise Unreadable(f"{path}: its inputs have no {absent[0]!r}")
    return cert


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
        does not (``message`` says what is wrong), None when it is not checked (why).

    Raises
    ------
    Unreadable
        The certificate or one of its files cannot be read as needed (a changed or missing
        file, a newer format, a malformed document); its message is one line.
    """
    path = os.fspath(path)
    cert = load(path)
    try:
        return Checker(cert, os.path.dirname(os.path.abspath(path))).run()
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError) as e:
        raise Unreadable(f"{path}: malformed certificate ({type(e).__name__}: {e})") from None


def main(argv=None, prog: str = "verify.py") -> int:
    """Check the certificate named by ``argv``: one line per claim, and the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write(f"usage: {prog} CERTIFICATE\n")
        return 2
    if hasattr(sys, "set_int_max_str_digits"):  # exact supports can be long
        sys.set_int_max_str_digits(0)
    try:
        claims = check(args[0])
    except Unreadable as e:
        sys.stderr.write(f"{prog}: error: {' '.join(str(e).split())}\n")
        return 2
    mark = {True: "ok  ", False: "FAIL", None: "--  "}
    for c in claims:
        sys.stdout.write(
            f"{mark[c.ok]}  {c.claim}" + (f": {c.message}" if c.message else "") + "\n"
        )
    failed = sum(c.ok is False for c in claims)
    unchecked = sum(c.ok is None for c in claims)
    summary = f"{len(claims) - failed - unchecked} claims hold" + (
        f", {failed} fail" if failed else ""
    )
    sys.stdout.write(
        f"{prog}: {summary}" + (f", {unchecked} not checked" if unchecked else "") + "\n"
    )
    return 1 if failed else 0


__all__ = ["check", "main", "Claim", "Unreadable", "Wrong", "FORMAT", "VERSION"]

if __name__ == "__main__":
    sys.exit(main())
