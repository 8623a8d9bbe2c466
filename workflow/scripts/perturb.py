"""Blank cells of every repetition's training table at every variant (common.draws.perturbed): one record from the rule per perturbed table."""

from common.draws import perturbed
from common.job import run_job
from common.outputs import write_csv
from common.tables import read_data


def main(snakemake):
    p = snakemake.params
    loaded = None  # the training table read last, and its path
    for r in p.records:
        if loaded is None or loaded[0] != r["train"]:
            loaded = r["train"], read_data(r["train"], p.label)
        train = loaded[1]
        out = perturbed(
            train,
            p.label,
            r["perturbation"],
            float(r["rate"]),
            p.seed,
            r["ds"],
            int(r["rep"]),
            p.feature_share,
        )
        blanked = int(out.isna().sum().sum() - train.isna().sum().sum())
        print(f"rep {r['rep']} {r['perturbation']} {r['rate']}: blanked {blanked} cells")
        write_csv(out, r["output"])


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
