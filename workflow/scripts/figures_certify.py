"""Figures 6/7 (time to certify vs missing rate) and 8/9 (vs number of test points), uniform
and feature perturbation, from the certify tables: one record from the rule per figure.

Each figure has one panel per data set, time on a log scale, the mean over repetitions
as a line and the spread (min to max) shaded; Plain is the black dashed reference.
"""

from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
from common.figures import mean_band, panels, save_figure
from common.job import run_job
from common.tables import read_tables

matplotlib.use("Agg")
STYLE = {"AD": ("tab:red", "s"), "Iterate": ("tab:blue", "o"), "Iterate+Index": ("tab:green", "^")}
XLABEL = {"missing_rate": "missing rate", "points": "number of test points"}


def time_vs_rate(df: pd.DataFrame, perturbation: str, k: int, outputs):
    """Figures 6 (uniform) and 7 (feature): time to certify k points vs missing rate."""
    sub = df[df.perturbation == perturbation]
    title = f"Certification - time vs missing rate ({perturbation} perturbation, {k} test points)"
    save_figure(_figure(df, sub, sub[sub.points == k], "missing_rate", title), outputs)


def time_vs_points(df: pd.DataFrame, perturbation: str, rate: float, outputs):
    """Figures 8 (uniform) and 9 (feature): time vs number of test points."""
    sub = df[(df.perturbation == perturbation) & np.isclose(df.missing_rate, rate)]
    title = (
        f"Certification - time vs test points ({perturbation} perturbation, missing rate {rate:g})"
    )
    fig = _figure(df, sub, sub[sub.points > 0], "points", title)
    for ax in fig.axes:
        ax.set_xscale("log", base=2)
    save_figure(fig, outputs)


def _figure(df: pd.DataFrame, sub: pd.DataFrame, timed: pd.DataFrame, x: str, title: str):
    """A panel per data set of ``df``: each method's time (rows ``timed``) against ``x``,
    summed per repetition; Plain's mean (rows ``sub``) the dashed reference."""
    names = list(dict.fromkeys(df.dataset))
    fig, axes = panels(names, title)
    for name, ax in zip(names, axes[0]):
        for method, (color, marker) in STYLE.items():
            per = timed[(timed.dataset == name) & (timed.method == method)]
            if len(per):
                per_rep = per.groupby([x, "rep"]).seconds.sum().groupby(level=0)
                mean_band(ax, per_rep, color=color, marker=marker, label=method)
        plain = sub[(sub.dataset == name) & (sub.method == "Plain")]
        if len(plain):
            ax.axhline(plain.seconds.mean(), color="black", linestyle="--", label="Plain")
        ax.set(yscale="log", ylabel="time (s)", title=name, xlabel=XLABEL[x])
    axes[0, 0].legend()
    return fig


def main(snakemake):
    p = snakemake.params
    table = read_tables(snakemake.input, "certify_run")
    for r in p.records:
        figure = SimpleNamespace(pdf=r["pdf"], png=r["png"])
        if r["against"] == "missing_rate":
            time_vs_rate(table, r["perturbation"], p.points, figure)
        else:
            time_vs_points(table, r["perturbation"], p.rate, figure)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
