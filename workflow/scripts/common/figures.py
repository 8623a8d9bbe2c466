"""What every figure of the pipeline shares: pyplot on the file-only backend, one panel
per data set, and saving PDF and PNG atomically."""

from __future__ import annotations

import textwrap
from functools import cache

from common.outputs import atomic_path, publish


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
