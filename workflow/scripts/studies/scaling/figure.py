"""The scaling study's figure: log-log time per test point against the rows n, one line
per method (:mod:`.run` makes the table)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from common.figures import save_figure
from common.formatting import flags
from common.job import run_job
from common.tables import read_table

from studies.scaling.slopes import fit_slopes, timed_rows

matplotlib.use("Agg")
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
    slopes = fit_slopes(table).set_index("method")
    ok = timed_rows(table)
    fig, ax = plt.subplots(figsize=(7.6, 4.4))
    for method in slopes.index:
        _line(ax, method, ok[ok.method == method], slopes.loc[method, "slope"])
    if len(table):
        first = table.iloc[0]
        title = f"Scaling: d={first.d}, domain {first.domain}, {first.labels} labels, {float(first.missing_rate):.0%} missing"
        ax.set_title(title, fontsize=9)
    ax.set(xscale="log", yscale="log", xlabel="rows n", ylabel="time per test point (s)")
    if len(slopes):
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    save_figure(fig, outputs)


def _line(ax, method: str, mine: pd.DataFrame, slope: float):
    """One method's line, its fitted slope in the label, open markers at the sizes its time
    budget stopped (the mean over the points decided before the budget ran out)."""
    sub = mine.groupby("n").seconds_per_point.mean().sort_index()
    color, marker, style = STYLE.get(method, ("black", ".", ":"))
    stopped = mine[flags(mine, "stopped")]
    cut = sorted(set(stopped.n))
    parts = [f"slope {slope:.2f}"] if np.isfinite(slope) else []
    if cut:
        parts.append(
            f"stopped after {float(stopped.budget_s.iloc[0]):g} CPU s at n = "
            + ", ".join(f"{n:.0e}" for n in cut)
        )
    label = f"{method} ({'; '.join(parts)})" if parts else method
    ax.plot(sub.index, sub.to_numpy(), color=color, marker=marker, linestyle=style, label=label)
    if cut:
        ax.plot(
            cut, sub.loc[cut].to_numpy(), ls="none", marker=marker, ms=11, mfc="white", mec=color
        )


def main(snakemake):
    table = read_table(snakemake.input[0], "scaling_run")
    figure(table.sort_values("n", kind="stable"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
