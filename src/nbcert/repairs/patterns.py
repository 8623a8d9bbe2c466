"""What a test point sees of the repaired rows: per label, a base count and match patterns.

For a test point t and label l, a clean row (and a dirty row's observed cells) adds a
fixed amount to the count c_lj of rows agreeing with t_j: the *base*.  A dirty row's
distinct repairs each agree or not with t on its missing cells: a 0/1 *match pattern* over
the features J where some row has a missing cell and t_j is a value of the domain (an
unseen t_j matches nothing; a blank t_j leaves its feature out).  A world picks one repair
per dirty row, so

    c_l = base_l + sum over l's dirty rows of the pattern of the repair picked.

Repairs with one pattern count as one pattern of *weight* their number (the worlds that
pick them differ elsewhere: in other features, or in values other than t_j).  A row whose
repairs all have one pattern is fixed (``LabelRows.fixed``); rows with the same weighted
pattern set are interchangeable and grouped (``Group``: its patterns, weights and rows).
The structure depends on t only through (J, t_J): ``Patterns`` builds it once per such key.
A table with some rows cleaned to their truth (``RowRepairs.cleaned``) has the same
(row, pattern) entries for its other rows, and one entry, its truth's, for each cleaned
row: ``Patterns.cleaned`` takes them from the table before, without matching every repair
again.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .table import RowRepairs


@dataclass(frozen=True)
class Group:
    """``g`` interchangeable dirty rows of one label: each picks one of ``patterns``
    (k, |J|) 0/1, pattern i in ``weights[i]`` distinct ways (repairs)."""

    patterns: np.ndarray
    weights: np.ndarray
    g: int


@dataclass(frozen=True)
class LabelRows:
    """One label's dirty rows as a test point sees them (over the features J): ``fixed``
    (|J|,) the matches of the rows with one pattern, ``fixed_ways`` their repairs (one
    count per such row), ``groups`` the other rows."""

    fixed: np.ndarray
    fixed_ways: np.ndarray
    groups: tuple

    def ways(self) -> int:
        """The number of ways this label's dirty rows pick their repairs."""
        out = math.prod(int(w) for w in self.fixed_ways.tolist() if w > 1)
        for grp in self.groups:
            out *= int(grp.weights.sum()) ** grp.g
        return out


