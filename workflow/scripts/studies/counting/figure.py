"""The counting study's figure: time per method and the majority label's share against the
missing rate, and the proven intervals' width against their time (:mod:`.run` makes the
table)."""

import matplotlib
import numpy as np
import pandas as pd
from common.draws import rng_for
from common.figures import mean_band, panels, save_figure
from common.formatting import flags
from common.job import run_job

from studies.counting import summary as counting

matplotlib.use("Agg")
# Each method's colour and marker, and the legend of the majority shares it gives (in order).
STYLE = {
    "exact": ("tab:green", "^", "exact"),
    "batch": ("tab:red", "s", "Algorithm 2"),
    "bounds": ("tab:purple", "D", "proven (exact skipped)"),
    "montecarlo": ("tab:blue", "o", "MC (exact skipped)"),
}
FLOOR = 1e-12  # widths below this (exact, up to float rounding) are drawn on it


def figure(table: pd.DataFrame, outputs):
    """Top: time per method vs missing rate; middle: majority-label share per rate;
    bottom: the proven intervals' width against their time per test point."""
    save_figure(draw_figure(table), outputs)


def draw_figure(table: pd.DataFrame):
    """The figure of :func:`figure`, not yet saved."""
    t = counting.normalise(table)
    names = list(dict.fromkeys(t.dataset))
    main, tiny = counting.split_sizes(t)
    title = (
        f"Counting worlds - {t.point.nunique()} test points, about {main.train_rows.max()} "
        "training rows per data set (bottom: proven bounds, also on every row of the data set)"
    )
    fig, axes = panels(names, title, rows=3, width=3.8, height=3.5)
    shares = counting.majority_shares(t)
    for i, name in enumerate(names):
        _time_panel(axes[0, i], name, main, tiny)
        _share_panel(axes[1, i], name, shares[shares.dataset == name])
        _width_panel(axes[2, i], name, t[(t.dataset == name) & (t.method == "bounds")])
    axes[0, 0].legend()
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
    for rate, per in counting.full_size(ran).groupby("missing_rate"):
        label = f"every row, rate {rate:g} ({int(per.train_rows.max())} rows)"
        ax.scatter(per.seconds, per.width.clip(lower=FLOOR), s=18, label=label, zorder=3)
    if len(ran):
        ax.axhline(ran.width_target.iloc[0], color="black", linestyle="--", linewidth=0.8)
        ax.axvline(ran.time_limit.iloc[0], color="black", linestyle=":", linewidth=0.8)
        ax.legend(fontsize=6, loc="best")
    ax.set(
        xscale="log", yscale="log", title=f"{name}: proven bounds", xlabel="time per test point (s)"
    )
    ax.set_ylabel(f"widest proven interval\n(share of worlds; {FLOOR:g} = exact)")


def _time_panel(ax, name: str, main: pd.DataFrame, tiny: pd.DataFrame):
    """Time per test point of each method vs missing rate (mean, min-max shaded), the main
    subsample solid and the tiny one dashed; how many points each method skipped below."""
    notes = []
    for part, style in ((main, "-"), (tiny, "--")):
        sub = part[part.dataset == name]
        for method in counting.METHODS if len(sub) else ():
            per = sub[sub.method == method]
            ran = per[~per.skipped.astype(bool)]
            label = f"{counting.NAMES[method]} ({int(sub.train_rows.max())} rows)"
            if len(ran) < len(per):
                notes.append(f"{label}: {len(per) - len(ran)} of {len(per)} skipped")
            if len(ran):
                color, marker, _ = STYLE[method]
                seconds = ran.groupby("missing_rate").seconds
                mean_band(ax, seconds, color=color, marker=marker, linestyle=style, label=label)
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
    ax.set(yscale="log", title=name, xlabel="missing rate", ylabel="time per test point (s)")


def _share_panel(ax, name: str, sh: pd.DataFrame):
    """The majority-label share per missing rate: a box per rate, the points jittered and
    marked by the method their share comes from (x where every world ties)."""
    rates = sorted(sh.missing_rate.unique())
    width = 0.5 * (min(np.diff(rates)) if len(rates) > 1 else 0.2)
    if rates:
        boxes = [sh[sh.missing_rate == r].fraction.to_numpy() for r in rates]
        ax.boxplot(
            boxes,
            positions=rates,
            widths=width,
            showfliers=False,
            manage_ticks=False,
            medianprops={"color": "black"},
        )
        ax.set_xlim(rates[0] - width, rates[-1] + width)
        ax.set_xticks(rates, [f"{r:g}" for r in rates])
    x = sh.missing_rate + rng_for(0, name, "jitter").uniform(-width / 3, width / 3, len(sh))
    ties = flags(sh, "all_ties")
    for source, (color, _, label) in STYLE.items():
        for tie, marker, suffix in ((False, "o", ""), (True, "x", ", all ties")):
            sel = (sh.method == source) & (ties == tie)
            if sel.any():
                y, label = sh.fraction[sel], label + suffix
                ax.scatter(
                    x[sel], y, s=10, color=color, marker=marker, alpha=0.7, label=label, zorder=3
                )
    # room above 1 for the legend
    ax.set(ylim=(-0.03, 1.32), yticks=np.linspace(0, 1, 6), xlabel="missing rate")
    ax.set_ylabel("share of worlds predicting\nthe majority label")
    ax.grid(False, axis="x")
    ax.legend(fontsize=6, loc="upper center", ncol=2, columnspacing=0.8, handletextpad=0.3)


def main(snakemake):
    figure(counting.load(snakemake.input), snakemake.output)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
