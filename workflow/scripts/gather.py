"""Concatenate per-job tables into one tidy table."""
import sys

import pandas as pd

from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
write_csv(pd.concat([pd.read_csv(f) for f in snakemake.input], ignore_index=True), snakemake.output[0])
