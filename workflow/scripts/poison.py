"""Run RP, SR and OP for one repetition (nbcert.repro.stages.poisoning_runs)."""
from nbcert.repro import job
from nbcert.repro.stages import poisoning_runs
from nbcert.repro.tables import read_data, write_table


def main():
    w, p, i = snakemake.wildcards, snakemake.params, snakemake.input
    train = read_data(i.train, p.label)
    test = read_data(i.test, p.label, columns=train.columns, complete=True)
    table = poisoning_runs(train, test, p.label, seed=p.seed, name=w.ds, rep=int(w.rep))
    write_table(job.stamp(table), snakemake.output[0], "poisoning_run")


job.run(snakemake, main)
