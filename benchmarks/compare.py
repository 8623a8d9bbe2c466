"""``python -m benchmarks.compare BEFORE AFTER``: whether two pipeline runs made the same tables.

Each ``results/tables/*.csv`` of the run folder BEFORE is read beside AFTER's and compared
cell by cell, leaving out what depends on the machine: timings, memory, hosts and job times,
the rows a solver's time limit cut short in either run (``time_limited``), and the counting
study's test points whose proven bounds the time limit stopped before their width.  A
column only AFTER has is named and left out.  Prints a line per table; exits 1 if any
differs or is missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

MACHINE = (
    "seconds",
    "cpu",
    "elapsed",
    "_mb",
    "peak",
    "per_point",
    "per_s",
    "host",
    "started",
    "finished",
)


def _decided_alike(x: pd.DataFrame, y: pd.DataFrame) -> tuple:
    """The rows of both tables that no time limit decided in either run."""
    keep = pd.Series(True, index=x.index)
    if "time_limited" in x:
        keep &= ~(
            x.time_limited.fillna(False).astype(bool) | y.time_limited.fillna(False).astype(bool)
        )
    if "width_target" in x:
        point = ["dataset", "part", "missing_rate", "point"]
        cut = pd.concat(
            [t.loc[(t.method == "bounds") & (t.width > t.width_target), point] for t in (x, y)]
        )
        keep &= ~pd.MultiIndex.from_frame(x[point]).isin(pd.MultiIndex.from_frame(cut))
    return x[keep].reset_index(drop=True), y[keep].reset_index(drop=True)


def compare(before: Path, after: Path) -> list:
    """(table, verdict) for every table of ``before``: "same", "differs: ..." or "missing"."""
    out = []
    for path in sorted((before / "results/tables").glob("*.csv")):
        x = pd.read_csv(path)
        other = after / "results/tables" / path.name
        if not other.exists():
            out.append((path.name, "missing"))
            continue
        y = pd.read_csv(other)
        new = [c for c in y if c not in x]
        if len(x) != len(y) or [c for c in y if c in x] != list(x):
            out.append((path.name, f"differs: columns or rows ({len(x)} and {len(y)} rows)"))
            continue
        x, y = _decided_alike(x, y.drop(columns=new))
        kept = [c for c in x if not any(w in c for w in MACHINE) and c != "time_limited"]
        try:
            pd.testing.assert_frame_equal(
                x[kept], y[kept], check_exact=False, rtol=1e-9, check_dtype=False
            )
            out.append((path.name, "same" + (f" (new columns {', '.join(new)})" if new else "")))
        except AssertionError as e:
            out.append((path.name, "differs: " + " ".join(str(e).split())[:200]))
    return out


def main(argv=None) -> int:
    before, after = map(Path, argv if argv is not None else sys.argv[1:])
    verdicts = compare(before, after)
    for name, verdict in verdicts:
        print(f"{name}: {verdict}")
    return 0 if all(v.startswith("same") for _, v in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
