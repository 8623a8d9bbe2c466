"""The randomized poisoning baselines' incremental robustness check (beyond the paper).

The paper's SR and RP check robustness after every blanked cell by running Iterate
(Algorithm 1) on the table as it stands (``nbcert.poisoning.baselines``).  This module
gives the same answers from the counts instead: blanking one cell of label l in column j
moves one factor of l's extremes -- an agreeing cell lowers the smallest count A_lj by
one, a disagreeing one raises the largest A_lj + M_lj by one (while column j keeps two or
more values and t_j).  So the log supports after every prefix of a window of cells are
running sums of log1p terms, checked at once; a comparison within their rounding bound,
and a cell that changes a column's form (its domain down to t_j alone, or t_j gone), are
decided exactly on the counts.  The reproduction times it under its own names, "RP
(incremental)" and "SR (incremental)", beside the paper's.

It works on a ``nbcert.poisoning.single.PoisonedCounts`` state (``state`` below) and leaves
the cells it blanked in it.
"""

from __future__ import annotations

import numpy as np

from ..kernel import log_tolerance


class Groups:
    """Positions grouped by a small integer key (a stable radix sort), for running counts
    within each group."""

    def __init__(self, keys: np.ndarray):
        keys = keys.astype(np.min_scalar_type(int(keys.max()) if len(keys) else 0))
        self.order = np.argsort(keys, kind="stable")
        k = keys[self.order]
        self.first = (
            np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if len(k) else np.zeros(0, np.intp)
        )
        self.lengths = np.diff(np.r_[self.first, len(k)])

    def upto(self, flag: np.ndarray) -> np.ndarray:
        """For each position, how many positions of its group up to and including it have flag."""
        f = np.cumsum(flag[self.order], dtype=np.intp)
        out = np.empty(len(f), np.intp)
        out[self.order] = f - np.repeat(np.r_[0, f][self.first], self.lengths)
        return out

    def before(self) -> np.ndarray:
        """For each position, how many earlier positions are in its group."""
        return self.upto(np.ones(len(self.order), bool)) - 1


def _first_event(state, cols, v, agree) -> int:
    """Index of the first step after which a column's domain shrinks to one value or
    loses t's value (len if none): the cases where a column's extremes change form."""
    by_col = Groups(cols)
    gone = state.cnt[v] - Groups(v).before() - 1 == 0  # the step removes its value's last cell
    ndist = state.ndist[cols] - by_col.upto(gone)
    tleft = state.cnt[state.tcode[cols]] - by_col.upto(agree)
    hit = np.flatnonzero((gone & (ndist <= 1)) | (agree & (tleft <= 0)))
    return int(hit[0]) if len(hit) else len(cols)


def _prefix_supports(state, l, cols, agree):
    """Smallest and largest supports after every prefix of the steps, none of which changes
    a column's form (see _first_event): each as (zero factors, log of the rest), (m, w),
    and a bound on the sum of the magnitudes of the logs added up (for rounding).

    A column whose domain has two or more values has extremes A and A + M: blanking an
    agreeing cell lowers the smallest count A by one, a disagreeing one raises the largest
    A + M by one.  A column whose only value is t_j has both at A + M, which blanking (an
    agreeing cell: all its cells agree) leaves as it is.  So each step changes at most one
    factor of one label; its value before the step comes from the earlier steps on the
    same (label, column), and the change of its log is log1p(-1/A) or log1p(1/(A + M))."""
    enc, m, d = state.enc, state.enc.m, state.enc.d
    forced = state.ndist[cols] == 1
    by_key = Groups(l * d + cols)
    lower, raise_ = agree & ~forced, ~agree
    A = state.A[l, cols] - by_key.upto(agree) + agree  # before the step
    H = (state.A + state.M)[l, cols] + by_key.upto(~agree) - ~agree
    x = np.where(lower, A, H).astype(float)
    dz = np.where(
        lower, (x == 1).astype(np.intp), -(x == 0).astype(np.intp)
    )  # a factor reaching 0 or leaving it
    dl = np.where(lower, np.log1p(-1 / np.maximum(x, 2)), np.log1p(1 / np.maximum(x, 1)))
    dl[(lower & (x == 1)) | (~lower & (x == 0))] = 0.0  # log 0 is counted as a zero factor
    logN = np.log(enc.label_sizes.astype(float)) * (1 - d)
    out = []
    for base, moves in (
        (state.A + np.where(state.ndist == 1, state.M, 0), lower),
        (state.A + state.M, raise_),
    ):
        i = np.flatnonzero(moves)
        Z, L = np.zeros((m, len(l)), np.intp), np.zeros((m, len(l)))
        Z[l[i], i], L[l[i], i] = dz[i], dl[i]
        l0 = logN + np.where(base > 0, np.log(np.maximum(base, 1)), 0.0).sum(axis=1)
        out.append(
            (
                (base == 0).sum(axis=1)[:, None] + Z.cumsum(axis=1),
                l0[:, None] + L.cumsum(axis=1),
                float((np.abs(l0) + np.abs(L).sum(axis=1)).max()),
            )
        )
    return out


