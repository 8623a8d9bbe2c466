"""What the truth says about a dirty table, and the policy's advice without it.

``report`` gathers, with the truth known, each point's minimum with the truth, the fewest cells for
all points together, and the cells the truth-free policy would clean, in order.  ``advice``
ranks a dirty table's groups by the policy's score.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..milp import CellAnswer
from ..reading.encoding import EncodedTable
from ..stats import tally
from .many import TogetherCleaning, clean_many
from .policy import policy_path, scores
from .single import minimum_with_truth
from .table import CleaningTable


@dataclass(frozen=True)
class PointCleaning(CellAnswer):
    """The fewest cells whose cleaning certifies one test point (alone).

    ``cells`` lists (row position in the training table, column name), empty when the
    point is already robust; ``possible`` False (proven) when no cleaning makes it robust.
    ``label`` is the prediction the cleaned table certifies.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> first = nbcert.clean_with_truth(train, truth, test, "y").points[0]
    >>> first.cells, first.num_cells, first.label
    (((3, 'color'),), 1, 'a')
    """

    label: object = None


@dataclass(frozen=True)
class CleaningReport:
    """What the truth says: per point its minimum with the truth, the fewest cells for all points
    together (but those no cleaning certifies: ``together.excluded``), and the cells the
    truth-free policy would clean, in order, until the target of those points is robust
    (``path_certifies``), the budget is spent or nothing is left.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> report = nbcert.clean_with_truth(train, truth, test, "y")
    >>> report.path, report.path_certifies
    (((3, 'color'),), True)
    """

    points: list
    together: TogetherCleaning
    path: tuple
    path_certifies: bool


def report(
    tab: CleaningTable,
    T: np.ndarray,
    alpha=0,
    prior: str = "observed",
    method: str = "auto",
    node_limit: int = 20_000,
    time_limit: float = 60.0,
    batch: int = 1,
    progress=None,
    target=1,
    budget: int | None = None,
) -> CleaningReport:
    """Offline minima per point and together, and the policy's path, with the truth known.

    The points that no cleaning certifies (proven by their own search) are set aside for
    the answer together (``together.excluded``) and for the policy's path, which stops
    once ``together.target`` of the others are robust (or at ``budget`` cells).

    Parameters
    ----------
    tab, T, alpha, method, node_limit, time_limit, target, budget
        As for ``clean_many``.
    prior : {"observed", "worlds"}, default "observed"
        The policy's odds for a missing cell (``truth_odds``).
    batch : int, default 1
        Cells of its chosen group the policy cleans per step.
    progress : callable, optional
        ``progress(done, total, stage)`` as each stage goes (``total`` None: a stage whose
        end is not known in advance), and ``progress(1, 1, stage)`` at the end.

    Returns
    -------
    CleaningReport
    """
    tell = progress or (lambda done, total, stage: None)
    points, minima = [], []
    for p, t in enumerate(T):
        tell(p, len(T), "fewest cells per row")
        plan = minimum_with_truth(tab, t, alpha)
        minima.append(None if plan is None else plan.cost)
        points.append(
            PointCleaning(False)
            if plan is None
            else PointCleaning(True, tab.named(tab.cells(plan.x)), tab.enc.labels[plan.winner])
        )
    tell(0, None, "fewest cells for all rows together")
    together = clean_many(
        tab, T, alpha, method, node_limit, time_limit, target, budget, minima=minima
    )
    tell(0, None, "the policy's path")
    keep = np.array([m is not None for m in minima], bool)  # the rows some cleaning certifies
    cells, _, certified = policy_path(
        tab, T[keep], alpha, prior, batch, need=together.target, budget=budget
    )
    tell(1, 1, "the policy's path")
    path = tuple((int(tab.enc.rows[r]), tab.enc.features[j]) for r, j in cells)
    return CleaningReport(points, together, path, certified)


def report_candidates(
    tab: CleaningTable,
    cand,
    T: np.ndarray,
    prior: str = "observed",
    method: str = "auto",
    time_limit: float = 60.0,
    batch: int = 1,
    progress=None,
    target=1,
    budget: int | None = None,
) -> CleaningReport:
    """``report`` with candidate repairs (alpha = 0, ``nbcert.cleaning.candidates``): each
    point's fewest cells (exact), the fewest for all points together that some cleaning
    certifies (greedy with a proven bound, or proven by trying every cleaning where few),
    and the policy's path."""
    from . import candidates

    tell = progress or (lambda done, total, stage: None)
    kinds = candidates.Kinds(tab, cand)
    zero = np.zeros(kinds.G, np.int64)
    points, minima = [], []
    for p, t in enumerate(T):
        tell(p, len(T), "fewest cells per row")
        plan = candidates.search(kinds, zero, t)[0]
        minima.append(None if plan is None else plan.cost)
        named = () if plan is None else tab.named(kinds.cells(plan.x))
        points.append(
            PointCleaning(False)
            if plan is None
            else PointCleaning(True, named, tab.enc.labels[plan.winner])
        )
    tell(0, None, "fewest cells for all rows together")
    together = candidates.together(kinds, T, minima, method, time_limit, target, budget)
    tell(0, None, "the policy's path")
    keep = np.array([m is not None for m in minima], bool)
    cells, _, certified = candidates.follow(
        kinds, T[keep], 0, prior, batch, together.target, budget
    )
    tell(1, 1, "the policy's path")
    path = tuple((int(tab.enc.rows[r]), tab.enc.features[j]) for r, j in cells)
    return CleaningReport(points, together, path, certified)


