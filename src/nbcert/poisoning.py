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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .decision import decide_counts, extremes
from .encoding import EncodedTable
from .stats import Stats, count_index


STATUSES = ("poisoned", "already_nonrobust", "impossible", "none_found")


@dataclass(frozen=True)
class Poisoning:
    """Cells to blank so a test point is no longer certifiably robust.

    ``cells`` lists (row position in the training table, column name); it is empty when
    the point is already non-robust.  ``possible`` is False (``cells`` empty) when no
    blanking was found; ``impossible`` then says whether that is proven (OP, or a table
    with a single label) or only that a randomized search (SR, RP) found none.
    ``status`` names the four cases.
    """

    possible: bool
    cells: tuple = ()
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
        self.blanked: list = []

    def copy(self) -> "PoisonedCounts":
        new = object.__new__(PoisonedCounts)
        new.__dict__.update(self.__dict__)
        for name in ("A", "M", "cnt", "ndist", "left"):
            setattr(new, name, getattr(self, name).copy())
        new.blanked = list(self.blanked)
        return new

    @property
    def y(self) -> np.ndarray:
        """Label code of each row of enc.X (made when first needed)."""
        if "_y" not in self.__dict__:
            self._y = np.repeat(np.arange(self.enc.m), self.enc.label_sizes)
        return self._y

    def blank(self, rows, j: int):
        """Blank the cells of column j in the given rows (positions in enc.X)."""
        rows = np.atleast_1d(rows)
        self.blank_cells(j, self.enc.X[rows, j], self.y[rows], rows)

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
        self.blanked.extend((int(r), j) for r in ids)

    def winner(self) -> int:
        """The label every world predicts, -1 when not robust."""
        return int(_decide(self.A[None], self.M[None], self.cnt[self.tcode][None] > 0,
                           self.ndist[None], self.enc).label[0])

    def robust(self) -> bool:
        return self.winner() >= 0

    def result(self) -> Poisoning:
        enc = self.enc
        if isinstance(enc, Stats):
            return Poisoning(True, tuple((r, enc.features[j]) for r, j in self.blanked))
        return Poisoning(True, tuple((int(enc.rows[r]), enc.features[j]) for r, j in self.blanked))


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


# ---------------------------------------------------------------- SR, RP

def _smarter_random(enc, star, state, rng):
    """SR: a random rival, then A1 or A2 steps chosen at random until non-robust."""
    rivals = [l for l in range(enc.m) if l != star]
    l2 = int(rng.choice(rivals))
    tcode, usable = state.tcode, enc.delta >= 2
    pools = {}
    for l, pick in ((star, lambda c, j: c == tcode[j]), (l2, lambda c, j: c != tcode[j])):
        a = enc.label_bounds[l]
        block = enc.X[a:enc.label_bounds[l + 1]]
        pools[l] = [list(a + rng.permutation(np.flatnonzero(pick(block[:, j], j)))) if usable[j] else []
                    for j in range(enc.d)]
    while state.robust():
        moves = []
        for l, score in ((l2, state.A[l2] + state.M[l2]), (star, state.A[star])):
            open_ = [j for j in range(enc.d) if pools[l][j]]
            if open_:
                moves.append((l, min(open_, key=lambda j: score[j])))
        if not moves:
            return Poisoning(False)  # none found; a random search proves nothing
        l, j = moves[int(rng.integers(len(moves)))]
        r = pools[l][j].pop()
        if state.left[j] > 1:  # a column must keep one observed cell
            state.blank(int(r), j)
    return state.result()


def _random(enc, state, rng, window=4096):
    """RP: blank random cells one at a time until non-robust.

    Robustness after every prefix of the random order is evaluated a window at a time
    from cumulative count updates, never by recounting the table.
    """
    n, d, m = enc.n, enc.d, enc.m
    rows_all, cols_all = np.divmod(rng.permutation(n * d), d)
    last = np.full(d, -1)
    np.maximum.at(last, cols_all, np.arange(n * d))
    keep = np.ones(n * d, bool)
    keep[last] = False  # never blank a column's last observed cell
    rows_all, cols_all = rows_all[keep], cols_all[keep]
    A0, M0, cnt0, nd0 = state.A.copy(), state.M.copy(), state.cnt.copy(), state.ndist.copy()
    tcode = state.tcode
    for start in range(0, len(rows_all), window):
        r, j = rows_all[start:start + window], cols_all[start:start + window]
        w = len(r)
        v, l = enc.X[r, j], state.y[r]
        agree = v == tcode[j]
        dM = np.zeros((w, m, d), np.intp)
        dM[np.arange(w), l, j] = 1
        dA = np.zeros((w, m, d), np.intp)
        dA[np.arange(w), l, j] = -agree.astype(np.intp)
        occ = np.zeros(w, np.intp)  # how many earlier steps of this window hit the same value
        srt = np.argsort(v, kind="stable")
        vs = v[srt]
        first = np.r_[0, np.flatnonzero(vs[1:] != vs[:-1]) + 1]
        occ[srt] = np.arange(w) - np.repeat(first, np.diff(np.r_[first, w]))
        gone = cnt0[v] - occ - 1 == 0
        dN = np.zeros((w, d), np.intp)
        dN[np.arange(w), j] = -gone.astype(np.intp)
        dT = np.zeros((w, d), np.intp)
        dT[np.arange(w), j] = -agree.astype(np.intp)
        A = A0 + dA.cumsum(0)
        M = M0 + dM.cumsum(0)
        ndist = nd0 + dN.cumsum(0)
        tleft = cnt0[tcode] + dT.cumsum(0)
        robust = _decide(A, M, tleft > 0, ndist, enc).robust
        hit = np.flatnonzero(~robust)
        if len(hit):
            end = start + hit[0] + 1  # every cell of the order so far, earlier windows included
            r, j = rows_all[:end], cols_all[:end]
            for col in np.unique(j):
                state.blank(r[j == col], int(col))
            return state.result()
        A0, M0, nd0 = A[-1], M[-1], ndist[-1]
        np.subtract.at(cnt0, v, 1)
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
