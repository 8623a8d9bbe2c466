"""The study of poisoning test points together's figure: cells needed against the number of test points
poisoned together (:mod:`.run` makes the table)."""

import matplotlib
import pandas as pd
from common.figures import panels, save_figure
from common.job import run_job
from common.tables import read_table

matplotlib.use("Agg")
STYLE = {"union of OP": ("tab:red", "s"), "greedy": ("tab:orange", "o")}  # exact: green, ^


def figure(table: pd.DataFrame, outputs):
    """Cells needed vs number of test points, one panel per data set; the exact program
    where it proved its answer optimal, its proven lower bound where it did not."""
    names = list(dict.fromkeys(table.dataset))
    fig, axes = panels(names, "Poisoning test points together - cells needed")
    for name, ax in zip(names, axes[0]):
        sub = table[table.dataset == name].sort_values("points")
        for method, (color, marker) in STYLE.items():
            m = sub[(sub.method == method) & sub.cells.notna()]
            ax.plot(m.points, m.cells, color=color, marker=marker, label=method)
        exact = sub[sub.method == "exact"]
        optimal = exact.optimal.astype(bool)
        proven = exact[optimal & exact.cells.notna()]
        ax.plot(proven.points, proven.cells, color="tab:green", marker="^", label="exact (optimal)")
        bound = exact[~optimal & exact.lower_bound.notna()]
        ax.scatter(
            bound.points,
            bound.lower_bound,
            color="tab:green",
            marker="_",
            s=120,
            label="proven lower bound",
        )
        ax.set(
            yscale="log", title=name, xlabel="test points poisoned together", ylabel="cells blanked"
        )
        ax.set_xscale("log", base=2)
    axes[0, 0].legend()
    save_figure(fig, outputs)


def main(snakemake):
    figure(read_table(snakemake.input[0], "poisoning_together_run"), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