def dirty_state(enc: EncodedTable) -> tuple:
    """(obs, M, N) of a dirty table, as the policy takes them: observed cells per (label,
    column, local value), missing cells per (label, column) and rows per label."""
    index = tally(enc)
    return _observed(enc, index), index[:, enc.missing_codes], enc.label_sizes


def _observed(enc: EncodedTable, index: np.ndarray) -> np.ndarray:
    """Observed cells per (label, column, local value) from the count index."""
    m, d, K = enc.m, enc.d, int(enc.delta.max())
    obs = np.zeros((m, d, K), np.int64)
    for j in range(d):
        obs[:, j, : enc.delta[j]] = index[:, enc.offsets[j] : enc.offsets[j + 1] - 1]
    return obs


# The columns of nbcert.clean's table: one row per group of advice.
ADVICE_COLUMNS = tuple(
    "row column label score group_cells as_winner as_rival test_value group_rows".split()
)


def _candidate_scores(enc: EncodedTable, cand, T, alpha, prior):
    """The policy's group scores of a dirty table with candidate repairs: its cells by kind
    (their truths unknown, a stand-in value: nothing is cleaned)."""
    from . import candidates

    missing = enc.is_missing()
    X = np.where(missing, enc.offsets[:-1], enc.X.astype(np.int64))  # a stand-in truth
    stand_in = dataclasses.replace(enc, X=X.astype(enc.X.dtype))
    kinds = candidates.Kinds(CleaningTable.build(stand_in, missing), cand)
    return candidates.scores(kinds, np.zeros(kinds.G, np.int64), T, alpha, prior)


def advice(
    enc: EncodedTable,
    T: np.ndarray,
    alpha=0,
    prior: str = "observed",
    top: int = 10,
    test=None,
    cand=None,
) -> list:
    """The policy's ranked groups for a dirty table.

    Parameters
    ----------
    enc : EncodedTable
        The dirty table.
    T : ndarray, shape (k, d)
        The test points (local codes, -1: unseen).
    alpha : number, default 0
        The smoothing parameter.
    prior : {"observed", "worlds"}, default "observed"
        The policy's odds for a missing cell (``truth_odds``).
    top : int, default 10
        The most groups returned.
    test : DataFrame, optional
        The test rows that T codes, their columns in ``enc.features`` order, for naming
        ``test_value`` (without it, None).
    cand : Candidates, optional
        The table's candidate repairs: the points' counts are those of the candidate
        worlds (``nbcert.cleaning.candidates.scores``).

    Returns
    -------
    list of dict
        Per group with a positive score, best first: its first missing cell (``row``,
        ``column``), its ``label``, ``score``, size (``group_cells``), the points it may
        help (``as_winner``, ``as_rival``), ``test_value``: the column's value in every
        point it may help (None when they differ), and ``group_rows``: the data rows of
        all the group's cells (one column, interchangeable), ascending.
    """
    obs, M, N = dirty_state(enc)
    if cand is None:
        gs = scores(obs, M, N, T, alpha, prior)
    else:
        gs = _candidate_scores(enc, cand, T, alpha, prior)
    order = np.argsort(-gs.score, axis=None, kind="stable")
    out = []
    miss = enc.is_missing()
    for g in order[: max(0, top)]:
        l, j = np.unravel_index(g, gs.score.shape)
        if gs.score[l, j] <= 0:
            break
        a, b = enc.label_bounds[l], enc.label_bounds[l + 1]
        rows = a + np.flatnonzero(miss[a:b, j])
        group_rows = np.sort(enc.rows[rows]).tolist()  # every cell of the group, by data row
        first = group_rows[0]
        values = (first, enc.features[j], enc.labels[l], float(gs.score[l, j]), int(M[l, j]))
        helps = (int(gs.as_winner[l, j]), int(gs.as_rival[l, j]))
        value = _shared_value(test, gs.helped[:, l, j], j)
        out.append(dict(zip(ADVICE_COLUMNS, (*values, *helps, value, group_rows), strict=True)))
    return out


def _shared_value(test, points: np.ndarray, j: int):
    """Column j's value in all of ``points`` (a mask over the test rows), or None if they
    differ (or no test table is given)."""
    if test is None:
        return None
    values = test.iloc[np.flatnonzero(points), j].unique()
    return values[0] if len(values) == 1 else None
