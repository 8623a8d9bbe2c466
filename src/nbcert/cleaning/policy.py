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

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..certification import certify_ranges, extremes
from ..reading.encoding import BLANK
from .table import CleaningTable, agreeing, by_blanks, state_certification


def truth_odds(obs: np.ndarray, T: np.ndarray, prior: str) -> np.ndarray:
    """The odds that a missing cell of (label l, column j) holds t_j, per test point.

    ``worlds``: uniform over the column's domain, as the possible worlds weight it;
    ``observed``: label l's observed frequency of t_j in column j (the column's frequency
    when l has no observed cell there) -- the estimate when cells are missing at random.
    Not smoothed: real tables have values a label never takes, and smoothing them (one
    added count per value) made the policy chase such labels' zero counts (e.g. 11,149
    instead of 6,186 cells on mushrooms, 20 % missing).  0 where t_j is not in the domain.

    Parameters
    ----------
    obs : ndarray, shape (m, d, K)
        Observed cells per (label, column, value).
    T : ndarray, shape (k, d)
        Test points as local value codes (-1: unseen).
    prior : {"observed", "worlds"}

    Returns
    -------
    ndarray, shape (k, m, d)
    """
    m, d, K = obs.shape
    dom = obs.sum(axis=0) > 0
    delta = dom.sum(axis=1)
    Tc = np.maximum(T, 0)
    cols = np.arange(d)
    seen = (T >= 0) & dom[cols, Tc]  # (k, d)
    if prior == "worlds":
        odds = np.broadcast_to(1.0 / delta, (len(T), m, d))
    else:
        per_label = obs.sum(axis=2)  # (m, d)
        own = obs[:, cols, Tc].transpose(1, 0, 2) / np.maximum(per_label, 1)  # (k, m, d)
        column = obs.sum(axis=0)[cols, Tc] / obs.sum(axis=(0, 2))  # (k, d)
        odds = np.where(per_label > 0, own, column[:, None, :])
    return np.where(seen[:, None, :], odds, 0.0)


@dataclass(frozen=True)
class GroupScores:
    """Per (label, column) group: the policy's score for cleaning one more of its cells and
    how many non-robust points it may help as their likely winner's and as a rival's."""

    score: np.ndarray  # (m, d)
    as_winner: np.ndarray  # (m, d)
    as_rival: np.ndarray  # (m, d)
    todo: int  # non-robust points
    helped: np.ndarray  # (k, m, d): the points each group may help


class View(NamedTuple):
    """What the policy sees of each test point (k, m, d): the observed cells that agree
    (E), the extreme counts (lo, hi), the missing cells that may hold t_j (free; without
    candidates every missing cell), the domain sizes (d,) and whether t_j is in the
    domain (k, d)."""

    E: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    free: np.ndarray
    delta: np.ndarray
    seen: np.ndarray


def plain_view(obs: np.ndarray, M: np.ndarray, T: np.ndarray) -> View:
    """The policy's view of test points T on a table without candidates."""
    E, seen, delta = agreeing(obs, T)
    lo, hi = extremes(E, M, delta, seen)
    return View(E, lo, hi, np.broadcast_to(M, lo.shape), delta, seen)


def _deficits(view: View, N, T, alpha, pi):
    """Per point: the bounds lo, hi (k, m, d) as floats, the likely winner w (the label the
    expected table predicts), and D (k, m) = log Smax_l - log Smin_w (0 where beaten or robust)."""
    a = float(alpha)
    E, lo, hi, M, delta, seen = view
    robust = certify_ranges(lo, hi, N, delta, alpha).robust
    lo, hi = lo.astype(float) + a, hi.astype(float) + a
    zero = lo == 0
    lo = np.where(zero, 0.5, lo)  # a count of 0 weighs like half a count
    den = (
        np.log(a) + np.log(delta + N[:, None] / a) if a > 1 else np.log(N[:, None] + a * delta)
    )  # no overflow
    base = np.log(N) - den.sum(axis=1)  # (m,)
    k = np.arange(len(T))
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
    D[robust] = 0.0
    if alpha == 0:  # a test value outside the domain: every support is 0, nothing visible helps
        D[~seen.all(axis=1)] = 0.0
    return lo, hi, w, D, robust


