"""What the cleaning study's table says, for its report and its figure: the cells each
method needed per run, and their medians and ratios per data set, perturbation and missing
rate (:mod:`.run` makes the table)."""

import numpy as np
import pandas as pd

METHODS = ("random", "CPClean-style", "nbcert", "truth")
# what a run ended with: the answer with the truth's bound and whether it is optimal or cut short
# by its time limit, then each method's seconds, steps and flat steps
OUTCOME = ["lower_bound", "optimal", "time_limited", "seconds", "steps", "flat"]


def cells_needed(table: pd.DataFrame) -> pd.DataFrame:
    """Per run and method: cells cleaned when every point was certified (NaN if never) and
    the share of the missing cells that is; the rows with the truth keep their lower bound."""
    keys = ["dataset", "perturbation", "missing_rate", "rep", "method"]
    fin = table[table.final.astype(bool)].copy()
    fin["done"] = fin.certified == fin.points
    fin["needed"] = np.where(fin.done, fin.cells, np.nan)
    fin["share"] = fin.needed / fin.missing_cells
    return fin[
        keys
        + [
            "needed",
            "share",
            "missing_cells",
            "points",
            *OUTCOME,
        ]
    ].reset_index(drop=True)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per data set, perturbation and missing rate, medians over the repetitions that needed
    cleaning (``reps``; ``idle_reps`` had every point robust already): cells each method
    needs, nbcert's ratios to random and to the answer with the truth and bound, and whether the
    targets (<= half of random, <= 2x the floor) hold."""
    need = cells_needed(table)
    wide = need.pivot_table(
        index=["dataset", "perturbation", "missing_rate", "rep"],
        columns="method",
        values="needed",
        aggfunc="first",
        dropna=False,
    )
    lb = (
        need[need.method == "truth"]
        .set_index(["dataset", "perturbation", "missing_rate", "rep"])
        .lower_bound
    )
    missing = need.groupby(["dataset", "perturbation", "missing_rate", "rep"]).missing_cells.first()
    wide = wide.reindex(columns=list(METHODS)).assign(
        lower_bound=lb.astype(float), missing_cells=missing
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        wide["vs_random"] = wide["nbcert"] / wide["random"]
        wide["vs_truth"] = wide["nbcert"] / wide["truth"]
        wide["vs_bound"] = wide["nbcert"] / wide["lower_bound"]
        wide["truth_vs_random"] = wide["truth"] / wide["random"]
        wide["bound_vs_random"] = wide["lower_bound"] / wide["random"]
        wide["cpclean_vs_random"] = wide["CPClean-style"] / wide["random"]
    keys = ["dataset", "perturbation", "missing_rate"]
    idle = (wide["random"] == 0).groupby(level=keys, sort=False).sum()
    wide = wide[wide["random"] != 0]  # a repetition whose points were all robust needs no cleaning
    by = wide.groupby(level=keys, sort=False)
    med = by.median().reindex(idle.index)
    med["reps"] = by.size().reindex(idle.index).fillna(0).astype(int)
    med["idle_reps"] = idle.astype(int)
    med.loc[med.reps == 0, ["random", "CPClean-style", "nbcert", "truth", "lower_bound"]] = 0.0
    med["incomplete"] = (
        by[["random", "CPClean-style", "nbcert"]]
        .apply(lambda w: int(w.isna().to_numpy().sum()))
        .reindex(idle.index)
        .fillna(0)
        .astype(int)
    )
    zero = med["reps"] == 0
    med["half_of_random"] = (med["vs_random"] <= 0.5) | zero
    med["within_2x_truth"] = (med["vs_truth"] <= 2) | zero
    med["within_2x_bound"] = (med["vs_bound"] <= 2) | zero
    # Every policy's final cleaning certifies all points, so it has at least the minimum
    # number of cells, hence at least the proven bound, in every repetition: where the
    # bound's median share of random's cells exceeds 1/2, no policy can meet target 1.
    med["half_out_of_reach"] = ~zero & (med["bound_vs_random"] > 0.5)
    med["half_reached_truth"] = zero | (
        med["truth_vs_random"] <= 0.5
    )  # by the answer with the truth
    return med.reset_index()
