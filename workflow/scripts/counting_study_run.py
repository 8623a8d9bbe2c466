"""Counting in practice on one data set (nbcert.repro.studies.counting.run)."""
from nbcert.repro import job
from nbcert.repro.settings import CountingSettings
from nbcert.repro.studies.counting import run
from nbcert.repro.tables import read_data, write_table


def main():
    p = snakemake.params
    df = read_data(snakemake.input[0], p.label)
    table = run(df, p.label, snakemake.wildcards.ds, p.seed, CountingSettings.from_json(p.settings))
    write_table(job.stamp(table), snakemake.output[0], "counting")


job.run(snakemake, main)
