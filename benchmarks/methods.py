"""Benchmark: ``python -m benchmarks [--data DIR] [--full] [--no-input] [--no-stream] [--no-dask] [--no-scaling] [--no-counting]``.

Prints, for bodyPerformance (5 uniform bins, 40 % of feature cells blanked, 32 held-out
points) and a synthetic 10^6 x 20 table, the time of every method and its ratio to two
references measured in the same run on the same data:

* Plain: scikit-learn OrdinalEncoder + CategoricalNB fitted on the clean table and
  predicting one point, starting from the DataFrame (what a user runs instead);
* floor: one ``np.bincount`` pass over the integer-coded cells.

Targets: Iterate+Index for 32 points <= 0.15x Plain from DataFrames on bodyPerformance
(0.25x on the synthetic table) and <= 2x the floor once encoded; OP for one point
<= 0.25x Plain and <= 2x the paper's pure strategies (which are not always minimal);
choosing the next cell to clean for 32 points on bodyPerformance <= 1 s.  Times are the
best of several runs.

Then the input path (``benchmarks.input``): whole commands on generated 10^7- and
10^8-row CSV and 10^7-row Parquet files against pyarrow reading them, and Dask on a
LocalCluster; the exit status of the small command run 500 times, two at a time
(``--no-exit`` skips it): aborts at exit, target 0; proven counting on the README's
breast-cancer example (``--no-counting`` skips it; ``benchmarks.counting``): every
row's interval <= 0.1 percentage point wide in <= 2 s a row; and memory (``--no-scaling`` skips it): the scaling study's job at 10^7 x 20,
every method (Iterate and AD within their budget of CPU seconds), each call's and the whole job's
resident peak <= 2 GB.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from common.draws import perturb
from discretize import discretize
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import OrdinalEncoder

import nbcert
from nbcert.methods import (
    advice,
    certify_ad,
    certify_ad_counts,
    certify_index,
    certify_iterate,
    count_encoded,
    encode,
    poison_encoded,
    pure_strategies,
)
from nbcert.synthetic import synthetic_codes

from .input import certify_command

INDEX_TARGET = {
    "bodyPerformance": 0.15
}  # Iterate+Index, 32 points from DataFrames, x Plain (the target)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def plain(train: pd.DataFrame, test: pd.DataFrame, label: str):
    feats = [c for c in train.columns if c != label]
    oe = OrdinalEncoder()
    Xc = oe.fit_transform(train[feats])
    nb = CategoricalNB(min_categories=[len(c) for c in oe.categories_]).fit(Xc, train[label])
    return nb.predict(oe.transform(test[feats].iloc[:1]))


def split(df: pd.DataFrame, label: str, k: int, rng):
    """Hold out k rows whose values all occur among the remaining rows."""
    idx = rng.permutation(len(df))
    test, train = df.iloc[idx[: k * 4]], df.iloc[idx[k * 4 :]]
    ok = np.all([test[c].isin(set(train[c])) for c in df.columns if c != label], axis=0)
    test = test[ok].iloc[:k]
    return pd.concat([train, df.iloc[idx[: k * 4]][ok].iloc[k:]]), test


def run(name: str, clean: pd.DataFrame, label: str, rng, repeat: int, full: bool) -> list:
    train, test = split(clean, label, 32, rng)
    dirty = perturb(train, label, 0.4, "uniform", rng)
    enc_clean = encode(train, label)
    enc = encode(dirty, label)
    T = enc.encode_test(test)
    rows = []
    t_plain = best(lambda: plain(train, test, label), repeat)
    t_floor = best(lambda: np.bincount(enc.X.ravel(), minlength=enc.n_codes), repeat)

    def add(what, seconds):
        rows.append((name, what, seconds, seconds / t_plain, seconds / t_floor))

    add("plain (sklearn, 1 point)", t_plain)
    add("floor (one bincount)", t_floor)
    add("index k=32 from DataFrames", best(lambda: nbcert.certify(dirty, test, label), repeat))
    for k in (1, 32):
        add(f"index k={k} encoded", best(lambda: certify_index(enc, T[:k]), repeat))
        add(
            f"iterate k={k} encoded",
            best(lambda: certify_iterate(enc, T[:k]), max(1, repeat // 2)),
        )
        if k == 1 or full:
            add(f"ad k={k} encoded", best(lambda: certify_ad(enc, T[:k], seed=0), 1))
            add(
                f"ad counts only k={k} encoded",
                best(lambda: certify_ad_counts(enc, T[:k], seed=0), 1),
            )
    add(
        "count montecarlo k=1 encoded",
        best(lambda: count_encoded(enc, T[:1], method="montecarlo", seed=0), 1),
    )
    Tc = enc_clean.encode_test(test)
    add(
        "OP 1 point from DataFrames",
        best(lambda: nbcert.poison(train, test.iloc[:1], label), repeat),
    )
    add("OP 1 point encoded", best(lambda: poison_encoded(enc_clean, Tc[0]), repeat))
    add(
        "OP pure strategies (paper) 1 point",
        best(lambda: pure_strategies(enc_clean, Tc[0]), repeat),
    )
    add(
        "clean next cell k=32 DataFrames",
        best(lambda: nbcert.clean(dirty, test, label, top=1), repeat),
    )
    add("clean next cell k=32 encoded", best(lambda: advice(enc, T, top=1), repeat))
    return rows


def body_performance(data_dir: Path) -> pd.DataFrame:
    df = pd.read_csv(data_dir / "bodyPerformance.csv")
    return discretize(df, "class")


def synthetic(n=1_000_000, d=20) -> pd.DataFrame:
    X, y = synthetic_codes(n, d, domain=5, labels=3, seed=1)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    df["label"] = y
    return df


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    rows = _method_rows(args)
    _print_rows(rows)
    for name in dict.fromkeys(r[0] for r in rows):
        for what, ok in _targets(name, {r[1]: r for r in rows if r[0] == name}):
            print(f"{name:18} {what:45} {'met' if ok else 'MISSED'}")
    verdicts = _verdicts(args)
    if verdicts:
        print()
        for target, verdict, detail in verdicts:
            print(f"{verdict:7} {target}\n        {detail}")
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data",
        default=os.environ.get("NBCERT_DATA_MIRROR", "../shared/datasets"),
        help="folder holding bodyPerformance.csv",
    )
    ap.add_argument(
        "--full", action="store_true", help="also time AD for 32 points (minutes at 10^6 rows)"
    )
    ap.add_argument("--no-synthetic", action="store_true")
    ap.add_argument("--no-input", action="store_true", help="skip the file input targets")
    ap.add_argument(
        "--no-stream", action="store_true", help="skip the 10^8-row streamed CSV (4.7 GB, minutes)"
    )
    ap.add_argument("--no-dask", action="store_true", help="skip Dask on a LocalCluster")
    ap.add_argument(
        "--no-exit", action="store_true", help="skip running the small command 500 times"
    )
    ap.add_argument(
        "--no-counting",
        action="store_true",
        help="skip proven counting on the README's breast-cancer example",
    )
    ap.add_argument(
        "--no-scaling", action="store_true", help="skip the scaling study's memory at 10^7 rows"
    )
    ap.add_argument(
        "--scratch", default=None, help="folder for the generated files (default: a temporary one)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each whole command (at least 3; the median is kept)",
    )
    return ap


def _method_rows(args) -> list:
    """The methods' times on bodyPerformance (if found) and the synthetic table."""
    rng = np.random.default_rng(0)
    rows = []
    path = Path(args.data)
    if (path / "bodyPerformance.csv").exists():
        rows += run("bodyPerformance", body_performance(path), "class", rng, 7, True)
    else:
        print(f"(skipping bodyPerformance: {path / 'bodyPerformance.csv'} not found)")
    if not args.no_synthetic:
        rows += run("synthetic 1e6x20", synthetic(), "label", rng, 3, args.full)
    return rows


