"""Candidate repairs: the possible values of each missing cell, when they are known.

Without candidates a missing cell may take any value of its feature's domain, the observed
values.  A *candidate file* lists, for some missing cells, the values they may take (an
imputer's guesses, CPClean's repairs); a listed cell takes one of its candidates, a cell
not listed any value of the domain.  The domain of feature j becomes

    D_j = (observed values of j) ∪ (every candidate value of j),

fixed across the worlds: |D_j| is what alpha's denominators count, as scikit-learn's
``CategoricalNB`` does when it is given those categories, and a value only a candidate
holds is in the domain of every world (its count may be 0).  With no candidate file this is
the usual domain and the usual worlds.

What a world's support needs of a test value t_j, for label l: the observed cells that
agree (E), and of l's missing cells in j those that *must* agree (their candidates are
{t_j}: F) and those that *may* (t_j among their candidates: A).  Label l's count ranges
over E + F .. E + A, every value in between, independently of the other labels and
features: certification is as without candidates with these bounds.  To count worlds, the
fillings of l's cells in j with c = E + F + b cells on t_j are the coefficient of x^b in

    prod over l's cells in j of (x [t_j in C] + |C| - [t_j in C])

(a cell that may agree contributes x for t_j and |C| - 1 other values; one that may not,
|C| values), which for cells all of the domain is Lemma 4.4's C(M, b) (delta - 1)^(M - b).

Every missing cell carries a *set*: the listed candidates, or for a cell not listed the
set ``unlisted`` given when the candidates are coded (the domain of the dirty table), so a
set never changes when other cells are cleaned.  Sets are numbered per feature
(``member[j]``, one row per set, one column per domain value).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError
from .domains import EncodedTable, as_numbers, code_dtype, positions


@dataclass(frozen=True)
class Candidates:
    """The possible values of every missing cell of an encoded table.

    ``member[j]`` (S_j, delta_j) bool: the values of feature j's set s; ``ids`` (n, d): the
    set of each missing cell, rows in the table's (label-grouped) order, -1 for an observed
    cell; ``label_bounds``: the label blocks of those rows; ``listed``: how many cells the
    file listed (the others took the ``unlisted`` set).
    """

    member: tuple
    ids: np.ndarray
    label_bounds: np.ndarray
    listed: int = 0
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def d(self) -> int:
        return self.ids.shape[1]

    @property
    def m(self) -> int:
        return len(self.label_bounds) - 1

    def per_label(self, j: int) -> np.ndarray:
        """(m, S_j): feature j's missing cells of each label and set."""
        key = ("per_label", j)
        if key not in self._cache:
            S = self.member[j].shape[0]
            out = np.zeros((self.m, S), np.int64)
            for l in range(self.m):
                a, b = self.label_bounds[l], self.label_bounds[l + 1]
                col = self.ids[a:b, j]
                out[l] = np.bincount(col[col >= 0], minlength=S)
            self._cache[key] = out
        return self._cache[key]

    def sizes(self, j: int) -> np.ndarray:
        """(S_j,) the number of values of each of feature j's sets."""
        return self.member[j].sum(axis=1)

    def agree(self, T: np.ndarray) -> tuple:
        """(A, F), each (k, m, d): per test point, label and feature, the missing cells that
        may take t_j (t_j among their values) and those that must (their only value).  0
        for a test value outside the domain or a blank test cell."""
        k = len(T)
        A, F = np.zeros((k, self.m, self.d), np.int64), np.zeros((k, self.m, self.d), np.int64)
        for j in range(self.d):
            v = np.asarray(T[:, j])
            ok = v >= 0
            if not ok.any():
                continue
            member, counts = self.member[j], self.per_label(j)
            single = member & (member.sum(axis=1) == 1)[:, None]
            A[ok, :, j] = (counts @ member[:, v[ok]]).T
            F[ok, :, j] = (counts @ single[:, v[ok]]).T
        return A, F

    def fillings(self, l: int, j: int, v: int) -> tuple:
        """(F, ways, total) of label l's missing cells in feature j for the test value v:
        the cells that must take v, the number of fillings with b more cells on v
        (``ways[b]``, b = 0 .. the cells that may but need not), and all their fillings.
        Exact integers (the module docstring's polynomial), cached per (l, j, v)."""
        key = (l, j, v)
        if key not in self._cache:
            self._cache[key] = self._fillings(l, j, v)
        return self._cache[key]

    def _fillings(self, l: int, j: int, v: int) -> tuple:
        counts, sizes = self.per_label(j)[l], self.sizes(j)
        holds = self.member[j][:, v] if v >= 0 else np.zeros(len(sizes), bool)
        used = counts > 0
        forced = int(counts[used & holds & (sizes == 1)].sum())
        poly, const = [1], 1
        for s, c in zip(sizes[used & ~holds].tolist(), counts[used & ~holds].tolist()):
            const *= s**c
        free = used & holds & (sizes > 1)
        for s, c in _grouped(sizes[free], counts[free]):
            poly = _times(poly, [math.comb(c, b) * (s - 1) ** (c - b) for b in range(c + 1)])
        ways = tuple(w * const for w in poly)
        return forced, ways, sum(ways)

    def world_factors(self, keep=None) -> tuple:
        """(sizes, counts): the worlds of the features ``keep`` (default all) number
        prod sizes ** counts, one factor per distinct set size."""
        cols = range(self.d) if keep is None else keep
        per = {}
        for j in cols:
            for s, c in zip(self.sizes(j).tolist(), self.per_label(j).sum(axis=0).tolist()):
                per[s] = per.get(s, 0) + c
        sizes = np.array(sorted(per), np.int64)
        return sizes, np.array([per[s] for s in sizes.tolist()], np.int64)

    def total(self, keep=None) -> int:
        """The number of worlds of the features ``keep`` (default all)."""
        sizes, counts = self.world_factors(keep)
        return math.prod(int(s) ** int(c) for s, c in zip(sizes, counts))

    def log10_total(self, keep=None) -> float:
        sizes, counts = self.world_factors(keep)
        return float(np.dot(counts, np.log10(np.maximum(sizes, 1))))

    def with_unlisted(self, values: np.ndarray) -> Candidates:
        """The same candidates with the cells not listed (set 0) taking the values marked
        in ``values`` (d, K) instead of the whole domain (cleaning: the dirty table's
        domain, observed and candidate values, whatever is cleaned later)."""
        member = []
        for j, rows in enumerate(self.member):
            rows = rows.copy()
            rows[0] = values[j, : rows.shape[1]]
            member.append(rows)
        return Candidates(tuple(member), self.ids, self.label_bounds, self.listed)

    def project(self, keep: np.ndarray) -> Candidates:
        """The candidates of the features ``keep`` (``nbcert.blanks.project``); with none
        kept, one constant column without missing cells."""
        if len(keep) == self.d:
            return self
        if len(keep) == 0:
            ids = np.full((self.ids.shape[0], 1), -1, np.int32)
            return Candidates((np.ones((1, 1), bool),), ids, self.label_bounds, self.listed)
        member = tuple(self.member[j] for j in keep)
        return Candidates(member, self.ids[:, keep], self.label_bounds, self.listed)


