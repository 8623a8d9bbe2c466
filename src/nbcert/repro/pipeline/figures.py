"""Pipeline stage 6: Figures 6-10 of the paper from the tidy result tables.

Each figure has one panel per data set, time on a log scale, the mean over repetitions
as a line and the spread (min to max) shaded; Plain is the black dashed reference.
"""

from __future__ import annotations

import textwrap
from functools import cache

import numpy as np
import pandas as pd

from ..runtime.outputs import atomic_path, publish

METHODS = ("AD", "Iterate", "Iterate+Index")
POISON = ("RP", "SR", "OP")
STYLE = {
    "AD": ("tab:red", "s"),
    "Iterate": ("tab:blue", "o"),
    "Iterate+Index": ("tab:green", "^"),
    "RP": ("tab:red", None),
    "SR": ("tab:orange", None),
    "OP": ("tab:green", None),
}


@cache
def pyplot():
    """matplotlib's pyplot on the file-only Agg backend, imported on first use (a job that
    draws nothing does not pay the second it takes)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def __getattr__(name):
    if name == "plt":
        return pyplot()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def panels(names, title, *, rows: int = 1, width: float = 3.6, height: float = 3.2):
    """A figure with one column of panels per data set and a title that fits: the figure is
    at least 6 inches wide and the title wraps to its width (with a single data set a long
    title was clipped).  Returns (figure, axes array of shape (rows, len(names)))."""
    fig_width = max(6.0, width * len(names))
    fig, axes = pyplot().subplots(
        rows, len(names), figsize=(fig_width, height * rows), squeeze=False
    )
    fig.suptitle(textwrap.fill(title, width=int(fig_width * 11)))
    return fig, axes


def _panels(names, title):
    fig, axes = panels(names, title)
    return fig, dict(zip(names, axes[0]))


def save_figure(fig, outputs):
    fig.tight_layout()
    for ext in ("pdf", "png"):
        tmp, dest = atomic_path(getattr(outputs, ext))
        fig.savefig(tmp, format=ext, dpi=150)
        publish(tmp, dest)
    pyplot().close(fig)


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
                color=STYLE[method][0],
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
