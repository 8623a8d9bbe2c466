#!/usr/bin/env python3
"""Check an nbcert certificate: ``python3 verify.py CERT`` (``nbcert verify CERT`` runs this).

This file is the whole checker and imports only Python's standard library: copy it alone.
It reads the certificate's files again (refusing any whose SHA-256 differs), derives the
domains and counts with its own code, and checks every claim in exact rational arithmetic.
It prints one line per claim (``ok``, ``FAIL`` and what is wrong, or ``--`` with why a
claim is not checked) and exits 0 only if every checked claim holds (1 if one fails, 2 if
the certificate or its files cannot be read).

The model.  A training table's *domain* of a feature is its observed values; a *world*
fills every missing cell from its column's domain.  For a test row t, label l's support is

    S(l) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha * delta_j)

over the features j whose test cell is not blank (a blank cell leaves its feature out);
c_lj counts l's rows holding t_j, delta_j is the domain's size.  A world predicts l when
S(l) is the unique largest; t is *robust* when every world predicts the same label.

Why each check suffices.

1. *Extremes.*  S(l) depends only on l's own cells, and only on how many hold t_j; c_lj
   takes every integer from lo to hi (t_j not in the domain: lo = hi = 0; domain {t_j}:
   lo = hi = observed + missing; else lo = observed holding t_j, hi = lo + missing),
   independently for each label and column, and each factor grows with c_lj.  So l's
   smallest and largest supports are at lo and hi (``extremes``).
2. *certify.*  A label is possible when some world predicts it: a *witness world* is
   filled in and evaluated (``world_counts``).  A label l the certificate says is not
   possible needs a *bound*: smax(l) <= smin(k) for some k, so S(l) <= S(k) everywhere.
   Robust with label k: every other l has smax(l) < smin(k), so k wins every world.  Not
   robust: two witness worlds with different winners, or one world with a tie.  "A tie is
   possible": a world with a tie.  "No world ties" (not robust): the count vectors of the
   labels that can reach the top are listed and no two of their supports meet at the top.
3. *poison.*  The cells are blanked (observed cells, no column emptied, domains recomputed)
   and the blanked table's worlds show the row not robust.  "The fewest" (OP) is checked by
   ``fewest_blanks``: its docstring gives the argument.
4. *poison --together.*  Each row's worlds on the one blanked table; a lower bound from a
   row's own minimum (3.) or by trying every blanking between it and the bound (when few).
5. *clean --truth.*  The cells are missing ones, set to the truth's values; on that table
   bounds show the row robust (2.).  "The fewest" and "no cleaning does" are checked by
   trying every smaller cleaning when there are few (``few_vectors``), else not checked.

Reading (the subset of nbcert's rules kept here).  CSV (``.csv.gz`` and ``.bz2`` too;
Parquet only where pyarrow is installed), the certificate's separator, encoding, missing
tokens and decimal mark: a field is missing when empty or a missing token; blank lines are
skipped; a value written with the decimal mark as a number (``0,93``) is read with a point.
A feature column is numeric when every observed value is a finite number written as
``[+-]digits[.digits][e[+-]digits]`` (spaces around allowed); a numeric column is compared
by value (``4``, ``4.0`` and `` 4`` are one category), cut into bins at the certificate's
edges where it lists them (a value x falls in bin ``bisect_right(inner edges, x)``).  Any
other column is text, each value as written.  Labels are text.  Where this reading and
the certificate's disagree on which columns are numeric, the check stops (status 2).
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
LIMIT = 20_000  # the most configurations, or blankings or cleanings, a search here tries
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


def _file(spec: dict, role: str, base: str) -> tuple:
    """(path, bytes) of a certificate's file, its SHA-256 checked.  A relative path is
    looked for where the checker runs, then beside the certificate."""
    given = spec.get("path") if isinstance(spec, dict) else None
    if not isinstance(given, str):
        raise Unreadable(f"the {role} file has no path")
    path = given
    if not os.path.isabs(given) and not os.path.exists(given):
        path = os.path.join(base, given)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Unreadable(f"{given}: cannot read the {role} file ({e.strerror or e})") from None
    if hashlib.sha256(data).hexdigest() != spec.get("sha256"):
        raise Unreadable(f"{given}: the {role} file has changed (its SHA-256 differs)")
    return path, data


def _records(path: str, data: bytes, reading: dict) -> tuple:
    """(header, rows) of a file: fields as text, None where missing."""
    lower = path.lower()
    if lower.endswith((".parquet", ".parq", ".pq")):
        return _parquet(path)
    if lower.endswith(".gz"):
        data = gzip.decompress(data)
    elif lower.endswith(".bz2"):
        data = bz2.decompress(data)
    elif lower.endswith((".zst", ".lz4", ".br")):
        raise Unreadable(f"{path}: this checker reads .csv, .csv.gz and .csv.bz2 files only")
    encoding = reading.get("encoding") or "utf-8"
    try:
        text = data.decode("utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding)
    except (UnicodeDecodeError, LookupError) as e:
        raise Unreadable(f"{path}: cannot decode it as {encoding} ({e})") from None
    missing = {""} | set(reading.get("missing") or [])
    rows = [
        r
        for r in csv.reader(io.StringIO(text, newline=""), delimiter=reading.get("sep") or ",")
        if r
    ]
    if not rows:
        raise Unreadable(f"{path}: the file is empty")
    header, body = rows[0], rows[1:]
    if len(header) > 1:  # a line of spaces is no record (in a one-column table it is a value)
        body = [r for r in body if not (len(r) == 1 and not r[0].strip())]
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise Unreadable(f"{path}: data row {i} has {len(r)} fields, expected {len(header)}")
    return header, [[None if v in missing else v for v in r] for r in body]


def _parquet(path: str) -> tuple:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise Unreadable(f"{path}: reading Parquet needs pyarrow, which is not installed") from None
    table = pq.read_table(path)
    columns = [table.column(c).to_pylist() for c in table.column_names]
    return list(table.column_names), [list(r) for r in zip(*columns)]


def _decimal(value, mark: str):
    """A value written as a number with the decimal mark ``mark`` written with a point."""
    if mark in (None, ".") or not isinstance(value, str):
        return value
    d = re.escape(mark)
    written = rf"\s*[+-]?(\d+{d}\d*|{d}\d+)([eE][+-]?\d+)?\s*"
    return value.replace(mark, ".") if re.fullmatch(written, value, re.ASCII) else value


def _number(value):
    """The number a value reads as (an int where written as one), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value if math.isfinite(value) else None
    if isinstance(value, str) and NUMBER.fullmatch(value):
        x = int(value) if INTEGER.fullmatch(value) else float(value)
        return x if math.isfinite(x) else None
    return None


