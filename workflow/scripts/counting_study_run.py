"""Counting in practice on one data set (nbcert.repro.studies.counting.run)."""
import sys

import pandas as pd

from nbcert.repro.studies.counting import run
from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
p = snakemake.params
df = pd.read_csv(snakemake.input[0], dtype=str, keep_default_na=False)
write_csv(run(df, p.label, snakemake.wildcards.ds, p.seed, p.cfg), snakemake.output[0])
