"""A dirty table whose missing cells' true values are known: the cell model of domains.

Cleaning a missing cell replaces it by its true value; domains are recomputed from the
cleaned table (closed world), so a cleaning can add a value to its column's domain, and a
missing cell may take any value of its column's domain.

Cells of one (label, column, true value) are interchangeable for every test point: a
*group*, and a set of cleanings is a count ``x[l, j, v]`` per group, at most ``hid``.  The
searches work on those counts and turn them into cells (first rows first) only at the end
(``CleaningTable.cells``).

``CleaningTable`` is one of the two cell models the cleaning engine is written against
(``nbcert.cleaning.candidates.CandidateTable`` is the other).  A cell model says

* which values a cell may take and how a cleaned cell moves the counts: ``ranges(X)``,
  each label's smallest and largest count of each value over the worlds after each
  cleaning, from which ``CellModel`` certifies exactly (``certify``, ``robust_all``);
* which cells help a row: ``branches(x, t, alpha)``, the fixed-domain problems
  (``nbcert.cleaning.fixed``) whose solutions are the plans that certify t for a winner;
* what a truth-free policy sees: ``view`` (the counts each point sees), ``observed`` (what
  a chooser is given) and ``chooser`` (the policy's own);
* where cells are: ``cap`` (cells per group: a cleaning x is an array of its shape),
  ``group_of`` (the groups of cells) and ``cells`` (the cells of a cleaning);

``programs`` says whether the HiGHS programs of ``nbcert.cleaning.program`` model it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import blanks
from ..certification import Certification, certify_ranges, extremes
from ..stats.domains import UNSEEN, EncodedTable
from . import domains


class View(NamedTuple):
    """What the policy sees of each test point (k, m, d): the observed cells that agree
    (E), the extreme counts (lo, hi), the missing cells that may hold t_j (free; without
    candidates every missing cell), the domain sizes (d,) and whether t_j is in the
    domain (k, d)."""

    E: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    free: np.ndarray
    delta: np.ndarray
    seen: np.ndarray


class CellModel:
    """What the engine asks of a cell model beyond its own methods (module docstring):
    certification after a cleaning, from the counts' ranges the model gives (``ranges``)."""

    def certify(self, x: np.ndarray, T: np.ndarray, alpha) -> Certification:
        """The test points' certification after cleaning x (exact)."""
        got = certify_counts(*self.ranges(x[None]), self.table.N, T, alpha)
        return Certification(got.robust[0], got.label[0])

    def robust_all(self, X: np.ndarray, T: np.ndarray, alpha) -> np.ndarray:
        """Per cleaning (rows of X, one count per group with cells, in C order), whether
        every point of T is robust after it, decided exactly as ``certify`` decides it."""
        full = np.zeros((len(X), self.cap.size), np.int64)
        full[:, np.flatnonzero(self.cap)] = X
        got = certify_counts(
            *self.ranges(full.reshape(-1, *self.cap.shape)), self.table.N, T, alpha
        )
        return got.robust.all(axis=1)

    def check_size(self, k: int) -> int:
        """Elements of the largest array ``robust_all`` builds per cleaning, for k points."""
        m, d, K = self.table.obs.shape
        return m * d * (K + k)


