"""The repaired rows' answers as the API gives them: tables and records named by the
training table's data rows and labels (the questions' own answers are in positions of
the table's label-grouped order)."""

from __future__ import annotations

import dataclasses
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


__all__ = ["certified", "counted", "ranked", "with_truth", "RowsReport", "COLUMNS", "MAX_STATES"]
