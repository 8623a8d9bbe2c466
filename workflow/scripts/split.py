"""Draw every repetition's test points from the complete rows
(nbcert.repro.pipeline.stages.split): one record from the rule per repetition."""

from nbcert.repro.pipeline.stages import split
from nbcert.repro.pipeline.tables import read_data
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_csv


def main():
    p = snakemake.params
    df = read_data(snakemake.input[0], p.label)
    for r in p.records:
        train, test = split(df, p.k, p.seed, r["ds"], r["rep"])
        print(f"rep {r['rep']}: {len(train)} training rows, {len(test)} test points")
        write_csv(train, r["train"])
        write_csv(test, r["test"])


job.run(snakemake, main)
