"""Blank cells of a training table (nbcert.repro.stages.perturbed)."""
import sys

import pandas as pd

from nbcert.repro.stages import perturbed
from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
w, p = snakemake.wildcards, snakemake.params
train = pd.read_csv(snakemake.input[0], dtype=str, keep_default_na=False)
out = perturbed(train, p.label, w.kind, float(w.rate), p.seed, w.ds, int(w.rep), p.feature_share)
print(f"blanked {int(out.isna().sum().sum())} cells")
write_csv(out, snakemake.output[0])
