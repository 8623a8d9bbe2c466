"""Counting in practice: the figure and the report section (nbcert.repro.studies.counting)."""
import sys

from nbcert.repro.studies.counting import figure, load, summary_markdown
from nbcert.repro.outputs import write_text

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
table = load(snakemake.input)
figure(table, snakemake.output)
write_text(summary_markdown(table), snakemake.output.md)
