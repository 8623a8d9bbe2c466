"""Figures 6/7 (decision time vs missing rate) and 8/9 (vs number of test points), uniform
and feature perturbation, from the decision tables: one record from the rule per figure.

Each figure has one panel per data set, time on a log scale, the mean over repetitions
as a line and the spread (min to max) shaded; Plain is the black dashed reference.
"""

from types import SimpleNamespace

import numpy as np
import pandas as pd
from common.figures import panels, save_figure
from common.job import run_job
from common.tables import read_tables

METHODS = ("AD", "Iterate", "Iterate+Index")
STYLE = {"AD": ("tab:red", "s"), "Iterate": ("tab:blue", "o"), "Iterate+Index": ("tab:green", "^")}


def _panels(names, title):
    fig, axes = panels(names, title)
    return fig, dict(zip(names, axes[0]))


def _lines(ax, sub: pd.DataFrame, x: str, plain: pd.DataFrame):
    for method in METHODS:
        per = sub[sub.method == method]
        if per.empty:
            continue
        per_rep = per.groupby([x, "rep"]).seconds.sum().groupby(level=0)
        stats = pd.DataFrame({"mean": per_rep.mean(), "min": per_rep.min(), "max": per_rep.max()})
        color, marker = STYLE[method]
        ax.plot(stats.index, stats["mean"], color=color, marker=marker, label=method)
        ax.fill_between(stats.index, stats["min"], stats["max"], color=color, alpha=0.2)
    if not plain.empty:
        ax.axhline(plain.seconds.mean(), color="black", linestyle="--", label="Plain")
    ax.set_yscale("log")
    ax.set_ylabel("time (s)")
    ax.grid(True, which="both", alpha=0.3)


def time_vs_rate(df: pd.DataFrame, kind: str, k: int, outputs):
    """Figures 6 (uniform) and 7 (feature): time of the k-point decision vs missing rate."""
    names = list(dict.fromkeys(df.dataset))
    fig, axes = _panels(
        names, f"Decision - time vs missing rate ({kind} perturbation, {k} test points)"
    )
    for name, ax in axes.items():
        sub = df[(df.dataset == name) & (df.perturbation == kind)]
        _lines(ax, sub[sub.k == k], "missing_rate", sub[sub.method == "Plain"])
        ax.set_title(name)
        ax.set_xlabel("missing rate")
    next(iter(axes.values())).legend(fontsize=7)
    save_figure(fig, outputs)


def time_vs_k(df: pd.DataFrame, kind: str, rate: float, outputs):
    """Figures 8 (uniform) and 9 (feature): time vs number of test points."""
    names = list(dict.fromkeys(df.dataset))
    fig, axes = _panels(
        names, f"Decision - time vs test points ({kind} perturbation, missing rate {rate:g})"
    )
    for name, ax in axes.items():
        sub = df[
            (df.dataset == name) & (df.perturbation == kind) & np.isclose(df.missing_rate, rate)
        ]
        _lines(ax, sub[sub.k > 0], "k", sub[sub.method == "Plain"])
        ax.set_xscale("log", base=2)
        ax.set_title(name)
        ax.set_xlabel("number of test points")
    next(iter(axes.values())).legend(fontsize=7)
    save_figure(fig, outputs)


def main(snakemake):
    p = snakemake.params
    table = read_tables(snakemake.input, "decision_run")
    for r in p.records:
        figure = SimpleNamespace(pdf=r["pdf"], png=r["png"])
        if r["against"] == "missing_rate":
            time_vs_rate(table, r["kind"], p.k, figure)
        else:
            time_vs_k(table, r["kind"], p.rate, figure)


if __name__ == "__main__":
    run_job(snakemake, main)
