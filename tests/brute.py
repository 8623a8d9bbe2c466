"""Exhaustive possible-world reference for the nbcert tests.

Written from the product spec only; it must never import nbcert.

* The domain of a feature is the set of its non-missing training values (closed world).
* A possible world fills every missing cell with a value of its feature's domain;
  worlds are enumerated literally with ``itertools.product`` over the missing cells.
* ``S(l|t) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha*|dom_j|)`` in exact
  ``Fraction`` arithmetic; c_lj counts label-l rows whose feature j equals t_j in that
  world (0 in every world when t_j was never seen).
* A world predicts l when l is the unique maximum of S; otherwise it is a tie
  (including all supports zero).  A point is robust iff every world predicts the same
  label and no world ties.
* Poisoning (alpha = 0): blank feature cells of a complete table; domains are recomputed
  from the poisoned table; a blanking that empties a feature column is not allowed.
* Candidate repairs: a missing cell listed with candidate values takes one of them; a
  missing cell not listed takes any value of its feature's domain, which is then the
  observed values and every candidate value of the feature (fixed across worlds, so
  |dom_j| in alpha's denominator counts the candidates never observed too).  Cleaning a
  cell replaces it by its true value; a cell not listed keeps the domain of the dirty table
  (observed and candidate values) however the others are cleaned, and the domain of a
  partly cleaned table is its observed values and the possible values of its missing cells.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator
from fractions import Fraction

import pandas as pd

TIE = object()  # marker for a tied world


def _is_missing(v) -> bool:
    if v is None:
        return True
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


class Table:
    """A training table in plain Python form: ``cols[j][r]`` (None = missing), ``y[r]``;
    ``candidates`` {(r, j): values} lists the possible values of some missing cells, and
    ``unlisted`` {j: values} fixes those of the cells not listed (default: the domain)."""

    def __init__(self, y: list, cols: list[list], candidates=None, unlisted=None):
        self.y = list(y)
        self.cols = cols
        self.n = len(self.y)
        self.d = len(cols)
        self.labels = list(dict.fromkeys(self.y))  # order of first appearance
        self.N = {l: self.y.count(l) for l in self.labels}
        self.missing = [(r, j) for j in range(self.d) for r in range(self.n) if cols[j][r] is None]
        listed = {
            k: list(dict.fromkeys(v)) for k, v in (candidates or {}).items() if k in self.missing
        }
        self.domains = []
        for j, col in enumerate(cols):
            dom = list(dict.fromkeys(v for v in col if v is not None))
            for r, jj in self.missing:
                if jj == j:
                    extra = listed.get((r, j), (unlisted or {}).get(j, []))
                    dom += [v for v in extra if v not in dom]
            if not dom:
                raise ValueError(f"feature {j} has no observed value")
            self.domains.append(dom)
        unlisted = unlisted or {}
        self.choices = [
            listed.get((r, j), unlisted.get(j, self.domains[j])) for r, j in self.missing
        ]

    @classmethod
    def from_frame(cls, train: pd.DataFrame, label: str, candidates=None) -> Table:
        """``candidates``: {(row position, feature name): values}."""
        feats = features_of(train, label)
        cols = [[None if _is_missing(v) else v for v in train[f].tolist()] for f in feats]
        return cls(train[label].tolist(), cols, _by_index(candidates, feats))

    def total_worlds(self) -> int:
        return math.prod(len(c) for c in self.choices)


def _by_index(candidates, feats) -> dict:
    """Candidates keyed by (row, feature name) as keyed by (row, feature index)."""
    return {(r, feats.index(f)): v for (r, f), v in (candidates or {}).items()}


def features_of(train: pd.DataFrame, label: str) -> list:
    return [c for c in train.columns if c != label]


def _test_values(train: pd.DataFrame, label: str, test_row) -> list:
    return [test_row[f] for f in features_of(train, label)]


def _predictions(tab: Table, t: list, alpha) -> Iterator:
    """Yield, for every possible world of ``tab``, the predicted label or ``TIE``."""
    alpha = Fraction(alpha)
    dsize = [len(dom) for dom in tab.domains]
    cache = {}

    def support(l, counts) -> Fraction:
        key = (l, counts)
        s = cache.get(key)
        if s is None:
            N_l = tab.N[l]
            s = Fraction(N_l, tab.n)
            for c, dj, tj in zip(counts, dsize, t):
                if not _is_missing(tj):  # a blank test cell: the feature is left out
                    s *= (c + alpha) / (N_l + alpha * dj)
            cache[key] = s
        return s

    # agreeing counts of the observed cells, per label and feature
    observed = {l: [0] * tab.d for l in tab.labels}
    for j in range(tab.d):
        for r, v in enumerate(tab.cols[j]):
            if v is not None and v == t[j]:
                observed[tab.y[r]][j] += 1
    for world in itertools.product(*tab.choices):
        # this world's counts: observed cells plus the filled missing cells that agree
        counts = {l: list(observed[l]) for l in tab.labels}
        for (r, j), v in zip(tab.missing, world):
            if v == t[j]:
                counts[tab.y[r]][j] += 1
        sup = {l: support(l, tuple(counts[l])) for l in tab.labels}
        best = max(sup.values())
        winners = [l for l in tab.labels if sup[l] == best]
        yield winners[0] if len(winners) == 1 else TIE


def _robust(tab: Table, t: list, alpha):
    first = None
    for p in _predictions(tab, t, alpha):
        if p is TIE:
            return False, None
        if first is None:
            first = p
        elif p != first:
            return False, None
    return True, first


def iter_world_predictions(
    train: pd.DataFrame, label: str, test_row, alpha=0, candidates=None
) -> Iterator:
    """Yield, for every possible world, the predicted label or ``TIE``."""
    tab = Table.from_frame(train, label, candidates)
    return _predictions(tab, _test_values(train, label, test_row), alpha)


def brute_counts(
    train: pd.DataFrame, label: str, test_row, alpha=0, candidates=None
) -> tuple[dict, int]:
    """(worlds predicting each training label (zeros included), tied worlds)."""
    tab = Table.from_frame(train, label, candidates)
    counts = {l: 0 for l in tab.labels}
    ties = 0
    for p in _predictions(tab, _test_values(train, label, test_row), alpha):
        if p is TIE:
            ties += 1
        else:
            counts[p] += 1
    return counts, ties


def brute_total(train: pd.DataFrame, label: str, candidates=None) -> int:
    return Table.from_frame(train, label, candidates).total_worlds()


def brute_robust(train: pd.DataFrame, label: str, test_row, alpha=0, candidates=None):
    """(robust, label every world predicts or None); stops at the first disagreement."""
    tab = Table.from_frame(train, label, candidates)
    return _robust(tab, _test_values(train, label, test_row), alpha)


def brute_labels(train: pd.DataFrame, label: str, test_row, alpha=0, candidates=None):
    """(the labels some world predicts uniquely, whether some world ties)."""
    seen = set(iter_world_predictions(train, label, test_row, alpha, candidates))
    return {p for p in seen if p is not TIE}, TIE in seen


# ---------------------------------------------------------------------------- poisoning


def feature_cells(train: pd.DataFrame, label: str) -> list[tuple[int, str]]:
    """Every feature cell (row position, column name) of the table."""
    return [(r, f) for f in features_of(train, label) for r in range(len(train))]


def blank(train: pd.DataFrame, cells: Iterable[tuple[int, str]]) -> pd.DataFrame:
    """A copy of train with the given cells set to NaN (positions, not index labels)."""
    out = train.copy().astype(object)
    for r, f in cells:
        out.iloc[r, out.columns.get_loc(f)] = float("nan")
    return out


def poison_allowed(train: pd.DataFrame, label: str, cells) -> bool:
    """A valid blanking: feature cells only, in range, no duplicates, no column left empty."""
    cells = list(cells)
    feats = features_of(train, label)
    if len(set(cells)) != len(cells):
        return False
    for r, f in cells:
        if (
            f not in feats
            or not (isinstance(r, int) or hasattr(r, "__index__"))
            or not 0 <= r < len(train)
        ):
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
    base = Table.from_frame(train, label)
    if len(base.labels) < 2:
        return None  # a single label is always robust, whatever is blanked
    t = _test_values(train, label, test_row)
    cells = [(r, j) for j in range(base.d) for r in range(base.n)]
    top = len(cells) if max_size is None else min(max_size, len(cells))
    for k in range(top + 1):
        for subset in itertools.combinations(cells, k):
            cols = [list(c) for c in base.cols]
            for r, j in subset:
                cols[j][r] = None
            if any(all(v is None for v in c) for c in cols):
                continue  # a column left with no observed value: not allowed
            # domains are recomputed from the poisoned table (Table does that)
            if not _robust(Table(base.y, cols), t, 0)[0]:
                return k
    return None


def brute_min_poison_together(train: pd.DataFrame, label: str, test_rows):
    """Smallest number of cells whose blanking makes every test row non-robust at once
    (alpha = 0), or None when no allowed set does.  Tries all subsets in increasing size."""
    cells = feature_cells(train, label)
    for k in range(len(cells) + 1):
        for subset in itertools.combinations(cells, k):
            if all(brute_is_nonrobust_after(train, label, r, list(subset)) for r in test_rows):
                return k
    return None


# ---------------------------------------------------------------------------- cleaning


def clean_cells(dirty: pd.DataFrame, truth: pd.DataFrame, cells) -> pd.DataFrame:
    """A copy of dirty with the given (row position, column name) cells set to their truth."""
    out = dirty.copy().astype(object)
    for r, f in cells:
        c = out.columns.get_loc(f)
        out.iloc[r, c] = truth.iloc[r, c]
    return out


def missing_cells(dirty: pd.DataFrame, label: str) -> list[tuple[int, str]]:
    """The missing feature cells (row position, column name) of a dirty table."""
    return [
        (r, f)
        for f in features_of(dirty, label)
        for r in range(len(dirty))
        if _is_missing(dirty[f].iloc[r])
    ]


def _cleaned_robust(dirty, truth, label, cells, candidates, alpha):
    """robust(test_row) of the table with ``cells`` cleaned: without candidates every
    domain is recomputed; with them the cells not listed keep the dirty table's domain."""
    cleaned = clean_cells(dirty, truth, cells)
    if candidates is None:
        return lambda row: brute_robust(cleaned, label, row, alpha)[0]
    feats = features_of(dirty, label)
    dirty_tab = Table.from_frame(dirty, label, candidates)
    keep = {k: v for k, v in candidates.items() if k not in set(cells)}
    cols = [[None if _is_missing(v) else v for v in cleaned[f].tolist()] for f in feats]
    tab = Table(
        cleaned[label].tolist(), cols, _by_index(keep, feats), dict(enumerate(dirty_tab.domains))
    )
    return lambda row: _robust(tab, _test_values(dirty, label, row), alpha)[0]


