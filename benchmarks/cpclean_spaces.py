"""Time and peak memory of nbcert's commands on spaces in CPClean's layout.

``python -m benchmarks.cpclean_spaces OUT.md SPACE_DIR [SPACE_DIR ...]`` runs, on each
space (its first 1000 validation rows, ``--bins 5``), certify, count and ``clean --truth``
(alpha 0 and 1, default and ``--method exact``), without and with CPClean's repairs as
candidates, each three times in a process of its own whose address space is capped at
6 GB and whose run is stopped after 300 s; it writes a Markdown table of the median wall
time, the largest peak resident memory (VmHWM, read by the process itself at its end) and
the exit status (with the one line of an error), and the shares of certain rows.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CAP, TIMEOUT, RUNS = 6_000_000_000, 300, 3
RUN = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from nbcert.cli import main
rc = main(sys.argv[1:])
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM"))
sys.stderr.write("peak-kb " + peak.split()[1] + "\\n")
sys.exit(rc)
"""


def run(argv: list) -> dict:
    """One run: exit status, wall seconds, peak bytes (None if it died first), the last
    stderr line, stdout."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", RUN.format(cap=CAP), *argv],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {"rc": "timeout", "wall": TIMEOUT, "peak": None, "said": "", "out": ""}
    wall = time.perf_counter() - start
    lines = done.stderr.splitlines()
    peak = [int(x.split()[1]) * 1024 for x in lines if x.startswith("peak-kb")]
    said = [x for x in lines if not x.startswith("peak-kb")]
    return {
        "rc": done.returncode,
        "wall": wall,
        "peak": peak[0] if peak else None,
        "said": said[-1] if said else "",
        "out": done.stdout,
    }


def files(space: Path, tmp: Path) -> dict:
    """The training file, the truth and the validation rows as a user makes them."""

    def joined(X, name):
        rows = zip(
            (space / X).read_text().splitlines(), (space / "y_train.csv").read_text().splitlines()
        )
        (tmp / name).write_text("\n".join(a + "," + b for a, b in rows) + "\n")
        return str(tmp / name)

    val = (space / "X_val.csv").read_text().splitlines()[:1001]
    (tmp / "val.csv").write_text("\n".join(val) + "\n")
    label = (space / "y_train.csv").read_text().splitlines()[0]
    return {
        "train": joined("X_train_dirty.csv", "train.csv"),
        "truth": joined("X_train_clean.csv", "truth.csv"),
        "val": str(tmp / "val.csv"),
        "label": label,
        "repairs": str(space / "X_train_repairs"),
    }


def commands(f: dict) -> list:
    """(name, argv) of every command measured on one space."""
    base = ["--train", f["train"], "--test", f["val"], "--label", f["label"], "--bins", "5"]
    out = []
    for cand in ([], ["--candidates", f["repairs"]]):
        tag = " + candidates" if cand else ""
        out.append((f"certify{tag}", ["certify", *base, *cand]))
        out.append((f"count{tag}", ["count", *base, *cand]))
        for alpha in ("0", "1"):
            for method in ("auto", "exact"):
                argv = ["clean", *base, "--truth", f["truth"], "--alpha", alpha, "--method", method]
                out.append((f"clean --truth a={alpha} {method}{tag}", [*argv, "--json", *cand]))
    return out


def shares(f: dict) -> dict:
    """Certain share of the validation rows, alpha 0 and 1, without and with candidates."""
    out = {}
    base = ["certify", "--train", f["train"], "--test", f["val"], "--label", f["label"]]
    for alpha in ("0", "1"):
        for tag, cand in (("", []), ("candidates", ["--candidates", f["repairs"]])):
            got = run([*base, "--bins", "5", "--alpha", alpha, "--json", *cand])
            rows = json.loads(got["out"])["results"]
            out[(alpha, tag)] = sum(r["robust"] for r in rows) / len(rows)
    return out


def main(argv: list) -> int:
    out, spaces = Path(argv[0]), [Path(a) for a in argv[1:]]
    lines = [
        "| space | command | exit | median wall (s) | peak RSS (MB) | said |",
        "|---|---|---|---|---|---|",
    ]
    share_lines = [
        "| space | alpha | certain | certain with candidates |",
        "|---|---|---|---|",
    ]
    for space in spaces:
        name = "/".join(space.parts[-2:])
        with tempfile.TemporaryDirectory() as tmp:
            f = files(space, Path(tmp))
            for what, argv_ in commands(f):
                runs = [run(argv_) for _ in range(RUNS)]
                walls = [r["wall"] for r in runs]
                peaks = [r["peak"] for r in runs if r["peak"] is not None]
                peak = f"{max(peaks) / 2**20:.0f}" if len(peaks) == RUNS else "(died)"
                said = runs[0]["said"] if runs[0]["rc"] != 0 else ""
                lines.append(
                    f"| {name} | {what} | {runs[0]['rc']} | {statistics.median(walls):.1f} "
                    f"| {peak} | {said.replace('|', '/')[:160]} |"
                )
                print(lines[-1], flush=True)
            got = shares(f)
            for alpha in ("0", "1"):
                share_lines.append(
                    f"| {name} | {alpha} | {got[(alpha, '')]:.1%} "
                    f"| {got[(alpha, 'candidates')]:.1%} |"
                )
                print(share_lines[-1], flush=True)
    out.write_text("\n".join(lines) + "\n\n" + "\n".join(share_lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
