"""Which cells help a row when every missing cell may take any value of its column's domain.

The branches of the exact one-point search (``nbcert.cleaning.single``) for the cell model
of domains (``nbcert.cleaning.table.CleaningTable``).  Per would-be winner w and final
domain of every column the problem is the fixed-domain one (``nbcert.cleaning.fixed``);
this module branches over the domains.

Domains: a cleaning can add a value to a column.  That matters only through whether t_j
is in the domain, whether the domain has one value (which forces every missing cell to
it) and, with alpha > 0, its size (every label's denominator).  We branch over the
reachable final domains of each column: which new values are introduced and which
cleaned cell introduces each (a rival's cell whose lowering helps, w's t_j cell, or a
cell that helps nothing -- the latter only when no helpful one exists, which is never
worse).  With alpha = 0 only two cases branch: a column whose observed values are all t_j
(stay forced, or unforce it with one cleaning) and a test value seen only among missing
cells (w must clean one of its own t_j cells).  A blank test cell's column is neutral
(factor 1 in every world, ``nbcert.blanks``): one end state that cleans nothing.  Note
that the fully cleaned table may tie while a partial cleaning certifies the point (a
column left with t_j alone neutralises a feature), so the full table alone proves
nothing.  Cost per point: sum over winners and branches of O(d P + A d) floating-point
work (P the rivals' Pareto sets' sizes, A the winner's cleanable cells) plus a few exact
products.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..kernel import factor_denominator, factor_numerator
from ..stats.domains import BLANK
from .fixed import FixedDomain
from .single import Branch, TooManyBranches


@dataclass(frozen=True)
class _Option:
    """How one column ends up: its role, usable true values, and the cleanings that
    introduce its new values (w's t_j cell, a rival's cell, or a cell that helps nothing)."""

    role: str  # "active", "forced" or "unseen"
    usable: tuple  # true values whose cells may be cleaned (active columns)
    delta: int  # the column's final domain size (matters for alpha > 0)
    by_w: int = 0  # w cleans one of its t_j cells to introduce t_j
    by_rival: tuple = ()  # (rival, value): that rival cleans one of its cells of this value
    pure: tuple = ()  # (label, value): a cleaning that only introduces the value


def _column_facts(obs: np.ndarray, hid: np.ndarray) -> list:
    """Per column: its observed values D0, the values only missing cells hold (new) and
    both (every), as sorted tuples."""
    seen, held = obs.sum(axis=0) > 0, hid.sum(axis=0) > 0  # (d, K)
    out = []
    for D0, new in zip(seen.tolist(), (~seen & held).tolist()):
        D0 = tuple(v for v, on in enumerate(D0) if on)
        new = tuple(v for v, on in enumerate(new) if on)
        out.append((D0, new, tuple(sorted(D0 + new))))
    return out


def _column_options(
    obs_j: np.ndarray, hid_j: np.ndarray, t: int, w: int, zero: bool, facts=None
) -> list:
    """Every reachable end state of one column worth considering, for winner w.

    obs_j, hid_j (m, K): observed and missing counts per label and true value; ``facts``:
    the column's (D0, new, every) of :func:`_column_facts` if known."""
    D0, new, every = (
        facts if facts is not None else _column_facts(obs_j[:, None], hid_j[:, None])[0]
    )
    m = obs_j.shape[0]
    if t == BLANK:
        return [_Option("forced", (), 1)]  # left out: factor 1
    if zero:
        # alpha = 0: only "is t_j seen" and "is the domain {t_j}" matter
        if t < 0 or (t not in D0 and t not in new):
            return []  # every label's support is 0 in every world
        if t not in D0:
            return [_Option("active", every, len(every), by_w=1)] if hid_j[w, t] else []
        if len(D0) >= 2:
            return [_Option("active", every, len(every))]
        out = [_Option("forced", (t,), 1)]
        others = [l for l in range(m) if l != w and hid_j[l].sum() - hid_j[l, t] > 0]
        if others:
            out += [_Option("active", every, len(every), by_rival=((l, -1),)) for l in others]
        elif hid_j[w].sum() - hid_j[w, t] > 0:
            v = next(v for v in every if v != t and hid_j[w, v])
            out.append(_Option("active", every, len(every), pure=((w, v),)))
        return out
    out = []
    for size in range(len(new) + 1):  # the caller bounds their number first (_option_count)
        for intro in itertools.combinations(new, size):
            dom = tuple(sorted(D0 + intro))
            seen = t >= 0 and t in dom
            role = "unseen" if not seen else ("forced" if len(dom) == 1 else "active")
            choices = []
            for v in intro:
                if v == t:
                    choices.append(
                        [("w", w)]
                        if hid_j[w, t]
                        else [("pure", next(l for l in range(m) if hid_j[l, t]))]
                    )
                else:
                    rivals = [l for l in range(m) if l != w and hid_j[l, v]]
                    choices.append([("rival", l) for l in rivals] or [("pure", w)])
            for pick in itertools.product(*choices):
                by_w = sum(1 for how, _ in pick if how == "w")
                by_rival = tuple((l, v) for (how, l), v in zip(pick, intro) if how == "rival")
                pure = tuple((l, v) for (how, l), v in zip(pick, intro) if how == "pure")
                out.append(_Option(role, dom, len(dom), by_w, by_rival, pure))
    return out


