"""``python -m benchmarks.compare BEFORE AFTER``: whether two pipeline runs made the same tables.

Each table the report reads (``TABLES``: ``results/tables/*.csv``, and the CPClean study's,
which stay per space in ``results/runs/cpclean``) of the run folder BEFORE is read beside
AFTER's and compared
cell by cell, leaving out what depends on the machine: timings, memory, hosts and job times,
the rows a solver's time limit cut short in either run (``time_limited``) or a method's CPU
budget stopped (``stopped``, the scaling study's), and of the
counting study's proven bounds the intervals themselves (the refinement picks its grid by
the time the last step took, so an interval's ends move with the machine, and so does
whether Monte-Carlo's interval contains or misses them; whether it holds the exact counts
does not) and every row of a test point whose bounds the time limit
stopped before their width.  A column only AFTER has is named and left out.

Where the tables themselves changed between the runs, say how: ``--rename TABLE:OLD=NEW``
reads BEFORE's column OLD of the tables whose name starts with TABLE as NEW, and ``--joined
TABLE=OTHER`` compares BEFORE's table TABLE<rest> with AFTER's TABLE<rest> and OTHER<rest>
together, rows in sorted order (rows that moved to a table of their own).  Prints a line
per table; exits 1 if any differs or is missing.
"""

from __future__ import annotations

import argparse
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
# the tables the report reads, as glob patterns in a run folder
TABLES = ("results/tables/*.csv", "results/runs/cpclean/*/*/*.csv")
# whether a time limit or a CPU budget cut a row short
TIMED = ("time_limited", "stopped")
# the counting study's columns that read a proven interval's ends (bounds rows)
INTERVAL = ("fraction", "tie_fraction", "proven_low", "proven_high", "width", "eps")
# the Monte-Carlo rows' flags that read a proven interval's ends
AGAINST = ("mc_contains_bounds", "mc_misses_bounds")


def _decided_alike(x: pd.DataFrame, y: pd.DataFrame) -> tuple:
    """The rows of both tables that no time limit decided in either run, without the cells
    that depend on time in the rows kept."""
    keep = pd.Series(True, index=x.index)
    for cut in TIMED:
        if cut in x:
            keep &= ~(x[cut].fillna(False).astype(bool) | y[cut].fillna(False).astype(bool))
    if "width_target" in x:
        point = ["dataset", "part", "missing_rate", "point"]
        cut = pd.concat(
            [t.loc[(t.method == "bounds") & (t.width > t.width_target), point] for t in (x, y)]
        )
        keep &= ~pd.MultiIndex.from_frame(x[point]).isin(pd.MultiIndex.from_frame(cut))
        cols = [c for c in INTERVAL if c in x]
        x, y = (t.assign(**{c: t[c].where(t.method != "bounds") for c in cols}) for t in (x, y))
        x, y = (t.drop(columns=[c for c in AGAINST if c in t]) for t in (x, y))
    return x[keep].reset_index(drop=True), y[keep].reset_index(drop=True)


def _after(after: Path, name: str, joined: dict) -> pd.DataFrame | None:
    """AFTER's table ``name``, joined with the tables ``joined`` names for it; None if absent."""
    folder = (after / name).parent
    name = Path(name).name
    if not (folder / name).exists():
        return None
    parts = [pd.read_csv(folder / name)]
    for prefix, other in joined.items():
        if name.startswith(prefix) and (folder / (other + name[len(prefix) :])).exists():
            parts.append(pd.read_csv(folder / (other + name[len(prefix) :])))
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def _sorted(t: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in t if not any(w in c for w in MACHINE)]
    return t.sort_values(keys, kind="stable", na_position="first").reset_index(drop=True)


def compare(before: Path, after: Path, renamed: dict | None = None, joined: dict | None = None):
    """(table, verdict) for every table of ``before``: "same", "differs: ..." or "missing".
    ``renamed``: {table prefix: {old column: new}}; ``joined``: {table prefix: other prefix}."""
    out, renamed, joined = [], renamed or {}, joined or {}
    for path in sorted(p for pattern in TABLES for p in before.glob(pattern)):
        x, where = pd.read_csv(path), str(path.relative_to(before))
        for prefix, columns in renamed.items():
            x = x.rename(columns=columns) if path.name.startswith(prefix) else x
        y = _after(after, where, joined)
        if y is None:
            out.append((where, "missing"))
            continue
        if any(path.name.startswith(p) for p in joined):
            x, y = _sorted(x), _sorted(y)
        new = [c for c in y if c not in x]
        if len(x) != len(y) or [c for c in y if c in x] != list(x):
            out.append((where, f"differs: columns or rows ({len(x)} and {len(y)} rows)"))
            continue
        x, y = _decided_alike(x, y.drop(columns=new))
        kept = [c for c in x if not any(w in c for w in MACHINE) and c not in TIMED]
        try:
            pd.testing.assert_frame_equal(
                x[kept], y[kept], check_exact=False, rtol=1e-9, check_dtype=False
            )
            out.append((where, "same" + (f" (new columns {', '.join(new)})" if new else "")))
        except AssertionError as e:
            out.append((where, "differs: " + " ".join(str(e).split())[:200]))
    return out


def _pairs(values: list, what: str) -> dict:
    """{left: right} of ``LEFT=RIGHT`` arguments."""
    try:
        return dict(v.split("=", 1) for v in values)
    except ValueError:
        raise SystemExit(f"benchmarks.compare: {what} takes LEFT=RIGHT, got {values}") from None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--rename", action="append", default=[], metavar="TABLE:OLD=NEW")
    ap.add_argument("--joined", action="append", default=[], metavar="TABLE=OTHER")
    args = ap.parse_args(argv)
    renamed = {}
    for table, pair in (r.split(":", 1) if ":" in r else ("", r) for r in args.rename):
        renamed.setdefault(table, {}).update(_pairs([pair], "--rename"))
    verdicts = compare(args.before, args.after, renamed, _pairs(args.joined, "--joined"))
    for name, verdict in verdicts:
        print(f"{name}: {verdict}")
    return 0 if all(v.startswith("same") for _, v in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
