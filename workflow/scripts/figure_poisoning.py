"""Figure 10: (a) running time and (b) poisoning rate of RP, SR and OP per data set."""

import numpy as np
import pandas as pd
from common.figures import pyplot, save_figure
from common.job import run_job
from common.tables import read_tables

POISON = ("RP", "SR", "OP")
STYLE = {"RP": "tab:red", "SR": "tab:orange", "OP": "tab:green"}


def poisoning(df: pd.DataFrame, outputs):
    """Figure 10: (a) running time and (b) poisoning rate of RP, SR and OP per data set."""
    names = list(dict.fromkeys(df.dataset))
    fig, (ax_t, ax_r) = pyplot().subplots(1, 2, figsize=(4 + 1.6 * len(names), 3.4))
    fig.suptitle("Data poisoning - one test point")
    width = 0.8 / len(POISON)
    x = np.arange(len(names))
    for i, method in enumerate(POISON):
        for ax, col in ((ax_t, "seconds"), (ax_r, "poisoning_rate")):
            g = (
                df[df.method == method]
                .groupby("dataset")[col]
                .agg(["mean", "min", "max"])
                .reindex(names)
            )
            err = np.vstack([g["mean"] - g["min"], g["max"] - g["mean"]])
            ax.bar(
                x + (i - 1) * width,
                g["mean"],
                width,
                yerr=err,
                color=STYLE[method],
                label=method,
                capsize=2,
            )
    for ax, title in ((ax_t, "(a) running time (s)"), (ax_r, "(b) poisoning rate")):
        ax.set_xticks(x, names, rotation=20)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.grid(True, axis="y", which="both", alpha=0.3)
    ax_t.legend(fontsize=7)
    save_figure(fig, outputs)


def main(snakemake):
    poisoning(read_tables(snakemake.input, "poisoning_run"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)