def brute_is_robust_after_cleaning(
    dirty, truth, label, test_row, cells, alpha=0, candidates=None
) -> bool:
    """Is test_row certifiably robust once ``cells`` are cleaned (domains recomputed)?"""
    return _cleaned_robust(dirty, truth, label, list(cells), candidates, alpha)(test_row)


def brute_min_clean(
    dirty: pd.DataFrame, truth: pd.DataFrame, label: str, test_rows, alpha=0, candidates=None
):
    """Fewest missing cells whose cleaning makes every given test row robust at once, or
    None when no subset does.  Tries every subset in increasing size."""
    cells = missing_cells(dirty, label)
    for k in range(len(cells) + 1):
        for subset in itertools.combinations(cells, k):
            robust = _cleaned_robust(dirty, truth, label, list(subset), candidates, alpha)
            if all(robust(row) for row in test_rows):
                return k
    return None


def brute_min_clean_some(dirty, truth, label: str, test_rows, need: int, alpha=0, candidates=None):
    """Fewest missing cells whose cleaning makes at least ``need`` of the test rows robust
    at once, or None when no subset does.  Tries every subset in increasing size."""
    cells = missing_cells(dirty, label)
    for k in range(len(cells) + 1):
        for subset in itertools.combinations(cells, k):
            robust = _cleaned_robust(dirty, truth, label, list(subset), candidates, alpha)
            if sum(robust(row) for row in test_rows) >= need:
                return k
    return None


