"""The paper's randomized poisoning baselines for one test point: RP and SR (section 6.2.2).

Both blank cells of the complete table one at a time, in an order they choose at random,
until the test point is no longer certifiably robust, which they check after every cell
"by running Iterate" (RP) / "using Algorithm 1" (SR): one pass over the table as it stands
counts, per label, the observed cells agreeing with the point (E) and the missing cells
(M), and Algorithm 1's lines 6-13 (with nbcert's corrected extremes) decide on them.

* **RP** blanks uniformly random cells.  The paper puts no limit on them; nbcert's own
  semantics (``poison --method rp``) keep one observed cell in every column, as OP's
  and the exhaustive search's do, since a feature with no observed value has no
  domain.  Without the limit (``keep_last=False``, the reproduction's RP) a column can
  be emptied, and Iterate needs a rule for it: an empty column's domain is empty, so it
  holds no t_j, every label's count of t_j is 0, every support has the factor 0, every
  world ties and the point is non-robust.  That is also what the counts say once the
  column's last t_j is blanked, so RP stops at or before the cell that empties a column,
  and emptying one happens only where every observed cell left in it held t_j.
* **SR** fixes a random rival l' of the predicted label l*, then performs A1 (blank a
  disagreeing cell of l' in its column of smallest largest count) or A2 (blank an
  agreeing cell of l* in its column of smallest count), chosen by a fair coin, until
  non-robust; a column keeps one observed cell.

The order of the cells depends on the counts, never on robustness, so the same order can
be checked in two ways (``check``): ``"iterate"``, the paper's (O(n d) per cell, what the
reproduction times), or ``"incremental"`` (``nbcert.poisoning.incremental``: running sums
over windows of cells, beyond the paper).  With the same seed both blank the same cells.
Both work on a ``nbcert.poisoning.single.PoisonedCounts`` state and leave the cells they
blanked in it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..certification import certify_ranges, scan_counts
from .incremental import Groups, blank_until_nonrobust

CHECKS = ("iterate", "incremental")


def iterate_robust(work, g: np.ndarray, seen: np.ndarray) -> bool:
    """Iterate (Algorithm 1) on a table as it stands (``work``: an EncodedTable whose X has
    blanked cells), for one point (global codes g, seen its values present in the complete
    table).  The extremes need two facts of each column's domain, read off the same pass:
    t_j is observed (some E > 0), and it is the only value observed (E + M covers the column)."""
    E, M = scan_counts(work, g, seen)
    present = E.sum(axis=0) > 0
    only = present & (E.sum(axis=0) + M.sum(axis=0) == work.n)
    lo, hi = E + np.where(only, M, 0), E + np.where(present, M, 0)
    return bool(certify_ranges(lo[None], hi[None], work.label_sizes, work.delta, 0).robust[0])


class _Iterating:
    """The table as it stands, for the paper's check: a copy of the complete table's codes
    in which each blanked cell holds its column's missing code."""

    def __init__(self, state):
        enc = state.enc
        self.work = dataclasses.replace(enc, X=enc.X.copy())
        self.miss = enc.missing_codes.astype(enc.X.dtype)
        self.g, self.seen = state.tcode, state.seen0

    def blank_until_nonrobust(self, state, rows: np.ndarray, cols: np.ndarray) -> bool:
        """Blank the cells in order, running Iterate after each, until the point is not
        robust (True; the state then holds exactly the cells blanked up to there)."""
        X = self.work.X
        for i, (r, c) in enumerate(zip(rows.tolist(), cols.tolist())):
            X[r, c] = self.miss[c]
            if not iterate_robust(self.work, self.g, self.seen):
                state.blank_at(rows[: i + 1], cols[: i + 1])
                return True
        state.blank_at(rows, cols)
        return False


def _checker(state, check: str):
    """A function (state, rows, cols) -> bool that blanks cells until non-robust."""
    if check == "iterate":
        return _Iterating(state).blank_until_nonrobust
    if check == "incremental":
        return blank_until_nonrobust
    raise ValueError(f"unknown check {check!r} (use {' or '.join(CHECKS)})")


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
        return (
            self.size - len(self.taken) + len(self.queue) if self.rest is None else len(self.rest)
        )

    def _qualifies(self, rows):
        return (self.X[rows, self.j] == self.code) == self.agree

    def _list(self):  # the rows not handed out yet (none is queued when this is called)
        rows = self.a + np.flatnonzero(self._qualifies(np.arange(self.a, self.b)))
        rows = (
            rows[~np.isin(rows, np.fromiter(self.taken, np.intp, len(self.taken)))]
            if self.taken
            else rows
        )
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


def _sr_steps(enc, star: int, state, rng, window: int):
    """SR's cells, a window at a time: a random rival, then A1 or A2 steps chosen by fair
    coins (see the module docstring), played on the counts (they do not depend on
    robustness); stops when neither move has a cell left."""
    rivals = [l for l in range(enc.m) if l != star]
    l2 = int(rng.choice(rivals))
    usable = enc.delta >= 2
    sizes = {star: state.A[star], l2: enc.label_sizes[l2] - state.A[l2]}
    pools = {
        (l, j): _Pool(enc, l, j, int(state.tcode[j]), l == star, int(sizes[l][j]), rng)
        for l in (star, l2)
        for j in range(enc.d)
        if usable[j] and sizes[l][j] > 0
    }
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
            return
        yield np.array(rows, np.intp), np.array(cols, np.intp)


def smarter_random(enc, star: int, state, rng, check: str = "iterate", window: int = 1024) -> bool:
    """SR: a random rival, then A1 or A2 steps chosen at random until non-robust, checked
    after every step (``check``: "iterate", the paper's, or "incremental").  Whether it
    found a poisoning (the state then holds its cells); False means none found."""
    blank = _checker(state, check)
    return any(blank(state, rows, cols) for rows, cols in _sr_steps(enc, star, state, rng, window))


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
    rest = np.concatenate(
        [
            a
            + np.flatnonzero(
                np.unpackbits(drawn[a // 8 : (a + (1 << 24)) // 8], bitorder="little")[
                    : min(1 << 24, n_cells - a)
                ]
                == 0
            ).astype(dtype)
            for a in range(0, n_cells, 1 << 24)
        ]
    )
    rng.shuffle(rest)
    for a in range(0, len(rest), batch):
        yield rest[a : a + batch].astype(np.intp)


def random_order(
    enc, state, rng, check: str = "iterate", keep_last: bool = True, window: int = 1 << 16
) -> bool:
    """RP: blank uniformly random cells one at a time until non-robust, checked after every
    cell (``check``: "iterate", the paper's, or "incremental").  The cells come in
    uniformly random order (_cell_order), a window at a time; with ``keep_last`` a
    column's last observed cell is skipped, without it there is no limit (the paper's).
    Whether it found a poisoning (the state then holds its cells); False means none found."""
    blank = _checker(state, check)
    for cells in _cell_order(enc.n * enc.d, rng, window):
        rows, cols = np.divmod(cells.astype(np.intp), enc.d)
        if keep_last:
            keep = Groups(cols).before() + 1 < state.left[cols]
            rows, cols = rows[keep], cols[keep]
        if blank(state, rows, cols):
            return True
    return False
