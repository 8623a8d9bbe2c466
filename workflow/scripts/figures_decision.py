"""Figures 6/7 (decision time vs missing rate) and 8/9 (vs number of test points), uniform
and feature perturbation, from the decision tables (nbcert.repro.figures)."""
from types import SimpleNamespace

from nbcert.repro import job
from nbcert.repro.figures import time_vs_k, time_vs_rate
from nbcert.repro.tables import read_tables


def main():
    p, out = snakemake.params, snakemake.output
    table = read_tables(snakemake.input, "decision_run")
    figure = [SimpleNamespace(pdf=pdf, png=png) for pdf, png in zip(out.pdf, out.png)]  # 6, 7, 8, 9
    time_vs_rate(table, "uniform", p.k, figure[0])
    time_vs_rate(table, "feature", p.k, figure[1])
    time_vs_k(table, "uniform", p.rate, figure[2])
    time_vs_k(table, "feature", p.rate, figure[3])


job.run(snakemake, main)
