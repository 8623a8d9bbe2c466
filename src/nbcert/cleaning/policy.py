"""Which cell to clean next without the truth (a heuristic policy).

For each non-robust point, the likely winner is the label the expected table predicts
(missing cells counted with the odds that they hold t_j: the observed frequencies of their
label, or uniform over the domain as the possible worlds weigh them), and each rival's
deficit is log Smax - log Smin_w.  A cell of w in column j may raise lo_wj (concave: scored
by one cell); a rival's cells may lower its hi (convex: scored by the best average over
the cells expected to close its deficit, which is what a one-cell score misses).  Gains
are capped by the deficits and summed over the points; cells of one (label, column) are
interchangeable, so groups are scored, in O(k m^2 d) per decision.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .. import blanks
from ..certification import certify_ranges
from ..stats.domains import BLANK
from .table import View, plain_view, truth_odds


@dataclass(frozen=True)
class GroupScores:
    """Per (label, column) group: the policy's score for cleaning one more of its cells and
    how many non-robust points it may help as their likely winner's and as a rival's."""

    score: np.ndarray  # (m, d)
    as_winner: np.ndarray  # (m, d)
    as_rival: np.ndarray  # (m, d)
    todo: int  # non-robust points
    helped: np.ndarray  # (k, m, d): the points each group may help


def _deficits(view: View, N, alpha, pi):
    """Per point (none robust): the bounds lo, hi (k, m, d) as floats, the likely winner w
    (the label the expected table predicts), and D (k, m) = log Smax_l - log Smin_w (0
    where beaten)."""
    a = float(alpha)
    E, lo, hi, M, delta, seen = view
    lo, hi = lo.astype(float) + a, hi.astype(float) + a
    zero = lo == 0
    lo = np.where(zero, 0.5, lo)  # a count of 0 weighs like half a count
    den = (
        np.log(a) + np.log(delta + N[:, None] / a) if a > 1 else np.log(N[:, None] + a * delta)
    )  # no overflow
    base = np.log(N) - den.sum(axis=1)  # (m,)
    k = np.arange(len(lo))
    with np.errstate(divide="ignore", invalid="ignore"):
        expect = np.log(E + pi * M + a).sum(axis=2) + base
        w = np.argmax(np.nan_to_num(expect, nan=-np.inf), axis=1)
        smin = np.log(lo).sum(axis=2) + base
        smax = np.log(hi).sum(axis=2) + base
        D = np.maximum(smax - smin[k, w][:, None], 0.0)  # a rival with a zero count is beaten
    # while w has a zero count it beats nobody: every rival keeps at least the deficit that
    # one t_j cell (0 -> 1, weighed 0.5 -> 1.5) removes
    D = np.where(zero[k, w].any(axis=1)[:, None], np.maximum(D, math.log(3.0)), D)
    D[k, w] = 0.0
    if alpha == 0:  # a test value outside the domain: every support is 0, nothing visible helps
        D[~seen.all(axis=1)] = 0.0
    return lo, hi, w, D


def group_scores(view: View, N: np.ndarray, alpha, pi: np.ndarray, robust=None) -> GroupScores:
    """Score cleaning one more cell of each (label, column) group (a heuristic).

    For each non-robust point, w is the label the expected table predicts (missing cells
    filled by the prior's odds) and D_l = log Smax_l - log Smin_w its deficit against rival
    l.  A cell of w in column j raises lo_wj by one with odds pi that it holds t_j, shrinking
    every deficit (concave: scored by its first cell).  A cell of rival l lowers hi_lj by
    one with odds 1 - pi; that gain is convex in the cells cleaned, so the group is scored
    by its best average: the deficit over the cells expected to close it, or the whole
    group's gain over its size.  Gains are capped by the deficits and summed over points.
    Domain changes are ignored.

    Parameters
    ----------
    view : View
        What the policy sees of the points (k of them, no blank cell): the cell model's
        ``view`` (``nbcert.cleaning.table.plain_view`` without candidates).
    N : ndarray, shape (m,)
        Rows per label.
    alpha : number
        The smoothing parameter.
    pi : ndarray (k, m, d)
        The odds that a missing cell holds t_j (``truth_odds``).
    robust : ndarray (k,) of bool, optional
        Which points are certifiably robust, where the caller knows it (certify_ranges of
        the view otherwise: the view's ranges are the table's own).

    Returns
    -------
    GroupScores
    """
    if robust is None:
        robust = certify_ranges(view.lo, view.hi, N, view.delta, alpha).robust
    todo = np.flatnonzero(~robust)  # a robust point's gains are 0: it is left out
    part = View(*(a[todo] for a in view[:4]), view.delta, view.seen[todo])
    lo, hi, w, D = _deficits(part, N, alpha, pi[todo])
    M, pi = part.free, pi[todo]
    k = np.arange(len(lo))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        step = np.log1p(1.0 / lo[k, w])  # (k, d): w's gain from one more t_j cell
        win = np.minimum(D[:, :, None], step[:, None, :]).sum(axis=1) * pi[k, w]
        odds = 1.0 - pi
        close = hi * -np.expm1(-D)[:, :, None] / odds  # cells expected to close the deficit
        whole = np.minimum(D[:, :, None], -np.log1p(-odds * M / hi))  # the whole group's gain
        rival = np.where(close <= M, D[:, :, None] / np.maximum(close, 1.0), whole / M)
    gain = np.where((M > 0) & (D[:, :, None] > 0), np.nan_to_num(rival, nan=0.0), 0.0)
    gain[k, w] = np.where(M[k, w] > 0, np.nan_to_num(win, nan=0.0), 0.0)
    helps = gain > 0
    is_w = np.zeros_like(helps)
    is_w[k, w] = True
    helped = np.zeros(view.lo.shape, bool)
    helped[todo] = helps
    return GroupScores(
        gain.sum(axis=0),
        (helps & is_w).sum(axis=0),
        (helps & ~is_w).sum(axis=0),
        len(todo),
        helped,
    )


def scores(
    obs: np.ndarray, N: np.ndarray, T: np.ndarray, alpha, prior: str, view, robust=None
) -> GroupScores:
    """``group_scores`` for test points that may have blank cells: summed over the groups of
    points with the same blank cells, each group's on its points' other features
    (``nbcert.blanks``: a blank test cell's feature is left out); a point with every
    feature blank has nothing to clean.

    Parameters
    ----------
    obs : ndarray, shape (m, d, K)
        The observed cells (after the cleanings done).
    N, T, alpha
        Rows per label, the test points (local codes), the smoothing parameter.
    prior : {"observed", "worlds"}
        As for ``truth_odds``.
    view : callable
        ``view(T)`` -> (View, the worlds' odds) of test points: a cell model's ``view``.
    robust : ndarray (k,) of bool, optional
        As for ``group_scores`` (each point decided on its features not blank, as here).

    Returns
    -------
    GroupScores
    """
    m, d = obs.shape[:2]
    score, won, rival = np.zeros((m, d)), np.zeros((m, d), int), np.zeros((m, d), int)
    helped, todo = np.zeros((len(T), m, d), bool), 0
    for rows, keep in blanks.groups(T):
        if not len(keep):
            continue
        whole = len(rows) == len(T) and len(keep) == d  # no blank cell: no copies
        cols = slice(None) if whole else keep
        full = T if whole else np.full((len(rows), d), BLANK, T.dtype)
        if not whole:
            full[:, keep] = T[np.ix_(rows, keep)]
        seen, worlds = view(full)
        part = (
            seen
            if whole
            else View(*(a[..., keep] for a in seen[:4]), seen.delta[keep], seen.seen[:, keep])
        )
        if prior == "observed":
            pi = truth_odds(obs[:, cols], full[:, cols], prior)
        else:
            pi = worlds[..., cols]
        gs = group_scores(part, N, alpha, pi, None if robust is None else robust[rows])
        score[:, cols] += gs.score
        won[:, cols] += gs.as_winner
        rival[:, cols] += gs.as_rival
        helped[np.ix_(rows, np.arange(m), keep)] = gs.helped
        todo += gs.todo
    return GroupScores(score, won, rival, todo, helped)


def pick(score: np.ndarray, M: np.ndarray):
    """The (label, column) group with the best score among those with missing cells M,
    else (no point left to help by the policy's estimate) the largest; None when nothing
    is left."""
    if not M.any():
        return None
    s = np.where(M > 0, score, -1.0)
    if s.max() <= 0:
        s = np.where(M > 0, M.astype(float), -1.0)
    return np.unravel_index(int(np.argmax(s)), s.shape)


def next_group(obs, M, N, T, alpha=0, prior="observed", robust=None):
    """The (label, column) group the policy cleans next.

    Parameters
    ----------
    obs : ndarray, shape (m, d, K)
        Observed cells per (label, column, value).
    M : ndarray, shape (m, d)
        Missing cells per (label, column).
    N, T, alpha
        Rows per label, the test points (local codes), the smoothing parameter.
    prior : {"observed", "worlds"}, default "observed"
        As for ``truth_odds``.
    robust : ndarray (k,) of bool, optional
        As for ``scores``.

    Returns
    -------
    (int, int) or None
        The group with the best score, else (no point left to help by the policy's
        estimate) the largest group; None when nothing is left.
    """
    if not M.any():
        return None
    view = functools.partial(plain_view, obs, M)
    return pick(scores(obs, N, T, alpha, prior, view, robust).score, M)


def follow(model, T, choose, alpha=0, batch=1, order=None, need=None, budget=None):
    """Clean with the truth revealed as cells are cleaned: ``choose`` names the next
    (label, column) group from what is observed so far, and ``batch`` of its cells are
    cleaned, until every point (``need`` points) is robust, ``budget`` cells are cleaned or
    nothing is left.

    Parameters
    ----------
    model : CleaningTable or CandidateTable
        The dirty table with its truth (a cell model).
    T : ndarray, shape (k, d)
        The test points (local codes of the true table).
    choose : callable
        ``choose(*model.observed(x), robust=r)`` -> (label, column) of the group to clean
        next, x the cleaning so far and r which points are robust after it:
        ``choose(obs, M, robust=r)`` (observed cells, missing cells per (label, column))
        without candidates, ``choose(x, robust=r)`` with them.
    alpha : number, default 0
        The smoothing parameter.
    batch : int, default 1
        Cells of the chosen group cleaned per step.
    order : ndarray, optional
        A key per row of the table: within a group cells are taken in its order (default:
        row order).
    need : int, optional
        Stop once this many points are robust (default: all of them).
    budget : int, optional
        Stop before a step would pass this many cells.

    Returns
    -------
    (list, list, bool)
        The cells in cleaning order as (row in the table, column); the history of (cells
        cleaned, robust points) at every state from the start; whether ``need`` points are
        robust at the end.
    """
    queue, M = _queues(model.table, order), model.table.hid.sum(axis=2)
    x, done = np.zeros_like(model.cap), np.zeros_like(M)
    taken, history, cleaned = [], [], 0
    need = len(T) if need is None else need
    while True:
        robust = model.certify(x, T, alpha).robust
        count = int(robust.sum())
        history.append((cleaned, count))
        spent = budget is not None and cleaned >= budget
        if count >= need or not (M - done).any() or spent:
            return [(r, j) for rows, j in taken for r in rows.tolist()], history, count >= need
        l, j = choose(*model.observed(x), robust=robust)
        take = queue[(l, j)][done[l, j] : done[l, j] + batch]
        take = take if budget is None else take[: budget - cleaned]
        done[l, j] += len(take)
        np.add.at(x.reshape(-1), model.group_of(take, j), 1)
        taken.append((take, int(j)))
        cleaned += len(take)


def _queues(tab, order) -> dict:
    """Each (label, column)'s missing rows, in the order of the key per row ``order``
    (default: row order)."""
    key = np.arange(tab.enc.n) if order is None else np.asarray(order)
    queue = {}
    for l in range(tab.obs.shape[0]):
        a, b = tab.enc.label_bounds[l], tab.enc.label_bounds[l + 1]
        for j in range(tab.obs.shape[1]):
            rows = a + np.flatnonzero(tab.missing[a:b, j])
            queue[(l, j)] = rows[np.argsort(key[rows], kind="stable")]
    return queue


def policy_path(
    model, T, alpha=0, prior="observed", batch=1, *, order=None, need=None, budget=None
):
    """The policy's path: ``follow`` with each step cleaning cells of the group the policy
    scores best (``model.chooser``).

    Parameters
    ----------
    model, T, alpha, batch, order, need, budget
        As for ``follow``.
    prior : {"observed", "worlds"}, default "observed"
        As for ``truth_odds``.

    Returns
    -------
    (list, list, bool)
        As for ``follow``.
    """

    def choose(*seen, robust):
        obs, M, view = model.scoring(*seen)
        return pick(scores(obs, model.table.N, T, alpha, prior, view, robust).score, M)

    return follow(model, T, choose, alpha, batch, order, need, budget)
