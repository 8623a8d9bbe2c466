"""Draw the repetition's test points from the complete rows (nbcert.repro.stages.split)."""
from nbcert.repro import job
from nbcert.repro.outputs import write_csv
from nbcert.repro.stages import split
from nbcert.repro.tables import read_data


def main():
    p, w = snakemake.params, snakemake.wildcards
    df = read_data(snakemake.input[0], p.label)
    train, test = split(df, p.k, p.seed, w.ds, int(w.rep))
    print(f"{len(train)} training rows, {len(test)} test points")
    write_csv(train, snakemake.output.train)
    write_csv(test, snakemake.output.test)


job.run(snakemake, main)
