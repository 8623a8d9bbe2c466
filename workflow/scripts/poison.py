"""Run RP, SR and OP for every repetition of a data set
(nbcert.repro.pipeline.stages.poisoning_runs): one record from the rule per repetition."""

from nbcert.repro.pipeline.stages import poisoning_runs
from nbcert.repro.pipeline.tables import read_data, write_table
from nbcert.repro.runtime import job


def main():
    p = snakemake.params
    for r in p.records:
        started = job.now()
        train = read_data(r["train"], p.label)
        test = read_data(r["test"], p.label, columns=train.columns, complete=True)
        table = poisoning_runs(train, test, p.label, seed=p.seed, name=r["ds"], rep=r["rep"])
        write_table(job.stamp(table, started), r["output"], "poisoning_run")


job.run(snakemake, main)
