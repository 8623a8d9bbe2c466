"""Data poisoning for a single test point (paper section 5.1): OP, SR and RP.

The attacker blanks feature cells of a complete table (alpha = 0) until the test point
is no longer certifiably robust.  The poisoned table's domains are its own observed
values, so blanking can also shrink a domain; with alpha = 0 that matters in two ways:
removing every t_j from column j zeroes all supports (a tie everywhere: non-robust),
and leaving t_j as column j's only value forces every blank there back to t_j.

OP (Algorithms 3-4, corrected).  For the predicted label l* and a rival l', as long
as t_j stays in the domain with another value beside it, the original support vector
remains reachable, so the point is non-robust iff some rival's largest support reaches
l*'s smallest: prod_j (A*_j - a_j) N'^(d-1) <= prod_j (A'_j + b_j) N*^(d-1), where a
blanks l*'s agreeing cells (A2) and b blanks l''s disagreeing cells (A1).  For a
budget of a blanks the smallest left side puts them all on l*'s smallest A*_j (it is
linear there); for b blanks the largest right side raises the smallest factors first
(water-filling; its gains never shrink, so it is convex in b).  A convex plus a linear
term is largest at an end, hence one of the two pure strategies is optimal: the
paper's claim, which holds for alpha = 0.  Where water-filling would leave t_j as the
only value of a column (all its other cells belong to l'), the forced blanks can make
l' win outright; OP then also tries leaving one such cell and takes the smallest valid
answer.  Every answer is checked on the poisoned counts before it is returned.

SR and RP (the paper's randomized baselines) blank cells in an order they choose at
random and stop at the first cell after which the point is not robust; both check
robustness after every cell.  Blanking one cell of label l in column j moves one factor
of l's extremes: an agreeing cell lowers the smallest count A_lj by one, a disagreeing
one raises the largest A_lj + M_lj by one (while column j keeps two or more values and
t_j).  So the log supports after every prefix of a window of cells are running sums of
log1p terms, checked at once; a comparison within their rounding bound, and a cell that
changes a column's form (its domain down to t_j alone, or t_j gone), are decided exactly
on the counts.  The cells a randomized baseline blanks are kept as arrays (``Cells``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..decide import decide_counts, extremes
from ..reading.encoding import EncodedTable
from ..stats import Stats, count_index
from ..stats.support import log_tolerance


STATUSES = ("poisoned", "already_nonrobust", "impossible", "none_found")


class Cells(Sequence):
    """The (row, column name) pairs of a poisoning, held as two arrays (a randomized
    baseline may blank millions of cells); it compares equal to any sequence of the
    same pairs."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, names: tuple):
        self.rows, self.cols, self.names = rows, cols, names  # rows: table rows; cols: feature indices

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(zip(self.rows[i].tolist(), [self.names[j] for j in self.cols[i].tolist()]))
        return int(self.rows[i]), self.names[int(self.cols[i])]

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"Cells({len(self)} cells)"


@dataclass(frozen=True)
class Poisoning:
    """Cells to blank so a test point is no longer certifiably robust.

    ``cells`` lists (row position in the training table, column name), a tuple or
    ``Cells`` (the same pairs held as arrays); it is empty when
    the point is already non-robust.  ``possible`` is False (``cells`` empty) when no
    blanking was found; ``impossible`` then says whether that is proven (OP, or a table
    with a single label) or only that a randomized search (SR, RP) found none.
    ``status`` names the four cases.
    """

    possible: bool
    cells: Sequence = ()
    impossible: bool = False

    def __post_init__(self):
        if self.possible and self.impossible:
            raise ValueError("a poisoning that was found cannot be impossible")

    @property
    def num_cells(self) -> int | None:
        return len(self.cells) if self.possible else None

    @property
    def status(self) -> str:
        """'poisoned', 'already_nonrobust', 'impossible' (proven) or 'none_found'."""
        if self.possible:
            return "poisoned" if self.cells else "already_nonrobust"
        return "impossible" if self.impossible else "none_found"