@dataclass(frozen=True)
class CleaningTable(CellModel):
    """A dirty table whose missing cells' true values are known, in group form.

    ``enc`` encodes the complete (true) table, so its domains hold every value; ``missing``
    (n, d), in ``enc``'s row order, marks the cells missing in the dirty table.  ``obs`` and
    ``hid`` (m, d, K) count observed and missing cells per (label, column, true value).
    """

    enc: EncodedTable
    missing: np.ndarray
    obs: np.ndarray
    hid: np.ndarray

    programs = True  # nbcert.cleaning.program models these cells (alpha = 0)

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

    @functools.cached_property
    def N(self) -> np.ndarray:
        """Rows per label (every row has one cell, observed or missing, in column 0)."""
        out = (self.obs[:, 0] + self.hid[:, 0]).sum(axis=1)
        out.setflags(write=False)
        return out

    @property
    def table(self) -> CleaningTable:
        """The table (a cell model with candidates holds one)."""
        return self

    @property
    def cap(self) -> np.ndarray:
        """Cells per group (m, d, K): a cleaning is an array of this shape."""
        return self.hid

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
        return self._values

    @functools.cached_property
    def _values(self) -> np.ndarray:
        return self.enc.X.astype(np.int64) - self.enc.offsets[:-1]

    def labels_of(self, rows: np.ndarray) -> np.ndarray:
        """The label of each row (in ``enc``'s order)."""
        return np.searchsorted(self.enc.label_bounds, rows, side="right") - 1

    def group_of(self, rows: np.ndarray, j: int) -> np.ndarray:
        """The groups (flat indices of ``cap``) of the cells (rows, column j)."""
        K = self.hid.shape[2]
        return (self.labels_of(rows) * self.enc.d + j) * K + self.values()[rows, j]

    def cells(self, x: np.ndarray) -> list:
        """Concrete cells (row in enc, column) for group counts x: first rows first."""
        Z = self.values()
        out = []
        for l, j, v in zip(*np.nonzero(x)):
            a, b = self.enc.label_bounds[l], self.enc.label_bounds[l + 1]
            hit = self.missing[a:b, j] & (Z[a:b, j] == v)
            rows = a + np.flatnonzero(hit)[: x[l, j, v]]
            out.extend((int(r), int(j)) for r in rows)
        return out

    def named_in_order(self, cells) -> tuple:
        """(row in enc, column) cells as (original row, column name), in their order."""
        return tuple((int(self.enc.rows[r]), self.enc.features[j]) for r, j in cells)

    def named(self, cells) -> tuple:
        """(row in enc, column) cells as (original row, column name), sorted."""
        out = [(int(self.enc.rows[r]), j) for r, j in cells]
        return tuple((r, self.enc.features[j]) for r, j in sorted(out))

    # -- the cell model

    def ranges(self, X: np.ndarray) -> tuple:
        """(lo, hi, dom) after each of B cleanings X (B, m, d, K) (``domain_ranges``)."""
        return domain_ranges(self.obs + X, (self.hid - X).sum(axis=3))

    def branches(self, x: np.ndarray, t: np.ndarray, alpha, winners=None, limit=None):
        """The branches that certify t for each winner (``nbcert.cleaning.domains``) on the
        table cleaned by x; their cleanings are counted from x."""
        limit = domains.MAX_BRANCHES if limit is None else limit
        return domains.branches(after(self, x), t, alpha, winners, limit)

    def view(self, x: np.ndarray, T: np.ndarray) -> tuple:
        """``plain_view`` of the points T after cleaning x."""
        return plain_view(*self.observed(x), T)

    def observed(self, x: np.ndarray) -> tuple:
        """What a chooser is given after cleaning x: the observed cells (m, d, K) and the
        missing cells per (label, column)."""
        return self.obs + x, (self.hid - x).sum(axis=2)

    def scoring(self, obs: np.ndarray, M: np.ndarray) -> tuple:
        """What the policy scores (``nbcert.cleaning.policy.policy_path``) given what is
        observed (``observed``): the observed cells, the missing cells per (label, column)
        and the View of any points."""
        return obs, M, lambda T: plain_view(obs, M, T)