class Table:
    """A table as this checker reads it: ``features`` (the header without the label),
    ``y`` (each row's label), ``cols[j][r]`` (a category, None where missing) and which
    columns are ``numeric``."""

    def __init__(self, features: list, y: list, cols: list, numeric: list):
        self.features, self.y, self.cols, self.numeric = features, y, cols, numeric
        self.labels = sorted(set(y))

    def domain(self, j: int) -> set:
        return {v for v in self.cols[j] if v is not None}


def _columns(header, rows, label, path, mark) -> tuple:
    """(features, labels, raw feature columns) of a file's records."""
    if label not in header:
        raise Unreadable(f"{path}: no label column {label!r}")
    at = header.index(label)
    y = []
    for i, r in enumerate(rows):
        if r[at] is None:
            raise Unreadable(f"{path}: data row {i} has no label")
        y.append(str(_decimal(r[at], mark)))
    features = [h for h in header if h != label]
    raw = [[_decimal(r[header.index(f)], mark) for r in rows] for f in features]
    return features, y, raw


def _numeric(raw: list) -> bool:
    observed = [v for v in raw if v is not None]
    return bool(observed) and all(_number(v) is not None for v in observed)


def _category(value, numeric: bool, bins: dict | None, where: str):
    """A raw value's category in its column (None: missing)."""
    if value is None:
        return None
    if bins is not None:
        x = _number(value)
        if x is None:
            raise Unreadable(f"{where} holds {value!r}, not a number (the column is binned)")
        return bins["names"][bisect.bisect_right(bins["edges"][1:-1], float(x))]
    if numeric:
        x = _number(value)
        return x if x is not None else str(value)  # text in a numeric column: seen nowhere
    return value if isinstance(value, str) else str(value)


def read_table(cert: dict, role: str, base: str, numeric: list | None = None) -> Table:
    """A file of the certificate as a Table, read by the certificate's reading options.
    ``numeric``: which columns are numeric (default: as this file's values say, which must
    agree with the certificate)."""
    inputs = cert["inputs"]
    reading, label = inputs["reading"], inputs["label"]
    path, data = _file(inputs["files"].get(role), role, base)
    header, rows = _records(path, data, reading)
    features, y, raw = _columns(header, rows, label, path, reading.get("decimal"))
    bins = reading.get("bins") or {}
    said = set(reading.get("numeric") or []) | set(bins)
    numeric = numeric or [_numeric(c) for c in raw]
    for f, mine in zip(features, numeric):
        if mine != (f in said):
            how = ("numbers", "text") if mine else ("text", "numbers")
            raise Unreadable(
                f"{path}: column {f!r} reads as {how[0]} here and as {how[1]} in the certificate"
            )
    cols = [
        [_category(v, num, bins.get(f), f"{path}: column {f!r}") for v in c]
        for f, num, c in zip(features, numeric, raw)
    ]
    return Table(features, y, cols, numeric)


def read_test(cert: dict, base: str, train: Table) -> list:
    """The test file's rows as categories of the training table's columns (None: blank)."""
    inputs = cert["inputs"]
    reading = inputs["reading"]
    path, data = _file(inputs["files"].get("test"), "test", base)
    header, rows = _records(path, data, reading)
    absent = [f for f in train.features if f not in header]
    if absent:
        raise Unreadable(f"{path}: no feature column {absent[0]!r}")
    bins, mark = reading.get("bins") or {}, reading.get("decimal")
    numeric = set(reading.get("numeric") or [])
    at = [header.index(f) for f in train.features]
    return [
        [
            _category(_decimal(r[a], mark), f in numeric, bins.get(f), f"{path}: column {f!r}")
            for f, a in zip(train.features, at)
        ]
        for r in rows
    ]


# ---------------------------------------------------------------------------------------
# counts, extremes and supports


class State:
    """A table state's counts: ``obs[j][l]`` {value: observed cells}, ``miss[j][l]`` missing
    cells, ``N[l]`` rows, per feature j and label l (the label's text)."""

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
        """Make k of label l's cells in column j observed as ``value`` (k < 0: blanked)."""
        self.obs[j][l][value] = self.obs[j][l].get(value, 0) + k
        self.miss[j][l] -= k

    def domain(self, j: int) -> set:
        return {v for c in self.obs[j].values() for v, k in c.items() if k > 0}

    @property
    def n(self) -> int:
        return sum(self.N.values())


class View:
    """A test row t on a state: its used features (test cell not blank), each with its
    domain size and whether t_j is in the domain."""

    def __init__(self, state: State, t: list, alpha: Fraction):
        self.state, self.t, self.alpha = state, t, alpha
        self.used = [j for j, v in enumerate(t) if v is not None]
        self.domains = {j: state.domain(j) for j in self.used}
        self.delta = {j: len(self.domains[j]) for j in self.used}
        self.seen = {j: t[j] in self.domains[j] for j in self.used}

    def extremes(self, l: str) -> tuple:
        """(lo, hi): label l's smallest and largest count per used feature (check 1)."""
        lo, hi = [], []
        for j in self.used:
            e = self.state.obs[j][l].get(self.t[j], 0) if self.seen[j] else 0
            m = self.state.miss[j][l] if self.seen[j] else 0
            lo.append(e + (m if self.delta[j] == 1 else 0))
            hi.append(e + m)
        return lo, hi

    def support(self, l: str, counts: list) -> Fraction:
        """S(l) at the counts (one per used feature), exactly."""
        p, q, N = self.alpha.numerator, self.alpha.denominator, self.state.N[l]
        num = N * math.prod(q * c + p for c in counts)
        den = self.state.n * math.prod(q * N + p * self.delta[j] for j in self.used)
        return Fraction(num, den)

    def smin(self, l: str) -> Fraction:
        return self.support(l, self.extremes(l)[0])

    def smax(self, l: str) -> Fraction:
        return self.support(l, self.extremes(l)[1])

    def winners(self, counts: dict) -> list:
        """The labels of largest support at the counts (per label)."""
        s = {l: self.support(l, counts[l]) for l in self.state.labels}
        best = max(s.values())
        return [l for l in self.state.labels if s[l] == best]

    def robust_label(self):
        """The label that wins every world (smin above every other smax), or None."""
        for k in self.state.labels:
            if all(self.smin(k) > self.smax(l) for l in self.state.labels if l != k):
                return k
        return None

    def tie_listed(self) -> bool | None:
        """Whether some world ties, by listing the count vectors of the labels that can
        reach the top (None: more than TIE_VECTORS of one label)."""
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
# the certificate's values and worlds


