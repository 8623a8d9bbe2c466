"""A dirty table whose missing cells' true values are known, in group form.

Cleaning a missing cell replaces it by its true value; domains are recomputed from the
cleaned table (closed world), so a cleaning can add a value to its column's domain.

Cells of one (label, column, true value) are interchangeable for every test point, so a
set of cleanings is a count ``x[l, j, v]`` per *group*; the searches work on those counts
and turn them into cells (first rows first) only at the end (``CleaningTable.cells``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import blanks
from ..certification import Certification, certify_ranges, extremes
from ..reading.encoding import BLANK, UNSEEN, EncodedTable


@dataclass(frozen=True)
class CleaningTable:
    """A dirty table whose missing cells' true values are known, in group form.

    ``enc`` encodes the complete (true) table, so its domains hold every value; ``missing``
    (n, d), in ``enc``'s row order, marks the cells missing in the dirty table.  ``obs`` and
    ``hid`` (m, d, K) count observed and missing cells per (label, column, true value).
    """

    enc: EncodedTable
    missing: np.ndarray
    obs: np.ndarray
    hid: np.ndarray

    @classmethod
    def build(cls, enc: EncodedTable, missing: np.ndarray) -> CleaningTable:
        """The group counts of ``enc`` with the cells ``missing`` (n, d) blanked.

        Parameters
        ----------
        enc : EncodedTable
            The complete (true) table.
        missing : ndarray of bool, shape (n, d)
            The cells missing in the dirty table, in ``enc``'s row order.

        Returns
        -------
        CleaningTable
        """
        local = (enc.X.astype(np.int64) - enc.offsets[:-1]).astype(np.int64)
        K = int(enc.delta.max())
        y = np.repeat(np.arange(enc.m), enc.label_sizes)
        key = (y[:, None] * enc.d + np.arange(enc.d)) * K + local  # (n, d) group index
        size = enc.m * enc.d * K
        obs = np.bincount(key[~missing], minlength=size).reshape(enc.m, enc.d, K)
        hid = np.bincount(key[missing], minlength=size).reshape(enc.m, enc.d, K)
        return cls(enc, np.asarray(missing, bool), obs, hid)

    @property
    def N(self) -> np.ndarray:
        """Rows per label (every row has one cell, observed or missing, in column 0)."""
        return (self.obs[:, 0] + self.hid[:, 0]).sum(axis=1)

    def dirty_domain(self, cand=None) -> np.ndarray:
        """(d, K) the values of the dirty table's domains: its observed values, and with
        candidate repairs (``cand``) every listed candidate value."""
        seen = self.obs.sum(axis=0) > 0
        if cand is not None:
            for j, member in enumerate(cand.member):
                seen[j, : member.shape[1]] |= member[1:].any(axis=0)  # set 0: the unlisted
        return seen

    def dirty_codes(self, T: np.ndarray, cand=None) -> np.ndarray:
        """Test codes T (in the true table's domains) as the dirty table sees them: a value
        outside its domain (``dirty_domain``) is unseen (``UNSEEN``); blank test cells stay
        blank."""
        seen = self.dirty_domain(cand)
        hit = seen[np.arange(T.shape[1]), np.maximum(T, 0)]
        return np.where((T >= 0) & ~hit, UNSEEN, T)

    def values(self) -> np.ndarray:
        """(n, d) local value codes of the true table, rows in ``enc`` order."""
        return self.enc.X.astype(np.int64) - self.enc.offsets[:-1]

    def cells(self, x: np.ndarray, done: np.ndarray | None = None) -> list:
        """Concrete cells (row in enc, column) for group counts x: first rows first,
        skipping cells already in ``done`` (n, d)."""
        Z = self.values()
        out = []
        for l, j, v in zip(*np.nonzero(x)):
            a, b = self.enc.label_bounds[l], self.enc.label_bounds[l + 1]
            hit = self.missing[a:b, j] & (Z[a:b, j] == v)
            if done is not None:
                hit &= ~done[a:b, j]
            rows = a + np.flatnonzero(hit)[: x[l, j, v]]
            out.extend((int(r), int(j)) for r in rows)
        return out

    def counts_of(self, named) -> np.ndarray:
        """Group counts (m, d, K) of cells named as (original row, column name)."""
        x = np.zeros_like(self.hid)
        if not len(named):
            return x
        where = np.empty(self.enc.n, np.intp)
        where[self.enc.rows] = np.arange(self.enc.n)  # original row -> row in enc
        r = where[np.array([row for row, _ in named], np.intp)]
        j = np.array([self.enc.features.index(c) for _, c in named], np.intp)
        y = np.searchsorted(self.enc.label_bounds, r, side="right") - 1
        np.add.at(x, (y, j, self.values()[r, j]), 1)
        return x

    def named_in_order(self, cells) -> tuple:
        """(row in enc, column) cells as (original row, column name), in their order."""
        return tuple((int(self.enc.rows[r]), self.enc.features[j]) for r, j in cells)

    def named(self, cells) -> tuple:
        """(row in enc, column) cells as (original row, column name), sorted."""
        out = [(int(self.enc.rows[r]), j) for r, j in cells]
        return tuple((r, self.enc.features[j]) for r, j in sorted(out))

    def project(self, keep: np.ndarray) -> CleaningTable:
        """The table restricted to the columns ``keep`` (``nbcert.blanks.project``; with none
        kept, one constant column: every row observed at value 0)."""
        obs, hid = kept_columns(keep, self.N, self.obs, self.hid)
        missing = self.missing[:, keep] if len(keep) else np.zeros((self.enc.n, 1), bool)
        return CleaningTable(blanks.project(self.enc, keep), missing, obs, hid)

    def onto(self, t: np.ndarray) -> tuple:
        """(the table projected onto test point t's observed features, t's codes there,
        their columns): the questions about one point with blank cells (``nbcert.blanks``)."""
        keep = np.flatnonzero(t != BLANK)
        return self.project(keep), blanks.test_codes(t[None], np.arange(1), keep)[0], keep

    def lift(self, x: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """Group counts x of a projection onto the columns ``keep``, as this table's."""
        out = np.zeros_like(self.hid)
        if len(keep):
            out[:, keep] = x
        return out


def kept_columns(keep: np.ndarray, N: np.ndarray, obs: np.ndarray, *rest) -> list:
    """Per-(label, column) arrays restricted to the columns ``keep``: the observed cells
    ``obs`` (m, d, K) and others (m, d, ...).  With no column kept, one constant column
    (``nbcert.blanks``): every row observed at value 0 and nothing else, factor 1."""
    if len(keep):
        return [a[:, keep] for a in (obs, *rest)]
    out = [np.zeros((a.shape[0], 1, *a.shape[2:]), a.dtype) for a in (obs, *rest)]
    out[0][:, 0, 0] = N
    return out


def by_blanks(T: np.ndarray, N: np.ndarray, obs: np.ndarray, *rest):
    """Per group of test points with the same blank cells (``nbcert.blanks.groups``):
    (their rows, kept columns, their codes there, ``kept_columns`` of the arrays)."""
    for rows, keep in blanks.groups(T):
        yield rows, keep, blanks.test_codes(T, rows, keep), kept_columns(keep, N, obs, *rest)


def state_certification(
    obs: np.ndarray, M: np.ndarray, N: np.ndarray, T: np.ndarray, alpha
) -> Certification:
    """Robustness of test points for the given observed and missing counts.

    Parameters
    ----------
    obs : ndarray, shape (m, d, K)
        Observed cells per (label, column, value); the domains are the observed values.
    M : ndarray, shape (m, d)
        Missing cells per (label, column).
    N : ndarray, shape (m,)
        Rows per label.
    T : ndarray, shape (k, d)
        Test points as local value codes (-1: unseen, -2: blank, its feature left out:
        each group of points with the same blank cells is decided on the projection onto
        their other features, ``nbcert.blanks``).
    alpha : Fraction
        The smoothing parameter.

    Returns
    -------
    Certification
        Per point whether it is certifiably robust and the label every world predicts.
    """
    if not (T == BLANK).any():
        return _decision(obs, M, N, T, alpha)
    robust, label = np.zeros(len(T), bool), np.full(len(T), -1, np.intp)
    for rows, _, codes, (o, miss) in by_blanks(T, N, obs, M):
        dec = _decision(o, miss, N, codes, alpha)
        robust[rows], label[rows] = dec.robust, dec.label
    return Certification(robust, label)


def _decision(obs, M, N, T, alpha) -> Certification:
    """``state_certification`` for test points without blank cells."""
    E, seen, delta = agreeing(obs, T)
    lo, hi = extremes(E, M, delta, seen)
    return certify_ranges(lo, hi, N, delta, alpha)


def agreeing(obs: np.ndarray, T: np.ndarray):
    """The observed cells that agree with each test point, E (k, m, d) (0 where t_j is not
    in the observed domain), whether it is (``seen``, (k, d)), and the domain sizes (d,)."""
    m, d, K = obs.shape
    dom = obs.sum(axis=0) > 0  # (d, K)
    delta = dom.sum(axis=1)
    Tc = np.maximum(T, 0)
    cols = np.arange(d)
    seen = (T >= 0) & dom[cols, Tc]  # (k, d)
    E = np.where(seen[:, None, :], obs[:, cols, Tc].transpose(1, 0, 2), 0)  # (k, m, d)
    return E, seen, delta


def after(tab: CleaningTable, x: np.ndarray) -> CleaningTable:
    """The table once the cleanings x (group counts (m, d, K)) are done: its missing cells
    are the rest.

    Parameters
    ----------
    tab : CleaningTable
    x : ndarray, shape (m, d, K)

    Returns
    -------
    CleaningTable
    """
    return CleaningTable(tab.enc, tab.missing, tab.obs + x, tab.hid - x)


def all_robust(tab: CleaningTable, T: np.ndarray, x: np.ndarray, alpha) -> bool:
    """Exact check: after cleaning x, is every point of T certifiably robust?

    Parameters
    ----------
    tab : CleaningTable
    T : ndarray, shape (k, d)
        Test points as local codes of the true table (-1: unseen).
    x : ndarray, shape (m, d, K)
        Group counts to clean.
    alpha : Fraction
        The smoothing parameter.

    Returns
    -------
    bool
    """
    return bool(
        state_certification(tab.obs + x, (tab.hid - x).sum(axis=2), tab.N, T, alpha).robust.all()
    )


def winner_after(tab: CleaningTable, t: np.ndarray, x: np.ndarray, alpha) -> int:
    """The label every world predicts for t after cleaning x, -1 if t is not robust."""
    dec = state_certification(tab.obs + x, (tab.hid - x).sum(axis=2), tab.N, t[None], alpha)
    return int(dec.label[0])
