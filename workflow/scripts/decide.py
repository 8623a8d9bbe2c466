"""Time the decision methods on every perturbed table of a repetition (nbcert.repro.stages.decision_runs)."""
from nbcert.repro import job
from nbcert.repro.stages import decision_runs
from nbcert.repro.tables import read_data, write_table


def main():
    w, p, i = snakemake.wildcards, snakemake.params, snakemake.input
    clean = read_data(i.clean, p.label)
    test = read_data(i.test, p.label, columns=clean.columns, complete=True)
    for (kind, rate), dirty_path, out in zip(p.variants, i.dirty, snakemake.output):
        started = job.now()
        dirty = read_data(dirty_path, p.label, columns=clean.columns, rows=len(clean))
        table = decision_runs(clean, dirty, test, p.label, p.ks[rate], ad_worlds=p.ad_worlds, seed=p.seed,
                              name=w.ds, rep=int(w.rep), kind=kind, rate=float(rate))
        write_table(job.stamp(table, started), out, "decision_run")


job.run(snakemake, main)