def _value(table: Table, j: int, value, numeric: bool):
    """A certificate's value of column j as a category (a number in a numeric column)."""
    ok = (
        isinstance(value, (int, float)) and not isinstance(value, bool)
        if numeric
        else isinstance(value, str)
    )
    if not ok:
        raise Wrong(f"column {table.features[j]!r}: {value!r} is not one of its values")
    return value


def world_counts(view: View, fill: dict, table: Table, numeric: set) -> dict:
    """The counts per label (used features) of the world a certificate's ``fill`` gives:
    every missing cell of a label and column filled, in data-row order, by its entry (one
    value, or [[value, cells], ...]), each value from the column's domain."""
    state, col = view.state, {f: j for j, f in enumerate(table.features)}
    if not isinstance(fill, dict) or set(fill) - set(state.labels):
        raise Wrong("a world fills labels the table does not have")
    counts = {}
    for l in state.labels:
        given = fill.get(l, {})
        if not isinstance(given, dict) or set(given) - set(col):
            raise Wrong(f"a world fills columns of label {l} that the table does not have")
        row = []
        for j in view.used:
            holds = 0
            m, entry = state.miss[j][l], given.get(table.features[j])
            if m and entry is None:
                raise Wrong(
                    f"a world leaves label {l}'s missing cells of {table.features[j]!r} empty"
                )
            parts = [[entry, m]] if not isinstance(entry, list) else entry
            if m == 0 and entry is not None:
                raise Wrong(
                    f"a world fills cells of label {l} in {table.features[j]!r}, none missing"
                )
            if m and sum(_cells(p) for p in parts) != m:
                raise Wrong(
                    f"a world fills {m} cells of label {l} in {table.features[j]!r} wrongly"
                )
            for value, k in parts if m else []:
                v = _value(table, j, value, table.features[j] in numeric)
                if v not in view.domains[j]:
                    raise Wrong(
                        f"a world puts {value!r} in {table.features[j]!r}, not in its domain"
                    )
                holds += k if view.seen[j] and v == view.t[j] else 0
            e = state.obs[j][l].get(view.t[j], 0) if view.seen[j] else 0
            row.append(e + holds)
        counts[l] = row
    return counts


def _cells(part) -> int:
    if not (isinstance(part, list) and len(part) == 2 and type(part[1]) is int and part[1] > 0):
        raise Wrong(f"a world's entry {part!r} is not [value, cells]")
    return part[1]


# ---------------------------------------------------------------------------------------
# the checks of one table state