def _grouped(sizes: np.ndarray, counts: np.ndarray):
    """(size, cells) with the cells of sets of one size added up."""
    out: dict = {}
    for s, c in zip(sizes.tolist(), counts.tolist()):
        out[s] = out.get(s, 0) + c
    return sorted(out.items())


def _times(a: list, b: list) -> list:
    """The product of two polynomials (coefficient lists, exact integers)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for k, y in enumerate(b):
                out[i + k] += x * y
    return out


# ---------------------------------------------------------------------------------------
# coding a candidate table


@dataclass(frozen=True)
class Listed:
    """A candidate table as read: per entry the data row of the training table, the feature
    and the value (binned, where the feature is), and the table's name in messages."""

    rows: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    name: str


def code(enc: EncodedTable, listed: Listed, train: str, missing=None) -> tuple:
    """(the table with its domains extended by the candidate values, its Candidates).

    Parameters
    ----------
    enc : EncodedTable
        The training table (for cleaning: the true table).
    listed : Listed
        The candidate entries.
    train : str
        The training table's name in messages.
    missing : ndarray of bool (n, d), optional
        The missing cells, rows in ``enc``'s order (default: ``enc``'s own; cleaning passes
        the dirty table's, ``enc`` being the truth).  A cell not listed takes set 0, the
        whole extended domain (``Candidates.with_unlisted`` narrows it).

    Returns
    -------
    (EncodedTable, Candidates)

    Raises
    ------
    InputError
        For an entry naming a column that is not a feature, a row out of range, a cell that
        is not missing, or no value; naming the candidate table and its data row.
    """
    missing = enc.is_missing() if missing is None else missing
    j_of, where = _check(enc, listed, train, missing)
    new = [_new_values(enc, listed, j_of, j) for j in range(enc.d)]
    enc = extended(enc, new)
    codes = np.full(len(listed.values), -1, np.intp)  # each entry's code in the new domain
    for j in range(enc.d):
        at = np.flatnonzero(j_of == j)
        if len(at):
            codes[at] = positions(enc.categories[j], listed.values[at])
    cells = pd.DataFrame({"r": where, "j": j_of, "v": codes}).drop_duplicates()
    member, ids = _sets(enc, cells, missing)
    n_cells = int(cells[["r", "j"]].drop_duplicates().shape[0])
    return enc, Candidates(member, ids, enc.label_bounds, n_cells)


