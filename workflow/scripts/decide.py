"""Time the decision methods on one perturbed table (nbcert.repro.stages.decision_runs)."""
from nbcert.repro import job
from nbcert.repro.stages import decision_runs
from nbcert.repro.tables import read_data, write_table


def main():
    w, p, i = snakemake.wildcards, snakemake.params, snakemake.input
    clean = read_data(i.clean, p.label)
    dirty = read_data(i.dirty, p.label, columns=clean.columns, rows=len(clean))
    test = read_data(i.test, p.label, columns=clean.columns, complete=True)
    table = decision_runs(clean, dirty, test, p.label, p.ks, ad_worlds=p.ad_worlds, seed=p.seed, name=w.ds,
                          rep=int(w.rep), kind=w.kind, rate=float(w.rate))
    write_table(job.stamp(table), snakemake.output[0], "decision_run")


job.run(snakemake, main)
