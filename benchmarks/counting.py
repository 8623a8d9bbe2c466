"""Benchmark of proven counting (``count --method bounds``) on the README's worked example.

The breast-cancer example (``examples/breast_cancer.py``: 559 training rows, 30 numeric
features binned into 5, 10 % of the cells blank, 4.23e1203 worlds; 10 test rows): every
row's proven intervals (each label's share and the ties') at most 0.1 percentage point
wide, in at most 2 s a row.  Each row is counted on its own from the table's statistics,
``repeat`` times; its median time is kept.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTH, SECONDS = 0.001, 2.0


def _example(folder: Path) -> tuple:
    """The example's encoded table and test codes: written by the README's script, read as
    the command reads them, the numeric columns cut into 5 bins fitted on training."""
    import nbcert
    from nbcert.methods import encode

    script = Path(__file__).resolve().parents[1] / "examples" / "breast_cancer.py"
    subprocess.run([sys.executable, str(script), str(folder)], check=True)
    train = nbcert.read_csv(str(folder / "train.csv"))
    test = nbcert.read_csv(str(folder / "test.csv")).drop(columns="id")
    features = [c for c in train.columns if c != "diagnosis"]
    binner = nbcert.Binner(5).set_output(transform="pandas").fit(train[features])
    binned = binner.transform(train[features]).assign(diagnosis=train["diagnosis"])
    table = encode(binned.astype(object), "diagnosis")
    return table, table.encode_test(binner.transform(test[features]).astype(object))


def _widest(wc) -> float:
    shares = [*wc.proven_shares.values(), wc.proven_tie_shares]
    return max(high - low for low, high in shares)


def proven_counting(repeat: int = 3) -> list:
    """(target, verdict, detail) rows: the README example's per-row width and time."""
    from nbcert.methods import count_encoded

    print("\nproven counting on the README's breast-cancer example (--bins 5)...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        table, T = _example(Path(tmp))
    times, widths, eps = [], [], []
    for i in range(len(T)):
        runs = []
        for _ in range(max(1, repeat)):
            t0 = time.perf_counter()
            [wc] = count_encoded(table, T[i : i + 1], method="bounds", width=WIDTH)
            runs.append(time.perf_counter() - t0)
        times.append(statistics.median(runs))
        widths.append(_widest(wc))
        eps.append(wc.eps)
    return [
        (
            f"breast-cancer example: every row's interval <= {100 * WIDTH:g} percentage point",
            "met" if max(widths) <= WIDTH else "MISSED",
            f"widest {100 * max(widths):.3g} points over {len(T)} rows (finest grid "
            f"eps {min(eps):.3g})",
        ),
        (
            f"breast-cancer example: <= {SECONDS:g} s a row",
            "met" if max(times) <= SECONDS else "MISSED",
            f"per row median of {repeat}: max {max(times):.3f}s, median "
            f"{statistics.median(times):.3f}s, total {sum(times):.2f}s",
        ),
    ]