class Checker:
    """The claims of one certificate, checked against the files it names."""

    def __init__(self, cert: dict, base: str):
        self.cert, self.base = cert, base
        inputs = cert["inputs"]
        self.alpha = Fraction(inputs["alpha"])
        if self.alpha < 0:
            raise Unreadable("alpha is negative")
        self.numeric = set(inputs["reading"].get("numeric") or [])
        self.claims: list = []

    def add(self, claim: str, ok: bool | None, message: str = "") -> None:
        self.claims.append(Claim(claim, ok, message))

    def checked(self, claim: str, check) -> bool:
        """Run ``check()`` (its message on success); a Wrong or a malformed certificate
        makes the claim fail with what is wrong."""
        try:
            self.add(claim, True, check() or "")
            return True
        except Wrong as e:
            self.add(claim, False, str(e))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            self.add(claim, False, f"malformed evidence ({type(e).__name__}: {e})")
        return False

    # -- worlds and bounds

    def world(self, view: View, w: dict) -> tuple:
        """(what the world claims, the labels that share the top in it), checked."""
        counts = world_counts(view, w["fill"], self.train, self.numeric)
        top = view.winners(counts)
        if "wins" in w:
            if top != [w["wins"]]:
                raise Wrong(f"in a witness world for {w['wins']} the top is {', '.join(top)}")
            return "wins", w["wins"]
        if len(top) < 2 or not set(w["tie"]) <= set(top):
            raise Wrong(f"a world claimed to tie has {', '.join(top)} alone at the top")
        return "tie", tuple(top)

    def bound(self, view: View, b: dict) -> tuple:
        """(l, k, strict) of a bound smax(l) <= smin(k), checked: the counts it gives are
        l's largest and k's smallest (check 1), the supports are exact."""
        l, k, strict = b["label"], b["by"], b["strict"]
        if l not in view.state.labels or k not in view.state.labels or l == k:
            raise Wrong(f"a bound of {l} by {k} names labels the table does not have")
        names = [self.train.features[j] for j in view.used]
        for side, label, at in (("largest", l, 1), ("smallest", k, 0)):
            counts = view.extremes(label)[at]
            if b[side]["counts"] != dict(zip(names, counts)):
                raise Wrong(
                    f"{label}'s {side} counts are {dict(zip(names, counts))}, not {b[side]['counts']}"
                )
            if Fraction(b[side]["support"]) != view.support(label, counts):
                raise Wrong(f"{label}'s {side} support is {view.support(label, counts)}")
        hi, lo = view.smax(l), view.smin(k)
        if hi > lo or (strict and hi == lo):
            raise Wrong(f"{l}'s largest support {hi} is not below {k}'s smallest {lo}")
        return l, k, strict

    def robust(self, view: View, label: str, bounds: list) -> str:
        """Bounds that every other label stays strictly below ``label``."""
        rivals = {
            l
            for l, k, strict in map(lambda b: self.bound(view, b), bounds)
            if k == label and strict
        }
        missing = [l for l in view.state.labels if l != label and l not in rivals]
        if missing:
            raise Wrong(f"no strict bound of {missing[0]} below {label}")
        return f"{len(rivals)} rival{'s' * (len(rivals) != 1)} below its smallest support"

    def nonrobust(self, view: View, worlds: list) -> str:
        """Worlds that show the row not robust: two winners differ, or a tie."""
        seen = [self.world(view, w) for w in worlds]
        wins = {x for kind, x in seen if kind == "wins"}
        ties = [x for kind, x in seen if kind == "tie"]
        if len(wins) < 2 and not ties:
            raise Wrong("no two worlds with different winners and no tied world")
        return (
            f"worlds won by {', '.join(sorted(wins))}"
            if len(wins) >= 2
            else f"a world where {', '.join(ties[0])} tie"
        )

    # -- the results

    def run(self) -> list:
        command = self.cert.get("command")
        runs = {
            "certify": self.certify,
            "poison": self.poison,
            "poison --together": self.together,
            "clean --truth": self.clean,
        }
        if command not in runs:
            raise Unreadable(f"unknown command {command!r}")
        runs[command]()
        return self.claims

    def _start(self) -> State:
        self.train = read_table(self.cert, "train", self.base)
        self.test = read_test(self.cert, self.base, self.train)
        return State(self.train)

    def _covers(self, indices: list) -> None:
        """The results answer every test row once (dropping a row is not a way out)."""
        rows = len(self.test)
        ok = sorted(i for i in indices if type(i) is int) == list(range(rows))
        self.add(
            f"the results answer each of the {rows} test rows once", ok and len(indices) == rows
        )

    def _row(self, r: dict, keys: set) -> tuple:
        """(name of the test row, its categories), the result's keys checked."""
        extra = set(r) - keys - {"id", "evidence"}
        if extra or keys - set(r):
            raise Wrong(f"unknown or missing keys: {', '.join(sorted(extra ^ (keys - set(r))))}")
        i = r["test_index"]
        if type(i) is not int or not 0 <= i < len(self.test):
            raise Wrong(f"no test row {i!r}")
        name = f"test row {i}" + (f" ({r['id']})" if r.get("id") is not None else "")
        return name, self.test[i]

    def certify(self) -> None:
        state = self._start()
        keys = {"test_index", "robust", "label", "possible_labels", "tie_possible"}
        self._covers([r.get("test_index") for r in self.cert["results"]])
        for r in self.cert["results"]:
            self._certify_row(state, r, keys)

    def _certify_row(self, state, r, keys) -> None:
        try:
            name, t = self._row(r, keys)
        except (Wrong, TypeError, KeyError) as e:
            self.add("a result", False, str(e))
            return
        view, ev = View(state, t, self.alpha), r.get("evidence") or {}
        labels = r["possible_labels"]
        if r["robust"] is True:
            claim = f"{name}: robust, every world predicts {r['label']}"

            def check():
                if labels != [r["label"]] or r["tie_possible"] is not False:
                    raise Wrong("a robust row's possible labels are its label alone, and no tie")
                return self.robust(view, r["label"], ev["bounds"])

            self.checked(claim, check)
            return
        shown = ", ".join(map(str, labels)) or "none (every world ties)"
        self.checked(
            f"{name}: not robust; possible labels {shown}", lambda: self._possible(view, r, ev)
        )
        if r["tie_possible"] is not None:
            said = "a world ties" if r["tie_possible"] else "no world ties"
            self.checked(f"{name}: {said}", lambda: self._tie(view, r, ev))

    def _possible(self, view: View, r: dict, ev: dict) -> str:
        if r["robust"] is not False or r["label"] is not None:
            raise Wrong("robust must be false and label null")
        labels = r["possible_labels"]
        if not isinstance(labels, list) or len(set(labels)) != len(labels):
            raise Wrong("possible_labels is not a list of distinct labels")
        seen = [self.world(view, w) for w in ev["worlds"]]
        wins = {x for kind, x in seen if kind == "wins"}
        if wins != set(labels):
            raise Wrong(f"witness worlds are won by {sorted(wins)}, not {sorted(labels)}")
        blocked = {self.bound(view, b)[0] for b in ev["bounds"]}
        left = [l for l in view.state.labels if l not in wins and l not in blocked]
        if left:
            raise Wrong(f"nothing shows that {left[0]} never wins")
        if len(wins) < 2 and not any(kind == "tie" for kind, _ in seen):
            raise Wrong("a single possible label and no tied world: the row looks robust")
        return f"{len(wins)} witness world{'s' * (len(wins) != 1)}, {len(blocked)} bound{'s' * (len(blocked) != 1)}"

    def _tie(self, view: View, r: dict, ev: dict) -> str:
        if r["tie_possible"] is True:
            ties = [self.world(view, w) for w in ev["worlds"] if "tie" in w]
            if not ties:
                raise Wrong("no tied world given")
            return f"{', '.join(ties[0][1])} tie in a world"
        if ev.get("no_tie") != "listed":
            raise Wrong("no evidence that no world ties")
        found = view.tie_listed()
        if found is None:
            raise Wrong(f"more than {TIE_VECTORS} count vectors of one label to list")
        if found:
            raise Wrong("two labels' supports meet at the top in some world")
        return "listed the supports of the labels that reach the top"

    # -- poisoning

    def _complete(self, state: State) -> None:
        gaps = [
            (f, l)
            for j, f in enumerate(self.train.features)
            for l in state.labels
            if state.miss[j][l]
        ]
        if gaps:
            raise Unreadable(
                f"poisoning needs a complete training table; column {gaps[0][0]!r} has blanks"
            )

    def _blanked(self, state: State, cells: list) -> State:
        """The state with ``cells`` ({"row", "column"}) blanked: observed, distinct, and
        every column keeps an observed cell."""
        out, done = state.copy(), set()
        for c in cells:
            r, f = c["row"], c["column"]
            if (r, f) in done or f not in self.train.features or type(r) is not int:
                raise Wrong(f"cell {r}:{f} is repeated or not a feature cell")
            if not 0 <= r < len(self.train.y):
                raise Wrong(f"cell {r}:{f} is not in the table")
            j = self.train.features.index(f)
            if self.train.cols[j][r] is None:
                raise Wrong(f"cell {r}:{f} is already missing")
            done.add((r, f))
            out.move(j, self.train.y[r], self.train.cols[j][r], -1)
        empty = [f for j, f in enumerate(self.train.features) if not out.domain(j)]
        if empty:
            raise Wrong(f"the blanking empties column {empty[0]!r}")
        return out

    def poison(self) -> None:
        state = self._start()
        self._complete(state)
        keys = {"test_index", "num_cells", "cells", "status"}
        self._covers([r.get("test_index") for r in self.cert["results"]])
        for r in self.cert["results"]:
            try:
                name, t = self._row(r, keys)
            except (Wrong, TypeError, KeyError) as e:
                self.add("a result", False, str(e))
                continue
            self._poison_row(state, r, name, t)

    def _poison_row(self, state, r, name, t) -> None:
        ev, status, cells = r.get("evidence") or {}, r["status"], r["cells"]
        n = r["num_cells"]
        if status in ("poisoned", "already_nonrobust"):
            said = (
                f"blanking {n} cells makes it not robust"
                if status == "poisoned"
                else "already not robust"
            )

            def check():
                if n != len(cells) or (status == "poisoned") != (n > 0):
                    raise Wrong(f"num_cells {n} for {len(cells)} cells ({status})")
                return self.nonrobust(View(self._blanked(state, cells), t, self.alpha), ev["after"])

            if self.checked(f"{name}: {said}", check) and status == "poisoned":
                self._fewest(state, t, n, ev.get("minimal"), name)
        elif status == "impossible":
            if n is not None or cells:
                self.add(
                    f"{name}: no blanking makes it not robust", False, "impossible lists cells"
                )
                return
            self._fewest(state, t, None, ev.get("minimal"), name)
        elif status == "none_found" and n is None and not cells:
            self.add(f"{name}: no blanking claimed", None, "none found by a randomized search")
        else:
            self.add(f"{name}: status {status!r}", False, "unknown status or cells")

    def _fewest(self, state: State, t: list, k, minimal, name: str) -> None:
        claim = (
            f"{name}: no blanking makes it not robust"
            if k is None
            else f"{name}: {k} cells are the fewest"
        )
        if not (isinstance(minimal, dict) and minimal.get("proven") is True):
            if k is None:
                self.add(claim, False, "impossible without a proof")
            else:
                self.add(
                    f"{name}: minimality not claimed", None, str((minimal or {}).get("by", ""))
                )
            return
        try:
            found = fewest_blanks(state, t, k, self.alpha)
        except Wrong as e:
            self.add(claim, False, str(e))
            return
        self.add(
            claim, None if found is None else True, found or f"more than {LIMIT} configurations"
        )

    def together(self) -> None:
        state = self._start()
        self._complete(state)
        keys = {
            "test_indices",
            "num_cells",
            "cells",
            "status",
            "method",
            "optimal",
            "lower_bound",
            "time_limited",
        }
        if len(self.cert["results"]) != 1:
            self.add("the results", False, "poison --together has one result")
        for r in self.cert["results"]:
            extra = set(r) - keys - {"ids", "evidence"}
            if extra or keys - set(r):
                self.add("the result", False, "unknown or missing keys")
                continue
            self._together(state, r, r.get("evidence") or {})

    def _together(self, state, r, ev) -> None:
        rows = r["test_indices"]
        self._covers(rows)
        n, status = r["num_cells"], r["status"]
        if status in ("poisoned", "already_nonrobust"):
            claim = f"blanking {n} cells makes all {len(rows)} test rows not robust"

            def check():
                if n != len(r["cells"]) or sorted({w["test_index"] for w in ev["after"]}) != sorted(
                    rows
                ):
                    raise Wrong("num_cells, cells or the rows' worlds do not match")
                blanked = self._blanked(state, r["cells"])
                for w in ev["after"]:
                    self.nonrobust(
                        View(blanked, self.test[w["test_index"]], self.alpha), w["worlds"]
                    )
                return f"worlds for each of the {len(rows)} rows"

            if not self.checked(claim, check):
                return
        elif status == "none_found" and n is None and not r["cells"]:
            self.add("no blanking claimed", None, f"none found by {r['method']}, not a proof")
        elif status != "impossible":
            self.add(f"status {status!r}", False, "unknown status, or cells with none_found")
            return
        if r["lower_bound"] is None and not r["optimal"]:
            return
        bound = math.inf if status == "impossible" else r["lower_bound"]
        what = (
            "no blanking makes them all not robust"
            if bound == math.inf
            else f"no blanking of fewer than {bound} cells does"
        )
        ok, why = self._together_bound(state, r, ev.get("lower_bound") or {}, bound)
        self.add(what, ok, why)
        if r["optimal"] and status == "poisoned":
            self.add(
                f"{n} cells are optimal",
                ok if bound == n else False,
                "the lower bound meets them"
                if bound == n
                else "optimal, but the lower bound is below",
            )

    def _together_bound(self, state, r, src, bound) -> tuple:
        try:
            if src.get("from") == "single":
                t = self.test[src["test_index"]]
                k = None if bound == math.inf else bound
                if k is not None and src.get("cells") != k:
                    raise Wrong(
                        f"test row {src['test_index']}'s minimum is {src.get('cells')}, not the bound"
                    )
                found = fewest_blanks(state, t, k, self.alpha)
                return (
                    (None, f"more than {LIMIT} configurations")
                    if found is None
                    else (True, f"test row {src['test_index']} alone needs that many: {found}")
                )
            floor = src["floor"]
            found = fewest_blanks(state, self.test[floor["test_index"]], floor["cells"], self.alpha)
            if found is None:
                return None, f"more than {LIMIT} configurations"
            points = [self.test[i] for i in r["test_indices"]]
            tried = few_blankings(state, points, floor["cells"], bound, self.alpha)
            if tried is None:
                return (
                    None,
                    f"not checked: more than {LIMIT} blankings between {floor['cells']} cells and the bound",
                )
            return True, f"test row {floor['test_index']} needs {floor['cells']}; {tried}"
        except Wrong as e:
            return False, str(e)
        except (KeyError, TypeError, IndexError) as e:
            return False, f"malformed lower bound ({type(e).__name__}: {e})"

    # -- cleaning

    def clean(self) -> None:
        truth = read_table(self.cert, "truth", self.base)  # nbcert codes the truth's values
        dirty = read_table(self.cert, "train", self.base, truth.numeric)
        _agree(dirty, truth)
        self.train = truth
        self.test = read_test(self.cert, self.base, truth)
        state = State(truth)
        for j, col in enumerate(dirty.cols):
            for r, v in enumerate(col):
                if v is None:
                    state.move(j, truth.y[r], truth.cols[j][r], -1)
        self.dirty = dirty
        keys = {"test_index", "num_cells", "cells", "label"}
        self._covers([r.get("test_index") for r in self.cert["results"]])
        for r in self.cert["results"]:
            try:
                name, t = self._row(r, keys)
            except (Wrong, TypeError, KeyError) as e:
                self.add("a result", False, str(e))
                continue
            self._clean_row(state, r, name, t)
        self._clean_all(state, self.cert.get("together") or {}, "together")
        self._clean_all(state, self.cert.get("path") or {}, "path")

    def _cleaned(self, state: State, cells: list) -> State:
        out, done = state.copy(), set()
        for c in cells:
            r, f = c["row"], c["column"]
            if (
                (r, f) in done
                or f not in self.train.features
                or type(r) is not int
                or not 0 <= r < len(self.train.y)
            ):
                raise Wrong(f"cell {r}:{f} is repeated or not a cell of the table")
            j = self.train.features.index(f)
            if self.dirty.cols[j][r] is not None:
                raise Wrong(f"cell {r}:{f} is not missing")
            done.add((r, f))
            out.move(j, self.train.y[r], self.train.cols[j][r], 1)
        return out

    def _clean_row(self, state, r, name, t) -> None:
        ev, n = r.get("evidence") or {}, r["num_cells"]
        if n is None:
            claim = f"{name}: no cleaning makes it robust"
            if r["cells"] or r["label"] is not None:
                self.add(claim, False, "cells or a label given")
                return
            ok, why = few_cleanings(self, state, [t], None)
            self.add(claim, ok, why)
            return

        def check():
            if n != len(r["cells"]):
                raise Wrong(f"num_cells {n} for {len(r['cells'])} cells")
            view = View(self._cleaned(state, r["cells"]), t, self.alpha)
            if ev["after"]["label"] != r["label"]:
                raise Wrong("the evidence certifies another label")
            return self.robust(view, r["label"], ev["after"]["bounds"])

        if (
            self.checked(f"{name}: cleaning {n} cells makes it robust, label {r['label']}", check)
            and n
        ):
            ok, why = few_cleanings(self, state, [t], n)
            self.add(f"{name}: {n} cells are the fewest", ok, why)

    def _clean_all(self, state, part: dict, which: str) -> None:
        ev = part.get("evidence") or {}
        n = part.get("num_cells")
        everyone = len(self.cert["results"])
        rows = [self.test[x["test_index"]] for x in self.cert["results"]]
        if which == "path" and not part.get("certifies_all"):
            claim = f"the policy's path of {n} cells leaves a row not robust"

            def check():
                w = ev["after"][0]
                return self.nonrobust(
                    View(
                        self._cleaned(state, part["cells"]), self.test[w["test_index"]], self.alpha
                    ),
                    w["worlds"],
                )

            self.checked(claim, check)
            return
        if n is None:
            bound = None if part.get("optimal") else part.get("lower_bound")
            if part.get("optimal") or bound:
                ok, why = few_cleanings(self, state, rows, bound)
                said = (
                    "no cleaning" if bound is None else f"no cleaning of fewer than {bound} cells"
                )
                self.add(f"together: {said} certifies every row", ok, why)
            return
        claim = f"{'the policy' if which == 'path' else 'together'}: cleaning {n} cells certifies all {everyone} rows"

        def check():
            cleaned = self._cleaned(state, part["cells"])
            indices = sorted(x["test_index"] for x in self.cert["results"])
            if n != len(part["cells"]) or sorted(a["test_index"] for a in ev["after"]) != indices:
                raise Wrong("num_cells, cells or the rows' evidence do not match")
            for a in ev["after"]:
                self.robust(
                    View(cleaned, self.test[a["test_index"]], self.alpha), a["label"], a["bounds"]
                )
            return f"bounds for each of the {everyone} rows"

        if self.checked(claim, check) and which == "together" and part.get("lower_bound"):
            bound = part["lower_bound"]
            ok, why = few_cleanings(self, state, rows, bound)
            self.add(
                f"together: no cleaning of fewer than {bound} cells certifies every row", ok, why
            )


