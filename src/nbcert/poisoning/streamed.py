"""OP on a training table that stays on disk: plan from its statistics, name the cells in a
second pass over the file.

OP's plans need only the counts (``nbcert.stats``); what they leave open is *which* rows
to blank: for a step (label l, column j, selector, count) the first ``count`` rows of
label l whose column j holds the selected value (a code, or any but the test value).  One more pass over the
file, batch by batch, finds them for every step of every plan at once, in file order, so
the answer is the one OP gives on the table in memory.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .minimum import DISAGREE
from .single import Poisoning, poison_encoded


def _needed(step_lists: list) -> dict:
    """Per (label, column, selector) the most rows any plan's step takes."""
    need: dict = {}
    for steps in step_lists:
        for l, j, sel, count in steps:
            need[(l, j, sel)] = max(need.get((l, j, sel), 0), int(count))
    return need


def find_cells(stats, tcode: np.ndarray, step_lists: list) -> dict:
    """The second pass over the file of a streamed table.

    Parameters
    ----------
    stats : nbcert.reading.streamed.StreamedStats
        The table's statistics, with its source (``coded_batches`` reads it again).
    tcode : ndarray, shape (d,)
        The test point's global codes.
    step_lists : list of list of (int, int, int, int)
        The plans' steps: (label l, column j, selector, count), the selector a global code
        or DISAGREE (any value but the test value's).

    Returns
    -------
    dict
        {(l, j, selector): (row ids, global codes)}: the first ``count`` rows of label l
        whose column j holds the selected value, in file order.
    """
    need = _needed(step_lists)
    got = {key: ([], []) for key in need}
    for start, lab, glob in stats.coded_batches(sorted({j for _, j, _ in need})):
        for (l, j, sel), k in need.items():
            if k <= 0:
                continue
            hit = (glob[j] != tcode[j]) if sel == DISAGREE else (glob[j] == sel)
            idx = np.flatnonzero((lab == l) & hit)[:k]
            got[(l, j, sel)][0].append(start + idx)
            got[(l, j, sel)][1].append(glob[j][idx])
            need[(l, j, sel)] = k - len(idx)
        if all(v <= 0 for v in need.values()):
            break
    return {
        key: (
            np.concatenate(ids).tolist() if ids else [],
            np.concatenate(codes) if codes else np.zeros(0, np.intp),
        )
        for key, (ids, codes) in got.items()
    }


def poison_streamed(stats, t: np.ndarray, alpha=Fraction(0)) -> Poisoning:
    """OP for one test point on a streamed table.

    Parameters
    ----------
    stats : nbcert.reading.streamed.StreamedStats
        The table's statistics, with its source for the second pass.
    t : ndarray, shape (d,)
        The test point as local codes (-1: unseen).
    alpha : Fraction, default 0
        The classifier's smoothing.

    Returns
    -------
    Poisoning
    """
    tcode = stats.global_codes(t[None])[0]
    return poison_encoded(
        stats, t, "op", find=lambda step_lists: find_cells(stats, tcode, step_lists), alpha=alpha
    )
