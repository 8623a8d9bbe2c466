"""Discretize one data set (nbcert.repro.discretize), optionally subsampled."""
import sys

import pandas as pd

from nbcert.repro.discretize import discretize
from nbcert.repro.stages import rng_for
from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
cfg, name = snakemake.params.source, snakemake.wildcards.ds
df = pd.read_csv(snakemake.input[0])
if snakemake.params.subsample and len(df) > snakemake.params.subsample:
    keep = rng_for(snakemake.params.seed, name, "subsample").choice(len(df), snakemake.params.subsample, replace=False)
    df = df.iloc[sorted(keep)]
out = discretize(df, cfg["label"], n_bins=cfg.get("n_bins", 5), strategy=cfg.get("strategy", "uniform"),
                 drop=cfg.get("drop", []), name=name)
print(f"{name}: {out.shape[0]} rows, {out.shape[1] - 1} features, categories per column {out.nunique().to_dict()}")
write_csv(out, snakemake.output[0])