def _agree(dirty: Table, truth: Table) -> None:
    if dirty.features != truth.features or dirty.y != truth.y:
        raise Unreadable("the truth's header, rows or labels differ from the training table's")
    for j, f in enumerate(dirty.features):
        for r, (a, b) in enumerate(zip(dirty.cols[j], truth.cols[j])):
            if a is not None and a != b:
                raise Unreadable(f"the truth disagrees with the training table at {r}:{f}")


# ---------------------------------------------------------------------------------------
# searches: the fewest blanks (OP), and every small blanking or cleaning


def fewest_blanks(state: State, t: list, k, alpha: Fraction):
    """Check that no blanking of fewer than ``k`` cells (k None: of any number) of the
    complete table makes t not robust; a message saying what was searched, None when that
    is more than LIMIT configurations, Wrong naming a cheaper blanking.

    The argument (nbcert's docs/design.md, "One-point poisoning", here in the form checked):

    * A blanking B removes some values (blanks all their cells): its *configuration*.  At
      alpha > 0 that is the set of removed values (domain sizes are in every denominator);
      at alpha = 0 only which columns lose t_j or every other value matters, as delta_j is
      in no factor.  B costs at least its configuration's cells plus its other blanks.
    * With the configuration's removals alone, either no label wins every world (then they
      alone make t not robust: a cheaper blanking, if they cost less than k), or one label
      K does.  Further blanks that keep the configuration only lower smallest counts and
      raise largest ones, so no other label can win every world; t is not robust iff some
      rival l reaches K: smax(l) >= smin(K).
    * smax(l) depends only on b_j, l's blanked cells holding another value than t_j in a
      regular column (t_j and another value stay): raising its largest count.  smin(K)
      depends only on a_j, K's blanked t_j cells there.  Caps keep the configuration: K
      keeps a t_j cell where only K holds t_j; l keeps a cell of each value only l holds
      (alpha = 0: one cell of another value where only l holds any).
    * The rival side is best by water-filling (``raises``: the gains of the separable
      concave log-product shrink).  The K side: a separable concave minimum lies at a
      vertex, so at most one column is partly blanked; among fully blanked columns with
      the same count left, a column with a smaller count can swap with a larger one (the
      freed blanks making it partial) at equal cost and product, so they are a prefix by
      count; and a partial column with r blanks is best where t_j's count is smallest among
      those with r cells to spare (``shapes``).  Every split of the budget is then tried.
    """
    if k == 0:
        return "no blanking of fewer than 0 cells: nothing to search"
    p, q = alpha.numerator, alpha.denominator
    used = [j for j, v in enumerate(t) if v is not None]
    labels = state.labels
    total = {j: {} for j in used}
    for j in used:
        for l in labels:
            for v, c in state.obs[j][l].items():
                total[j][v] = total[j].get(v, 0) + c
    moves = []  # (cost, column, values removed)
    for j in used:
        values = [v for v, c in total[j].items() if c > 0]
        if alpha:
            moves += [(total[j][v], j, (v,)) for v in values]
        elif t[j] in values and len(values) >= 2:
            moves.append((total[j][t[j]], j, (t[j],)))
            others = tuple(v for v in values if v != t[j])
            moves.append((sum(total[j][v] for v in others), j, others))
    moves.sort(key=lambda m: m[0])
    budget = math.inf if k is None else k
    configs = 0

    def search(start: int, removed: dict, cost: int) -> None:
        nonlocal configs
        configs += 1
        if configs > LIMIT:
            raise _TooMany
        _configuration(state, t, used, removed, cost, budget, alpha, p, q)
        for i in range(start, len(moves)):
            c, j, values = moves[i]
            if cost + c >= budget:
                break
            gone = removed.get(j, ()) + values
            if len(set(gone)) >= len([v for v in total[j] if total[j][v] > 0]):
                continue  # the column would be emptied
            search(i + 1, {**removed, j: gone}, cost + c)

    try:
        search(0, {}, 0)
    except _TooMany:
        return None
    said = "no blanking at all" if k is None else f"no blanking of fewer than {k} cells"
    return f"{said}: {configs} configuration{'s' * (configs != 1)} searched, every rival and split"


