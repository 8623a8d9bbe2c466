"""Blank cells of a repetition's training table at every variant (nbcert.repro.stages.perturbed)."""
from nbcert.repro import job
from nbcert.repro.outputs import write_csv
from nbcert.repro.stages import perturbed
from nbcert.repro.tables import read_data


def main():
    w, p = snakemake.wildcards, snakemake.params
    train = read_data(snakemake.input[0], p.label)
    for (kind, rate), path in zip(p.variants, snakemake.output):
        out = perturbed(train, p.label, kind, float(rate), p.seed, w.ds, int(w.rep), p.feature_share)
        print(f"{kind} {rate}: blanked {int(out.isna().sum().sum() - train.isna().sum().sum())} cells")
        write_csv(out, path)


job.run(snakemake, main)
