"""Data poisoning for a single test point (paper section 5.1): OP, and the state it works on.

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

``PoisonedCounts`` holds a table's counts under blanking, updated per batch of cells
without recounting; OP, the randomized baselines (``nbcert.poisoning.baselines``) and
many-point poisoning all work on it.  The cells a randomized baseline blanks are kept as
arrays (``Cells``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..blanks import leave_out
from ..decide import decide_counts, extremes
from ..errors import unknown_option
from ..milp import CellAnswer
from ..reading.encoding import BLANK, EncodedTable
from ..stats import Stats, count_index
from .baselines import CHECKS, random_order, smarter_random
from .incremental import cell_values

METHODS = ("op", "sr", "rp")  # params.RULES["method"]["poison"]


def status(possible: bool, cells: Sequence, impossible: bool) -> str:
    """'poisoned', 'already_nonrobust', 'impossible' (proven) or 'none_found'."""
    if possible:
        return "poisoned" if cells else "already_nonrobust"
    return "impossible" if impossible else "none_found"


class Cells(Sequence):
    """The (row, column name) pairs of a poisoning, held as two arrays (a randomized
    baseline may blank millions of cells); it compares equal to any sequence of the
    same pairs."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, names: tuple):
        self.rows, self.cols, self.names = (
            rows,
            cols,
            names,
        )  # rows: table rows; cols: feature indices

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(zip(self.rows[i].tolist(), [self.names[j] for j in self.cols[i].tolist()]))
        return int(self.rows[i]), self.names[int(self.cols[i])]

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Sequence)
            and len(other) == len(self)
            and all(a == b for a, b in zip(self, other))
        )

    def __repr__(self) -> str:
        return f"Cells({len(self)} cells)"


@dataclass(frozen=True)
class Poisoning(CellAnswer):
    """Cells to blank so a test point is no longer certifiably robust.

    ``cells`` lists (row position in the training table, column name), a tuple or
    ``Cells`` (the same pairs held as arrays); it is empty when
    the point is already non-robust.  ``possible`` is False (``cells`` empty) when no
    blanking was found; ``impossible`` then says whether that is proven (OP, or a table
    with a single label) or only that a randomized search (SR, RP) found none.
    ``status`` names the four cases.
    """

    impossible: bool = False

    def __post_init__(self):
        if self.possible and self.impossible:
            raise ValueError("a poisoning that was found cannot be impossible")

    @property
    def status(self) -> str:
        """'poisoned', 'already_nonrobust', 'impossible' (proven) or 'none_found'."""
        return status(self.possible, self.cells, self.impossible)


class PoisonedCounts:
    """Counts of a complete table under blanking, updated per batch of blanked cells
    without recounting the table."""

    def __init__(self, enc: EncodedTable | Stats, t: np.ndarray, counts: np.ndarray | None = None):
        """``counts``: the table's count index (stats.count_index), if already built.  From
        Stats alone (a streamed table) cells are blanked by ``blank_cells``, named by row."""
        self.enc = enc
        self.seen0 = t >= 0
        self.free = t == BLANK  # a blank test cell: its factor is 1 (nbcert.blanks)
        self.tcode = np.where(self.free, -1, enc.global_codes(t[None])[0])  # -1 agrees with no cell
        if counts is None:
            counts = enc.counts if isinstance(enc, Stats) else count_index(enc)
        self.A = np.where(self.seen0, counts[:, self.tcode], 0)
        self.M = np.zeros_like(self.A)
        self.cnt = counts.sum(axis=0)
        self.ndist = enc.delta.copy()
        self.left = np.full(enc.d, enc.n)  # observed cells per column
        self.blanked: list = []  # (row ids, feature indices) arrays, in blanking order

    def copy(self) -> PoisonedCounts:
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
        v = cell_values(enc, rows, cols) if v is None else v
        l = self.label_of(rows)
        md = enc.m * enc.d
        self.M += np.bincount(l * enc.d + cols, minlength=md).reshape(enc.m, enc.d)
        agree = v == self.tcode[cols]
        self.A -= np.bincount(l[agree] * enc.d + cols[agree], minlength=md).reshape(enc.m, enc.d)
        self.cnt -= np.bincount(v, minlength=len(self.cnt))
        touched = np.unique(cols)
        for j in touched.tolist():
            self.ndist[j] = np.count_nonzero(self.cnt[enc.offsets[j] : enc.offsets[j + 1] - 1])
        self.left -= np.bincount(cols, minlength=enc.d)
        self._record(rows, cols)

    def _record(self, ids, cols):
        """Remember blanked cells compactly (a baseline may blank millions)."""
        ids = np.asarray(ids)
        small = ids.astype(np.int32) if len(ids) and int(ids.max()) < 1 << 31 else ids
        self.blanked.append(
            (small, np.asarray(cols).astype(np.min_scalar_type(max(self.enc.d - 1, 0))))
        )

    def blank_cells(self, j: int, v: np.ndarray, l: np.ndarray, ids):
        """Blank cells of column j holding global codes v in rows of labels l; ``ids``
        name the rows (positions in enc.X, or table rows for Stats)."""
        enc = self.enc
        self.M[:, j] += np.bincount(l, minlength=enc.m)
        self.A[:, j] -= np.bincount(l[v == self.tcode[j]], minlength=enc.m)
        lo, hi = enc.offsets[j], enc.offsets[j + 1]
        self.cnt[lo:hi] -= np.bincount(v - lo, minlength=hi - lo)
        self.ndist[j] = np.count_nonzero(self.cnt[lo : hi - 1])
        self.left[j] -= len(v)
        self._record(ids, np.full(len(v), j))

    def winner(self) -> int:
        """The label every world predicts, -1 when not robust."""
        seen = (self.cnt[self.tcode] > 0) & self.seen0
        return int(self.decide(seen, self.ndist).label[0])

    def decide(self, seen: np.ndarray, ndist: np.ndarray):
        """The Decision for this point with the given test values seen and domain sizes (d,)."""
        return _decide(
            self.A[None], self.M[None], seen[None], ndist[None], self.enc, self.free[None]
        )

    def bounds(self) -> tuple:
        """l's smallest and largest agreeing counts (m, d) as OP reasons about them: its
        unblanked agreeing cells, and those plus every blank; N_l where the test cell is
        blank (its factor is 1)."""
        N = self.enc.label_sizes[:, None]
        return np.where(self.free, N, self.A), np.where(self.free, N, self.A + self.M)

    def robust(self) -> bool:
        return self.winner() >= 0

    def result(self) -> Poisoning:
        """The cells blanked so far, named by table row and feature."""
        enc = self.enc
        rows = (
            np.concatenate([r for r, _ in self.blanked]) if self.blanked else np.zeros(0, np.intp)
        )
        cols = (
            np.concatenate([c for _, c in self.blanked]) if self.blanked else np.zeros(0, np.intp)
        )
        if not isinstance(enc, Stats):
            rows = enc.rows[rows]
        return Poisoning(True, Cells(rows, cols, tuple(enc.features)))


