"""The scaling study's figure: log-log time per test point against the rows n, one line
per method (:mod:`.run` makes the table)."""

import numpy as np
import pandas as pd
from common.job import run_job
from common.tables import read_table

from studies.scaling.slopes import fit_slopes, timed_rows

STYLE = {
    "Iterate+Index": ("tab:green", "^", "-"),
    "Iterate": ("tab:blue", "o", "-"),
    "AD": ("tab:red", "s", "-"),
    "Monte-Carlo": ("tab:purple", "D", "-"),
    "OP": ("tab:olive", "P", "--"),
    "SR (incremental)": ("tab:orange", "v", "--"),
    "RP (incremental)": ("tab:red", "x", "--"),
}


def figure(table: pd.DataFrame, outputs):
    """Log-log time per test point vs n, one line per method, fitted slope in the legend.

    ``outputs`` has ``pdf`` and ``png`` paths (written atomically)."""
    from common.figures import plt, save_figure

    slopes = fit_slopes(table).set_index("method")
    ok = timed_rows(table)
    fig, ax = plt.subplots(figsize=(7.6, 4.4))
    stopped = (
        ok.stopped.fillna(False).astype(bool)
        if "stopped" in ok
        else pd.Series(False, index=ok.index)
    )
    for method in slopes.index:
        _line(ax, method, ok, ok.method == method, stopped, slopes.loc[method, "slope"])
    first = table.iloc[0] if len(table) else None
    if first is not None:
        ax.set_title(
            f"Scaling: d={first.d}, domain {first.domain}, {first.labels} labels, "
            f"{float(first.missing_rate):.0%} missing",
            fontsize=9,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows n")
    ax.set_ylabel("time per test point (s)")
    ax.grid(True, which="both", alpha=0.3)
    if len(slopes):
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    save_figure(fig, outputs)


def _line(ax, method: str, ok: pd.DataFrame, mine: pd.Series, stopped: pd.Series, sl: float):
    """One method's line (slope ``sl``), open markers at the sizes its time budget stopped."""
    sub = ok[mine].groupby("n").seconds_per_point.mean().sort_index()
    color, marker, ls = STYLE.get(method, ("black", ".", ":"))
    cut = sorted(set(ok[mine & stopped].n))
    parts = [f"slope {sl:.2f}"] if np.isfinite(sl) else []
    if cut:
        parts.append(
            f"stopped after {float(ok[mine & stopped].budget_s.iloc[0]):g} s at n = "
            + ", ".join(f"{n:.0e}" for n in cut)
        )
    ax.plot(
        sub.index,
        sub.to_numpy(),
        color=color,
        marker=marker,
        linestyle=ls,
        label=f"{method} ({'; '.join(parts)})" if parts else method,
    )
    if cut:  # open markers: the mean over the points decided before the time budget ran out
        ax.plot(
            cut,
            sub.loc[cut].to_numpy(),
            linestyle="none",
            marker=marker,
            markersize=11,
            markerfacecolor="white",
            markeredgecolor=color,
        )


def main(snakemake):
    figure(
        read_table(snakemake.input[0], "scaling_run").sort_values("n", kind="stable"),
        snakemake.output,
    )


if __name__ == "__main__":
    run_job(snakemake, main)
