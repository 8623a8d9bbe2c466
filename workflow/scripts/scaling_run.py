"""Time and measure every method on one synthetic table of n rows (nbcert.repro.studies.scaling.run_size)."""
import json

from nbcert.repro import job
from nbcert.repro.studies.scaling import run_size
from nbcert.repro.tables import write_table


def main():
    p = snakemake.params
    table = run_size(int(snakemake.wildcards.n), json.loads(p.settings), p.seed)
    write_table(job.stamp(table), snakemake.output[0], "scaling_run")


job.run(snakemake, main)
