"""The paper's randomized poisoning baselines for one test point: SR and RP.

SR and RP blank cells in an order they choose at random and stop at the first cell after
which the point is not robust; both check robustness after every cell.  Blanking one cell
of label l in column j moves one factor of l's extremes: an agreeing cell lowers the
smallest count A_lj by one, a disagreeing one raises the largest A_lj + M_lj by one (while
column j keeps two or more values and t_j).  So the log supports after every prefix of a
window of cells are running sums of log1p terms, checked at once; a comparison within
their rounding bound, and a cell that changes a column's form (its domain down to t_j
alone, or t_j gone), are decided exactly on the counts.

Both work on a ``nbcert.poisoning.single.PoisonedCounts`` state (``state`` below) and leave the
cells they blanked in it.
"""

from __future__ import annotations

import math

import numpy as np

from ..stats.support import log_tolerance


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


def _first_event(state, cols, v, agree) -> int:
    """Index of the first step after which a column's domain shrinks to one value or
    loses t's value (len if none): the cases where a column's extremes change form."""
    by_col = _Groups(cols)
    gone = state.cnt[v] - _Groups(v).before() - 1 == 0  # the step removes its value's last cell
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
            st.blank_many(rows[:i + 1], cols[:i + 1], v[:i + 1])
            if st.robust():
                continue
        return i, i + 1
    return None, e


def _blank_until_nonrobust(state, rows: np.ndarray, cols: np.ndarray) -> bool:
    """Blank the cells in order, checking robustness after each, until the point is not
    robust (True; the state then holds exactly the cells blanked up to there)."""
    v = cell_values(state.enc, rows, cols)
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


def smarter_random(enc, star: int, state, rng, window: int = 1024) -> bool:
    """SR: a random rival, then A1 or A2 steps chosen at random until non-robust.

    A1 blanks a random disagreeing cell of the rival in its column of smallest largest
    count, A2 a random agreeing cell of the predicted label in its column of smallest
    count (the first such column); a column keeps one observed cell.  The steps depend
    on the counts, not on robustness, so a window of steps is played on the counts
    first and robustness is then checked after each of them (_blank_until_nonrobust).
    Whether it found a poisoning (the state then holds its cells)."""
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
            return False  # none found; a random search proves nothing
        if _blank_until_nonrobust(state, np.array(rows, np.intp), np.array(cols, np.intp)):
            return True


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


def random_order(enc, state, rng, window: int = 1 << 16) -> bool:
    """RP: blank random cells one at a time until non-robust.

    The cells come in uniformly random order (_cell_order), a window at a time; a
    column's last observed cell is skipped (a column keeps one).  Robustness after every
    prefix is checked from the counts (_blank_until_nonrobust), never by recounting.
    Whether it found a poisoning (the state then holds its cells).
    """
    for cells in _cell_order(enc.n * enc.d, rng, window):
        rows, cols = np.divmod(cells.astype(np.intp), enc.d)
        keep = _Groups(cols).before() + 1 < state.left[cols]  # the column's last observed cell stays
        if _blank_until_nonrobust(state, rows[keep], cols[keep]):
            return True
    return False  # none found: blanking is not monotone, another order may work
