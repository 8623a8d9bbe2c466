"""Poison the first k test points at once, for every k (nbcert.repro.studies.poisoning_many.run)."""
from nbcert.repro.runtime import job
from nbcert.repro.pipeline.settings import PoisonManySettings
from nbcert.repro.studies.poisoning_many.run import run
from nbcert.repro.pipeline.tables import read_data, write_table


def main():
    w, p, i = snakemake.wildcards, snakemake.params, snakemake.input
    settings = PoisonManySettings.from_json(p.settings)
    train = read_data(i.train, p.label)
    test = read_data(i.test, p.label, columns=train.columns, complete=True)
    for k, out in zip(settings.k_values, snakemake.output):
        started = job.now()
        table = run(train, test, p.label, int(k), settings, name=w.ds)
        write_table(job.stamp(table, started), out, "poisoning_many_run")


job.run(snakemake, main)
