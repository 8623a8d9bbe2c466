"""The cleaning study's figure: share of test points certified against the share of
missing cells cleaned (:mod:`.run` makes the table)."""

import matplotlib
import numpy as np
import pandas as pd
from common.figures import panels, save_figure
from common.job import run_job
from common.tables import read_tables

matplotlib.use("Agg")
STYLE = {"random": "tab:red", "CPClean-style": "tab:orange", "nbcert": "tab:green"}


def figure(table: pd.DataFrame, outputs):
    """Share of test points certified against the share of missing cells cleaned, one panel
    per data set, for one perturbation and missing rate (uniform, else the first, and the
    middle rate); the median over repetitions, the answer with the truth and its lower bound marked."""
    names = list(dict.fromkeys(table.dataset))
    perturbation = (
        "uniform" if (table.perturbation == "uniform").any() else table.perturbation.iloc[0]
    )
    rates = sorted(table[table.perturbation == perturbation].missing_rate.unique())
    rate = rates[len(rates) // 2]
    title = f"Which cells to clean ({perturbation} perturbation, missing rate {rate:g})"
    fig, axes = panels(names, title, width=3.8, height=3.4)
    for name, ax in zip(names, axes[0]):
        sub = table[
            (table.dataset == name)
            & (table.perturbation == perturbation)
            & np.isclose(table.missing_rate, rate)
        ]
        _panel(ax, sub)
        ax.set(title=name, xlabel="share of missing cells cleaned", xlim=(0, 1), ylim=(-0.02, 1.02))
        ax.set_ylabel("share of test points certified")
    axes[0, 0].legend(loc="upper left")
    save_figure(fig, outputs)


def _panel(ax, sub: pd.DataFrame):
    """One data set's panel: each policy's median curve; the answer with the truth (a star at its
    median share) and its lower bound (a dotted line)."""
    grid = np.linspace(0, 1, 201)
    for method, color in STYLE.items():
        curves = [_curve(grid, run) for _, run in sub[sub.method == method].groupby("rep")]
        if curves:
            ax.plot(grid, np.median(curves, axis=0), color=color, label=method)
    truth = sub[sub.method == "truth"]
    done = truth[truth.cells.notna()]
    if len(done):
        share = (done.cells / done.missing_cells).median()
        ax.plot([share], [1.0], "k*", markersize=10, label="with the truth")
    bounds = truth.lower_bound.dropna()
    if len(bounds):
        share = (bounds / sub.missing_cells.iloc[0]).median()
        ax.axvline(
            share, color="black", linestyle=":", linewidth=1, label="lower bound with the truth"
        )


def _curve(grid, run: pd.DataFrame):
    """One repetition's share of points certified at each share of missing cells cleaned."""
    x = run.cells.to_numpy(float) / run.missing_cells.iloc[0]
    y = run.certified.to_numpy(float) / run.points.iloc[0]
    return np.interp(grid, x, y, right=y[-1])


def main(snakemake):
    figure(read_tables(snakemake.input, "cleaning"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