class _TooMany(Exception):
    pass


def _configuration(state, t, used, removed, cost, budget, alpha, p, q) -> None:
    """One configuration (``removed``: column -> values blanked whole, ``cost`` cells): Wrong
    if a blanking in it of fewer than ``budget`` cells in all makes t not robust."""
    labels = state.labels
    obs = {
        j: {
            l: {v: c for v, c in state.obs[j][l].items() if v not in removed.get(j, ())}
            for l in labels
        }
        for j in used
    }
    gone = {
        j: {
            l: sum(c for v, c in state.obs[j][l].items() if v in removed.get(j, ())) for l in labels
        }
        for j in used
    }
    dom = {j: {v for l in labels for v, c in obs[j][l].items() if c > 0} for j in used}
    seen = {j: t[j] in dom[j] for j in used}
    regular = [j for j in used if seen[j] and len(dom[j]) >= 2]
    fixed = [j for j in used if j not in regular]

    def count(l, j, top: bool) -> int:
        if not seen[j]:
            return 0
        e = obs[j][l].get(t[j], 0)
        return e + gone[j][l] if top or len(dom[j]) == 1 else e

    def den(l):
        return math.prod(q * state.N[l] + p * len(dom[j]) for j in used)

    def supp(l, top):  # N_l * prod (q c + p) / den(l), as a Fraction
        return Fraction(state.N[l] * math.prod(q * count(l, j, top) + p for j in used), den(l))

    K = next(
        (x for x in labels if all(supp(x, False) > supp(l, True) for l in labels if l != x)), None
    )
    what = ", ".join(f"{v!r} of column {j}" for j, vs in removed.items() for v in vs)
    if K is None:
        raise Wrong(
            f"blanking every cell of {what} ({cost} cells, fewer than claimed) already makes it not robust"
        )
    for l in labels:
        if l == K:
            continue
        X = [count(l, j, True) for j in regular]
        Y = [count(K, j, False) for j in regular]
        capA = [
            obs[j][K].get(t[j], 0)
            - (obs[j][K].get(t[j], 0) == sum(obs[j][x].get(t[j], 0) for x in labels))
            for j in regular
        ]
        capB = [_rival_cap(obs[j], l, t[j], alpha) for j in regular]
        CL = state.N[l] * math.prod(q * count(l, j, True) + p for j in fixed) * den(K)
        CR = state.N[K] * math.prod(q * count(K, j, False) + p for j in fixed) * den(l)
        left = budget - 1 - cost
        plan = _split(X, capB, Y, capA, CL, CR, left, p, q)
        if plan is not None:
            a, b = plan
            where = f" after blanking every cell of {what}" if removed else ""
            raise Wrong(
                f"{a} cells of {K} holding the test value and {b} of {l} holding others{where} "
                f"({cost + a + b} in all, fewer than claimed) let {l} reach {K}"
            )


