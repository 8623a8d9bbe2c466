"""One study beyond the paper on one data set: counting or cleaning (nbcert.repro.studies)."""

from nbcert.repro.pipeline.settings import CleaningSettings, CountingSettings
from nbcert.repro.pipeline.tables import read_data, write_table
from nbcert.repro.runtime import job
from nbcert.repro.studies.cleaning import run as cleaning
from nbcert.repro.studies.counting import run as counting

STUDIES = {
    "counting": (counting.run, CountingSettings),
    "cleaning": (cleaning.run, CleaningSettings),
}


def main():
    p = snakemake.params
    run, settings = STUDIES[p.study]
    df = read_data(snakemake.input[0], p.label)
    table = run(df, p.label, snakemake.wildcards.ds, p.seed, settings.from_json(p.settings))
    write_table(job.stamp(table), snakemake.output[0], p.study)


job.run(snakemake, main)