def _print_rows(rows: list) -> None:
    print(f"{'data':18} {'measure':32} {'seconds':>10} {'x plain':>9} {'x floor':>9}")
    for name, what, s, rp, rf in rows:
        print(f"{name:18} {what:32} {s:10.5f} {rp:9.3f} {rf:9.2f}")
    print()


def _targets(name: str, get: dict) -> list:
    """(target, met?) for one data set's rows ``get`` (by measure)."""
    limit = INDEX_TARGET.get(name, 0.25)
    checks = [
        (
            f"index k=32 from DataFrames <= {limit}x plain",
            get["index k=32 from DataFrames"][3] <= limit,
        ),
        ("index k=32 encoded <= 2x floor", get["index k=32 encoded"][4] <= 2),
        (
            "OP 1 point from DataFrames <= 0.25x plain",
            get["OP 1 point from DataFrames"][3] <= 0.25,
        ),
        (
            "OP 1 point encoded <= 2x the paper's pure strategies",
            get["OP 1 point encoded"][2] <= 2 * get["OP pure strategies (paper) 1 point"][2],
        ),
    ]
    if name == "bodyPerformance":
        checks.append(
            (
                "clean next cell k=32 DataFrames <= 1 s",
                get["clean next cell k=32 DataFrames"][2] <= 1,
            )
        )
    return checks