def _decide(A, M, seen, ndist, enc, free):
    """Robustness of poisoned states: A, M (s, m, d); seen, ndist, free (s, d)."""
    seen = seen & (ndist > 0)
    lo, hi = leave_out(*extremes(A, M, ndist[:, None, :], seen), free, enc.label_sizes)
    return decide_counts(lo, hi, enc.label_sizes, enc.delta, 0)


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
    for j in sorted(
        (j for j in range(len(x)) if y[j] == lo and cap[j] > lo), key=lambda j: avoid[j]
    ):
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
    """Candidate blankings that end l*'s dominance, cheapest first: (cost, steps) with
    steps (label, column, agreeing cells?, how many).  Works from the state's current
    counts, so it also extends a partly blanked table (many-point poisoning)."""
    N, d = enc.label_sizes, enc.d
    lo, hi = state.bounds()
    usable = (state.ndist >= 2) & ~state.free  # a blank test cell's column: nothing to gain
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
        for cap in (
            np.where(usable, N[l2], x),
            np.where(neutral, N[l2] - 1, np.where(usable, N[l2], x)),
        ):
            b = _min_fill(x.tolist(), cap.tolist(), need, neutral.tolist())
            if b is not None:
                out.append((sum(b), [(l2, j, False, b[j]) for j in range(d) if b[j]]))
    return sorted(out, key=lambda p: p[0])


def cells_of(enc: EncodedTable, tcode: np.ndarray, steps, blanked=None) -> list:
    """Concrete (column, rows) for a plan's steps."""
    return [
        (j, _rows_where(enc, l, j, tcode[j], agree, count, blanked)) for l, j, agree, count in steps
    ]


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


def poison_encoded(
    enc: EncodedTable | Stats,
    t: np.ndarray,
    method: str = "op",
    seed=None,
    find=None,
    check: str = "incremental",
    keep_last: bool = True,
) -> Poisoning:
    """Poison a complete encoded table for one test point.

    Parameters
    ----------
    enc : EncodedTable or Stats
        The complete table; a table known only by its Stats takes OP with ``find``.
    t : ndarray, shape (d,)
        The test point as local codes (-1: unseen).
    method : {"op", "sr", "rp"}, default "op"
        OP (exact) or the paper's randomized baselines.
    seed : None, int or numpy Generator, optional
        The randomized baselines' seed.
    find : callable, optional
        Names the cells of OP's plans on a streamed table (see ``_optimal``).
    check : {"incremental", "iterate"}, default "incremental"
        How SR and RP check robustness after each cell: from running sums of the counts,
        or by Iterate on the table as it stands, as the paper words them (what the
        reproduction times).  The same seed blanks the same cells either way.
    keep_last : bool, default True
        RP keeps one observed cell in every column, as OP does; False lifts the limit, as
        the paper's RP has none (an emptied column then makes every world tie).

    Returns
    -------
    Poisoning
    """
    if method not in METHODS:
        raise unknown_option("poison method", method, METHODS)
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r} (use {' or '.join(CHECKS)})")
    state = PoisonedCounts(enc, t)
    first = state.decide(state.seen0, enc.delta)
    if not first.robust[0]:
        return Poisoning(True)
    star = int(first.label[0])
    if enc.m == 1:  # one label is predicted in every world, whatever is blanked
        return Poisoning(False, impossible=True)
    if method == "op":
        return _optimal(enc, star, state, find)
    rng = np.random.default_rng(seed)
    if method == "sr":
        found = smarter_random(enc, star, state, rng, check)
    else:
        found = random_order(enc, state, rng, check, keep_last)
    return (
        state.result() if found else Poisoning(False)
    )  # none found: a random search proves nothing
