"""Draw the repetition's test points from the complete table (nbcert.repro.stages.split)."""
import sys

import pandas as pd

from nbcert.repro.stages import split
from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
df = pd.read_csv(snakemake.input[0], dtype=str, keep_default_na=False)
train, test = split(df, snakemake.params.k, snakemake.params.seed, snakemake.wildcards.ds, int(snakemake.wildcards.rep))
print(f"{len(train)} training rows, {len(test)} test points")
write_csv(train, snakemake.output.train)
write_csv(test, snakemake.output.test)
