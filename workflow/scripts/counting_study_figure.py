"""Counting in practice: the figure and the report section (nbcert.counting_study)."""
import sys

from nbcert.counting_study import figure, load, summary_markdown
from nbcert.outputs import write_text

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
table = load(snakemake.input)
figure(table, snakemake.output)
write_text(summary_markdown(table), snakemake.output.md)
