"""results/report.md: the paper's claims beside the numbers measured here (nbcert.repro.report)."""
import json
import sys

from nbcert.repro.figures import load
from nbcert.repro.outputs import write_text
from nbcert.repro.report import render

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
statuses = [json.load(open(f"{d}/status.json")) for d in snakemake.input.status]
beyond = [open(f).read() for f in snakemake.input.beyond]
text = render(load(snakemake.input.decision), load(snakemake.input.poisoning), statuses,
              snakemake.input.figures, snakemake.params.config, beyond, snakemake.input.beyond_figures)
write_text(text, snakemake.output[0])
