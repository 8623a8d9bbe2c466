"""The report's "Poisoning test points together" section, computed from the study's table.

Every sentence follows the numbers: an exact answer is called optimal, and coordinating the
attack is said to pay, only where this run's table shows it; answers a time limit cut short
are marked as such.
"""

import numpy as np
import pandas as pd
from common.formatting import count, listing, of, table

HEADER = "| data set | test points | union of single-point OP | greedy | exact | optimal? | lower bound | exact seconds |"
COLUMNS = ["dataset", "points", "union", "greedy", "cells", "optimal", "lower_bound", "seconds"]


def poisoning_together(runs: pd.DataFrame) -> str:
    """The "Poisoning test points together" section."""
    union, greedy, exact = (
        runs[runs.method == m].set_index(["dataset", "points"])
        for m in ("union of OP", "greedy", "exact")
    )
    optimal = np.where(exact.optimal, "yes", np.where(exact.time_limited, "no (time limit)", "no"))
    rows = exact.assign(union=union.cells, greedy=greedy.cells, optimal=optimal).reset_index()
    formats = dict.fromkeys(["union", "greedy", "cells", "lower_bound"], count) | {"seconds": ".2f"}
    best = exact.cells.fillna(greedy.cells)
    savings = (1 - best / union.cells)[union.cells.notna() & best.notna() & (union.cells != 0)]
    cut = exact.time_limited.astype(bool)
    text = [
        f"The exact program proved its answer optimal in {of(exact.optimal)} "
        f"cases within its time limit of {listing(sorted(set(exact.time_limit)))} s.",
        f'The time limit stopped the search on {int(cut.sum())} of them (marked "time limit"): their '
        "answers and bounds depend on the machine's speed and may differ between runs; the others "
        "finished and are the same on every machine."
        if cut.any()
        else "No search was stopped by the time limit, so these answers are the same on every machine.",
        _savings_sentence(list(savings)),
    ]
    return "\n".join(
        ["### Poisoning test points together", "", *table(rows[COLUMNS], HEADER, formats), ""]
        + [" ".join(t for t in text if t), ""]
    )


def _savings_sentence(savings) -> str:
    """What coordinating the attack saved, said only as far as the numbers go."""
    if not savings:
        return ""
    saved = [s for s in savings if s > 0]
    if not saved:
        return (
            "Coordinating the attack saved no cells here: the best set found is as large as the union of the "
            "single-point answers in every case."
        )
    return (
        f"Coordinating the attack saved cells in {len(saved)} of {len(savings)} cases: there the best set found "
        f"needs {min(saved) * 100:.0f}% to {max(saved) * 100:.0f}% fewer cells than the union of the "
        f"single-point answers (median over all cases {np.median(savings) * 100:.0f}%)."
    )
