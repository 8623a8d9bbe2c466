"""Scaling: the joined table, the log-log figure and the report section (nbcert.repro.studies.scaling)."""
import sys

import pandas as pd

from nbcert.repro.outputs import write_csv, write_text
from nbcert.repro.studies.scaling import figure, fit_slopes, summary_markdown

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
table = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True).sort_values("n", kind="stable")
write_csv(table, snakemake.output.table)
figure(table, snakemake.output)
write_text(summary_markdown(table), snakemake.output.md)
print(fit_slopes(table).to_string())