def _intro_choices(hid_j: np.ndarray, v: int, t: int, w: int) -> int:
    """How many ways ``_column_options`` introduces the new value v (one per cleaning that
    can do it: w's t_j cell, a rival's cell of v, or one cell that helps nothing)."""
    if v == t:
        return 1
    return max(1, sum(1 for l in range(hid_j.shape[0]) if l != w and hid_j[l, v]))


def _option_count(hid_j: np.ndarray, t: int, w: int, facts) -> int:
    """The number of end states ``_column_options`` lists for one column at alpha > 0,
    without listing them: each new value is left out or introduced by one of its choices,
    so prod over the new values of (1 + choices)."""
    if t == BLANK:
        return 1
    return math.prod(1 + _intro_choices(hid_j, v, t, w) for v in facts[1])


MAX_BRANCHES = 4096  # column domain outcomes one winner may branch over (their product)


def branching_columns(tab) -> list:
    """(column, values seen only among its missing cells, whether it has one observed
    value) of the columns whose end states the exact minimum branches over, most values
    first: with alpha > 0 each value seen only among missing cells doubles the outcomes
    (it is introduced or not); a column with one observed value branches for any alpha."""
    out = []
    for j, (D0, new, _) in enumerate(_column_facts(tab.obs, tab.hid)):
        if new or len(D0) == 1:
            out.append((tab.enc.features[j], len(new), len(D0) == 1))
    return sorted(out, key=lambda c: (-c[1], -c[2]))


def _branches(tab, t: np.ndarray, w: int, zero: bool, facts: list, limit=MAX_BRANCHES):
    """Every branch for winner w (one end state per column, from ``_column_options``),
    lazily; TooManyBranches when there are more than ``limit``, decided from their number
    before any is listed (a column with 148 values seen only among its missing cells has
    2^148 end states at alpha > 0, more than any memory holds)."""

    def options(j: int) -> list:
        return _column_options(tab.obs[:, j], tab.hid[:, j], int(t[j]), w, zero, facts[j])

    d = tab.obs.shape[1]
    if zero:  # at most m + 1 end states per column: listed at once
        listed = [options(j) for j in range(d)]
        sizes = [len(o) for o in listed]
    else:
        sizes = [_option_count(tab.hid[:, j], int(t[j]), w, facts[j]) for j in range(d)]
    if math.prod(sizes) > limit:
        raise TooManyBranches(
            f"the exact minimum for one row would try more than {limit:,} column domain "
            "outcomes, its limit"
        )
    return itertools.product(*(listed if zero else map(options, range(d))))


class _Branch(NamedTuple):
    """One (winner, column end states) branch: its fixed-domain ``problem`` over the
    ``active`` columns and the ``rivals``, and the cleanings ``x0`` its end states prepay."""

    w: int
    opts: tuple
    problem: FixedDomain
    active: list
    rivals: list
    x0: np.ndarray