class PoisonedCounts:
    """Counts of a complete table under blanking, updated per batch of blanked cells
    without recounting the table."""

    def __init__(self, enc: EncodedTable | Stats, t: np.ndarray, counts: np.ndarray | None = None):
        """``counts``: the table's count index (stats.count_index), if already built.  From
        Stats alone (a streamed table) cells are blanked by ``blank_cells``, named by row."""
        self.enc = enc
        self.seen0 = t >= 0
        self.tcode = enc.global_codes(t[None])[0]
        if counts is None:
            counts = enc.counts if isinstance(enc, Stats) else count_index(enc)
        self.A = np.where(self.seen0, counts[:, self.tcode], 0)
        self.M = np.zeros_like(self.A)
        self.cnt = counts.sum(axis=0)
        self.ndist = enc.delta.copy()
        self.left = np.full(enc.d, enc.n)  # observed cells per column
        self.blanked: list = []  # (row ids, feature indices) arrays, in blanking order

    def copy(self) -> "PoisonedCounts":
        new = object.__new__(PoisonedCounts)
        new.__dict__.update(self.__dict__)
        for name in ("A", "M", "cnt", "ndist", "left"):
            setattr(new, name, getattr(self, name).copy())
        new.blanked = list(self.blanked)
        return new

    def label_of(self, rows: np.ndarray) -> np.ndarray:
        """Label code of rows of enc.X (its rows are grouped by label)."""
        return np.searchsorted(self.enc.label_bounds, rows, side="right") - 1

    def blank(self, rows, j: int):
        """Blank the cells of column j in the given rows (positions in enc.X)."""
        rows = np.atleast_1d(rows)
        self.blank_cells(j, self.enc.X[rows, j], self.label_of(rows), rows)

    def blank_many(self, rows: np.ndarray, cols: np.ndarray, v: np.ndarray | None = None):
        """Blank the cells (rows[i], cols[i]) of enc.X, distinct and not yet blanked
        (``v``: their global codes, if known)."""
        enc = self.enc
        v = _values(enc, rows, cols) if v is None else v
        l = self.label_of(rows)
        md = enc.m * enc.d
        self.M += np.bincount(l * enc.d + cols, minlength=md).reshape(enc.m, enc.d)
        agree = v == self.tcode[cols]
        self.A -= np.bincount(l[agree] * enc.d + cols[agree], minlength=md).reshape(enc.m, enc.d)
        self.cnt -= np.bincount(v, minlength=len(self.cnt))
        touched = np.unique(cols)
        for j in touched.tolist():
            self.ndist[j] = np.count_nonzero(self.cnt[enc.offsets[j]:enc.offsets[j + 1] - 1])
        self.left -= np.bincount(cols, minlength=enc.d)
        self._record(rows, cols)

    def _record(self, ids, cols):
        """Remember blanked cells compactly (a baseline may blank millions)."""
        ids = np.asarray(ids)
        small = ids.astype(np.int32) if len(ids) and int(ids.max()) < 1 << 31 else ids
        self.blanked.append((small, np.asarray(cols).astype(np.min_scalar_type(max(self.enc.d - 1, 0)))))

    def blank_cells(self, j: int, v: np.ndarray, l: np.ndarray, ids):
        """Blank cells of column j holding global codes v in rows of labels l; ``ids``
        name the rows (positions in enc.X, or table rows for Stats)."""
        enc = self.enc
        self.M[:, j] += np.bincount(l, minlength=enc.m)
        self.A[:, j] -= np.bincount(l[v == self.tcode[j]], minlength=enc.m)
        lo, hi = enc.offsets[j], enc.offsets[j + 1]
        self.cnt[lo:hi] -= np.bincount(v - lo, minlength=hi - lo)
        self.ndist[j] = np.count_nonzero(self.cnt[lo:hi - 1])
        self.left[j] -= len(v)
        self._record(ids, np.full(len(v), j))

    def winner(self) -> int:
        """The label every world predicts, -1 when not robust."""
        return int(_decide(self.A[None], self.M[None], self.cnt[self.tcode][None] > 0,
                           self.ndist[None], self.enc).label[0])

    def robust(self) -> bool:
        return self.winner() >= 0

    def result(self) -> Poisoning:
        """The cells blanked so far, named by table row and feature."""
        enc = self.enc
        rows = np.concatenate([r for r, _ in self.blanked]) if self.blanked else np.zeros(0, np.intp)
        cols = np.concatenate([c for _, c in self.blanked]) if self.blanked else np.zeros(0, np.intp)
        if not isinstance(enc, Stats):
            rows = enc.rows[rows]
        return Poisoning(True, Cells(rows, cols, tuple(enc.features)))


