"""The report's "Poisoning many test points at once" section, computed from the study's table.

Every sentence follows the numbers: an exact answer is called optimal, and coordinating the
attack is said to pay, only where this run's table shows it; answers a time limit cut short
are marked as such.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from common.formatting import count


def poisoning_many(table: pd.DataFrame) -> str:
    """The "Poisoning many test points at once" section."""
    lines = [
        "### Poisoning many test points at once",
        "",
        "| data set | k | union of single-point OP | greedy | exact | optimal? | lower bound | exact seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    savings = []
    for (name, k), sub in table.groupby(["dataset", "k"], sort=False):
        get = {r.method: r for r in sub.itertuples()}
        u, g, e = get["union of OP"], get["greedy"], get["exact"]
        optimal = "yes" if e.optimal else ("no (time limit)" if e.time_limited else "no")
        lines.append(
            f"| {name} | {k} | {count(u.cells)} | {count(g.cells)} | {count(e.cells)} | {optimal} | "
            f"{count(e.lower_bound)} | {e.seconds:.2f} |"
        )
        best = e.cells if not pd.isna(e.cells) else g.cells
        if not pd.isna(u.cells) and not pd.isna(best) and u.cells:
            savings.append(1 - best / u.cells)
    exact = table[table.method == "exact"]
    limits = ", ".join(f"{t:g}" for t in sorted(set(exact.time_limit)))
    cut = exact.time_limited.astype(bool)
    text = [
        f"The exact program proved its answer optimal in {int(exact.optimal.astype(bool).sum())} of {len(exact)} "
        f"cases within its time limit of {limits} s."
    ]
    if cut.any():
        text.append(
            f'The time limit stopped the search on {int(cut.sum())} of them (marked "time limit"): their '
            "answers and bounds depend on the machine's speed and may differ between runs; the others "
            "finished and are the same on every machine."
        )
    else:
        text.append(
            "No search was stopped by the time limit, so these answers are the same on every machine."
        )
    text.append(_savings_sentence(savings))
    return "\n".join(lines + ["", " ".join(t for t in text if t), ""])


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
