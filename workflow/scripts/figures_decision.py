"""Figures 6/7 (decision time vs missing rate) and 8/9 (vs number of test points), uniform
and feature perturbation, from the decision tables (nbcert.repro.pipeline.figures): one
record from the rule per figure."""

from types import SimpleNamespace

from nbcert.repro.pipeline.figures import time_vs_k, time_vs_rate
from nbcert.repro.pipeline.tables import read_tables
from nbcert.repro.runtime import job


def main():
    p = snakemake.params
    table = read_tables(snakemake.input, "decision_run")
    for r in p.records:
        figure = SimpleNamespace(pdf=r["pdf"], png=r["png"])
        if r["against"] == "missing_rate":
            time_vs_rate(table, r["kind"], p.k, figure)
        else:
            time_vs_k(table, r["kind"], p.rate, figure)


job.run(snakemake, main)
