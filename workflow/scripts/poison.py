"""Run RP, SR and OP for every repetition of a data set (nbcert.repro.stages.poisoning_runs)."""
from nbcert.repro.runtime import job
from nbcert.repro.pipeline.stages import poisoning_runs
from nbcert.repro.pipeline.tables import read_data, write_table


def main():
    w, p, i = snakemake.wildcards, snakemake.params, snakemake.input
    for rep, train_path, test_path, out in zip(p.reps, i.train, i.test, snakemake.output):
        started = job.now()
        train = read_data(train_path, p.label)
        test = read_data(test_path, p.label, columns=train.columns, complete=True)
        table = poisoning_runs(train, test, p.label, seed=p.seed, name=w.ds, rep=rep)
        write_table(job.stamp(table, started), out, "poisoning_run")


job.run(snakemake, main)
