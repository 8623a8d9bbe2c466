"""Blank cells of a training table (nbcert.repro.stages.perturbed)."""
from nbcert.repro import job
from nbcert.repro.outputs import write_csv
from nbcert.repro.stages import perturbed
from nbcert.repro.tables import read_data


def main():
    w, p = snakemake.wildcards, snakemake.params
    train = read_data(snakemake.input[0], p.label)
    out = perturbed(train, p.label, w.kind, float(w.rate), p.seed, w.ds, int(w.rep), p.feature_share)
    print(f"blanked {int(out.isna().sum().sum() - train.isna().sum().sum())} cells")
    write_csv(out, snakemake.output[0])


job.run(snakemake, main)