def _decide(A, M, seen, ndist, enc):
    """Robustness of poisoned states: A, M (s, m, d); seen, ndist (s, d)."""
    seen = seen & (ndist > 0)
    lo, hi = extremes(A, M, ndist[:, None, :], seen)
    return decide_counts(lo, hi, enc.label_sizes, enc.delta, 0)


# ---------------------------------------------------------------- OP

def _min_fill(x: list, cap: list, need: int, avoid: list):
    """Fewest units b (x + b <= cap) with prod(x + b) >= need, allocated by water-filling
    (raise the smallest values first, which maximises the product for every budget);
    None if even cap falls short.  Of the columns tied at the last level, those in
    ``avoid`` are raised last.
    """
    if math.prod(cap) < need:
        return None
    if math.prod(x) >= need:
        return [0] * len(x)

    def filled(level):
        return [max(xj, min(level, cj)) for xj, cj in zip(x, cap)]

    lo, hi = min(x), max(cap)  # prod(filled(lo)) < need <= prod(filled(hi))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if math.prod(filled(mid)) >= need else (mid, hi)
    y = filled(lo)
    for j in sorted((j for j in range(len(x)) if y[j] == lo and cap[j] > lo), key=lambda j: avoid[j]):
        if math.prod(y) >= need:
            break
        y[j] += 1
    return [yj - xj for yj, xj in zip(y, x)]


def _rows_where(enc, l, j, value, agree: bool, count, blanked=None):
    """The first ``count`` rows of label l whose column j equals (or differs from) value,
    skipping rows whose cell is already blanked."""
    a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
    col = enc.X[a:b, j]
    hit = (col == value) if agree else (col != value)
    if blanked is not None:
        hit &= ~blanked[a:b, j]
    return a + np.flatnonzero(hit)[:count]


