"""Time the decision methods on every perturbed table of every repetition
(nbcert.repro.pipeline.stages.decision_runs): one record from the rule per table."""

from nbcert.repro.pipeline.stages import decision_runs
from nbcert.repro.pipeline.tables import read_data, write_table
from nbcert.repro.runtime import job


def main():
    p = snakemake.params
    loaded = None  # the (train, test) paths read last, and their tables
    for r in p.records:
        if loaded is None or loaded[0] != (r["train"], r["test"]):
            clean = read_data(r["train"], p.label)
            test = read_data(r["test"], p.label, columns=clean.columns, complete=True)
            loaded = (r["train"], r["test"]), clean, test
        _, clean, test = loaded
        started = job.now()
        dirty = read_data(r["dirty"], p.label, columns=clean.columns, rows=len(clean))
        table = decision_runs(
            clean,
            dirty,
            test,
            p.label,
            p.ks[r["rate"]],
            ad_worlds=p.ad_worlds,
            seed=p.seed,
            name=r["ds"],
            rep=int(r["rep"]),
            kind=r["kind"],
            rate=float(r["rate"]),
        )
        write_table(job.stamp(table, started), r["output"], "decision_run")


job.run(snakemake, main)
