"""Verify one data set's raw file, subsample it if configured, and discretize it."""

import json
from pathlib import Path

from nbcert.repro.pipeline.discretize import discretize
from nbcert.repro.pipeline.fetch import verify
from nbcert.repro.pipeline.settings import DatasetSettings
from nbcert.repro.pipeline.stages import subsample
from nbcert.repro.pipeline.tables import read_data
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_csv, write_text


def main():
    ds, p = DatasetSettings.from_json(snakemake.params.dataset), snakemake.params
    raw = Path(snakemake.input[0])
    fetched = json.loads((raw.parent / "status.json").read_text())
    sha = verify(raw, fetched["sha256"], ds.name)
    raw_df = read_data(raw, ds.label, **ds.reading())
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


job.run(snakemake, main)
