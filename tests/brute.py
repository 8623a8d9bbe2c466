"""Exhaustive possible-world reference for the nbcert tests.

Written from the product spec only; it must never import nbcert.

* The domain of a feature is the set of its non-missing training values (closed world).
* A possible world fills every missing cell with a value of its feature's domain;
  worlds are enumerated literally with ``itertools.product`` over the missing cells.
* ``S(l|t) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha*|dom_j|)`` in exact
  ``Fraction`` arithmetic.
* A world predicts l when l is the unique maximum of S; otherwise it is a tie
  (including all supports zero).  A point is robust iff every world predicts the same
  label and no world ties.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Iterable, Iterator

import pandas as pd

TIE = object()  # marker for a tied world


def _is_missing(v) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _row_value(test_row, f):
    if isinstance(test_row, pd.Series):
        return test_row[f]
    return test_row[f]


class Table:
    """A training table in plain Python form."""

    def __init__(self, train: pd.DataFrame, label: str):
        self.label = label
        self.features = [c for c in train.columns if c != label]
        self.y = train[label].tolist()
        self.labels = list(dict.fromkeys(self.y))  # order of first appearance
        self.rows = [[None if _is_missing(v) else v for v in train[f].tolist()] for f in self.features]
        # self.rows[j][r]: value of feature j in row r (None = missing)
        self.n = len(self.y)
        self.domains = []
        for j, f in enumerate(self.features):
            dom = list(dict.fromkeys(v for v in self.rows[j] if v is not None))
            if not dom:
                raise ValueError(f"feature {f!r} has no observed value")
            self.domains.append(dom)
        self.N = {l: self.y.count(l) for l in self.labels}
        self.missing = [(r, j) for j in range(len(self.features)) for r in range(self.n)
                        if self.rows[j][r] is None]

    def total_worlds(self) -> int:
        return math.prod(len(self.domains[j]) for _, j in self.missing)


def _support_fn(tab: Table, alpha: Fraction):
    """Exact support of label l given its agreeing-count vector, memoised."""
    alpha = Fraction(alpha)
    n = tab.n
    dsize = [len(dom) for dom in tab.domains]
    cache = {}

    def support(l, counts) -> Fraction:
        key = (l, counts)
        s = cache.get(key)
        if s is None:
            N_l = tab.N[l]
            s = Fraction(N_l, n)
            for c, dj in zip(counts, dsize):
                s *= (c + alpha) / (N_l + alpha * dj)
            cache[key] = s
        return s

    return support


def iter_world_predictions(train: pd.DataFrame, label: str, test_row, alpha=0) -> Iterator:
    """Yield, for every possible world, the predicted label or ``TIE``."""
    tab = Table(train, label)
    t = [_row_value(test_row, f) for f in tab.features]
    support = _support_fn(tab, alpha)
    d = len(tab.features)
    # agreeing counts of the observed cells, per label and feature
    observed = {l: [0] * d for l in tab.labels}
    for j in range(d):
        tj = t[j]
        for r, v in enumerate(tab.rows[j]):
            if v is not None and v == tj:
                observed[tab.y[r]][j] += 1
    choices = [tab.domains[j] for _, j in tab.missing]
    for world in itertools.product(*choices):
        # this world's counts: observed cells plus the filled missing cells that agree
        counts = {l: list(observed[l]) for l in tab.labels}
        for (r, j), v in zip(tab.missing, world):
            if v == t[j]:
                counts[tab.y[r]][j] += 1
        sup = {l: support(l, tuple(counts[l])) for l in tab.labels}
        best = max(sup.values())
        winners = [l for l in tab.labels if sup[l] == best]
        yield winners[0] if len(winners) == 1 else TIE


def brute_counts(train: pd.DataFrame, label: str, test_row, alpha=0) -> tuple[dict, int]:
    """(worlds predicting each training label (zeros included), tied worlds)."""
    tab = Table(train, label)
    counts = {l: 0 for l in tab.labels}
    ties = 0
    for p in iter_world_predictions(train, label, test_row, alpha):
        if p is TIE:
            ties += 1
        else:
            counts[p] += 1
    return counts, ties


def brute_total(train: pd.DataFrame, label: str) -> int:
    return Table(train, label).total_worlds()


def brute_robust(train: pd.DataFrame, label: str, test_row, alpha=0):
    """(robust, label every world predicts or None); stops at the first disagreement."""
    first = None
    for p in iter_world_predictions(train, label, test_row, alpha):
        if p is TIE:
            return False, None
        if first is None:
            first = p
        elif p != first:
            return False, None
    return True, first


# ---------------------------------------------------------------------------- poisoning

def feature_cells(train: pd.DataFrame, label: str) -> list[tuple[int, str]]:
    """Every feature cell (row position, column name) of the table."""
    feats = [c for c in train.columns if c != label]
    return [(r, f) for f in feats for r in range(len(train))]


def blank(train: pd.DataFrame, cells: Iterable[tuple[int, str]]) -> pd.DataFrame:
    """A copy of train with the given cells set to NaN (positions, not index labels)."""
    out = train.copy().astype(object)
    for r, f in cells:
        out.iloc[r, out.columns.get_loc(f)] = float("nan")
    return out


def poison_allowed(train: pd.DataFrame, label: str, cells) -> bool:
    """A valid blanking: feature cells only, in range, no duplicates, no column left empty."""
    cells = list(cells)
    feats = [c for c in train.columns if c != label]
    if len(set(cells)) != len(cells):
        return False
    for r, f in cells:
        if f not in feats or not (0 <= r < len(train)):
            return False
    poisoned = blank(train, cells)
    return all(poisoned[f].notna().any() for f in feats)


def brute_is_nonrobust_after(train: pd.DataFrame, label: str, test_row, cells, alpha=0) -> bool:
    """True iff ``cells`` is an allowed blanking after which test_row is not robust."""
    if not poison_allowed(train, label, cells):
        return False
    robust, _ = brute_robust(blank(train, cells), label, test_row, alpha)
    return not robust


def brute_min_poison(train: pd.DataFrame, label: str, test_row, max_size: int | None = None):
    """Smallest number of cells whose blanking makes test_row non-robust (alpha = 0),
    or None when no allowed set works.  Tries all subsets in increasing size."""
    cells = feature_cells(train, label)
    if train[label].nunique() < 2:
        return None  # a single label is always robust, whatever is blanked
    top = len(cells) if max_size is None else min(max_size, len(cells))
    for k in range(top + 1):
        for subset in itertools.combinations(cells, k):
            if brute_is_nonrobust_after(train, label, test_row, subset):
                return k
    return None
