"""What the truth says about a dirty table, and the policy's advice without it.

``report`` gathers, with the truth known, each point's minimum with the truth, the fewest
cells for all points together, and the cells the truth-free policy would clean, in order,
for either cell model (domains, or candidate repairs).  ``advice`` ranks a dirty table's
groups by the policy's score.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..milp import CellAnswer
from ..stats.domains import EncodedTable
from .candidates import CandidateTable
from .policy import policy_path, scores
from .single import cleanable, minimum_with_truth
from .table import CleaningTable
from .together import TogetherCleaning, clean_together


@dataclass(frozen=True)
class PointCleaning(CellAnswer):
    """The fewest cells whose cleaning certifies one test point (alone).

    ``cells`` lists (row position in the training table, column name), empty when the
    point is already robust; ``possible`` False when no cleaning makes it robust (proven,
    unless ``lower_bound`` gives a bound instead).  ``label`` is the prediction the cleaned
    table certifies; ``lower_bound`` a bound on the fewest cells that a certificate proves
    (set by the API, ``nbcert.certificate.claims``; ``minimal`` where it meets them).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> dirty = pd.DataFrame({"f": ["a", None, "b", "b"], "y": ["p", "p", "q", "q"]})
    >>> truth = dirty.fillna("c")  # the test value c is only among the missing cells
    >>> first = nbcert.clean_with_truth(dirty, truth, pd.DataFrame({"f": ["c"]}), "y").points[0]
    >>> first.cells, first.num_cells, first.label
    (((1, 'f'),), 1, 'p')
    """

    label: object = None
    lower_bound: int | None = None

    @property
    def minimal(self) -> bool:
        """Whether ``cells`` are proven the fewest: ``lower_bound`` meets them."""
        return self.possible and self.lower_bound == self.num_cells


@dataclass(frozen=True)
class CleaningReport:
    """What the truth says: per point its minimum with the truth, the fewest cells for all points
    together (but those no cleaning certifies: ``together.excluded``), and the cells the
    truth-free policy would clean, in order, until the target of those points is robust
    (``path_certifies``), the budget is spent or nothing is left.  The path is followed
    when first read (``follow``): the answers alone do not pay for it.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> dirty = pd.DataFrame({"f": list("xxxy"), "g": ["a", None, "a", "a"], "y": list("ppqq")})
    >>> test = pd.DataFrame({"f": ["x", "y"], "g": ["b", "a"]})
    >>> report = nbcert.clean_with_truth(dirty, dirty.fillna("b"), test, "y")
    >>> [p.num_cells for p in report.points], report.path, report.path_certifies
    ([1, 0], ((1, 'g'),), True)
    """

    points: list
    together: TogetherCleaning
    follow: Callable = dataclasses.field(repr=False, compare=False)

    @functools.cached_property
    def _followed(self) -> tuple:
        return self.follow()

    @property
    def path(self) -> tuple:
        """The cells the policy cleans, in order (followed when first asked for)."""
        return self._followed[0]

    @property
    def path_certifies(self) -> bool:
        """Whether the path ends with the target of the points robust."""
        return self._followed[1]


def _per_point(model, T: np.ndarray, alpha, tell) -> tuple:
    """(each point's ``PointCleaning``, each point's plan or None) with the truth."""
    tab, points, plans, asked = model.table, [], [], {}  # asked: a repeated point's plan
    for p, t in enumerate(T):
        tell(p, len(T), "fewest cells per row")
        if t.tobytes() not in asked:
            asked[t.tobytes()] = minimum_with_truth(model, t, alpha)
        plan = asked[t.tobytes()]
        plans.append(plan)
        points.append(
            PointCleaning(False)
            if plan is None
            else PointCleaning(True, tab.named(model.cells(plan.x)), tab.enc.labels[plan.winner])
        )
    return points, plans


def report(
    model,
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
    """The fewest cells per point and together, and the policy's path, with the truth known.

    The points that no cleaning certifies (proven by their own search) are set aside for
    the answer together (``together.excluded``) and for the policy's path, which stops
    once ``together.target`` of the others are robust (or at ``budget`` cells).

    Parameters
    ----------
    model : CleaningTable or CandidateTable
        The dirty table with its truth (a cell model).
    T, alpha, method, node_limit, time_limit, target, budget
        As for ``clean_together``.
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
    tab = model.table
    points, plans = _per_point(model, T, alpha, tell)
    tell(0, None, "fewest cells for all rows together")
    together = clean_together(
        model, T, alpha, method, node_limit, time_limit, target, budget, plans=plans
    )
    keep = np.array([p is not None for p in plans], bool)  # the rows some cleaning certifies

    def follow():
        tell(0, None, "the policy's path")
        cells, _, certified = policy_path(
            model, T[keep], alpha, prior, batch, need=together.target, budget=budget
        )
        tell(1, 1, "the policy's path")
        return tab.named_in_order(cells), certified

    return CleaningReport(points, together, follow)


def path_cells(model, T: np.ndarray, alpha=0, prior: str = "observed", batch: int = 1) -> list:
    """The policy's path as (row in the table, column), until every point some cleaning
    certifies is certain."""
    keep = np.array([cleanable(model, t, alpha) for t in T], bool)
    return policy_path(model, T[keep], alpha, prior, batch)[0]


def cell_model(tab: CleaningTable, cand=None):
    """The dirty table with its truth as a cell model: ``tab`` itself (domains), or with
    candidate repairs ``cand`` a ``CandidateTable``."""
    return tab if cand is None else CandidateTable(tab, cand)


def dirty_model(enc: EncodedTable, cand=None):
    """A dirty table as a cell model whose truth is unknown (nothing is cleaned): its missing
    cells at a stand-in value, with candidate repairs ``cand`` if given."""
    missing = enc.is_missing()
    X = np.where(missing, enc.offsets[:-1], enc.X.astype(np.int64))  # a stand-in truth
    return cell_model(
        CleaningTable.build(dataclasses.replace(enc, X=X.astype(enc.X.dtype)), missing), cand
    )


# The columns of nbcert.clean's table: one row per group of advice.
ADVICE_COLUMNS = tuple(
    "row column label score group_cells as_winner as_rival test_value group_rows".split()
)


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
        The test points that T codes, their columns in ``enc.features`` order, for naming
        ``test_value`` (without it, None).
    cand : Candidates, optional
        The table's candidate repairs: the points' counts are those of the candidate
        worlds (``nbcert.cleaning.candidates.CandidateTable.view``).

    Returns
    -------
    list of dict
        Per group with a positive score, best first: its first missing cell (``row``,
        ``column``), its ``label``, ``score``, size (``group_cells``), the points it may
        help (``as_winner``, ``as_rival``), ``test_value``: the column's value in every
        point it may help (None when they differ), and ``group_rows``: the data rows of
        all the group's cells (one column, interchangeable), ascending.
    """
    model = dirty_model(enc, cand)
    zero = np.zeros_like(model.cap)
    obs, N, M = model.table.obs, model.table.N, model.table.hid.sum(axis=2)
    gs = scores(obs, N, T, alpha, prior, functools.partial(model.view, zero))
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
    """Column j's value in all of ``points`` (a mask over the test points), or None if they
    differ (or no test table is given)."""
    if test is None:
        return None
    values = test.iloc[np.flatnonzero(points), j].unique()
    return values[0] if len(values) == 1 else None
