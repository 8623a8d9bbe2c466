"""Figures 6/7: decision time vs missing rate (nbcert.repro.figures)."""
from nbcert.repro import job
from nbcert.repro.figures import time_vs_rate
from nbcert.repro.tables import read_tables

job.run(snakemake, lambda: time_vs_rate(read_tables(snakemake.input, "decision_run"), snakemake.params.kind,
                                        snakemake.params.k, snakemake.output))
