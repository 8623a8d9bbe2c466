"""Figures 6/7: decision time vs missing rate (nbcert.repro.figures)."""
import sys

from nbcert.repro.figures import load, time_vs_rate

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
time_vs_rate(load(snakemake.input), snakemake.params.kind, snakemake.params.k, snakemake.output)
