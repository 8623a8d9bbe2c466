"""Exhaustive reference for the repaired-rows model (CPClean's worlds).

Written from the spec only; it must never import nbcert.

* A training table ``cols[j][r]`` (None = missing) with labels ``y[r]``; ``repairs`` maps a
  dirty row r (one with a missing cell) to a list of repairs, each a dict {j: value} for
  every missing cell of r.
* Row r's choices are its *distinct* repairs (identical fillings of its missing cells count
  once).  A world picks one choice per dirty row, independently.
* The domain of feature j is its observed values and every value any repair gives a cell of
  j (duplicates included), the same in every world.
* ``S(l|t) = N_l/n * prod_j (c_lj + alpha) / (N_l + alpha*|D_j|)`` in Fractions, over the
  features whose test value is not None (a blank test cell leaves its feature out); a world
  predicts the unique largest support, else it ties.
* Cleaning row r sets its missing cells to their true values (``truth[j][r]``): the row
  then has that one choice, whether or not a repair gives it.  The domain stays the dirty
  table's (only alpha 0 is cleaned with the truth, where it does not matter).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

TIE = object()


def choices(cols: list, repairs: dict) -> dict:
    """{dirty row: its distinct fillings, as tuples over its missing features}."""
    d, n = len(cols), len(cols[0])
    out = {}
    for r in range(n):
        miss = [j for j in range(d) if cols[j][r] is None]
        if miss:
            fills = [tuple(rep[j] for j in miss) for rep in repairs[r]]
            out[r] = (miss, list(dict.fromkeys(fills)))
    return out


def domains(cols: list, repairs: dict) -> list:
    out = []
    for j, col in enumerate(cols):
        dom = {v for v in col if v is not None}
        for reps in repairs.values():
            for rep in reps:
                if j in rep:
                    dom.add(rep[j])
        out.append(dom)
    return out


def worlds(cols: list, repairs: dict, fixed: dict | None = None):
    """Yield every world as filled columns (``fixed``: rows cleaned, {r: {j: value}})."""
    fixed = fixed or {}
    opts = choices(cols, repairs)
    rows = [r for r in opts if r not in fixed]
    for pick in itertools.product(*[opts[r][1] for r in rows]):
        filled = [list(c) for c in cols]
        for r, vals in zip(rows, pick):
            for j, v in zip(opts[r][0], vals):
                filled[j][r] = v
        for r, vals in fixed.items():
            for j, v in vals.items():
                filled[j][r] = v
        yield filled


def predict(filled: list, y: list, t: list, dom_sizes: list, alpha) -> object:
    """The label a complete table predicts for t, or TIE."""
    alpha = Fraction(alpha)
    labels = list(dict.fromkeys(y))
    n = len(y)
    sup = {}
    for l in labels:
        rows = [r for r in range(n) if y[r] == l]
        s = Fraction(len(rows), n)
        for j, tj in enumerate(t):
            if tj is None:
                continue
            c = sum(1 for r in rows if filled[j][r] == tj)
            s *= (c + alpha) / (len(rows) + alpha * dom_sizes[j])
        sup[l] = s
    best = max(sup.values())
    win = [l for l in labels if sup[l] == best]
    return win[0] if len(win) == 1 else TIE


def predictions(cols, y, repairs, t, alpha, fixed=None):
    sizes = [len(D) for D in domains(cols, repairs)]
    for filled in worlds(cols, repairs, fixed):
        yield predict(filled, y, t, sizes, alpha)


def certify(cols, y, repairs, t, alpha=0, fixed=None) -> tuple:
    """(robust, label or None, possible labels, tie possible)."""
    seen = set(predictions(cols, y, repairs, t, alpha, fixed))
    possible = {p for p in seen if p is not TIE}
    robust = len(seen) == 1 and TIE not in seen
    return robust, (next(iter(possible)) if robust else None), possible, TIE in seen


def counts(cols, y, repairs, t, alpha=0) -> tuple:
    """({label: worlds it wins}, tied worlds, total)."""
    out = {l: 0 for l in dict.fromkeys(y)}
    ties = total = 0
    for p in predictions(cols, y, repairs, t, alpha):
        total += 1
        if p is TIE:
            ties += 1
        else:
            out[p] += 1
    return out, ties, total


def min_clean(cols, y, repairs, truth, points, alpha=0, need=None) -> tuple:
    """(fewest dirty rows whose cleaning certifies at least ``need`` (default all) of the
    points, one such set), or (None, None) when no set does.  Tries every set by size."""
    dirty = sorted(choices(cols, repairs))
    need = len(points) if need is None else need
    for k in range(len(dirty) + 1):
        for rows in itertools.combinations(dirty, k):
            fixed = {
                r: {j: truth[j][r] for j in range(len(cols)) if cols[j][r] is None} for r in rows
            }
            got = sum(certify(cols, y, repairs, t, alpha, fixed)[0] for t in points)
            if got >= need:
                return k, rows
    return None, None


def robust_after(cols, y, repairs, truth, t, rows, alpha=0) -> bool:
    fixed = {r: {j: truth[j][r] for j in range(len(cols)) if cols[j][r] is None} for r in rows}
    return certify(cols, y, repairs, t, alpha, fixed)[0]
