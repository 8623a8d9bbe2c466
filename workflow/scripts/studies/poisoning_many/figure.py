"""The many-point poisoning study's figure: cells needed against the number of test points
poisoned together (:mod:`.run` makes the table)."""

import pandas as pd
from common.figures import panels, save_figure
from common.job import run_job
from common.tables import read_table

STYLE = {
    "union of OP": ("tab:red", "s"),
    "greedy": ("tab:orange", "o"),
    "exact": ("tab:green", "^"),
}


def figure(table: pd.DataFrame, outputs):
    """Cells needed vs number of test points, one panel per data set."""
    names = list(dict.fromkeys(table.dataset))
    fig, axes = panels(names, "Poisoning k test points at once - cells needed")
    for name, ax in zip(names, axes[0]):
        sub = table[table.dataset == name]
        for method, (color, marker) in STYLE.items():
            m = sub[(sub.method == method) & sub.cells.notna()].sort_values("k")
            if method == "exact":
                proven = m[m.optimal.astype(bool)]
                ax.plot(proven.k, proven.cells, color=color, marker=marker, label="exact (optimal)")
                bound = sub[
                    (sub.method == "exact") & ~sub.optimal.astype(bool) & sub.lower_bound.notna()
                ]
                ax.scatter(
                    bound.k,
                    bound.lower_bound,
                    color=color,
                    marker="_",
                    s=120,
                    label="proven lower bound",
                )
            else:
                ax.plot(m.k, m.cells, color=color, marker=marker, label=method)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("test points poisoned together")
        ax.set_ylabel("cells blanked")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    save_figure(fig, outputs)


def main(snakemake):
    figure(read_table(snakemake.input[0], "poisoning_many_run"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)
