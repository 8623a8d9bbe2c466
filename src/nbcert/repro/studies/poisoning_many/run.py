"""Beyond the paper: how many cells poison k test points at once, on the real data sets.

For the first k test points of repetition 0, on the complete training rows: the greedy
heuristic, the exact program (within a time limit: optimal, or the best found and a proven
lower bound; a result the limit cut short is flagged ``time_limited``, since it depends on
the machine's speed), and the union of the k single-point OP answers (what an attacker
gets by not coordinating).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ....poisoning import all_nonrobust, greedy, poison_encoded, poison_many_encoded
from ....reading.encoding import encode
from ...pipeline.settings import PoisonManySettings
from ...pipeline.stages import complete_rows, timed, times


def run(
    train: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    k: int,
    settings: PoisonManySettings,
    *,
    name: str,
    progress=print,
) -> pd.DataFrame:
    """Union of single-point OP, greedy and exact for the first k test points."""
    enc = encode(train.iloc[complete_rows(train)], label)
    T = enc.encode_test(test.iloc[:k])
    base = {
        "dataset": name,
        "k": k,
        "cells_total": enc.n * enc.d,
        "time_limit": settings.time_limit,
        "time_limited": False,
    }
    (union, possible), *t_union = timed(lambda: _union_of_op(enc, T))
    g, *t_greedy = timed(lambda: greedy(enc, T))
    ex, *t_exact = timed(
        lambda: poison_many_encoded(enc, T, "exact", time_limit=settings.time_limit)
    )
    rows = [
        {
            **base,
            "method": "union of OP",
            **times(t_union),
            "cells": int(union.sum()) if possible else None,
            "valid": possible and all_nonrobust(enc, T, union),
            "optimal": False,
            "lower_bound": None,
        },
        {
            **base,
            "method": "greedy",
            **times(t_greedy),
            "cells": None if g is None else int(g.sum()),
            "valid": g is not None,
            "optimal": False,
            "lower_bound": None,
        },
        {
            **base,
            "method": "exact",
            **times(t_exact),
            "cells": ex.num_cells,
            "valid": ex.possible,
            "optimal": ex.optimal,
            "lower_bound": ex.lower_bound,
            "time_limited": ex.time_limited,
        },
    ]
    progress(
        f"{name} k={k}: union {rows[0]['cells']}, greedy {rows[1]['cells']}, exact {ex.num_cells} "
        f"(optimal {ex.optimal}, lower bound {ex.lower_bound}, {t_exact[0]:.1f}s"
        + (", stopped by the time limit" if ex.time_limited else "")
        + ")"
    )
    return pd.DataFrame(rows)


def _union_of_op(enc, T):
    """The union of the single-point OP answers (mask), and whether every point had one."""
    union = np.zeros((enc.n, enc.d), bool)
    pos = {f: j for j, f in enumerate(enc.features)}
    row_of = np.argsort(enc.rows)  # original row -> row of enc.X
    single_possible = True
    for t in T:
        res = poison_encoded(enc, t, "op")
        single_possible &= res.possible
        for r, f in res.cells:
            union[row_of[r], pos[f]] = True
    return union, single_possible
