"""Figure and report section for many-point poisoning (nbcert.repro.studies.poisoning_many)."""
import sys

import pandas as pd

from nbcert.repro.outputs import write_csv, write_text
from nbcert.repro.studies.poisoning_many import figure, summary_markdown

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
table = pd.concat([pd.read_csv(f) for f in snakemake.input], ignore_index=True)
write_csv(table, snakemake.output.table)
figure(table, snakemake.output)
write_text(summary_markdown(table), snakemake.output.md)
