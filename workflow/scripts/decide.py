"""Time the decision methods on every perturbed table of every repetition (nbcert.repro.stages.decision_runs)."""
from nbcert.repro.runtime import job
from nbcert.repro.pipeline.stages import decision_runs
from nbcert.repro.pipeline.tables import read_data, write_table


def main():
    w, p, i = snakemake.wildcards, snakemake.params, snakemake.input
    dirty_paths, outputs = iter(i.dirty), iter(snakemake.output)  # every repetition's variants, in order
    for rep, clean_path, test_path in zip(p.reps, i.clean, i.test):
        clean = read_data(clean_path, p.label)
        test = read_data(test_path, p.label, columns=clean.columns, complete=True)
        for kind, rate in p.variants:
            started = job.now()
            dirty = read_data(next(dirty_paths), p.label, columns=clean.columns, rows=len(clean))
            table = decision_runs(clean, dirty, test, p.label, p.ks[rate], ad_worlds=p.ad_worlds, seed=p.seed,
                                  name=w.ds, rep=int(rep), kind=kind, rate=float(rate))
            write_table(job.stamp(table, started), next(outputs), "decision_run")


job.run(snakemake, main)
