"""The repaired rows' answers as the API gives them: tables and records named by the
training table's data rows and labels (the questions' own answers are in positions of
the table's label-grouped order)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..certification import TIE_UNKNOWN, TIE_YES
from .certify import certify_rows
from .count import MAX_STATES, count_rows
from .policy import path, rank
from .table import RowRepairs
from .together import TogetherRows, points, together

COLUMNS = ("robust", "label", "possible_labels", "tie_possible", "undecided")


def certified(rr: RowRepairs, T: np.ndarray, alpha) -> pd.DataFrame:
    """certify's table (one row per point): ``robust`` (None where undecided), ``label``,
    ``possible_labels`` (proven; None where a label is undecided), ``tie_possible``
    (None where undecided) and ``undecided``: None, or the bounds that stopped it."""
    got, labels = certify_rows(rr, T, alpha), rr.enc.labels
    decided = got.robust >= 0
    robust = [bool(r) if ok else None for r, ok in zip(got.robust.tolist(), decided)]
    possible = [
        None if (p < 0).any() else [labels[l] for l in np.flatnonzero(p == 1)] for p in got.possible
    ]
    out = {
        "robust": robust,
        "label": [labels[l] if l >= 0 else None for l in got.label.tolist()],
        "possible_labels": possible,
        "tie_possible": [None if t == TIE_UNKNOWN else bool(t == TIE_YES) for t in got.tie],
        "undecided": got.undecided,
    }
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in out.items()})
    if decided.all():
        frame["robust"] = frame["robust"].astype(bool)
    return frame


def counted(rr: RowRepairs, T: np.ndarray, alpha, max_states: int) -> list:
    """count_worlds' WorldCounts per point."""
    return count_rows(rr, T, alpha, max_states)


def ranked(rr: RowRepairs, T: np.ndarray, alpha, top: int) -> pd.DataFrame:
    """clean's table: the ``top`` rows to clean first, best first: ``row`` (the training
    table's data row), ``label``, the policy's ``score`` and ``points``, how many test
    points that are not certain it may help (a heuristic: see ``nbcert.repairs.policy``)."""
    from .certify import Worlds

    got = rank(Worlds(rr, alpha), T)
    keep = slice(0, top)
    return pd.DataFrame(
        {
            "row": rr.enc.rows[got.rows[keep]].astype(np.int64),
            "label": pd.Series([rr.enc.labels[rr.y[r]] for r in got.rows[keep]], dtype=object),
            "score": got.score[keep],
            "points": got.points[keep],
        }
    )


@dataclass(frozen=True)
class RowsReport:
    """What the truth says over repaired rows (alpha 0).

    ``points``: per test point its ``RowCleaning`` (rows as the training table's data
    rows, ``label`` the label they certify or None); ``together``: the ``TogetherRows``
    for every point some cleaning certifies (rows as data rows, points as positions in
    the test table); ``path``: the rows the truth-free policy cleans, in order, the truth
    revealed as it goes, and ``path_certifies`` whether it ends with every such point
    certain.
    """

    points: list
    together: TogetherRows
    path: tuple
    path_certifies: bool


def with_truth(rr: RowRepairs, T: np.ndarray, batch=None) -> RowsReport:
    """clean_with_truth's answer over repaired rows (alpha 0)."""
    data = rr.enc.rows
    each = points(rr, T)
    found = together(rr, T, each, batch)
    walked, ok = path(rr, T[list(found.targets)], 0, batch) if found.targets else ([], True)

    def rows(r):
        return None if r is None else tuple(sorted(int(data[x]) for x in r))

    labels = rr.enc.labels
    named = [
        dataclasses.replace(p, rows=rows(p.rows), label=labels[p.label] if p.label >= 0 else None)
        for p in each
    ]
    found = dataclasses.replace(found, rows=rows(found.rows))
    return RowsReport(named, found, tuple(int(data[x]) for x in walked), ok)


def _best_margin(lo: np.ndarray, hi: np.ndarray) -> float:
    """max over w of min over l != w of lo[w] - hi[l] (logs): positive iff robust."""
    m = len(lo)
    if m == 1:
        return np.inf
    return max(min(lo[w] - hi[l] for l in range(m) if l != w) for w in range(m))


