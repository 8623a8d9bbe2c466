"""Beyond the paper: how many cells poison k test points at once, on the real data sets.

For the first k test points of repetition 0, on the complete training rows: the greedy
heuristic, the exact program (within a time limit: optimal, or the best found and a proven
lower bound; a result the limit cut short is flagged ``time_limited``, since it depends on
the machine's speed), and the union of the k single-point OP answers (what an attacker
gets by not coordinating).
"""

import time

import numpy as np
import pandas as pd
from common.draws import complete_rows
from common.job import run_job, stamp, timed, times
from common.settings import Section
from common.tables import read_data, write_table

from nbcert import encode
from nbcert.methods import all_nonrobust, greedy, poison_encoded, poison_together_encoded


def run(
    train: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    k: int,
    settings: Section,
    *,
    name: str,
    progress=print,
) -> pd.DataFrame:
    """Union of single-point OP, greedy and exact for the first k test points."""
    enc = encode(train.iloc[complete_rows(train)], label)
    T = enc.encode_test(test.iloc[:k])
    base = {
        "dataset": name,
        "points": k,
        "cells_total": enc.n * enc.d,
        "time_limit": settings.time_limit,
        "time_limited": False,
    }
    rows = [
        {**base, **row}
        for row in (
            _union_row(enc, T),
            _greedy_row(enc, T),
            _exact_row(enc, T, settings.time_limit),
        )
    ]
    union, greedy_, exact = rows
    progress(
        f"{name} k={k}: union {union['cells']}, greedy {greedy_['cells']}, exact {exact['cells']} "
        f"(optimal {exact['optimal']}, lower bound {exact['lower_bound']}, {exact['seconds']:.1f}s"
        + (", stopped by the time limit" if exact["time_limited"] else "")
        + ")"
    )
    return pd.DataFrame(rows)


def _union_row(enc, T) -> dict:
    """The union of the single-point OP answers, timed; valid if it poisons every point."""
    (union, possible), *t = timed(lambda: _union_of_op(enc, T))
    return {
        "method": "union of OP",
        **times(t),
        "cells": int(union.sum()) if possible else None,
        "valid": possible and all_nonrobust(enc, T, union),
        "optimal": False,
        "lower_bound": None,
    }


def _greedy_row(enc, T) -> dict:
    """The greedy heuristic, timed."""
    g, *t = timed(lambda: greedy(enc, T))
    return {
        "method": "greedy",
        **times(t),
        "cells": None if g is None else int(g.sum()),
        "valid": g is not None,
        "optimal": False,
        "lower_bound": None,
    }


def _exact_row(enc, T, time_limit: float) -> dict:
    """The exact program within ``time_limit``, timed: optimal, or the best found and a
    proven lower bound."""
    ex, *t = timed(lambda: poison_together_encoded(enc, T, "exact", time_limit=time_limit))
    return {
        "method": "exact",
        **times(t),
        "cells": ex.num_cells,
        "valid": ex.possible,
        "optimal": ex.optimal,
        "lower_bound": ex.lower_bound,
        "time_limited": ex.time_limited,
    }


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


def main(snakemake):
    """Every k of the rule's records, on repetition 0's split, one run table each."""
    p, i = snakemake.params, snakemake.input
    settings = Section.from_json(p.settings)
    train = read_data(i.train, p.label)
    test = read_data(i.test, p.label, columns=train.columns, complete=True)
    for r in p.records:
        started = time.time()
        table = run(train, test, p.label, int(r["points"]), settings, name=r["ds"])
        write_table(stamp(table, started), r["output"], "poisoning_together_run")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
