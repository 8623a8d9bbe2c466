"""Figures 8/9: decision time vs number of test points (nbcert.repro.figures)."""
import sys

from nbcert.repro.figures import load, time_vs_k

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
time_vs_k(load(snakemake.input), snakemake.params.kind, snakemake.params.rate, snakemake.output)
