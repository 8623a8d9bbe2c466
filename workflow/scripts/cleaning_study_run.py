"""Which cells to clean, on one data set (nbcert.repro.studies.cleaning.run)."""
from nbcert.repro import job
from nbcert.repro.settings import CleaningSettings
from nbcert.repro.studies.cleaning import run
from nbcert.repro.tables import read_data, write_table


def main():
    p = snakemake.params
    df = read_data(snakemake.input[0], p.label)
    table = run(df, p.label, snakemake.wildcards.ds, p.seed, CleaningSettings.from_json(p.settings))
    write_table(job.stamp(table), snakemake.output[0], "cleaning")


job.run(snakemake, main)