def _log(v: int) -> float:
    return math.log(v) if v > 0 else -math.inf


def margins(rr: RowRepairs, T: np.ndarray, alpha) -> pd.DataFrame:
    """Per test point the log margin of the best label, max over w of min over l != w of
    log(smallest S_w / largest S_l), over repaired rows (``rows``, from the inner extremes
    where a search stopped) and over the same repairs cell by cell (``cells``): positive
    iff certain; the row model's is never smaller (floats: for reading, not deciding)."""
    from .. import blanks, certification, kernel
    from ..stats import as_stats
    from .certify import Worlds

    worlds = Worlds(rr, alpha)
    base = worlds.patterns.base(T)
    rows = []
    for i in range(len(T)):
        pt = worlds.point(T[i], base[i])
        lo = [_log(pt.lo[l][1]) for l in range(rr.m)]
        hi = [_log(pt.hi[l][0]) for l in range(rr.m)]
        rows.append(_best_margin(np.array(lo), np.array(hi)))

    def answer(sub, codes, idx, keep):
        stats = as_stats(sub)
        lo, hi = certification.index_extremes(stats, codes, rr.cand.project(keep))
        N, delta = stats.label_sizes, stats.delta
        Llo, Lhi = (kernel.log_support(C, N, delta, alpha) for C in (lo, hi))
        return [_best_margin(a, b) for a, b in zip(Llo, Lhi)]

    cells = blanks.per_group(rr.enc, T, answer)
    return pd.DataFrame({"rows": rows, "cells": cells})


def status(rr: RowRepairs, T: np.ndarray, alpha=0) -> pd.DataFrame:
    """Per test point before cleaning: ``status`` ("certain", "not certain" or
    "undecided"), ``label`` (where certain) and ``undecided`` (the bounds, or None)."""
    got = certify_rows(rr, T, alpha, with_ties=False)
    words = np.array(["undecided", "not certain", "certain"], dtype=object)[got.robust + 1]
    labels = rr.enc.labels
    return pd.DataFrame(
        {
            "status": words,
            "label": pd.Series([labels[l] if l >= 0 else None for l in got.label], dtype=object),
            "undecided": pd.Series(got.undecided, dtype=object),
        }
    )


def order_of(rr: RowRepairs, T: np.ndarray, order, seed=None, batch=None) -> list:
    """An order of dirty rows (positions in the table's order): "policy" (its path, the
    truth revealed, on the points the true table certifies), "random" (every dirty row,
    shuffled by ``seed``), or the training table's data rows given (rows with nothing
    missing left out)."""
    dirty = np.unique(rr.owner)
    if isinstance(order, str) and order == "random":
        return np.random.default_rng(seed).permutation(dirty).tolist()
    if isinstance(order, str) and order == "policy":
        whole = certify_rows(rr.cleaned(dirty), T, 0, with_ties=False).robust == 1
        return path(rr, T[whole], 0, batch)[0] if whole.any() else []
    if isinstance(order, str):
        raise ValueError(f"order: 'policy', 'random' or a list of rows, not {order!r}")
    where = {int(r): i for i, r in enumerate(rr.enc.rows)}
    keep = set(dirty.tolist())
    return [where[int(r)] for r in order if where.get(int(r)) in keep]


def curve_table(rr: RowRepairs, T: np.ndarray, order, seed=None, points=50, batch=None):
    """The points certain as rows are cleaned in ``order`` (``order_of``), alpha 0:
    a DataFrame ``rows``, ``certain``, ``undecided``, ``share``; ``attrs["rows"]``: the
    order as the training table's data rows."""
    from .together import curve

    walk = order_of(rr, T, order, seed, batch)
    out = pd.DataFrame(curve(rr, T, walk, 0, points))
    out["share"] = out["certain"] / max(len(T), 1)
    out.attrs["rows"] = [int(rr.enc.rows[r]) for r in walk]
    return out


__all__ = [
    "certified",
    "counted",
    "ranked",
    "with_truth",
    "status",
    "margins",
    "curve_table",
    "order_of",
    "RowsReport",
    "COLUMNS",
    "MAX_STATES",
]
