"""Certificates: the answer's time against the checker's, and the certificate's size.

``python -m benchmarks.certificates [--mirror DIR] [--repeat N]`` makes two sets of files
and, on each, runs ``certify``, ``poison``, ``poison --together`` and ``clean --truth``
with ``--certificate`` (each command in a process of its own), then the standalone checker
alone (``python3 -I verify.py CERT``, a bare interpreter, the file copied out).  It prints
per command the CPU seconds of the answer and of the check (the process's own, user and
system; the median of ``--repeat`` runs, default 3) and the certificate's size:

* the README's worked example (``examples/breast_cancer.py``: 559 rows, 10 % of the cells
  blank, 10 test rows; ``--bins 5``);
* bodyPerformance from the mirror folder (13,393 rows: all but 10 for training, 5 % of its
  feature cells blank drawn with seed 0, the 10 others as test rows; ``--bins 5``), where
  the mirror holds it.

The poisoning commands run on the complete table (the truth), as poisoning asks.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
VERIFY = ROOT / "src" / "nbcert" / "verify.py"


def cpu_of(argv: list, cwd: Path) -> float:
    """CPU seconds (user and system) of one command run to its end; it must succeed."""
    before = os.times()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    after = os.times()
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, argv))} failed: {done.stderr.strip()[-300:]}")
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def breast_cancer(folder: Path) -> dict:
    subprocess.run([sys.executable, ROOT / "examples" / "breast_cancer.py", folder], check=True)
    return {"label": "diagnosis", "id": "id"}


def body_performance(folder: Path, mirror: Path) -> dict | None:
    path = mirror / "bodyPerformance.csv"
    if not path.is_file():
        return None
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(table))
    test, truth = table.iloc[order[:10]], table.iloc[order[10:]]
    features = [c for c in table.columns if c != "class"]
    dirty = truth.copy()
    dirty[features] = dirty[features].mask(rng.random((len(dirty), len(features))) < 0.05, "")
    truth.to_csv(folder / "truth.csv", index=False)
    dirty.to_csv(folder / "train.csv", index=False)
    test.drop(columns="class").to_csv(folder / "test.csv", index=False)
    return {"label": "class", "id": None}


def commands(spec: dict) -> dict:
    base = ["--test", "test.csv", "--label", spec["label"], "--bins", "5"]
    base += ["--id", spec["id"]] if spec["id"] else []
    nbcert = [sys.executable, "-c", "import sys; from nbcert.cli import main; sys.exit(main())"]
    return {
        "certify": [*nbcert, "certify", "--train", "train.csv", *base],
        "poison": [*nbcert, "poison", "--train", "truth.csv", *base],
        "poison --together": [*nbcert, "poison", "--train", "truth.csv", *base, "--together"],
        "clean --truth": [*nbcert, "clean", "--train", "train.csv", *base, "--truth", "truth.csv"],
    }


def measure(name: str, folder: Path, spec: dict, repeat: int) -> None:
    shutil.copy(VERIFY, folder / "verify.py")
    print(f"\n{name}: median CPU seconds of {repeat} runs")
    print(f"{'command':<20} {'answer':>8} {'verify':>8} {'size':>9}")
    for what, argv in commands(spec).items():
        answer = [cpu_of([*argv, "--certificate", "c.json"], folder) for _ in range(repeat)]
        check = [cpu_of(["python3", "-I", "verify.py", "c.json"], folder) for _ in range(repeat)]
        size = (folder / "c.json").stat().st_size / 1000
        print(
            f"{what:<20} {statistics.median(answer):>8.2f} {statistics.median(check):>8.2f} "
            f"{size:>6.0f} KB"
        )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mirror", default=os.environ.get("NBCERT_DATA_MIRROR", "../shared/datasets"))
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "breast_cancer"
        measure("breast cancer (README)", folder, breast_cancer(folder), args.repeat)
        folder = Path(tmp) / "bodyPerformance"
        folder.mkdir()
        spec = body_performance(folder, Path(args.mirror))
        if spec is None:
            print(f"\nbodyPerformance: not in {args.mirror}, skipped")
        else:
            measure("bodyPerformance (13,383 training rows)", folder, spec, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
