"""Stage 5: RP, SR and OP (Figure 10) for one test point per repetition, on the complete
training rows (poisoning starts from a complete table); beside them the baselines with the
incremental robustness check and the paper's own OP answers.  One job per data set, one
run table per repetition (a record from the rule each).
"""

import time

import pandas as pd
from common.draws import complete_rows, rng_for
from common.job import run_job, stamp, timed, times
from common.tables import read_data, write_table

from nbcert.methods import authors_code, encode, poison_encoded, pure_strategies

# The poisoning methods a poisoning run times: the paper's three (Figure 10) and the
# baselines with the incremental robustness check beyond the paper.
# RP without a limit on the cells it blanks (the paper's), in both checks.
POISON_METHODS = {
    "RP": ("rp", "iterate"),
    "SR": ("sr", "iterate"),
    "OP": ("op", "iterate"),
    "RP (incremental)": ("rp", "incremental"),
    "SR (incremental)": ("sr", "incremental"),
}
# The paper's one-point poisoning beside OP, for the report's "where the paper is wrong":
# its pure strategies (Section 5.1.3) and the authors' published code; not in Figure 10.
PAPER_OP = {
    "OP (pure strategies)": lambda enc, t: (pure_strategies(enc, t), None),
    "OP (authors' code)": authors_code,
}


def poisoning_runs(
    train: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    *,
    seed: int,
    name: str,
    rep: int,
    progress=print,
) -> pd.DataFrame:
    """RP, SR and OP (and the baselines' incremental variants, ``POISON_METHODS``; the
    paper's own OP answers, ``PAPER_OP``) on the complete training rows for the
    repetition's first test point.  A baseline and its
    incremental variant get the same seed, so they blank the same cells in the same order."""
    enc = encode(train.iloc[complete_rows(train)], label)
    t = enc.encode_test(test.iloc[:1])[0]
    cells = enc.n * enc.d
    rows = []
    for method, (code, check) in POISON_METHODS.items():
        res, *t_run = timed(
            lambda: poison_encoded(
                enc,
                t,
                code,
                seed=rng_for(seed, name, rep, method[:2]),
                check=check,
                keep_last=False,
            )
        )
        rows.append(
            {
                "dataset": name,
                "rep": rep,
                "method": method,
                **times(t_run),
                "train_rows": enc.n,
                "possible": res.possible,
                "cells": res.num_cells,
                "poisoning_rate": (res.num_cells / cells) if res.possible else None,
            }
        )
        progress(f"{name} rep {rep}: {method} {res.num_cells} cells in {t_run[0]:.4f}s")
    for method, answer in PAPER_OP.items():
        (n_cells, valid), *t_run = timed(lambda: answer(enc, t))
        rows.append(
            {
                "dataset": name,
                "rep": rep,
                "method": method,
                **times(t_run),
                "train_rows": enc.n,
                "possible": n_cells is not None,
                "cells": n_cells,
                "poisoning_rate": None if n_cells is None else n_cells / cells,
                **({} if valid is None else {"valid": valid}),
            }
        )
    return pd.DataFrame(rows)


def main(snakemake):
    p = snakemake.params
    for r in p.records:
        started = time.time()
        train = read_data(r["train"], p.label)
        test = read_data(r["test"], p.label, columns=train.columns, complete=True)
        table = poisoning_runs(train, test, p.label, seed=p.seed, name=r["ds"], rep=r["rep"])
        write_table(stamp(table, started), r["output"], "poisoning_run")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
