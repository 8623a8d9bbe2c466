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
import pandas as pd

from ..reading.encoding import code_frame
from ..reading.streamed import StreamedStats
from ..stats.domains import positions
from .minimum import DISAGREE
from .single import Poisoning, poison_encoded


def _needed(step_lists: list) -> dict:
    """Per (label, column, selector) the most rows any plan's step takes."""
    need: dict = {}
    for steps in step_lists:
        for l, j, sel, count in steps:
            need[(l, j, sel)] = max(need.get((l, j, sel), 0), int(count))
    return need


def find_cells(stats: StreamedStats, tcode: np.ndarray, step_lists: list) -> dict:
    """The second pass over the file of a streamed table.

    Parameters
    ----------
    stats : StreamedStats
        The table's statistics, with its source.
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
    labels = pd.Index(list(stats.labels), dtype=object)
    source = stats.source
    for start, batch in source.batches(stats.batch_rows):
        if not batch.num_rows or all(v <= 0 for v in need.values()):
            continue
        y, blabels, features, columns = code_frame(
            batch, stats.label, missing=source.missing, name=source.name, start=start, exact=False
        )
        lab = labels.get_indexer(pd.Index(list(blabels), dtype=object))[y]
        for (l, j, sel), k in need.items():
            if k <= 0:
                continue
            col = columns[list(features).index(stats.features[j])]  # stats: maybe a projection
            glob = np.append(positions(stats.categories[j], col.values), stats.delta[j])[col.codes]
            glob = glob + stats.offsets[j]
            hit = (glob != tcode[j]) if sel == DISAGREE else (glob == sel)
            idx = np.flatnonzero((lab == l) & hit)[:k]
            got[(l, j, sel)][0].append(start + idx)
            got[(l, j, sel)][1].append(glob[idx])
            need[(l, j, sel)] = k - len(idx)
    return {
        key: (
            np.concatenate(ids).tolist() if ids else [],
            np.concatenate(codes) if codes else np.zeros(0, np.intp),
        )
        for key, (ids, codes) in got.items()
    }


def poison_streamed(stats: StreamedStats, t: np.ndarray, alpha=Fraction(0)) -> Poisoning:
    """OP for one test point on a streamed table.

    Parameters
    ----------
    stats : StreamedStats
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