def plans(enc: EncodedTable, star: int, state: PoisonedCounts) -> list:
    """Candidate blankings that end l*'s dominance, cheapest first: (cells, steps) with
    steps (label, column, agreeing cells?, how many).  Works from the state's current
    counts, so it also extends a partly blanked table (many-point poisoning)."""
    N, d = enc.label_sizes, enc.d
    lo = state.A  # l's smallest agreeing counts: unblanked agreeing cells
    hi = state.A + state.M  # l's largest: every blank may take t_j
    usable = state.ndist >= 2
    free = N[:, None] - hi  # unblanked disagreeing cells
    out = []
    for l2 in range(enc.m):
        if l2 == star:
            continue
        lhs0 = math.prod(lo[star].tolist()) * int(N[l2]) ** (d - 1)
        rhs0 = math.prod(hi[l2].tolist()) * int(N[star]) ** (d - 1)
        # A2: blank l*'s agreeing cells in its rarest usable column.
        if usable.any():
            j0 = int(np.flatnonzero(usable)[np.argmin(lo[star, usable])])
            rest = lhs0 // int(lo[star, j0]) if lo[star, j0] else 0
            keep = rhs0 // rest if rest else int(lo[star, j0])
            a = int(lo[star, j0]) - min(int(lo[star, j0]), keep)
            out.append((a, [(star, j0, True, a)]))
        # A1: blank l''s disagreeing cells, smallest largest-counts first.
        x = hi[l2]
        others = free.sum(axis=0) - free[l2]
        neutral = usable & (others == 0) & (free[l2] > 0)  # blanking all of them leaves only t_j
        need = -(-lhs0 // int(N[star]) ** (d - 1))  # ceil(prod lo* N'^(d-1) / N*^(d-1))
        for cap in (np.where(usable, N[l2], x), np.where(neutral, N[l2] - 1, np.where(usable, N[l2], x))):
            b = _min_fill(x.tolist(), cap.tolist(), need, neutral.tolist())
            if b is not None:
                out.append((sum(b), [(l2, j, False, b[j]) for j in range(d) if b[j]]))
    return sorted(out, key=lambda p: p[0])


def cells_of(enc: EncodedTable, tcode: np.ndarray, steps, blanked=None) -> list:
    """Concrete (column, rows) for a plan's steps."""
    return [(j, _rows_where(enc, l, j, tcode[j], agree, count, blanked)) for l, j, agree, count in steps]


def _optimal(enc: EncodedTable | Stats, star: int, state: PoisonedCounts, find=None):
    """The cheapest plan that works.  ``find(plans)`` names the cells of every plan's steps
    for a table known only by its Stats: {step: (row ids, global codes)}."""
    candidates = plans(enc, star, state)
    found = find([steps for _, steps in candidates]) if find is not None else None
    for _, steps in candidates:
        st = state.copy()
        if found is None:
            for j, rows in cells_of(enc, st.tcode, steps):
                st.blank(rows, j)
        else:
            for l, j, agree, count in steps:
                ids, codes = found[(l, j, agree)]
                st.blank_cells(j, codes[:count], np.full(min(count, len(codes)), l), ids[:count])
        if not st.robust():
            return st.result()
    return Poisoning(False, impossible=True)  # OP is exact: no plan works, so no blanking does


# ---------------------------------------------------------------- SR, RP: blanking in a given order

class _Groups:
    """Positions grouped by a small integer key (a stable radix sort), for running counts
    within each group."""

    def __init__(self, keys: np.ndarray):
        keys = keys.astype(np.min_scalar_type(int(keys.max()) if len(keys) else 0))
        self.order = np.argsort(keys, kind="stable")
        k = keys[self.order]
        self.first = np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if len(k) else np.zeros(0, np.intp)
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


def _first_event(state: PoisonedCounts, cols, v, agree) -> int:
    """Index of the first step after which a column's domain shrinks to one value or
    loses t's value (len if none): the cases where a column's extremes change form."""
    by_col = _Groups(cols)
    gone = state.cnt[v] - _Groups(v).before() - 1 == 0  # the step removes its value's last cell
    ndist = state.ndist[cols] - by_col.upto(gone)
    tleft = state.cnt[state.tcode[cols]] - by_col.upto(agree)
    hit = np.flatnonzero((gone & (ndist <= 1)) | (agree & (tleft <= 0)))
    return int(hit[0]) if len(hit) else len(cols)


def _prefix_supports(state: PoisonedCounts, l, cols, agree):
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
    by_key = _Groups(l * d + cols)
    lower, raise_ = agree & ~forced, ~agree
    A = state.A[l, cols] - by_key.upto(agree) + agree  # before the step
    H = (state.A + state.M)[l, cols] + by_key.upto(~agree) - ~agree
    x = np.where(lower, A, H).astype(float)
    dz = np.where(lower, (x == 1).astype(np.intp), -(x == 0).astype(np.intp))  # a factor reaching 0 or leaving it
    dl = np.where(lower, np.log1p(-1 / np.maximum(x, 2)), np.log1p(1 / np.maximum(x, 1)))
    dl[(lower & (x == 1)) | (~lower & (x == 0))] = 0.0  # log 0 is counted as a zero factor
    logN = np.log(enc.label_sizes.astype(float)) * (1 - d)
    out = []
    for base, moves in ((state.A + np.where(state.ndist == 1, state.M, 0), lower), (state.A + state.M, raise_)):
        i = np.flatnonzero(moves)
        Z, L = np.zeros((m, len(l)), np.intp), np.zeros((m, len(l)))
        Z[l[i], i], L[l[i], i] = dz[i], dl[i]
        l0 = logN + np.where(base > 0, np.log(np.maximum(base, 1)), 0.0).sum(axis=1)
        out.append(((base == 0).sum(axis=1)[:, None] + Z.cumsum(axis=1), l0[:, None] + L.cumsum(axis=1),
                    float((np.abs(l0) + np.abs(L).sum(axis=1)).max())))
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


def _values(enc, rows, cols) -> np.ndarray:
    """The global codes of cells (rows, cols) of enc.X."""
    if enc.X.flags.c_contiguous:
        return np.take(enc.X.reshape(-1), rows * enc.d + cols).astype(np.intp)
    return enc.X[rows, cols].astype(np.intp)


def _scan(state: PoisonedCounts, rows, cols, v):
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
            st.blank_many(rows[:i + 1], cols[:i + 1], v[:i + 1])
            if st.robust():
                continue
        return i, i + 1
    return None, e


def _blank_until_nonrobust(state: PoisonedCounts, rows: np.ndarray, cols: np.ndarray) -> bool:
    """Blank the cells in order, checking robustness after each, until the point is not
    robust (True; the state then holds exactly the cells blanked up to there)."""
    v = _values(state.enc, rows, cols)
    i = 0
    while i < len(rows):
        hit, done = _scan(state, rows[i:], cols[i:], v[i:])
        if hit is not None:
            state.blank_many(rows[i:i + hit + 1], cols[i:i + hit + 1], v[i:i + hit + 1])
            return True
        state.blank_many(rows[i:i + done], cols[i:i + done], v[i:i + done])
        i += done
        if i < len(rows):  # this cell changes a column's form: checked on its own
            state.blank_many(rows[i:i + 1], cols[i:i + 1], v[i:i + 1])
            i += 1
            if not state.robust():
                return True
    return False

# ---------------------------------------------------------------- SR

class _Pool:
    """The rows of one label's block whose cell in column j agrees with t_j (or differs),
    handed out in uniformly random order without replacement and without listing them:
    each next row is drawn uniformly from the block and kept if it qualifies and was not
    handed out yet.  Once half are out (or they are rare in the block), the rest are
    listed and shuffled."""

    def __init__(self, enc, l: int, j: int, code: int, agree: bool, size: int, rng):
        self.X, self.j, self.code, self.agree, self.rng = enc.X, j, code, agree, rng
        self.a, self.b = int(enc.label_bounds[l]), int(enc.label_bounds[l + 1])
        self.size, self.taken, self.queue, self.rest = size, set(), [], None
        if size * 16 < self.b - self.a:
            self._list()

    def __len__(self) -> int:
        return self.size - len(self.taken) + len(self.queue) if self.rest is None else len(self.rest)

    def _qualifies(self, rows):
        return (self.X[rows, self.j] == self.code) == self.agree

    def _list(self):  # the rows not handed out yet (none is queued when this is called)
        rows = self.a + np.flatnonzero(self._qualifies(np.arange(self.a, self.b)))
        rows = rows[~np.isin(rows, np.fromiter(self.taken, np.intp, len(self.taken)))] if self.taken else rows
        self.rest = self.rng.permutation(rows).tolist()

    def pop(self) -> int:
        if self.rest is None and not self.queue and 2 * len(self.taken) >= self.size:
            self._list()
        if self.rest is not None:
            return self.rest.pop()
        while not self.queue:
            rows = self.rng.integers(self.a, self.b, 64)
            _, first = np.unique(rows, return_index=True)
            rows = rows[np.sort(first)]
            for r in rows[self._qualifies(rows)].tolist():
                if r not in self.taken:
                    self.taken.add(r)
                    self.queue.append(r)
        return self.queue.pop(0)


def _smarter_random(enc, star, state, rng, window: int = 1024):
    """SR: a random rival, then A1 or A2 steps chosen at random until non-robust.

    A1 blanks a random disagreeing cell of the rival in its column of smallest largest
    count, A2 a random agreeing cell of the predicted label in its column of smallest
    count (the first such column); a column keeps one observed cell.  The steps depend
    on the counts, not on robustness, so a window of steps is played on the counts
    first and robustness is then checked after each of them (_blank_until_nonrobust)."""
    rivals = [l for l in range(enc.m) if l != star]
    l2 = int(rng.choice(rivals))
    usable = enc.delta >= 2
    sizes = {star: state.A[star], l2: enc.label_sizes[l2] - state.A[l2]}
    pools = {(l, j): _Pool(enc, l, j, int(state.tcode[j]), l == star, int(sizes[l][j]), rng)
             for l in (star, l2) for j in range(enc.d) if usable[j] and sizes[l][j] > 0}
    # per label the score of each column with cells left to draw (inf: none left)
    score = {l2: (state.A[l2] + state.M[l2]).tolist(), star: state.A[star].tolist()}
    for l in (l2, star):
        score[l] = [score[l][j] if (l, j) in pools else math.inf for j in range(enc.d)]
    step = {l2: 1, star: -1}  # blanking moves the rival's largest count up, l*'s smallest down
    left, cols_ = state.left.tolist(), range(enc.d)
    coins = []  # fair coins for choosing between the two moves, drawn a window at a time
    while True:
        rows, cols = [], []
        while len(rows) < window:
            moves = [(l, min(cols_, key=score[l].__getitem__)) for l in (l2, star)]
            moves = [(l, j) for l, j in moves if score[l][j] < math.inf]
            if not moves:
                break
            coins = coins or rng.integers(0, 2, window).tolist()
            l, j = moves[coins.pop() if len(moves) == 2 else 0]
            pool = pools[(l, j)]
            r = pool.pop()
            if left[j] > 1:  # a column must keep one observed cell
                rows.append(r)
                cols.append(j)
                left[j] -= 1
                score[l][j] += step[l]
            if not len(pool):
                score[l][j] = math.inf
        if not rows:
            return Poisoning(False)  # none found; a random search proves nothing
        if _blank_until_nonrobust(state, np.array(rows, np.intp), np.array(cols, np.intp)):
            return state.result()


# ---------------------------------------------------------------- RP

def _cell_order(n_cells: int, rng, batch: int):
    """The cells 0 .. n_cells-1 in uniformly random order, about ``batch`` at a time,
    without a permutation of them all: cells are drawn uniformly, those drawn before are
    dropped (a bitmap of drawn cells), and the distinct new ones come out in random order
    (given which cells they are, every order of their first draws is equally likely);
    once half are drawn, the rest are listed (4 bytes each) and shuffled."""
    drawn = np.zeros((n_cells + 7) // 8, np.uint8)
    done = 0
    while 2 * done < n_cells:
        cand = np.sort(rng.integers(0, n_cells, min(batch, n_cells - done)))
        cand = cand[np.r_[True, cand[1:] != cand[:-1]]]
        byte, bit = cand >> 3, (1 << (cand & 7)).astype(np.uint8)
        fresh = (drawn[byte] & bit) == 0
        cand, byte, bit = cand[fresh], byte[fresh], bit[fresh]
        if len(cand):  # cand is sorted: one OR per byte
            first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
            drawn[byte[first]] |= np.bitwise_or.reduceat(bit, first)
        done += len(cand)
        yield rng.permutation(cand)
    dtype = np.uint32 if n_cells < 1 << 32 else np.int64
    rest = np.concatenate([a + np.flatnonzero(np.unpackbits(drawn[a // 8:(a + (1 << 24)) // 8], bitorder="little")
                                              [:min(1 << 24, n_cells - a)] == 0).astype(dtype)
                           for a in range(0, n_cells, 1 << 24)])
    rng.shuffle(rest)
    for a in range(0, len(rest), batch):
        yield rest[a:a + batch].astype(np.intp)


def _random(enc, state, rng, window=1 << 16):
    """RP: blank random cells one at a time until non-robust.

    The cells come in uniformly random order (_cell_order), a window at a time; a
    column's last observed cell is skipped (a column keeps one).  Robustness after every
    prefix is checked from the counts (_blank_until_nonrobust), never by recounting.
    """
    for cells in _cell_order(enc.n * enc.d, rng, window):
        rows, cols = np.divmod(cells.astype(np.intp), enc.d)
        keep = _Groups(cols).before() + 1 < state.left[cols]  # the column's last observed cell stays
        if _blank_until_nonrobust(state, rows[keep], cols[keep]):
            return state.result()
    return Poisoning(False)  # none found: blanking is not monotone, another order may work


def poison_encoded(enc: EncodedTable | Stats, t: np.ndarray, method: str = "op", seed=None, find=None) -> Poisoning:
    """Poison a complete encoded table for one test point (local codes t).  A table known
    only by its Stats takes OP with ``find`` (see _optimal) naming the cells."""
    state = PoisonedCounts(enc, t)
    first = _decide(state.A[None], state.M[None], state.seen0[None], enc.delta[None], enc)
    if not first.robust[0]:
        return Poisoning(True)
    star = int(first.label[0])
    if enc.m == 1:  # one label is predicted in every world, whatever is blanked
        return Poisoning(False, impossible=True)
    rng = np.random.default_rng(seed)
    if method == "op":
        return _optimal(enc, star, state, find)
    if method == "sr":
        return _smarter_random(enc, star, state, rng)
    if method == "rp":
        return _random(enc, state, rng)
    raise ValueError(f"unknown poison method {method!r} (use op, sr or rp)")