def plain_view(obs: np.ndarray, M: np.ndarray, T: np.ndarray) -> tuple:
    """(the policy's View of the points T on observed cells obs (m, d, K) and missing cells
    M (m, d), the odds that a missing cell holds t_j as the worlds weigh them: uniform over
    the domain)."""
    E, seen, delta = agreeing(obs, T)
    lo, hi = extremes(E, M, delta, seen)
    view = View(E, lo, hi, np.broadcast_to(M, lo.shape), delta, seen)
    return view, truth_odds(obs, T, "worlds")


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
        Test points as local value codes (-1: unseen, -2: blank, its feature left out,
        ``nbcert.blanks``).
    alpha : Fraction
        The smoothing parameter.

    Returns
    -------
    Certification
        Per point whether it is certifiably robust and the label every world predicts.
    """
    got = certify_counts(*domain_ranges(obs[None], M[None]), N, T, alpha)
    return Certification(got.robust[0], got.label[0])


def domain_ranges(obs: np.ndarray, M: np.ndarray) -> tuple:
    """(lo, hi, dom) of B states of a table whose missing cells may take any value of
    their column's domain (its observed values): obs (B, m, d, K) observed cells, M (B, m,
    d) missing ones.  A value's count ranges from its observed cells (every missing cell,
    where the domain is that value alone) to those and every missing cell."""
    dom = obs.sum(axis=1) > 0  # (B, d, K)
    forced = dom & (dom.sum(axis=2) == 1)[..., None]
    lo = obs + M[..., None] * forced[:, None]
    return lo, obs + M[..., None], dom


def certify_counts(lo, hi, dom, N: np.ndarray, T: np.ndarray, alpha) -> Certification:
    """Certification of the test points T (k, d) in each of B states, from each label's
    count of each value over the worlds: at least ``lo``, at most ``hi`` (B, m, d, K), the
    domains ``dom`` (B, d, K).  A blank test cell's feature is left out: each group of
    points with the same blank cells is decided on their other features (every feature
    blank: on the prior alone, ``nbcert.blanks``).  Returns (B, k) arrays."""
    B, k, m = len(lo), len(T), len(N)
    robust, label = np.zeros((B, k), bool), np.full((B, k), -1, np.intp)
    delta = dom.sum(axis=2)  # (B, d)
    for rows, keep in blanks.groups(T):
        if len(keep):
            t = T[np.ix_(rows, keep)]
            tc = np.maximum(t, 0)
            seen = (t >= 0)[None] & dom[:, keep[None, :], tc]  # (B, k', d')

            def at(a):
                got = a[:, :, keep[None, :], tc].transpose(0, 2, 1, 3)  # (B, k', m, d')
                return np.where(seen[:, :, None, :], got, 0)

            low, high, size = at(lo), at(hi), delta[:, keep]
        else:  # the prior alone: one constant column, factor 1
            low = high = np.broadcast_to(N[:, None], (B, len(rows), m, 1))
            size = np.ones((B, 1), np.int64)
        robust[:, rows], label[:, rows] = _decide(low, high, N, size, alpha)
    return Certification(robust, label)


def _decide(lo, hi, N, delta, alpha) -> tuple:
    """``certify_ranges`` of B states at once (lo, hi (B, k, m, d), delta (B, d)): one
    call per distinct row of domain sizes (at alpha = 0 they are in no support: one)."""
    B, k, m, d = lo.shape
    robust, label = np.zeros((B, k), bool), np.full((B, k), -1, np.intp)
    if alpha == 0 or B <= 1:
        parts = [(np.arange(B), delta[0])] if B else []
    else:
        sizes, which = np.unique(delta, axis=0, return_inverse=True)
        parts = [(np.flatnonzero(which.ravel() == i), sz) for i, sz in enumerate(sizes)]
    for rows, sz in parts:
        shape = (len(rows) * k, m, d)
        dec = certify_ranges(lo[rows].reshape(shape), hi[rows].reshape(shape), N, sz, alpha)
        robust[rows] = dec.robust.reshape(len(rows), k)
        label[rows] = dec.label.reshape(len(rows), k)
    return robust, label


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


def truth_odds(obs: np.ndarray, T: np.ndarray, prior: str) -> np.ndarray:
    """The odds that a missing cell of (label l, column j) holds t_j, per test point.

    ``worlds``: uniform over the column's domain, as the possible worlds weight it;
    ``observed``: label l's observed frequency of t_j in column j (the column's frequency
    when l has no observed cell there) -- the estimate when cells are missing at random.
    Not smoothed: real tables have values a label never takes, and smoothing them (one
    added count per value) made the policy chase such labels' zero counts.  0 where t_j
    is not in the domain.

    Parameters
    ----------
    obs : ndarray, shape (m, d, K)
        Observed cells per (label, column, value).
    T : ndarray, shape (k, d)
        Test points as local value codes (-1: unseen).
    prior : {"observed", "worlds"}

    Returns
    -------
    ndarray, shape (k, m, d)
    """
    m, d, K = obs.shape
    dom = obs.sum(axis=0) > 0
    delta = dom.sum(axis=1)
    Tc = np.maximum(T, 0)
    cols = np.arange(d)
    seen = (T >= 0) & dom[cols, Tc]  # (k, d)
    if prior == "worlds":
        odds = np.broadcast_to(1.0 / np.maximum(delta, 1), (len(T), m, d))
    else:
        per_label = obs.sum(axis=2)  # (m, d)
        own = obs[:, cols, Tc].transpose(1, 0, 2) / np.maximum(per_label, 1)  # (k, m, d)
        column = obs.sum(axis=0)[cols, Tc] / np.maximum(obs.sum(axis=(0, 2)), 1)  # (k, d)
        odds = np.where(per_label > 0, own, column[:, None, :])
    return np.where(seen[:, None, :], odds, 0.0)


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