def _blank_groups(y: list, cols: list, groups: list, x) -> list:
    """Columns with x[g] cells of each group (label, column, value) blanked, first rows first."""
    out = [list(c) for c in cols]
    for (l, j, v), k in zip(groups, x):
        if k:
            rows = [r for r in range(len(y)) if y[r] == l and cols[j][r] == v][:k]
            for r in rows:
                out[j][r] = None
    return out


def min_poison_by_groups(y: list, cols: list, t: list, alpha=0):
    """Fewest cells of a complete table (``cols[j][r]``, labels ``y``) whose blanking makes
    the point ``t`` non-robust, or None when no allowed blanking does; any alpha >= 0.
    (``min_poison_together_by_groups`` for one point.)"""
    return min_poison_together_by_groups(y, cols, [t], alpha)


def min_poison_together_by_groups(y: list, cols: list, points: list, alpha=0):
    """Fewest cells of a complete table (``cols[j][r]``, labels ``y``) whose blanking makes
    every point non-robust at once, or None when no allowed blanking does.

    Cells of one (label, column, value) are interchangeable (a row's prediction counts
    only each label's cells per column), so a blanking is a count per such group; sizes are
    tried in increasing order and every blanking of a size is checked by enumerating all
    of its worlds (``Table``: domains recomputed from the blanked table).  A test value of
    None is a blank test cell (its feature left out); one no cell holds is unseen.
    """
    if len(set(y)) < 2:
        return None
    groups = sorted(
        {(y[r], j, cols[j][r]) for j in range(len(cols)) for r in range(len(y))}, key=repr
    )
    size = [sum(1 for r in range(len(y)) if (y[r], cols[j][r]) == (l, v)) for l, j, v in groups]
    vectors = sorted(itertools.product(*[range(s + 1) for s in size]), key=sum)
    for x in vectors:
        blanked = _blank_groups(y, cols, groups, x)
        if any(all(v is None for v in c) for c in blanked):
            continue  # a column left with no observed value: not allowed
        tab = Table(y, blanked)
        if all(not _robust(tab, t, alpha)[0] for t in points):
            return sum(x)
    return None
