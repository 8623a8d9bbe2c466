"""Draw every repetition's test points from the complete rows (nbcert.repro.stages.split)."""
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_csv
from nbcert.repro.pipeline.stages import split
from nbcert.repro.pipeline.tables import read_data


def main():
    p, w = snakemake.params, snakemake.wildcards
    df = read_data(snakemake.input[0], p.label)
    paths = iter(snakemake.output)  # train and test of each repetition, in order
    for rep in p.reps:
        train, test = split(df, p.k, p.seed, w.ds, rep)
        print(f"rep {rep}: {len(train)} training rows, {len(test)} test points")
        write_csv(train, next(paths))
        write_csv(test, next(paths))


job.run(snakemake, main)
