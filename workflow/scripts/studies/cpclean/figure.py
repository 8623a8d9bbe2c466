"""The figure of the study of CPClean's benchmarks: per space, the share of certain
validation rows and Naive Bayes' validation accuracy against the training rows cleaned,
nbcert's policy beside a random order (CPClean's RandomClean), over domains, over CPClean's
candidate repairs cell by cell and over its repaired rows (there also CPClean's own cleaned
rows as an order; no accuracy); CPClean's own rows cleaned (kNN) marked (:mod:`.run` makes the
tables)."""

import matplotlib
import pandas as pd
from common.figures import panels, save_figure
from common.job import run_job
from common.tables import read_tables

matplotlib.use("Agg")
COLOR = {"policy": "tab:green", "random": "tab:red", "cpclean": "tab:blue"}
DASHES = {"candidates": "-", "domains": ":", "repairs": "-."}
WHO = {"policy": "nbcert", "random": "random", "cpclean": "CPClean's rows"}


def figure(curves: pd.DataFrame, summary: pd.DataFrame, outputs):
    names = list(dict.fromkeys(summary[summary.obtained].space))
    fig, axes = panels(
        names or ["(no space obtained)"],
        "CPClean's benchmarks: certain validation rows and accuracy as training rows are cleaned",
        rows=2,
        width=4.2,
        height=3.2,
    )
    for col, name in enumerate(names):
        sub = curves[curves.space == name]
        for (order, worlds), run in sub.groupby(["order", "worlds"]):
            style = dict(color=COLOR[order], linestyle=DASHES[worlds])
            label = f"{WHO[order]}, {worlds}"
            axes[0, col].plot(run.rows, run.share, label=label, **style)
            if run.accuracy.notna().any():
                axes[1, col].plot(run.rows, run.accuracy, label=label, **style)
        _cpclean(axes[:, col], summary[(summary.space == name) & (summary.system == "CPClean")])
        axes[0, col].set(title=name, ylabel="share of validation rows certain", ylim=(-0.02, 1.02))
        axes[1, col].set(xlabel="training rows cleaned", ylabel="Naive Bayes validation accuracy")
    if names:
        axes[0, 0].legend(loc="best", fontsize=7)
    save_figure(fig, outputs)


def _cpclean(axes, row: pd.DataFrame):
    """CPClean's rows cleaned (its result, kNN) as a dashed vertical line on both panels."""
    if len(row) and pd.notna(row.rows_cleaned.iloc[0]):
        for ax in axes:
            ax.axvline(
                row.rows_cleaned.iloc[0],
                color="black",
                linestyle="--",
                linewidth=1,
                label="CPClean's rows cleaned (kNN)",
            )


def main(snakemake):
    i = snakemake.input
    figure(
        read_tables(i.curves, "cpclean_curve"),
        read_tables(i.summaries, "cpclean"),
        snakemake.output,
    )


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821