def _verdicts(args) -> list:
    """(target, verdict, detail) of the exit, memory and input targets asked for."""
    verdicts = []
    if not args.no_counting:
        from .counting import proven_counting

        verdicts += proven_counting(args.repeat)
    if not args.no_exit:
        verdicts.append(exit_check())
    if not args.no_scaling:
        verdicts += scaling_memory()
    if not args.no_input:
        from .input import run_input

        print("\ninput path (whole commands, each in its own process):")
        verdicts += run_input(
            args.scratch,
            stream=not args.no_stream,
            dask=not args.no_dask,
            repeat=args.repeat,
            keep=args.keep,
        )
    return verdicts


SMALL_TRAIN = "f,g,y\na,x,p\nb,,q\n"  # two rows: the command's own work is next to nothing
SMALL_TEST = "f,g\na,x\nb,x\n"


def small_command(folder: Path) -> list:
    """``nbcert certify ... --json`` on a two-row training table written in ``folder``."""
    (folder / "train.csv").write_text(SMALL_TRAIN)
    (folder / "q.csv").write_text(SMALL_TEST)
    return certify_command(folder / "train.csv", folder / "q.csv", "y", "--json")


def exit_statuses(runs: int, parallel: int = 2) -> dict:
    """{exit status: runs} of the small command run ``runs`` times, ``parallel`` at a time
    (a signal as 128 + its number, as a shell reports it; "stderr" counts runs that wrote
    to stderr, e.g. "terminate called without an active exception")."""
    import subprocess
    import tempfile
    from collections import Counter
    from concurrent.futures import ThreadPoolExecutor

    with tempfile.TemporaryDirectory() as tmp:
        cmd = small_command(Path(tmp))

        def one(_):
            proc = subprocess.run(cmd, capture_output=True)
            code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
            return code, bool(proc.stderr.strip())

        with ThreadPoolExecutor(parallel) as pool:
            done = list(pool.map(one, range(runs)))
    out = Counter(code for code, _ in done)
    out["stderr"] = sum(err for _, err in done)
    return dict(out)


def exit_check(runs: int = 500) -> tuple:
    """The verdict row for aborts at exit of the small command (target 0)."""
    print(f"\nsmall command, {runs} runs two at a time...", flush=True)
    t0 = time.perf_counter()
    got = exit_statuses(runs)
    aborts = got.get(134, 0)
    others = {k: v for k, v in got.items() if k not in (0, "stderr")}
    return (
        f"small command x {runs}: aborts at exit (exit 134) = 0",
        "met" if not others else "MISSED",
        f"{aborts} aborts, exit statuses {got} ({time.perf_counter() - t0:.0f}s)",
    )


def scaling_memory(n: int = 10**7, limit_mb: float = 2000, budget_s: float = 20) -> list:
    """The scaling study's job at n x 20 (every method, Iterate and AD within ``budget_s``)
    in a fresh process: each call's resident peak (the held table included) and the whole
    process's against ``limit_mb``."""
    import json
    import subprocess
    import sys

    code = (
        "import json, sys; from studies.scaling import run as s; "
        "from common.settings import study; "
        f"t = s.run_size({n}, study('scaling', n_values=[{n}], d=20, domain=5, labels=3, "
        f"missing_rate=0.4, k=32, ad_worlds=100, method_budget_s={budget_s}), 0, "
        "progress=lambda *a: None); "
        "t = t[t.family != 'setup']; "
        "print(json.dumps({'process': float(t.process_peak_mb.max()), "
        "'calls': {m: [r, p, w] for m, r, p, w in zip(t.method, t.call_peak_mb, t.seconds, t.skipped)}}))"
    )
    print(
        f"\nscaling study at n = {n:.0e} x 20 (every method; Iterate and AD within {budget_s:g} s)...",
        flush=True,
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if proc.returncode:
        return [
            (
                f"scaling {n:.0e} x 20: each peak <= {limit_mb / 1000:.1f} GB",
                "-",
                f"failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}",
            )
        ]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    out = []
    for method, (peak, seconds, skipped) in got["calls"].items():
        target = f"scaling {n:.0e} x 20, {method}: call peak <= {limit_mb / 1000:.1f} GB"
        if peak is None:
            out.append((target, "-", skipped or "not measured"))
        else:
            out.append(
                (
                    target,
                    "met" if peak <= limit_mb else "MISSED",
                    f"peak {peak / 1000:.2f} GB resident during the call, {seconds:.2f}s",
                )
            )
    whole = got["process"]
    out.append(
        (
            f"scaling {n:.0e} x 20, the whole job: peak <= {limit_mb / 1000:.1f} GB",
            "met" if whole <= limit_mb else "MISSED",
            f"peak {whole / 1000:.2f} GB resident",
        )
    )
    return out


if __name__ == "__main__":
    raise SystemExit(main())