def _rival_cap(obs_j: dict, l: str, tj, alpha: Fraction) -> int:
    """How many of l's cells holding other values than t_j may be blanked in a column
    without removing a value (alpha > 0) or every other value (alpha = 0)."""
    mine = {v: c for v, c in obs_j[l].items() if v != tj and c > 0}
    others = {v for x, c in obs_j.items() if x != l for v, k in c.items() if v != tj and k > 0}
    if alpha:
        return sum(c - (v not in others) for v, c in mine.items())
    return sum(mine.values()) - (bool(mine) and not others)


def raises(X: list, cap: list, budget: int, p: int, q: int) -> list:
    """Water-filling: out[b] = the largest prod (q (X_j + b_j) + p) with sum b_j = b <= cap."""
    cur, out = list(X), [math.prod(q * x + p for x in X)]
    for _ in range(budget):
        open_ = [j for j in range(len(cur)) if cur[j] < X[j] + cap[j]]
        if not open_:
            break
        j = min(open_, key=lambda j: cur[j])
        cur[j] += 1
        out.append(math.prod(q * x + p for x in cur))
    return out


def shapes(Y: list, cap: list, budget: int, p: int, q: int):
    """(blanks, product) of K-side plans with at most ``budget`` blanks that include a
    smallest product for every number of blanks: per class of Y_j - cap_j a prefix by Y
    fully blanked, and one column partly blanked (``fewest_blanks``)."""
    f = [q * y + p for y in Y]
    cols = [j for j in range(len(Y)) if cap[j] > 0]
    classes = {}
    for j in sorted(cols, key=lambda j: (Y[j], j)):
        classes.setdefault(Y[j] - cap[j], []).append(j)
    groups = list(classes.values())
    for lengths in itertools.product(*[range(len(g) + 1) for g in groups]):
        full = [j for g, n in zip(groups, lengths) for j in g[:n]]
        cost = sum(cap[j] for j in full)
        if cost > budget:
            continue
        base = math.prod(q * (Y[j] - cap[j]) + p if j in full else f[j] for j in range(len(Y)))
        yield cost, base
        rest = sorted((j for j in cols if j not in full), key=lambda j: (Y[j], j))
        best, reach = {}, 0  # r -> the smallest Y with at least r cells to spare
        for j in rest:
            for r in range(reach + 1, min(cap[j], budget - cost) + 1):
                best[r] = j
            reach = max(reach, cap[j])
        for r, j in best.items():
            yield cost + r, base // f[j] * (f[j] - q * r)


