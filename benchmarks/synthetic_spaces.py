"""Synthetic spaces in CPClean's layout, to try nbcert on benchmarks like CPClean's that it
was not built on.

``write_space(folder, kind, seed)`` writes ``X_train_dirty.csv``, ``X_train_clean.csv``,
``y_train.csv``, ``X_val.csv``/``y_val.csv``, ``X_test.csv``/``y_test.csv``,
``indicator.csv``, ``info.json`` and ``X_train_repairs/*.csv`` (one repaired copy per
imputer), as CPClean's ``data/data-reproduce/<dataset>/<mv_type>`` folders.

* ``catalog`` (like BabyProduct, larger): a categorical column with 400 values of Zipf
  frequencies, missing for 30 % of the rows and more often for rare values (so most true
  values of the missing cells are never observed), two more categorical columns and three
  numeric ones, 5 % of their cells missing at random; repairs: mean/mode, the k-th most
  frequent value for k = 2 .. 40 and three noisy "model" imputers: 4 to 44 candidates a
  cell, 61 at most.
* ``sensors`` (like Bank): ten numeric columns, two of them missing systematically (where
  another column is high, 35 % and 25 % of the rows); repairs: mean, median, min, max, 25-
  and 75-grid, and four noisy model imputers: 4 to 10 candidates a cell.

Labels follow a logistic model of the true features.  Run as a script:
``python -m benchmarks.synthetic_spaces OUT_DIR`` writes ``OUT_DIR/Catalog/synthetic``
and ``OUT_DIR/Sensors/synthetic``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def _labels(rng, score: np.ndarray) -> np.ndarray:
    p = 1 / (1 + np.exp(-(score - np.median(score)) * 2))
    return np.where(rng.random(len(score)) < p, "P", "N")


def catalog(rng, n: int) -> tuple:
    """(features, labels, missing mask) of a catalog-like table."""
    ranks = np.arange(1, 401)
    brand = rng.choice(400, n, p=(1 / ranks) / (1 / ranks).sum())
    X = pd.DataFrame(
        {
            "brand": [f"brand{b:03d}" for b in brand],
            "kind": rng.choice([f"kind{k}" for k in range(12)], n),
            "shop": rng.choice([f"shop{k}" for k in range(30)], n),
            "price": rng.lognormal(3, 0.6, n).round(4),
            "weight": rng.gamma(2, 5, n).round(4),
            "rating": rng.normal(3.5, 0.8, n).round(4),
        }
    )
    effect = rng.normal(0, 1, 400)
    score = effect[brand] + 0.5 * np.log(X["price"]) - 0.1 * X["weight"] + X["rating"]
    missing = np.zeros(X.shape, bool)
    missing[:, 0] = rng.random(n) < np.where(brand > 40, 0.45, 0.1)
    missing[:, 3:] = rng.random((n, 3)) < 0.05
    return X, _labels(rng, score.to_numpy()), missing


def sensors(rng, n: int) -> tuple:
    """(features, labels, missing mask) of a sensor-like table."""
    X = pd.DataFrame({f"s{j}": rng.normal(j % 3, 1 + j % 2, n).round(6) for j in range(10)})
    score = X["s0"] - X["s3"] + 0.8 * X["s4"] + 0.6 * X["s5"]
    missing = np.zeros(X.shape, bool)
    missing[:, 4] = (X["s1"] > X["s1"].quantile(0.65)).to_numpy()
    missing[:, 5] = (X["s2"] > X["s2"].quantile(0.75)).to_numpy()
    return X, _labels(rng, score.to_numpy()), missing


def repairs(rng, dirty: pd.DataFrame, clean: pd.DataFrame, kind: str) -> dict:
    """Repaired copies of ``dirty``, one per imputer."""
    out = {}
    num = [c for c in dirty.columns if dirty[c].dtype.kind == "f"]
    cat = [c for c in dirty.columns if c not in num]

    def fill(values: dict) -> pd.DataFrame:
        copy = dirty.copy()
        for c, v in values.items():
            copy[c] = copy[c].where(copy[c].notna(), v)
        return copy

    observed = {c: dirty[c].dropna() for c in dirty.columns}
    out["mean"] = fill(
        {c: observed[c].mean() for c in num} | {c: observed[c].mode()[0] for c in cat}
    )
    if kind == "catalog":
        for k in range(2, 41):
            out[f"{k}_frequent"] = fill(
                {
                    c: observed[c].value_counts().index[min(k, observed[c].nunique()) - 1]
                    for c in cat
                }
                | {c: observed[c].mean() for c in num}
            )
    else:
        for name, q in (
            ("median", 0.5),
            ("min", 0.0),
            ("max", 1.0),
            ("25-grid", 0.25),
            ("75-grid", 0.75),
        ):
            out[name] = fill({c: observed[c].quantile(q) for c in num})
    for m in range(4 if kind == "sensors" else 3):  # noisy model imputers
        guess = {}
        for c in num:
            noise = rng.normal(0, observed[c].std() * 0.6, len(dirty))
            guess[c] = pd.Series((clean[c] + noise).round(6), index=dirty.index)
        for c in cat:
            right = rng.random(len(dirty)) < 0.3
            other = rng.choice(observed[c].to_numpy(), len(dirty))
            guess[c] = pd.Series(np.where(right, clean[c], other), index=dirty.index)
        out[f"model{m}"] = fill(guess)
    return out


def write_space(folder, kind: str, seed: int = 0, n: int = 3000) -> Path:
    """Write one synthetic space (``kind``: "catalog" or "sensors") in CPClean's layout."""
    rng = np.random.default_rng(seed)
    make = {"catalog": catalog, "sensors": sensors}[kind]
    X, y, missing = make(rng, n + 1400 + 800)
    folder = Path(folder)
    (folder / "X_train_repairs").mkdir(parents=True, exist_ok=True)
    train = slice(0, n)
    clean = X.iloc[train].reset_index(drop=True)
    dirty = clean.mask(missing[train])
    clean.to_csv(folder / "X_train_clean.csv", index=False)
    dirty.to_csv(folder / "X_train_dirty.csv", index=False)
    pd.DataFrame(missing[train], columns=X.columns).to_csv(folder / "indicator.csv", index=False)
    pd.DataFrame({"class": y[train]}).to_csv(folder / "y_train.csv", index=False)
    for part, rows in (("val", slice(n, n + 1400)), ("test", slice(n + 1400, None))):
        X.iloc[rows].to_csv(folder / f"X_{part}.csv", index=False)
        pd.DataFrame({"class": y[rows]}).to_csv(folder / f"y_{part}.csv", index=False)
    for name, copy in repairs(rng, dirty, clean, kind).items():
        copy.to_csv(folder / "X_train_repairs" / f"{name}.csv", index=False)
    info = {"dataset": kind.title(), "mv_type": "synthetic", "seed": seed, "train": n}
    (folder / "info.json").write_text(json.dumps(info, indent=4) + "\n")
    return folder


def main(argv: list) -> int:
    out = Path(argv[0])
    write_space(out / "Catalog" / "synthetic", "catalog", seed=1)
    write_space(out / "Sensors" / "synthetic", "sensors", seed=2, n=2000)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
