"""The cleaning study's figure: share of test points certified against the share of
missing cells cleaned (:mod:`.run` makes the table)."""

import numpy as np
import pandas as pd
from common.figures import panels, save_figure
from common.job import run_job
from common.tables import read_tables

STYLE = {
    "random": ("tab:red", "-"),
    "CPClean-style": ("tab:orange", "-"),
    "nbcert": ("tab:green", "-"),
    "offline": ("black", "--"),
}


def figure(
    table: pd.DataFrame, outputs, perturbation: str | None = None, missing_rate: float | None = None
):
    """Share of test points certified against the share of missing cells cleaned, one panel
    per data set, for one perturbation and missing rate (default: uniform and the middle
    rate); the median over repetitions, the offline answer and its lower bound marked."""
    names = list(dict.fromkeys(table.dataset))
    kind = perturbation or (
        "uniform" if (table.perturbation == "uniform").any() else table.perturbation.iloc[0]
    )
    rates = sorted(table[table.perturbation == kind].missing_rate.unique())
    rate = missing_rate if missing_rate is not None else rates[len(rates) // 2]
    fig, axes = panels(
        names,
        f"Which cells to clean ({kind} perturbation, missing rate {rate:g})",
        width=3.8,
        height=3.4,
    )
    for name, ax in zip(names, axes[0]):
        sub = table[
            (table.dataset == name)
            & (table.perturbation == kind)
            & np.isclose(table.missing_rate, rate)
        ]
        _panel(ax, name, sub)
    axes[0][0].legend(fontsize=7, loc="upper left")
    save_figure(fig, outputs)


def _panel(ax, name: str, sub: pd.DataFrame):
    """One data set's panel: each policy's median curve, the offline answer and its bound."""
    grid = np.linspace(0, 1, 201)
    for method in ("random", "CPClean-style", "nbcert"):
        curves = []
        for _, run_ in sub[sub.method == method].groupby("rep"):
            x = run_.cells.to_numpy(float) / run_.missing_cells.iloc[0]
            yv = run_.certified.to_numpy(float) / run_.points.iloc[0]
            curves.append(np.interp(grid, x, yv, right=yv[-1]))
        if curves:
            color, style = STYLE[method]
            ax.plot(grid, np.median(curves, axis=0), color=color, linestyle=style, label=method)
    _offline(ax, sub)
    ax.set_title(name)
    ax.set_xlabel("share of missing cells cleaned")
    ax.set_ylabel("share of test points certified")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, alpha=0.3)


def _offline(ax, sub: pd.DataFrame):
    """The offline answer (a star at its median share) and its lower bound (a dotted line)."""
    off = sub[(sub.method == "offline") & sub.cells.notna()]
    if len(off):
        share = (off.cells / off.missing_cells).median()
        ax.plot(
            [share],
            [1.0],
            marker="*",
            color="black",
            markersize=10,
            linestyle="none",
            label="offline (with truth)",
        )
    lbs = sub[sub.method == "offline"].lower_bound.dropna()
    if len(lbs):
        ax.axvline(
            (lbs / sub.missing_cells.iloc[0]).median(),
            color="black",
            linestyle=":",
            linewidth=1,
            label="offline lower bound",
        )


def main(snakemake):
    figure(read_tables(snakemake.input, "cleaning"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)
