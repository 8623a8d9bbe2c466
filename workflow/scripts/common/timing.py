"""How long the run took: each stage's jobs, from their benchmark files.

Every job writes one, in the columns of Snakemake's benchmark files (one row: wall seconds
``s``, ``cpu_time``, peak ``max_rss`` in MB), from the kernel's counters as it ends
(:mod:`common.job`).  The report's inputs include those of every job it reports on, so
these are the times of the jobs that produced this report's tables, whenever they last
ran.  What they leave out, Snakemake's own work between the jobs and the report job
itself, is measured by ``python -m benchmarks.pipeline``, which times whole runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from common.errors import TableError
from common.formatting import count, table

COLUMNS = ("s", "cpu_time", "max_rss")


def _number(value, path, column) -> float:
    if value in ("-", "NA", ""):
        return np.nan
    try:
        return float(value)
    except ValueError:
        raise TableError(f"{path}: column {column!r} holds {value!r}, not a number") from None


def read_benchmark(path) -> dict:
    """One benchmark file's stage (its folder under logs/benchmarks/), wall and CPU seconds and
    peak resident MB; a file that is not one is a one-line TableError naming it."""
    lines = Path(path).read_text().splitlines()
    header = lines[0].split("\t") if lines else []
    if len(lines) < 2 or any(c not in header for c in COLUMNS):
        raise TableError(
            f"{path}: not a benchmark file (a header with {', '.join(COLUMNS)} and a row)"
        )
    row = dict(zip(header, lines[-1].split("\t")))
    parts = Path(path).with_suffix("").parts
    stage = parts[parts.index("benchmarks") + 1] if "benchmarks" in parts[:-1] else parts[-1]
    return {
        "stage": stage,
        "seconds": _number(row["s"], path, "s"),
        "cpu_seconds": _number(row["cpu_time"], path, "cpu_time"),
        "max_rss_mb": _number(row["max_rss"], path, "max_rss"),
    }


def stage_times(paths) -> pd.DataFrame:
    """Per stage, in the order first seen: jobs, wall and CPU seconds summed, peak MB."""
    jobs = pd.DataFrame(
        [read_benchmark(p) for p in paths],
        columns=["stage", "seconds", "cpu_seconds", "max_rss_mb"],
    )
    return (
        jobs.groupby("stage", sort=False)
        .agg(
            jobs=("stage", "size"),
            seconds=("seconds", "sum"),
            cpu_seconds=("cpu_seconds", "sum"),
            max_rss_mb=("max_rss_mb", "max"),
        )
        .reset_index()
    )


def section(times: pd.DataFrame, machine: str) -> list:
    """The report's account of its own regeneration, per stage."""
    total = times.agg({"jobs": "sum", "seconds": "sum", "cpu_seconds": "sum", "max_rss_mb": "max"})
    rows = pd.concat([times, total.to_frame().T.assign(stage="**all**")], ignore_index=True)
    return [
        "## How long this took",
        "",
        f"The jobs behind this report, on {machine}, as their benchmark files record them (the report "
        "job itself and Snakemake's own work between jobs aside; "
        "`python -m benchmarks.pipeline` "
        "times whole runs):",
        "",
        *table(
            rows,
            "| stage | jobs | wall (s) | CPU (s) | peak memory of a job (MB) |",
            {"jobs": count, "seconds": ".1f", "cpu_seconds": ".1f", "max_rss_mb": ".0f"},
        ),
        "",
        f"Compare the jobs' CPU ({times.cpu_seconds.sum():.0f} s here) with the README's "
        '"Today\'s figures": a slower machine takes more wall time and somewhat more CPU for '
        "every stage alike; a broken run lacks stages or jobs, or one stage's CPU stands out.",
        "",
    ]
