"""Figures 8/9: decision time vs number of test points (nbcert.repro.figures)."""
from nbcert.repro import job
from nbcert.repro.figures import time_vs_k
from nbcert.repro.tables import read_tables

job.run(snakemake, lambda: time_vs_k(read_tables(snakemake.input, "decision_run"), snakemake.params.kind,
                                     snakemake.params.rate, snakemake.output))