def group_scores(
    obs: np.ndarray,
    M: np.ndarray,
    N: np.ndarray,
    T: np.ndarray,
    alpha=0,
    prior: str = "observed",
    view: View | None = None,
    pi: np.ndarray | None = None,
) -> GroupScores:
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
    obs, M, N, T
        As for ``state_certification``: observed cells (m, d, K), missing cells (m, d), rows per
        label and the test points.
    alpha : number, default 0
        The smoothing parameter.
    prior : {"observed", "worlds"}, default "observed"
        As for ``truth_odds``.
    view : View, optional
        The points' counts (default: ``plain_view`` of obs and M; with candidate repairs,
        ``nbcert.cleaning.candidates.view``).
    pi : ndarray (k, m, d), optional
        The odds that a missing cell holds t_j (default: ``truth_odds``).

    Returns
    -------
    GroupScores
    """
    pi = truth_odds(obs, T, prior) if pi is None else pi
    view = plain_view(obs, M, T) if view is None else view
    lo, hi, w, D, robust = _deficits(view, N, T, alpha, pi)
    M = view.free
    k = np.arange(len(T))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        step = np.log1p(1.0 / lo[k, w])  # (k, d): w's gain from one more t_j cell
        win = np.minimum(D[:, :, None], step[:, None, :]).sum(axis=1) * pi[k, w]
        odds = 1.0 - pi
        close = hi * -np.expm1(-D)[:, :, None] / odds  # cells expected to close the deficit
        whole = np.minimum(D[:, :, None], -np.log1p(-odds * M / hi))  # the whole group's gain
        rival = np.where(close <= M, D[:, :, None] / np.maximum(close, 1.0), whole / M)
    gain = np.where((M > 0) & (D[:, :, None] > 0), np.nan_to_num(rival, nan=0.0), 0.0)
    gain[k, w] = np.where(M[k, w] > 0, np.nan_to_num(win, nan=0.0), 0.0)
    gain[robust] = 0.0
    helps = gain > 0
    is_w = np.zeros_like(helps)
    is_w[k, w] = True
    return GroupScores(
        gain.sum(axis=0),
        (helps & is_w).sum(axis=0),
        (helps & ~is_w).sum(axis=0),
        int((~robust).sum()),
        helps,
    )


def scores(obs, M, N, T, alpha=0, prior="observed") -> GroupScores:
    """``group_scores`` for test points that may have blank cells: summed over the groups of
    points with the same blank cells, each group's on the projection onto its points' other
    features (``nbcert.blanks``: a blank test cell's feature is left out); a point with
    every feature blank has nothing to clean."""
    if not (T == BLANK).any():
        return group_scores(obs, M, N, T, alpha, prior)
    m, d = M.shape
    score, won, rival = np.zeros((m, d)), np.zeros((m, d), int), np.zeros((m, d), int)
    helped, todo = np.zeros((len(T), m, d), bool), 0
    for rows, keep, codes, (o, miss) in by_blanks(T, N, obs, M):
        if len(keep):
            gs = group_scores(o, miss, N, codes, alpha, prior)
            score[:, keep] += gs.score
            won[:, keep] += gs.as_winner
            rival[:, keep] += gs.as_rival
            helped[np.ix_(rows, np.arange(m), keep)] = gs.helped
            todo += gs.todo
    return GroupScores(score, won, rival, todo, helped)


def next_group(obs, M, N, T, alpha=0, prior="observed"):
    """The (label, column) group the policy cleans next.

    Parameters
    ----------
    obs, M, N, T, alpha, prior
        As for ``group_scores``.

    Returns
    -------
    (int, int) or None
        The group with the best score, else (no point left to help by the policy's
        estimate) the largest group; None when nothing is left.
    """
    if not M.any():
        return None
    s = scores(obs, M, N, T, alpha, prior).score
    s = np.where(M > 0, s, -1.0)
    if s.max() <= 0:
        s = np.where(M > 0, M.astype(float), -1.0)
    return np.unravel_index(int(np.argmax(s)), s.shape)


def follow(
    tab: CleaningTable,
    T: np.ndarray,
    choose,
    alpha=0,
    batch: int = 1,
    order: np.ndarray | None = None,
    need: int | None = None,
    budget: int | None = None,
):
    """Clean with the truth revealed as cells are cleaned: ``choose(obs, M)`` names the next
    (label, column) group from what is observed so far, and ``batch`` of its cells are
    cleaned, until every point (``need`` points) is robust, ``budget`` cells are cleaned or
    nothing is left.

    Parameters
    ----------
    tab : CleaningTable
        The dirty table with its truth.
    T : ndarray, shape (k, d)
        The test points (local codes of the true table, -1: unseen).
    choose : callable
        ``choose(obs, M)`` -> (label, column) of the group to clean next.
    alpha : number, default 0
        The smoothing parameter.
    batch : int, default 1
        Cells of the chosen group cleaned per step.
    order : ndarray, optional
        A key per row of ``enc``: within a group cells are taken in its order (default:
        row order).
    need : int, optional
        Stop once this many points are robust (default: all of them).
    budget : int, optional
        Stop before a step would pass this many cells.

    Returns
    -------
    (list, list, bool)
        The cells in cleaning order as (row in enc, column); the history of (cells cleaned,
        robust points) at every state from the start; whether ``need`` points are robust
        at the end.
    """
    Z = tab.values()
    m, d, K = tab.obs.shape
    key = np.arange(tab.enc.n) if order is None else np.asarray(order)
    queue, done = (
        {},
        np.zeros((m, d), np.int64),
    )  # a group's missing rows in order, and how many are cleaned
    for l in range(m):
        a, b = tab.enc.label_bounds[l], tab.enc.label_bounds[l + 1]
        for j in range(d):
            rows = a + np.flatnonzero(tab.missing[a:b, j])
            queue[(l, j)] = rows[np.argsort(key[rows], kind="stable")]
    obs, M = tab.obs.copy(), tab.hid.sum(axis=2)
    taken, history, cleaned = [], [], 0
    need = len(T) if need is None else need
    while True:
        count = int(state_certification(obs, M, tab.N, T, alpha).robust.sum())
        history.append((cleaned, count))
        spent = budget is not None and cleaned >= budget
        if count >= need or not M.any() or spent:
            cells = [(r, j) for rows, j in taken for r in rows.tolist()]
            return cells, history, count >= need
        l, j = choose(obs, M)
        take = queue[(l, j)][done[l, j] : done[l, j] + batch]
        if budget is not None:
            take = take[: budget - cleaned]
        done[l, j] += len(take)
        obs[l, j] += np.bincount(Z[take, j], minlength=K)
        M[l, j] -= len(take)
        taken.append((take, int(j)))
        cleaned += len(take)


def policy_path(
    tab, T, alpha=0, prior="observed", batch=1, *, order=None, need=None, budget=None
) -> tuple:
    """The policy's path: ``follow`` with each step cleaning cells of ``next_group``'s group.

    Parameters
    ----------
    tab, T, alpha, batch, order, need, budget
        As for ``follow``.
    prior : {"observed", "worlds"}, default "observed"
        As for ``truth_odds``.

    Returns
    -------
    (list, list, bool)
        As for ``follow``.
    """
    return follow(
        tab,
        T,
        lambda obs, M: next_group(obs, M, tab.N, T, alpha, prior),
        alpha,
        batch,
        order,
        need,
        budget,
    )
