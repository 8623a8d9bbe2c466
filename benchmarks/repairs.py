"""Certain shares over CPClean's worlds: domains, per-cell candidates and repaired rows.

``python -m benchmarks.repairs [SPACE_DIR ...]`` (default: the two spaces in
``../shared/datasets/cpclean``) certifies, on each space, its first 1000 validation rows
(``X_val.csv``, ``--bins 5``) at alpha 0 and 1 under three world models: every missing
cell any value of its column's domain, each missing cell any of its candidate repairs on
its own (``candidates=``), and each dirty row one of its repaired rows whole
(``repairs=``).  Each run is a process of its own (``RUNS`` times, the median CPU seconds
and the largest peak resident memory, VmHWM, read by the process at its end, imports
included); the row model's runs also count the rows left undecided, and the table says
whether the row-level share is at least the per-cell one, and by how much the rows' worlds
narrow each point's margin (``nbcert.methods.repairs_margins``: the log of the best
label's smallest support over the largest rival's, over rows and cell by cell): on how
many points it is larger, and its median increase where both are finite.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

RUNS = 3
SPACES = ("BabyProduct/real", "Bank/systematic")
RUN = """
import json, resource, sys, warnings
import nbcert
warnings.simplefilter("ignore")
space, model, alpha = sys.argv[1], sys.argv[2], int(sys.argv[3])
read = lambda name: nbcert.read_csv(f"{space}/{name}.csv")
y = read("y_train")
label = y.columns[0]
train = read("X_train_dirty").assign(**{label: y[label]})
val = read("X_val").iloc[:1000]
given = {model: f"{space}/X_train_repairs"} if model != "domains" else {}
out = nbcert.certify(train, val, label, bins=5, alpha=alpha, **given)
use = resource.getrusage(resource.RUSAGE_SELF)
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM"))
undecided = int(out["undecided"].notna().sum()) if "undecided" in out else 0
print(json.dumps({"certain": float((out["robust"] == True).mean()),  # noqa: E712
                  "undecided": undecided, "cpu": use.ru_utime + use.ru_stime,
                  "peak_mb": int(peak.split()[1]) / 1024}))
"""


def run(space: Path, model: str, alpha: int) -> dict:
    """One run in a fresh process: its certain share, undecided rows, CPU s, peak MB."""
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(space), model, str(alpha)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def measure(space: Path, model: str, alpha: int) -> dict:
    runs = [run(space, model, alpha) for _ in range(RUNS)]
    return {
        "certain": runs[0]["certain"],
        "undecided": runs[0]["undecided"],
        "cpu": statistics.median(r["cpu"] for r in runs),
        "peak_mb": max(r["peak_mb"] for r in runs),
    }


def narrowed(space: Path, alpha: int) -> tuple:
    """(points whose margin is larger over rows than per cell, the median increase)."""
    import nbcert
    from nbcert.methods import repairs_margins

    def read(name):
        return nbcert.read_csv(space / f"{name}.csv")

    y = read("y_train")
    label = y.columns[0]
    train = read("X_train_dirty").assign(**{label: y[label]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = repairs_margins(
            train, read("X_val").iloc[:1000], label, space / "X_train_repairs", alpha=alpha, bins=5
        )
    both = np.isfinite(got["rows"]) & np.isfinite(got["cells"])
    more = int((got["rows"] > got["cells"] + 1e-9).sum())
    gain = float(np.median((got["rows"] - got["cells"])[both])) if both.any() else 0.0
    return more, 0.0 if abs(gain) < 1e-9 else gain


def main(argv: list) -> int:
    root = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cpclean"
    spaces = [Path(a) for a in argv] or [root / s for s in SPACES]
    print(
        "| space | alpha | domains | per-cell candidates | repaired rows | rows >= cells "
        "| undecided | CPU s (rows) | peak MB (rows) | margin larger | median gain |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for space in spaces:
        name = "/".join(space.parts[-2:])
        for alpha in (0, 1):
            got = {m: measure(space, m, alpha) for m in ("domains", "candidates", "repairs")}
            rows, cells = got["repairs"], got["candidates"]
            more, gain = narrowed(space, alpha)
            print(
                f"| {name} | {alpha} | {got['domains']['certain']:.1%} | {cells['certain']:.1%} "
                f"| {rows['certain']:.1%} | {'yes' if rows['certain'] >= cells['certain'] else 'NO'} "
                f"| {rows['undecided']} | {rows['cpu']:.1f} | {rows['peak_mb']:.0f} "
                f"| {more} | {gain:.3f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
