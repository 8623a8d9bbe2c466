"""Data poisoning for a single test point (paper section 5.1): OP, and the state it works on.

The attacker blanks feature cells of a complete table until the test point is no longer
certifiably robust.  The poisoned table's domains are its own observed values, so
blanking can also shrink a domain: removing every t_j from column j zeroes every count
(at alpha = 0 a tie everywhere), leaving t_j as column j's only value forces every blank
there back to t_j, and at alpha > 0 any removed value changes the denominators.

OP is exact (``nbcert.poisoning.minimum``; the proof is in ``docs/design.md``, "One-point
poisoning").  The paper's argument (Algorithms 3-4) that one of two pure strategies is
optimal fails when a strategy runs out of cells; OP searches every split of the blanks
between the predicted label's agreeing cells and a rival's disagreeing cells instead, in
every configuration of removed values that could be cheaper.  Every answer is checked on
the poisoned counts before it is returned.

``PoisonedCounts`` holds a table's counts under blanking, updated per batch of cells
without recounting; OP, the randomized baselines (``nbcert.poisoning.baselines``) and
poisoning points together all work on it.  The cells a randomized baseline blanks are kept as
arrays (``Cells``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..blanks import leave_out
from ..certification import certify_ranges, extremes
from ..errors import ParameterError, unknown_option
from ..milp import CellAnswer
from ..stats import Stats, tally
from ..stats.domains import BLANK, EncodedTable
from .baselines import CHECKS, random_order, smarter_random
from .incremental import cell_values
from .minimum import DISAGREE, Search

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
    ``status`` names the four cases.  ``lower_bound``: a bound on the fewest cells that a
    certificate proves (set by the API, ``nbcert.certificate.claims``; ``minimal`` where it
    meets the cells found).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> first = nbcert.poison(truth, test, "y")[0]
    >>> first.status, first.num_cells, first.possible, first.impossible
    ('poisoned', 2, True, False)
    """

    impossible: bool = False
    lower_bound: int | None = None

    @property
    def minimal(self) -> bool:
        """Whether ``cells`` are proven the fewest: ``lower_bound`` meets them."""
        return self.possible and self.lower_bound == self.num_cells

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

    def __init__(
        self,
        enc: EncodedTable | Stats,
        t: np.ndarray,
        counts: np.ndarray | None = None,
        alpha: Fraction = Fraction(0),
    ):
        """``counts``: the table's count index (stats.tally), if already built.  From
        Stats alone (a streamed table) cells are blanked by ``blank_cells``, named by row.
        ``alpha``: the classifier's smoothing (poisoning beyond the paper when > 0)."""
        self.enc = enc
        self.alpha = Fraction(alpha)
        self.seen0 = t >= 0
        self.free = t == BLANK  # a blank test cell: its factor is 1 (nbcert.blanks)
        self.tcode = np.where(self.free, -1, enc.global_codes(t[None])[0])  # -1 agrees with no cell
        if counts is None:
            counts = enc.counts if isinstance(enc, Stats) else tally(enc)
        self.counts = counts
        self.A = np.where(self.seen0, counts[:, self.tcode], 0)
        self.M = np.zeros_like(self.A)
        self.cnt = counts.sum(axis=0)
        self.ndist = enc.delta.copy()
        self.left = np.full(enc.d, enc.n)  # observed cells per column
        self.blanked: list = []  # (row ids, feature indices) arrays, in blanking order

    def observed(self) -> np.ndarray:
        """Observed cells per label and global code (m, n_codes), blanked cells left out
        (a streamed table's state is only planned on before any cell is blanked)."""
        if not self.blanked:
            return self.counts
        enc = self.enc
        rows = np.concatenate([r for r, _ in self.blanked]).astype(np.intp)
        cols = np.concatenate([c for _, c in self.blanked]).astype(np.intp)
        v = cell_values(enc, rows, cols)
        gone = np.bincount(self.label_of(rows) * enc.n_codes + v, minlength=self.counts.size)
        return self.counts - gone.reshape(self.counts.shape)

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

    def blank_at(self, rows: np.ndarray, cols: np.ndarray, v: np.ndarray | None = None):
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
        return int(self.certify(seen, self.ndist).label[0])

    def certify(self, seen: np.ndarray, ndist: np.ndarray):
        """The Certification for this point with the given test values seen and domain sizes (d,)."""
        return _decide(
            self.A[None],
            self.M[None],
            seen[None],
            ndist[None],
            self.enc,
            self.free[None],
            self.alpha,
        )

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


