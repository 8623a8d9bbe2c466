"""What every figure of the pipeline shares: the style in ``matplotlibrc`` beside this file
(a grid, the legend's font size, the resolution), one panel per data set, the mean over
repetitions with its range shaded, and saving PDF and PNG atomically."""

import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
from common.outputs import atomic_path, publish

plt.style.use(Path(__file__).with_name("matplotlibrc"))


def panels(names, title, *, rows: int = 1, width: float = 3.6, height: float = 3.2):
    """A figure with one column of panels per data set and a title that fits: the figure is
    at least 6 inches wide and the title wraps to its width (with a single data set a long
    title was clipped).  Returns (figure, axes array of shape (rows, len(names)))."""
    fig_width = max(6.0, width * len(names))
    fig, axes = plt.subplots(rows, len(names), figsize=(fig_width, height * rows), squeeze=False)
    fig.suptitle(textwrap.fill(title, width=int(fig_width * 11)))
    return fig, axes


def mean_band(ax, grouped, **line):
    """The mean of each group of ``grouped`` (a SeriesGroupBy) as a line, min to max shaded
    in the line's colour."""
    stats = grouped.agg(["mean", "min", "max"])
    ax.plot(stats.index, stats["mean"], **line)
    ax.fill_between(stats.index, stats["min"], stats["max"], color=line["color"], alpha=0.2)


def save_figure(fig, outputs):
    """``fig`` laid out and written to outputs.pdf and outputs.png, each atomically."""
    fig.tight_layout()
    for ext in ("pdf", "png"):
        tmp, dest = atomic_path(getattr(outputs, ext))
        fig.savefig(tmp, format=ext)
        publish(tmp, dest)
    plt.close(fig)
