"""Blank cells of every repetition's training table at every variant
(nbcert.repro.pipeline.stages.perturbed): one record from the rule per perturbed table."""

from nbcert.repro.pipeline.stages import perturbed
from nbcert.repro.pipeline.tables import read_data
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_csv


def main():
    p = snakemake.params
    loaded = None  # the training table read last, and its path
    for r in p.records:
        if loaded is None or loaded[0] != r["train"]:
            loaded = r["train"], read_data(r["train"], p.label)
        train = loaded[1]
        out = perturbed(
            train,
            p.label,
            r["kind"],
            float(r["rate"]),
            p.seed,
            r["ds"],
            int(r["rep"]),
            p.feature_share,
        )
        blanked = int(out.isna().sum().sum() - train.isna().sum().sum())
        print(f"rep {r['rep']} {r['kind']} {r['rate']}: blanked {blanked} cells")
        write_csv(out, r["output"])


job.run(snakemake, main)