def _split(X, capB, Y, capA, CL, CR, left, p, q):
    """(a, b) blanks, a + b <= left, with CL * prod(q (X + b) + p) >= CR * prod(q (Y - a) + p),
    or None (left inf: every cell the caps allow)."""
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
    if lo > hi:
        return iter(())
    ways = [1] + [0] * hi  # ways[s]: vectors of the groups so far summing to s
    for c in caps:
        run = list(itertools.accumulate(ways, initial=0))
        ways = [min(run[s + 1] - run[max(0, s - c)], LIMIT + 1) for s in range(hi + 1)]
    if sum(ways[lo:]) > LIMIT:
        return None
    reach = list(itertools.accumulate(reversed(caps), initial=0))[::-1]  # what groups i.. add

    def grow(i, prefix, total):
        if i == len(caps):
            yield prefix
            return
        for x in range(max(0, lo - total - reach[i + 1]), min(caps[i], hi - total) + 1):
            yield from grow(i + 1, prefix + [x], total + x)

    return grow(0, [], 0)


def few_blankings(state: State, points: list, lo: int, bound: int, alpha: Fraction):
    """Check that no blanking of lo to bound - 1 cells makes every point not robust (every
    such blanking tried, as counts per label, column and value); a message, None when more
    than LIMIT, Wrong naming one that does."""
    used = {j for t in points for j, v in enumerate(t) if v is not None}
    groups = [
        (j, l, v)
        for j in sorted(used)
        for l in state.labels
        for v, c in state.obs[j][l].items()
        if c
    ]
    caps = [state.obs[j][l][v] for j, l, v in groups]
    found = _vectors(caps, lo, bound - 1) if bound != math.inf else None
    if found is None:
        return None
    tried = 0
    for x in found:
        tried += 1
        s = state.copy()
        for (j, l, v), k in zip(groups, x):
            if k:
                s.move(j, l, v, -k)
        if all(s.domain(j) for j in range(len(s.obs))) and all(
            View(s, t, alpha).robust_label() is None for t in points
        ):
            raise Wrong(f"a blanking of {sum(x)} cells makes every row not robust")
    return f"every blanking of {lo} to {bound - 1} cells tried ({tried})"


def few_cleanings(chk: Checker, state: State, points: list, k) -> tuple:
    """(ok, message): no cleaning of fewer than ``k`` cells (k None: of any number) makes
    every point robust; ok None when more than LIMIT cleanings."""
    used = {j for t in points for j, v in enumerate(t) if v is not None}
    groups = []
    for j in sorted(used):
        for r, v in enumerate(chk.dirty.cols[j]):
            if v is None:
                groups.append((j, chk.train.y[r], chk.train.cols[j][r]))
    tally = {}
    for g in groups:
        tally[g] = tally.get(g, 0) + 1
    keys = sorted(tally, key=repr)
    hi = sum(tally.values()) if k is None else k - 1
    found = _vectors([tally[g] for g in keys], 0, hi)
    if found is None:
        return None, f"not checked: more than {LIMIT} cleanings of up to {hi} cells"
    for x in found:
        s = state.copy()
        for (j, l, v), n in zip(keys, x):
            if n:
                s.move(j, l, v, n)
        if all(View(s, t, chk.alpha).robust_label() is not None for t in points):
            return False, f"a cleaning of {sum(x)} cells already does"
    return True, f"every cleaning of up to {hi} cells tried"


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
        raise Unreadable(
            f"{path}: certificate format {version} is newer than this checker reads ({VERSION})"
        )
    inputs = cert.get("inputs")
    if not isinstance(inputs, dict) or not isinstance(cert.get("results"), list):
        raise Unreadable(f"{path}: no inputs or results")
    for key in ("files", "label", "alpha", "reading"):
        if key not in inputs:
            raise Unreadable(f"{path}: its inputs have no {key!r}")
    return cert


def check(path) -> list:
    """Check a certificate.

    Parameters
    ----------
    path : str or path
        The certificate (JSON) written by ``--certificate`` or ``nbcert.certificate``.

    Returns
    -------
    list of Claim
        One per claim: ``(claim, ok, message)``, ``ok`` True when it holds, False when it
        does not (``message`` says what is wrong), None when it is not checked (why).

    Raises
    ------
    Unreadable
        The certificate or one of its files cannot be read as needed (a changed file, a
        newer format, a malformed document); its message is one line.
    """
    path = os.fspath(path)
    cert = load(path)
    try:
        checker = Checker(cert, os.path.dirname(os.path.abspath(path)))
        return checker.run()
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as e:
        raise Unreadable(f"{path}: malformed certificate ({type(e).__name__}: {e})") from None


def main(argv=None, prog: str = "verify.py") -> int:
    """Check the certificate named by ``argv``; print one line per claim; the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write(f"usage: {prog} CERTIFICATE\n")
        return 2
    set_digits = getattr(sys, "set_int_max_str_digits", None)  # exact supports can be long
    if set_digits:
        set_digits(0)
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
    held = len(claims) - failed - unchecked
    summary = f"{held} claims hold" + (f", {failed} fail" if failed else "")
    summary += f", {unchecked} not checked" if unchecked else ""
    sys.stdout.write(f"{prog}: {summary}\n")
    return 1 if failed else 0


__all__ = ["check", "main", "Claim", "Unreadable", "FORMAT", "VERSION"]

if __name__ == "__main__":
    sys.exit(main())
