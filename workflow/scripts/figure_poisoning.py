"""Figure 10: (a) running time and (b) poisoning rate of RP, SR and OP per data set."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from common.figures import save_figure
from common.job import run_job
from common.tables import read_tables

matplotlib.use("Agg")
STYLE = {"RP": "tab:red", "SR": "tab:orange", "OP": "tab:green"}
PANELS = {"seconds": "(a) running time (s)", "poisoning_rate": "(b) poisoning rate"}


def poisoning(df: pd.DataFrame, outputs):
    """Figure 10: (a) running time and (b) poisoning rate of RP, SR and OP per data set: the
    mean over repetitions, min to max as error bars."""
    names = list(dict.fromkeys(df.dataset))
    fig, axes = plt.subplots(1, 2, figsize=(4 + 1.6 * len(names), 3.4))
    fig.suptitle("Data poisoning - one test point")
    x, width = np.arange(len(names)), 0.8 / len(STYLE)
    for ax, (col, title) in zip(axes, PANELS.items()):
        for i, (method, color) in enumerate(STYLE.items()):
            g = df[df.method == method].groupby("dataset")[col].agg(["mean", "min", "max"])
            g = g.reindex(names)
            err = [g["mean"] - g["min"], g["max"] - g["mean"]]
            at = x + (i - 1) * width
            ax.bar(at, g["mean"], width, yerr=err, color=color, label=method, capsize=2)
        ax.set_xticks(x, names, rotation=20)
        ax.set(yscale="log", title=title)
        ax.grid(False, axis="x")
    axes[0].legend()
    save_figure(fig, outputs)


def main(snakemake):
    poisoning(read_tables(snakemake.input, "poisoning_run"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
