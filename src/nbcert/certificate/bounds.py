"""The bounds a certificate claims: for each answer, the largest its checker proves.

nbcert's searches are exact, but a certificate claims only what ``nbcert.verify`` shows in
time polynomial in the table (``verify.needed``, ``verify.never``: the design notes'
"Certificates").  So the writer runs the checker's own relaxations on the table's counts
(``verify.blanking`` and ``verify.cleaning``, here on integer codes, which the checker's
arithmetic does not tell from values) and claims what they give: the answer's cells as the
fewest where the bound meets them, else the cells found and the bound proven; "no blanking"
or "no cleaning" only where ``verify.never`` shows it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import verify
from ..stats.domains import BLANK
from . import states

# The most cells a bound is sought up to when no answer gives one (none found, or
# "impossible" where the checker's relaxation cannot show it): a bound's check is
# linear-times-the-columns in it.
UNANSWERED_MAX_CELLS = 2000


def blanking_state(enc) -> verify.State:
    """The checker's state of a complete table: its counts, values as their codes."""
    counts = states.as_read(enc)
    labels = [str(x) for x in enc.labels]
    obs, miss = [], []
    for j in range(enc.d):
        a, b = int(enc.offsets[j]), int(enc.offsets[j + 1]) - 1  # the last slot: missing
        obs.append({labels[l]: _held(counts[l, a:b]) for l in range(enc.m)})
        miss.append({labels[l]: int(counts[l, b]) for l in range(enc.m)})
    sizes = counts[:, int(enc.offsets[0]) : int(enc.offsets[1])].sum(axis=1)
    return verify.State.counted(dict(zip(labels, map(int, sizes))), obs, miss)


def cleaning_state(tab) -> tuple:
    """(the checker's state, truth) of a dirty table: ``truth[j][label][code]`` counts the
    missing cells whose true value has that code, as ``verify.cleaning`` takes it."""
    labels = [str(x) for x in tab.enc.labels]
    obs, miss, truth = [], [], []
    for j in range(tab.enc.d):
        obs.append({labels[l]: _held(tab.obs[l, j]) for l in range(tab.enc.m)})
        miss.append({labels[l]: int(tab.hid[l, j].sum()) for l in range(tab.enc.m)})
        truth.append({labels[l]: _held(tab.hid[l, j]) for l in range(tab.enc.m)})
    sizes = tab.obs[:, 0].sum(axis=1) + tab.hid[:, 0].sum(axis=1)
    return verify.State.counted(dict(zip(labels, map(int, sizes))), obs, miss), truth


def _held(row: np.ndarray) -> dict:
    return {int(v): int(c) for v in np.flatnonzero(row) for c in [row[v]]}


def point(state: verify.State, t: np.ndarray) -> list:
    """A test point's codes as the checker's values: None where blank; a code no cell
    holds (or -1, unseen) is in no domain."""
    return [None if c == BLANK else int(c) for c in np.asarray(t).tolist()]


def blanking_bound(state: verify.State, t: list, alpha, found):
    """The bound the checker proves on the fewest blanks for test point ``t``: at most
    ``found`` (the cells an answer has), None when it shows that no blanking works (asked
    with ``found`` None)."""
    view = verify.View(state, t, Fraction(alpha))
    K = view.robust_label()
    pairs = [verify.blanking(view, K, l) + (False,) for l in state.labels if l != K]
    if found is None:
        if all(verify.holds(verify.never, columns, C, False) for C, columns, _ in pairs):
            return None
        found = min(UNANSWERED_MAX_CELLS, _cells(state))
    return min([_best([p], found) for p in pairs], default=found)


def cleaning_bound(state: verify.State, truth: list, t: list, alpha, found):
    """The bound the checker proves on the fewest cleanings for test point ``t``: at most
    ``found``, None when it shows that no cleaning makes it robust (``found`` None)."""
    view = verify.View(state, t, Fraction(alpha))
    per = {
        K: [verify.cleaning(view, truth, K, l) + (True,) for l in state.labels if l != K]
        for K in state.labels
    }
    if found is None:
        if all(any(verify.holds(verify.never, c, C, True) for C, c, _ in p) for p in per.values()):
            return None
        found = min(UNANSWERED_MAX_CELLS, sum(sum(m.values()) for m in state.miss))
    return min([_best(pairs, found) for pairs in per.values() if pairs], default=found)


def _best(pairs: list, found: int) -> int:
    """The checker's bound for pairs answered together, at most ``found``: its quick
    relaxation, and its tight one where that falls short."""
    if found == 0:
        return 0
    bound = verify.needed(pairs, found - 1, tight=False)
    if bound < found:
        bound = max(bound, verify.needed(pairs, found - 1, tight=True))
    return min(bound, found)


def _cells(state: verify.State) -> int:
    return sum(state.N.values()) * len(state.obs)


__all__ = [
    "blanking_state",
    "cleaning_state",
    "point",
    "blanking_bound",
    "cleaning_bound",
    "UNANSWERED_MAX_CELLS",
]