def _check(enc: EncodedTable, listed: Listed, train: str, missing: np.ndarray) -> tuple:
    """(feature index of each entry, its row in ``enc``), after the entries' checks."""
    feature = {f: j for j, f in enumerate(enc.features)}
    j_of = np.array([feature.get(c, -1) for c in listed.columns], np.intp)
    rows = pd.to_numeric(pd.Series(listed.rows, dtype=object), errors="coerce").to_numpy(float)
    bad = [
        (j_of < 0, lambda i: f"column {listed.columns[i]!r} is not a feature column of {train}"),
        (
            ~np.isfinite(rows) | (rows != np.floor(rows)) | (rows < 0) | (rows >= enc.n),
            lambda i: f"row {listed.rows[i]!r} is not a data row of {train} (0 to {enc.n - 1})",
        ),
        (pd.isna(listed.values), lambda _: "it has no value"),
    ]
    for mask, said in bad:
        if mask.any():
            i = int(np.flatnonzero(mask)[0])
            raise InputError(f"{listed.name}: data row {i}: {said(i)}")
    where = np.empty(enc.n, np.intp)
    where[enc.rows] = np.arange(enc.n)
    at = where[rows.astype(np.intp)]
    observed = ~missing[at, j_of]
    if observed.any():
        i = int(np.flatnonzero(observed)[0])
        raise InputError(
            f"{listed.name}: data row {i}: row {int(rows[i])}, column {listed.columns[i]!r} is "
            f"not missing in {train} (candidates are for missing cells)"
        )
    return j_of, at


def _new_values(enc: EncodedTable, listed: Listed, j_of: np.ndarray, j: int) -> pd.Index:
    """The candidate values of feature j not in its domain, in order of first appearance;
    in a numeric domain as numbers (a candidate that is not one is an InputError)."""
    at = np.flatnonzero(j_of == j)
    values = listed.values[at]
    fresh = pd.Index(pd.unique(values[positions(enc.categories[j], values) < 0]))
    if enc.categories[j].dtype.kind not in "iuf" or not len(fresh):
        return fresh
    numbers = as_numbers(fresh)
    if numbers is None:
        bad = next(i for i in at if pd.isna(pd.to_numeric(listed.values[i], errors="coerce")))
        raise InputError(
            f"{listed.name}: data row {int(bad)}: {listed.values[bad]!r} is not a number, but "
            f"column {enc.features[j]!r} holds numbers (bin it with --bins N, or give numbers)"
        )
    return pd.Index(pd.unique(numbers.to_numpy()))


def extended(enc: EncodedTable, new: list) -> EncodedTable:
    """``enc`` with ``new[j]`` appended to feature j's domain (the cells keep their values;
    global codes move with the offsets, each feature's missing code to its new end)."""
    if not any(len(v) for v in new):
        return enc
    delta = enc.delta + np.array([len(v) for v in new], np.intp)
    offsets = np.zeros(enc.d + 1, np.intp)
    np.cumsum(delta + 1, out=offsets[1:])
    X = enc.X.astype(np.int64) - enc.offsets[:-1]  # local codes; delta_j: missing
    X = np.where(X == enc.delta, delta, X) + offsets[:-1]
    categories = tuple(
        c if not len(v) else c.append(v) for c, v in zip(enc.categories, new, strict=True)
    )
    return dataclasses.replace(
        enc,
        X=X.astype(code_dtype(int(offsets[-1]))),
        offsets=offsets,
        delta=delta,
        categories=categories,
    )


def _sets(enc: EncodedTable, cells: pd.DataFrame, missing: np.ndarray) -> tuple:
    """(member per feature, ids (n, d)): each listed cell's set of codes and, for every
    other missing cell, set 0: the whole domain."""
    ids = np.full(missing.shape, -1, np.int32)
    member = []
    for j in range(enc.d):
        own = cells[cells.j == j]
        full = np.ones(enc.delta[j], bool)
        rows_sets = own.groupby("r")["v"].agg(lambda v: tuple(sorted(v)))
        distinct = {(): 0}  # set 0: the cells not listed
        sid = np.array(
            [distinct.setdefault(s, len(distinct)) for s in rows_sets.tolist()], np.int32
        )
        rows = np.zeros((len(distinct), enc.delta[j]), bool)
        rows[0] = full
        for s, i in distinct.items():
            if i:
                rows[i, list(s)] = True
        ids[missing[:, j], j] = 0
        ids[rows_sets.index.to_numpy(np.intp), j] = sid
        member.append(rows)
    return tuple(member), ids


__all__ = ["Candidates", "Listed", "code", "extended"]