@dataclass
class Patterns:
    """The per-label structure of the repaired rows for each test point (``rows``),
    built once per key (J, t_J); ``base`` gives every point's base counts at once."""

    rr: RowRepairs
    _missing_fill: np.ndarray = field(init=False, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)
    _keyed: dict = field(default_factory=dict, repr=False)  # per key, ``keyed``'s entries
    _origin: tuple | None = field(default=None, repr=False)  # the Patterns before, its rows

    def __post_init__(self):
        self._missing_fill = self.rr.missing[self.rr.owner]
        self._repairable = self.rr.missing.any(axis=0)
        self._room = 62 - int(self.rr.owner.max(initial=0)).bit_length()  # bits for J

    def key(self, t: np.ndarray) -> tuple:
        """(J, t_J) of a test point's local codes (-1 unseen, -2 blank)."""
        J = np.flatnonzero(self._repairable & (t >= 0))
        return tuple(J.tolist()), tuple(t[J].tolist())

    def base(self, T: np.ndarray) -> np.ndarray:
        """(k, m, d) the observed cells of each label that agree with each point (0 for an
        unseen or blank test value)."""
        rr = self.rr
        k, m, d = len(T), rr.m, rr.d
        out = np.zeros((k, m, d), np.int64)
        for j in range(d):
            col, size = rr.X[:, j], int(rr.delta[j])
            seen = col >= 0
            cnt = np.zeros((m, size + 1), np.int64)
            np.add.at(cnt, (rr.y[seen], col[seen]), 1)
            v = np.where(T[:, j] >= 0, T[:, j], size)  # the last column is all 0
            out[:, :, j] = cnt[:, v].T
        return out

    def rows(self, key: tuple) -> tuple:
        """Per label its ``LabelRows`` for the key (cached)."""
        if key not in self._cache:
            self._cache[key] = self._build(np.array(key[0], np.intp), np.array(key[1]))
        return self._cache[key]

    def cleaned(self, rows: np.ndarray) -> Patterns:
        """The patterns of this table with ``rows`` cleaned to their truth (their ``rr`` is
        ``self.rr.cleaned(rows)``): a key's entries are this table's for the other rows and
        each cleaned row's truth."""
        rows = np.unique(np.asarray(rows, np.intp))
        rr = self.rr.cleaned(rows)
        out = Patterns(rr)
        gone = np.zeros(rr.n, bool)
        gone[rows] = True
        out._origin = (self, rows, gone, rr.truth[rows], rr.missing[rows])
        return out

    def match(self, J: np.ndarray, tJ: np.ndarray) -> np.ndarray:
        """(repairs, |J|) whether each repair fills a missing cell of J with t_j."""
        return (self.rr.fills[:, J] == tJ) & self._missing_fill[:, J]

    @functools.cached_property
    def blocks(self) -> tuple:
        """(first repair, number of repairs) of each dirty row, in the repairs' order."""
        owner = self.rr.owner
        starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
        return starts, np.diff(np.append(starts, len(owner)))

    def _entries(self, J: np.ndarray, tJ: np.ndarray) -> tuple:
        """``distinct``'s (owner, pattern, ways) of the key's repairs: from one integer key
        per entry where they fit (``keyed``, kept per key), found from the table before
        cleaning where there is one."""
        if len(J) > self._room:
            return distinct(self.rr.owner, self.match(J, tJ))
        return split(*self._keys(J, tJ), len(J))

    def _keys(self, J: np.ndarray, tJ: np.ndarray) -> tuple:
        """``keyed``'s (keys, ways) of the key (where they fit; kept)."""
        at = (tuple(J.tolist()), tuple(tJ.tolist()))
        if at not in self._keyed:
            self._keyed[at] = self._from_origin(J, tJ) or keyed(self.rr.owner, self.match(J, tJ))
        return self._keyed[at]

    def _from_origin(self, J: np.ndarray, tJ: np.ndarray) -> tuple | None:
        """The key's (keys, ways) from the table before cleaning: its entries for the rows
        not cleaned, and each cleaned row's truth once (None without a table before; it has
        no more rows than this table, so its keys fit too)."""
        if self._origin is None:
            return None
        before, rows, gone, truth, missing = self._origin
        keys, ways = before._keys(J, tJ)
        kept = ~gone[keys >> len(J)]
        new = (rows.astype(np.int64) << len(J)) | _bits((truth[:, J] == tJ) & missing[:, J])
        keys = np.concatenate([keys[kept], new])
        order = np.argsort(keys, kind="stable")
        return keys[order], np.concatenate([ways[kept], np.ones(len(rows), np.int64)])[order]

    def _build(self, J: np.ndarray, tJ: np.ndarray) -> tuple:
        rr = self.rr
        owner, pats, ways = self._entries(J, tJ)
        per = np.bincount(owner, minlength=rr.n)
        one = per[owner] == 1
        out = []
        for l in range(rr.m):
            mine = rr.y[owner] == l
            fixed = pats[mine & one].sum(axis=0).astype(np.int64)
            groups = _groups(owner[mine & ~one], pats[mine & ~one], ways[mine & ~one])
            out.append(LabelRows(fixed, ways[mine & one], groups))
        return tuple(out)


def distinct(owner: np.ndarray, pat: np.ndarray) -> tuple:
    """(owner, pattern (int64), ways) of each distinct (row, pattern), sorted by row: as
    one integer key per repair where the row and the pattern's bits fit in 62 bits."""
    width = pat.shape[1]
    if _fits(owner, width):
        return split(*keyed(owner, pat), width)
    both = np.column_stack([owner, pat.astype(np.int64)])
    uniq, ways = np.unique(both, axis=0, return_counts=True)
    return uniq[:, 0], uniq[:, 1:], ways.astype(np.int64)


