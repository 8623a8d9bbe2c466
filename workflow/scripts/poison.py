"""Stage 5: RP, SR and OP (Figure 10) for one test point per repetition, on the complete
training rows (poisoning starts from a complete table); beside them the paper's own OP
answers.  One job per data set, one run table per repetition (a record from the rule each).
"""

import time

import pandas as pd
from common.draws import complete_rows, rng_for
from common.job import run_job, stamp, timed, times
from common.tables import read_data, write_table

from nbcert.methods import authors_code, encode, poison_encoded, pure_strategies

# The poisoning methods of Figure 10: (poison_encoded's method, its robustness check); RP
# without a limit on the cells it blanks, as the paper's.
POISON_METHODS = {"RP": ("rp", "iterate"), "SR": ("sr", "iterate"), "OP": ("op", "iterate")}
# The paper's one-point poisoning beside OP, for the report's "where the paper is wrong":
# its pure strategies (Section 5.1.3) and the authors' published code; not in Figure 10.
PAPER_OP = {
    "OP (pure strategies)": lambda enc, t: (pure_strategies(enc, t), None),
    "OP (authors' code)": authors_code,
}


def first_point(train: pd.DataFrame, test: pd.DataFrame, label: str) -> tuple:
    """(the complete training rows encoded, the repetition's first test point)."""
    enc = encode(train.iloc[complete_rows(train)], label)
    return enc, enc.encode_test(test.iloc[:1])[0]


def method_row(enc, t, method: str, code: str, check: str, *, seed: int, name: str, rep: int):
    """One poisoning method timed on the point: its row.  A method's seed depends on its
    first two letters only, so a baseline and its cheaper equivalent blank the same cells in
    the same order."""
    res, *t_run = timed(
        lambda: poison_encoded(
            enc, t, code, seed=rng_for(seed, name, rep, method[:2]), check=check, keep_last=False
        )
    )
    return {
        "dataset": name,
        "rep": rep,
        "method": method,
        **times(t_run),
        "train_rows": enc.n,
        "possible": res.possible,
        "cells": res.num_cells,
        "poisoning_rate": (res.num_cells / (enc.n * enc.d)) if res.possible else None,
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
    """RP, SR and OP (``POISON_METHODS``) and the paper's own OP answers (``PAPER_OP``) on
    the complete training rows for the repetition's first test point."""
    enc, t = first_point(train, test, label)
    rows = []
    for method, (code, check) in POISON_METHODS.items():
        rows.append(method_row(enc, t, method, code, check, seed=seed, name=name, rep=rep))
        progress(
            f"{name} rep {rep}: {method} {rows[-1]['cells']} cells in {rows[-1]['seconds']:.4f}s"
        )
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
                "poisoning_rate": None if n_cells is None else n_cells / (enc.n * enc.d),
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
