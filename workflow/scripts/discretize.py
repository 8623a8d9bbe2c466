"""Stage 2: verify a data set's raw file, subsample it if configured, and cut its numeric
features into categorical bins (paper section 6.1).

The paper partitions every numerical feature into 5 segments of equal size with
scikit-learn's KBinsDiscretizer; categorical columns are kept as they are.  The table
arrives as nbcert reads every CSV (:func:`nbcert.read_csv`: strings, an empty field is
missing), so a column is numeric when every observed value parses as a number.  A user's
data set may lack cells: the bins are fitted on each column's observed values and a
missing cell stays missing.  The bins are nbcert's one implementation (the command's and
the API's ``bins``); only the names differ: the paper's tables call them ``bin0`` ..
``bin{n-1}``.  A sidecar JSON records what was verified and how many cells were missing.
"""

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from common.draws import subsample
from common.job import run_job
from common.outputs import write_csv, write_text
from common.settings import Section, reading
from common.tables import read_data
from fetch import verify

from nbcert import InputError
from nbcert.methods import discretize_column, numeric_values

_TEXT = pd.Series(
    ["text"]
).dtype  # the dtype pandas gives text: arrow-backed `str` in pandas 3, object in pandas 2


def _bins(values: np.ndarray, index: pd.Index, n_bins: int, strategy: str) -> pd.Series:
    """Bin labels "bin0".."bin{n-1}" for the observed values; missing stays missing."""
    c = discretize_column(values, n_bins, strategy)
    named = np.char.add("bin", np.nan_to_num(c).astype(int).astype(str)).astype(object)
    return pd.Series(np.where(np.isnan(c), np.nan, named), index=index, dtype=object)


def discretize(
    df: pd.DataFrame,
    label: str,
    *,
    n_bins: int = 5,
    strategy: str = "uniform",
    drop: Iterable[str] = (),
    name: str = "data set",
) -> pd.DataFrame:
    """Return a table of strings: numeric features binned ("bin0".."bin{n-1}"), others as is.

    ``df`` holds the values as written (strings, NaN for missing).  Raises InputError naming
    the data set and column for a missing column, a dropped label or a missing label value.
    """
    drop = list(drop)
    for col in [label, *drop]:
        if col not in df.columns:
            raise InputError(
                f"{name}: no column {col!r} (columns: {', '.join(map(repr, df.columns))})"
            )
    if label in drop:
        raise InputError(f"{name}: drop lists the label column {label!r}")
    out = df.drop(columns=drop).astype(object)
    na = out[label].isna().to_numpy()
    if na.any():
        raise InputError(
            f"{name}: data row {int(np.flatnonzero(na)[0])} has no value in label column {label!r}"
        )
    empty = [c for c in out.columns if out[c].isna().all()]
    if empty:
        raise InputError(f"{name}: column {empty[0]!r} has no observed value (add it to drop:)")
    for c in out.columns:
        values = numeric_values(out[c]) if c != label else None
        if values is not None:
            out[c] = _bins(values, out.index, n_bins, strategy)
    return out.astype(_TEXT)


def main(snakemake):
    ds, p = Section.from_json(snakemake.params.dataset), snakemake.params
    raw = Path(snakemake.input[0])
    fetched = json.loads((raw.parent / "status.json").read_text())
    sha = verify(raw, fetched["sha256"], ds.name)
    raw_df = read_data(raw, ds.label, **reading(ds))
    df = subsample(raw_df, p.subsample, p.seed, ds.name)
    out = discretize(
        df, ds.label, n_bins=ds.n_bins, strategy=ds.strategy, drop=ds.drop, name=ds.name
    )
    features = out.drop(columns=ds.label)
    info = {
        "dataset": ds.name,
        "sha256": sha,
        "source": fetched["source"],
        "raw_rows": int(len(raw_df)),
        "rows": int(len(out)),
        "features": int(features.shape[1]),
        "cells": int(features.size),
        "missing_cells": int(features.isna().to_numpy().sum()),
        "complete_rows": int(features.notna().all(axis=1).sum()),
    }
    print(json.dumps(info))
    write_csv(out, snakemake.output.table)
    write_text(json.dumps(info, indent=1) + "\n", snakemake.output.info)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