def _wins(lo, hi, tol):
    """Per prefix (w,): whether some label's smallest support surely beats every other
    label's largest, and whether one might (beats or is within ``tol`` of it, in logs)."""
    (zl, ll), (zh, lh) = lo, hi
    m, w = zl.shape
    sure, maybe = np.zeros(w, bool), np.zeros(w, bool)
    for l in range(m):
        s_l, m_l = zl[l] == 0, zl[l] == 0  # a zero smallest support beats nothing
        for l2 in range(m):
            if l2 != l:
                diff = ll[l] - lh[l2]
                zero = zh[l2] > 0  # a zero largest support is beaten by any positive one
                s_l &= zero | (diff > tol)
                m_l &= zero | (diff >= -tol)
        sure |= s_l
        maybe |= m_l
    return sure, maybe


def cell_values(enc, rows, cols) -> np.ndarray:
    """The global codes of cells (rows, cols) of enc.X."""
    if enc.X.flags.c_contiguous:
        return np.take(enc.X.reshape(-1), rows * enc.d + cols).astype(np.intp)
    return enc.X[rows, cols].astype(np.intp)


def _scan(state, rows, cols, v):
    """(first prefix after which the point is not robust, or None; steps checked).

    Checks the prefixes up to the first step that changes a column's form, vectorised;
    near-ties are re-decided exactly on the counts of that prefix.  Each log is a sum of
    d + 1 logs and up to w log1p terms: rounding moves it by at most the base's bound
    (support.log_tolerance) plus (w + 4) eps times the sum of the magnitudes added."""
    enc = state.enc
    agree = v == state.tcode[cols]
    e = _first_event(state, cols, v, agree)
    if e == 0:
        return None, 0
    l = state.label_of(rows[:e])
    (zl, ll, bl), (zh, lh, bh) = _prefix_supports(state, l, cols[:e], agree[:e])
    tol = 2 * (log_tolerance(enc.d, enc.n, 0) + 2 * (e + 4) * np.finfo(float).eps * max(bl, bh))
    sure_win, maybe = _wins((zl, ll), (zh, lh), tol)
    for i in np.flatnonzero(~sure_win).tolist():
        if maybe[i]:  # a win rests on a near-tie: decide it on the counts of the prefix
            st = state.copy()
            st.blank_at(rows[: i + 1], cols[: i + 1], v[: i + 1])
            if st.robust():
                continue
        return i, i + 1
    return None, e


def blank_until_nonrobust(state, rows: np.ndarray, cols: np.ndarray) -> bool:
    """Blank the cells in order, checking robustness after each, until the point is not
    robust (True; the state then holds exactly the cells blanked up to there)."""
    v = cell_values(state.enc, rows, cols)
    i = 0
    while i < len(rows):
        hit, done = _scan(state, rows[i:], cols[i:], v[i:])
        if hit is not None:
            state.blank_at(rows[i : i + hit + 1], cols[i : i + hit + 1], v[i : i + hit + 1])
            return True
        state.blank_at(rows[i : i + done], cols[i : i + done], v[i : i + done])
        i += done
        if i < len(rows):  # this cell changes a column's form: checked on its own
            state.blank_at(rows[i : i + 1], cols[i : i + 1], v[i : i + 1])
            i += 1
            if not state.robust():
                return True
    return False
