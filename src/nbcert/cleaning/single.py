"""The minimum with the truth for one point (exact): the fewest cleanings that certify it.

Written once against a cell model (``nbcert.cleaning.table``: domains, or
``nbcert.cleaning.candidates``: candidate repairs).  The model lists the *branches* of a
test point t: per would-be winner w, fixed-domain problems (``nbcert.cleaning.fixed``) over
the cells that help t -- w's cells that raise its smallest count of t_j and the rivals'
cells that lower their largest -- each with the cleanings its end state prepays.  The
cheapest plan over every branch is the minimum; every plan is checked exactly on the
cleaned counts before it is returned.  "No cleaning makes it robust" is proven: every
branch is infeasible even with all its helpful cells cleaned.

A search may be asked only for plans cheaper than a limit; the answer, when one exists,
is the plan the unlimited search returns.  A point's minimum is at most a floor when a
plan found without search (``FixedDomain.upper``) is within it and certifies the point on
the cleaned table (``within``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from .fixed import FixedDomain


class Branch(NamedTuple):
    """One fixed-domain problem for winner ``w``: the cleanings ``x0`` its end state
    prepays, and ``plan(a, bs)``, the whole cleaning (x0 included) of a solution (w's
    cells a per column, each rival's b), both counted as the model's cleanings."""

    w: int
    problem: FixedDomain
    x0: np.ndarray
    plan: Callable


class TooManyBranches(ValueError):
    """The exact minimum with the truth would branch over too many column domain outcomes."""


@dataclass(frozen=True)
class CleaningPlan:
    """Cells per group to clean (``x``, the model's cleaning), their number, and the
    winner they certify."""

    x: np.ndarray
    cost: int
    winner: int


def _settled(model, x: np.ndarray, t: np.ndarray, alpha) -> int:
    """The label every world predicts for t after cleaning x (one label: it), else -1."""
    if len(model.table.N) == 1:
        return 0
    return int(model.certify(x, t[None], alpha).label[0])


def minimum_with_truth(model, t: np.ndarray, alpha=0, limit=math.inf) -> CleaningPlan | None:
    """The fewest cleanings that make test point t certifiably robust.

    Parameters
    ----------
    model : CleaningTable or CandidateTable
        The dirty table with its truth (a cell model).
    t : ndarray, shape (d,)
        The test point as local codes of the true table (-1: unseen, -2: blank).
    alpha : number, default 0
        The smoothing parameter.
    limit : number, default inf
        Only plans costing less are sought; a plan found is the one found without a limit.

    Returns
    -------
    CleaningPlan or None
        None when no set of cleanings makes t robust (proven), or none costs less than
        ``limit``.
    """
    return search(model, np.zeros_like(model.cap), t, Fraction(alpha), limit)[0]


def search(model, x: np.ndarray, t: np.ndarray, alpha: Fraction, limit=math.inf, now=None) -> tuple:
    """(the cheapest plan costing less than ``limit`` on the table cleaned by x, or None;
    whether any plan exists; a lower bound on the minimum: its cost when a plan is found).

    Branches are tried in the model's order and a plan replaces the best only when
    strictly cheaper, so the first cheapest branch's plan is returned whatever the limit
    (above its cost): each search below ``limit`` returns the plan it returns without it.
    ``now``: the label t is certain of after x (-1: none), where the caller knows it."""
    zero = np.zeros_like(model.cap)
    now = _settled(model, x, t, alpha) if now is None else now
    if now >= 0:
        return (CleaningPlan(zero, 0, now) if limit > 0 else None), True, 0
    best, possible, lower = None, False, math.inf
    for branch in model.branches(x, t, alpha):
        if not branch.problem.feasible():
            continue
        possible = True
        extra = int(branch.x0.sum())
        bound = (best.cost if best else limit) - extra
        res = branch.problem.solve(bound) if bound > 0 else None
        if res is None:  # every plan of the branch costs at least extra + bound (or its floor)
            lower = min(lower, extra + max(bound, branch.problem.lower, 0))
            continue
        cost, a, bs = res
        add = branch.plan(a, bs)
        if _settled(model, x + add, t, alpha) != branch.w or int(add.sum()) != extra + cost:
            raise AssertionError(
                f"internal: a cleaning plan failed its exact check (winner {branch.w})"
            )
        best = CleaningPlan(add, extra + cost, branch.w)
    return best, possible, min(lower, best.cost) if best else lower


def cleanable(model, t: np.ndarray, alpha=0, x: np.ndarray | None = None, now=None) -> bool:
    """Does some cleaning (after x) make test point t certifiably robust (proven either way)?

    Each branch is checked with all its helpful cells cleaned (the first that works ends
    the check); nothing is solved.

    Parameters
    ----------
    model, t, alpha
        As for ``minimum_with_truth``.
    x : ndarray, optional
        Cleanings already done (default none).
    now : int, optional
        As for ``search``.

    Returns
    -------
    bool
    """
    x = np.zeros_like(model.cap) if x is None else x
    if (_settled(model, x, t, alpha) if now is None else now) >= 0:
        return True
    return any(b.problem.feasible() for b in model.branches(x, t, Fraction(alpha)))


def winner_possible(model, t: np.ndarray, w: int, alpha=Fraction(0), limit=None) -> bool:
    """Can w become the certified winner of t (some branch feasible with all its helpful
    cells cleaned)?  ``limit``: the most branches to list (TooManyBranches beyond it)."""
    zero = np.zeros_like(model.cap)
    return any(b.problem.feasible() for b in model.branches(zero, t, alpha, [w], limit))


def within(model, t: np.ndarray, alpha: Fraction, floor: int) -> bool:
    """Is t's minimum at most ``floor``?  True only with a witness: a plan of at most
    floor cells found without search (``FixedDomain.upper``) and checked on the cleaned
    table."""
    zero = np.zeros_like(model.cap)
    if _settled(model, zero, t, alpha) >= 0:
        return floor >= 0
    try:
        for branch in model.branches(zero, t, alpha):
            got = branch.problem.upper() if int(branch.x0.sum()) <= floor else None
            if got is not None:
                x = branch.plan(*got)
                if int(x.sum()) <= floor and _settled(model, x, t, alpha) >= 0:
                    return True
    except TooManyBranches:
        return False
    return False