def _fits(owner: np.ndarray, width: int) -> bool:
    """Whether every (row, pattern over ``width`` features) fits in one 62-bit integer."""
    return int(owner.max(initial=0)).bit_length() + width <= 62


def _bits(pat: np.ndarray) -> np.ndarray:
    """Each 0/1 pattern (rows of ``pat``) as an integer, feature i its bit i."""
    return pat.astype(np.int64) @ (1 << np.arange(pat.shape[1], dtype=np.int64))


def keyed(owner: np.ndarray, pat: np.ndarray) -> tuple:
    """(keys, ways): each distinct (row, pattern) as row << width | the pattern's bits,
    sorted, and its repairs (where ``_fits``)."""
    width = pat.shape[1]
    key = (owner.astype(np.int64) << width) | _bits(pat)
    return _unique_counts(key, (int(owner.max(initial=0)) + 1) << width)


def split(keys: np.ndarray, ways: np.ndarray, width: int) -> tuple:
    """``keyed``'s entries as (owner, pattern (int64), ways)."""
    pats = (keys[:, None] >> np.arange(width)) & 1
    return keys >> width, pats.astype(np.int64), ways.astype(np.int64)


def _unique_counts(key: np.ndarray, bound: int) -> tuple:
    """``np.unique(key, return_counts=True)`` of nonnegative keys below ``bound``: counted
    in place, without a sort, where the range is not much larger than the keys."""
    if bound <= 4 * len(key) + (1 << 16):
        counts = np.bincount(key, minlength=bound)
        keys = np.flatnonzero(counts)
        return keys, counts[keys]
    return np.unique(key, return_counts=True)


def _unique_rows(A: np.ndarray) -> tuple:
    """``np.unique(A, axis=0, return_counts=True)`` of a nonnegative integer matrix: each
    row as one integer in base max + 1 (most significant first, so the rows keep their
    lexicographic order) where that fits in 62 bits."""
    base = int(A.max(initial=0)) + 1
    if A.shape[1] * base.bit_length() > 62:
        return np.unique(A, axis=0, return_counts=True)
    key = A @ (base ** np.arange(A.shape[1] - 1, -1, -1, dtype=np.int64))
    _, first, g = np.unique(key, return_index=True, return_counts=True)
    return A[first], g


def _groups(owner: np.ndarray, pats: np.ndarray, ways: np.ndarray) -> tuple:
    """The rows (``owner``, each with several (pattern, ways) entries, sorted) grouped by
    their weighted pattern sets."""
    if not len(owner):
        return ()
    starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
    ends = np.append(starts[1:], len(owner))
    width = pats.shape[1]
    if width <= 10:  # a row's set as a dense vector of weights over the 2^|J| patterns
        bits = pats @ (1 << np.arange(width, dtype=np.int64))
        dense = np.zeros((len(starts), 1 << width), np.int64)
        dense[np.repeat(np.arange(len(starts)), ends - starts), bits] = ways
        sets, g = _unique_rows(dense)
        every = (np.arange(1 << width)[:, None] >> np.arange(width)) & 1
        return tuple(
            Group(every[s > 0].astype(np.int64), s[s > 0], int(n)) for s, n in zip(sets, g)
        )
    found: dict = {}
    for a, b in zip(starts.tolist(), ends.tolist()):
        sig = tuple((tuple(p), int(w)) for p, w in zip(pats[a:b].tolist(), ways[a:b].tolist()))
        found[sig] = found.get(sig, 0) + 1
    return tuple(
        Group(
            np.array([p for p, _ in sig], np.int64).reshape(len(sig), width),
            np.array([w for _, w in sig], np.int64),
            g,
        )
        for sig, g in found.items()
    )


__all__ = ["Group", "LabelRows", "Patterns"]
