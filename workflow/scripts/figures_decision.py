"""Figures 6/7 (decision time vs missing rate) and 8/9 (vs number of test points), uniform
and feature perturbation, from the decision tables (nbcert.repro.figures)."""
from types import SimpleNamespace

from nbcert.repro.runtime import job
from nbcert.repro.pipeline.figures import time_vs_k, time_vs_rate
from nbcert.repro.pipeline.tables import read_tables


def main():
    p, out = snakemake.params, snakemake.output
    table = read_tables(snakemake.input, "decision_run")
    for (against, kind), pdf, png in zip(p.panels, out.pdf, out.png):  # DECISION_FIGURES in figures.smk
        figure = SimpleNamespace(pdf=pdf, png=png)
        if against == "missing_rate":
            time_vs_rate(table, kind, p.k, figure)
        else:
            time_vs_k(table, kind, p.rate, figure)


job.run(snakemake, main)