def _decide(A, M, seen, ndist, enc, free, alpha=0):
    """Robustness of poisoned states: A, M (s, m, d); seen, ndist, free (s, d); with alpha
    > 0 one state (its domain sizes are the denominators')."""
    seen = seen & (ndist > 0)
    lo, hi = leave_out(*extremes(A, M, ndist[:, None, :], seen), free, enc.label_sizes)
    return certify_ranges(lo, hi, enc.label_sizes, ndist[0] if alpha else enc.delta, alpha)


def _rows_where(enc, l, j, sel: int, tcode: int, count, blanked=None):
    """The first ``count`` rows of label l whose column j holds the global code ``sel``
    (DISAGREE: any code but the test value's ``tcode``), skipping blanked cells."""
    a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
    col = enc.X[a:b, j]
    hit = (col != tcode) if sel == DISAGREE else (col == sel)
    if blanked is not None:
        hit &= ~blanked[a:b, j]
    return a + np.flatnonzero(hit)[:count]


def plans(
    enc: EncodedTable | Stats,
    star: int,
    state: PoisonedCounts,
    alternatives: bool = True,
    exact: bool = True,
) -> list:
    """Blankings that end the point's robustness, cheapest first, the first one minimal
    (``nbcert.poisoning.minimum``): (cost, steps) with steps (label, column, selector,
    how many), the selector a global code or DISAGREE.  Works from the state's current
    counts, so it also extends a partly blanked table (poisoning points together);
    ``alternatives`` adds each rival's cheapest plan on the table as it stands; without
    ``exact`` the first plan need not be minimal (``Search.run``: greedy's candidates)."""
    return Search(state, state.alpha).run(star, alternatives, exact)


def cells_of(enc: EncodedTable, tcode: np.ndarray, steps, blanked=None) -> list:
    """Concrete (column, rows) for a plan's steps."""
    return [
        (j, _rows_where(enc, l, j, sel, tcode[j], count, blanked)) for l, j, sel, count in steps
    ]


def _optimal(enc: EncodedTable | Stats, star: int, state: PoisonedCounts, find=None):
    """The minimum plan, checked on the poisoned counts.  ``find(plans)`` names the cells of
    the plan's steps for a table known only by its Stats: {step key: (row ids, codes)}."""
    candidates = plans(enc, star, state, alternatives=False)
    if not candidates:
        return Poisoning(False, impossible=True)  # the search is exhaustive: no blanking works
    cost, steps = candidates[0]
    st = state.copy()
    if find is None:
        for j, rows in cells_of(enc, st.tcode, steps):
            st.blank(rows, j)
    else:
        found = find([steps])
        for l, j, sel, count in steps:
            ids, codes = found[(l, j, sel)]
            st.blank_cells(j, codes[:count], np.full(min(count, len(codes)), l), ids[:count])
    if st.robust() or len(st.result().cells) != cost:
        raise AssertionError(f"poisoning plan {steps} does not work")  # pragma: no cover
    return st.result()


def poison_encoded(
    enc: EncodedTable | Stats,
    t: np.ndarray,
    method: str = "op",
    seed=None,
    find=None,
    check: str = "incremental",
    keep_last: bool = True,
    alpha: Fraction = Fraction(0),
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
        reproduction times); the same seed blanks the same cells either way.
    keep_last : bool, default True
        RP keeps one observed cell in every column, as OP does; False lifts the limit as the
        paper's RP has none (an emptied column then makes every world tie).
    alpha : Fraction, default 0
        The classifier's smoothing; OP only when > 0 (SR and RP are alpha = 0 baselines).

    Returns
    -------
    Poisoning
    """
    if method not in METHODS:
        raise unknown_option("poison method", method, METHODS)
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r} (use {' or '.join(CHECKS)})")
    if alpha and method != "op":
        said = f"poison method {method!r} is the paper's alpha = 0 baseline; use op for alpha > 0"
        raise ParameterError(said)
    state = PoisonedCounts(enc, t, alpha=alpha)
    first = state.certify(state.seen0, enc.delta)
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
    return state.result() if found else Poisoning(False)  # a random search proves nothing
