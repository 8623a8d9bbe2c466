"""Poison the first k test points at once, for every k
(nbcert.repro.studies.poisoning_many.run): one record from the rule per k."""

from nbcert.repro.pipeline.settings import PoisonManySettings
from nbcert.repro.pipeline.tables import read_data, write_table
from nbcert.repro.runtime import job
from nbcert.repro.studies.poisoning_many.run import run


def main():
    p, i = snakemake.params, snakemake.input
    settings = PoisonManySettings.from_json(p.settings)
    train = read_data(i.train, p.label)
    test = read_data(i.test, p.label, columns=train.columns, complete=True)
    for r in p.records:
        started = job.now()
        table = run(train, test, p.label, int(r["k"]), settings, name=r["ds"])
        write_table(job.stamp(table, started), r["output"], "poisoning_many_run")


job.run(snakemake, main)
