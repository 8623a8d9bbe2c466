"""The counting study's figure: time per method and the majority label's share against the
missing rate, and the proven intervals' width against their time (:mod:`.run` makes the
table)."""

import numpy as np
import pandas as pd
from common.draws import rng_for
from common.figures import panels, save_figure
from common.job import run_job

from studies.counting.run import (
    METHODS,
    NAMES,
    full_size,
    load,
    majority_shares,
    normalise,
    split_sizes,
)

STYLE = {
    "batch": ("tab:red", "s"),
    "exact": ("tab:green", "^"),
    "montecarlo": ("tab:blue", "o"),
    "bounds": ("tab:purple", "D"),
}
FLOOR = 1e-12  # widths below this (exact, up to float rounding) are drawn on it


def figure(table: pd.DataFrame, outputs):
    """Top: time per method vs missing rate; middle: majority-label share per rate;
    bottom: the proven intervals' width against their time per test point."""
    save_figure(draw_figure(table), outputs)


def draw_figure(table: pd.DataFrame):
    """The figure of :func:`figure`, not yet saved."""
    t = normalise(table)
    names = list(dict.fromkeys(t.dataset))
    rows, points = split_sizes(t)[0].train_rows.max(), t.point.nunique()
    fig, axes = panels(
        names,
        f"Counting worlds - {points} test points, about {rows} training rows per data set "
        "(bottom: proven bounds, also on every row of the data set)",
        rows=3,
        width=3.8,
        height=3.5,
    )
    shares = majority_shares(t)
    main, tiny = split_sizes(t)
    for i, name in enumerate(names):
        _time_panel(axes[0, i], name, main, tiny)
        _share_panel(axes[1, i], name, shares[shares.dataset == name])
        _width_panel(axes[2, i], name, t[(t.dataset == name) & (t.method == "bounds")])
    axes[0, 0].legend(fontsize=7)
    return fig


def _width_panel(ax, name: str, sub: pd.DataFrame):
    """Each test point's widest proven interval against its time: every row of the data
    set by missing rate (filled), the subsamples (grey); the requested width and the time
    limit dashed."""
    ran = sub[~sub.skipped.astype(bool)]
    small = ran[ran.part != "full"]
    if len(small):
        ax.scatter(
            small.seconds, small.width.clip(lower=FLOOR), s=8, color="0.6", label="subsampled"
        )
    full = full_size(ran)
    for rate, per in full.groupby("missing_rate"):
        ax.scatter(
            per.seconds,
            per.width.clip(lower=FLOOR),
            s=18,
            label=f"every row, rate {rate:g} ({int(per.train_rows.max())} rows)",
            zorder=3,
        )
    if len(ran):
        ax.axhline(ran.width_target.iloc[0], color="black", linestyle="--", linewidth=0.8)
        ax.axvline(ran.time_limit.iloc[0], color="black", linestyle=":", linewidth=0.8)
        ax.legend(fontsize=6, loc="best")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(f"{name}: proven bounds")
    ax.set_xlabel("time per test point (s)")
    ax.set_ylabel(f"widest proven interval\n(share of worlds; {FLOOR:g} = exact)")
    ax.grid(True, which="both", alpha=0.3)


def _time_panel(ax, name: str, main: pd.DataFrame, tiny: pd.DataFrame):
    """Time per test point of each method vs missing rate (mean, min-max shaded), the main
    subsample solid and the tiny one dashed; how many points each method skipped below."""
    notes = []
    for part, style in ((main, "-"), (tiny, "--")):
        sub = part[part.dataset == name]
        if sub.empty:
            continue
        size = int(sub.train_rows.max())
        for method in METHODS:
            per = sub[sub.method == method]
            ran = per[~per.skipped.astype(bool)]
            if len(ran) < len(per):
                notes.append(
                    f"{NAMES[method]} ({size} rows): {len(per) - len(ran)} of {len(per)} skipped"
                )
            if ran.empty:
                continue
            stats = ran.groupby("missing_rate").seconds.agg(["mean", "min", "max"])
            color, marker = STYLE[method]
            ax.plot(
                stats.index,
                stats["mean"],
                color=color,
                marker=marker,
                linestyle=style,
                label=f"{NAMES[method]} ({size} rows)",
            )
            ax.fill_between(stats.index, stats["min"], stats["max"], color=color, alpha=0.2)
    if notes:  # below the axes, where no legend or line can cover them
        ax.annotate(
            "\n".join(notes),
            xy=(0, 0),
            xycoords="axes fraction",
            xytext=(0, -30),
            textcoords="offset points",
            fontsize=6,
            va="top",
        )
    ax.set_yscale("log")
    ax.set_title(name)
    ax.set_xlabel("missing rate")
    ax.set_ylabel("time per test point (s)")
    ax.grid(True, which="both", alpha=0.3)


def _share_panel(ax, name: str, sh: pd.DataFrame):
    """The majority-label share per missing rate: a box per rate, the points jittered and
    marked by the method their share comes from (x where every world ties)."""
    rates = sorted(sh.missing_rate.unique())
    width = 0.5 * (min(np.diff(rates)) if len(rates) > 1 else 0.2)
    if rates:
        ax.boxplot(
            [sh[sh.missing_rate == r].fraction.to_numpy() for r in rates],
            positions=rates,
            widths=width,
            showfliers=False,
            manage_ticks=False,
            medianprops={"color": "black"},
        )
    jitter = rng_for(0, name, "jitter").uniform(-width / 3, width / 3, len(sh))
    ties = sh.all_ties.fillna(False).astype(bool).to_numpy()
    for src, color, lab in (
        ("exact", "tab:green", "exact"),
        ("batch", "tab:red", "Algorithm 2"),
        ("bounds", "tab:purple", "proven (exact skipped)"),
        ("montecarlo", "tab:blue", "MC (exact skipped)"),
    ):
        for tie, marker, suffix in ((False, "o", ""), (True, "x", ", all ties")):
            sel = (sh.method == src).to_numpy() & (ties == tie)
            if sel.any():
                ax.scatter(
                    sh.missing_rate.to_numpy()[sel] + jitter[sel],
                    sh.fraction.to_numpy()[sel],
                    s=10,
                    color=color,
                    marker=marker,
                    alpha=0.7,
                    label=lab + suffix,
                    zorder=3,
                )
    ax.set_ylim(-0.03, 1.32)  # room above 1 for the legend
    ax.set_yticks(np.linspace(0, 1, 6))
    if rates:
        ax.set_xlim(rates[0] - width, rates[-1] + width)
        ax.set_xticks(rates, [f"{r:g}" for r in rates])
    ax.set_xlabel("missing rate")
    ax.set_ylabel("share of worlds predicting\nthe majority label")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=6, loc="upper center", ncol=2, columnspacing=0.8, handletextpad=0.3)


def main(snakemake):
    figure(load(snakemake.input), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)