def _prepaid(hid: np.ndarray, t: np.ndarray, w: int, opts: tuple) -> np.ndarray:
    """The cleanings that introduce the branch's new domain values (group counts)."""
    x0 = np.zeros_like(hid)
    for j, o in enumerate(opts):
        if not (o.by_w or o.by_rival or o.pure):
            continue
        x0[w, j, t[j]] += o.by_w
        for l, v in o.by_rival:
            if v < 0:  # alpha = 0 unforcing: any value but t_j
                v = next(u for u in o.usable if u != t[j] and hid[l, j, u])
            x0[l, j, v] += 1
        for l, v in o.pure:
            x0[l, j, v] += 1
    return x0


def _branch(tab, t: np.ndarray, w: int, opts: tuple, alpha: Fraction) -> _Branch:
    """The fixed-domain problem of one branch, and the cleanings its options prepay.

    Column j's factor for label l is (q lo_lj + p) / (q N_l + p delta_j): 1 in a forced
    column (lo = N_l, delta = 1), p / (q N_l + p delta_j) in an unseen one."""
    obs, hid, N = tab.obs, tab.hid, tab.N
    m = obs.shape[0]
    p = factor_numerator(0, alpha)  # an unseen column's numerator
    rivals = [l for l in range(m) if l != w]
    active = [j for j, o in enumerate(opts) if o.role == "active"]
    sizes = Counter(o.delta for o in opts if o.role != "forced")  # the denominators' domain sizes
    den = [
        math.prod(factor_denominator(N[l], size, alpha) ** times for size, times in sizes.items())
        for l in range(m)
    ]
    num = [
        p ** sum(o.role == "unseen" for o in opts)
    ] * m  # product of the fixed numerators, per label
    x0 = _prepaid(hid, t, w, opts)
    A = np.array(active, np.int64)
    tA = np.asarray(t, np.int64)[A]
    usable = np.zeros((len(A), hid.shape[2]), bool)  # per active column: its usable values but t_j
    for i, j in enumerate(active):
        usable[i, list(opts[j].usable)] = True
    usable[np.arange(len(A)), tA] = False
    counts, rest = (obs + x0)[:, A, tA], (hid - x0)[:, A]  # (m, J), (m, J, K)
    cw, capA = counts[w].tolist(), (hid[w, A, tA] - x0[w, A, tA]).tolist()
    h = (counts[rivals] + rest[rivals].sum(axis=2)).tolist()
    capB = (rest[rivals] * usable).sum(axis=2).tolist()
    left = [int(N[w]) * num[w] * den[l] for l in rivals]
    right = [int(N[l]) * num[l] * den[w] for l in rivals]
    return _Branch(w, opts, FixedDomain(cw, capA, h, capB, left, right, alpha), active, rivals, x0)


def _spread(tab, x: np.ndarray, l: int, j: int, count: int, usable, t: int) -> None:
    """Add ``count`` cleanings of label l's column-j cells whose truth is usable and not t."""
    for v in usable:
        if v == t or count <= 0:
            continue
        take = min(count, int(tab.hid[l, j, v] - x[l, j, v]))
        x[l, j, v] += take
        count -= take
    assert count == 0, "internal: not enough cells to spread"


def _plan_cells(tab, t: np.ndarray, branch: _Branch, a, bs) -> np.ndarray:
    """Group counts of a branch's plan: its prepaid cells x0, w's t_j cells a and the
    rivals' cells b spread over their usable values."""
    x = branch.x0.copy()
    for i, j in enumerate(branch.active):
        x[branch.w, j, t[j]] += a[i]
        for k, l in enumerate(branch.rivals):
            _spread(tab, x, l, j, int(bs[k][i]), branch.opts[j].usable, int(t[j]))
    return x


def branches(tab, t: np.ndarray, alpha: Fraction, winners=None, limit=MAX_BRANCHES):
    """Every (winner, column end states) branch of test point t on ``tab`` (a
    CleaningTable), lazily: for each winner (all labels, or ``winners``) in order, its
    branches in the order of the columns' end states; TooManyBranches before a winner's
    first branch when it has more than ``limit``."""
    facts = _column_facts(tab.obs, tab.hid)
    for w in range(tab.obs.shape[0]) if winners is None else winners:
        for opts in _branches(tab, t, w, alpha == 0, facts, limit):
            inner = _branch(tab, t, w, opts, alpha)
            plan = functools.partial(_plan_cells, tab, t, inner)
            yield Branch(w, inner.problem, inner.x0, plan)
