"""Draw every repetition's test points from the complete rows
(common.draws.split): one record from the rule per repetition."""

from common.draws import split
from common.job import run_job
from common.outputs import write_csv
from common.tables import read_data


def main(snakemake):
    p = snakemake.params
    df = read_data(snakemake.input[0], p.label)
    for r in p.records:
        train, test = split(df, p.points, p.seed, r["ds"], r["rep"])
        print(f"rep {r['rep']}: {len(train)} training rows, {len(test)} test points")
        write_csv(train, r["train"])
        write_csv(test, r["test"])


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
