"""Blank cells of every repetition's training table at every variant (nbcert.repro.stages.perturbed)."""
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_csv
from nbcert.repro.pipeline.stages import perturbed
from nbcert.repro.pipeline.tables import read_data


def main():
    w, p = snakemake.wildcards, snakemake.params
    outputs = iter(snakemake.output)  # every repetition's variants, in its order
    for rep, train_path in zip(p.reps, snakemake.input):
        train = read_data(train_path, p.label)
        for kind, rate in p.variants:
            out = perturbed(train, p.label, kind, float(rate), p.seed, w.ds, int(rep), p.feature_share)
            print(f"rep {rep} {kind} {rate}: blanked {int(out.isna().sum().sum() - train.isna().sum().sum())} cells")
            write_csv(out, next(outputs))


job.run(snakemake, main)
