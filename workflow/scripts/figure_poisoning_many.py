"""Figure for many-point poisoning (nbcert.repro.studies.poisoning_many.figure)."""

from nbcert.repro.pipeline.tables import read_table
from nbcert.repro.runtime import job
from nbcert.repro.studies.poisoning_many.figure import figure

job.run(
    snakemake,
    lambda: figure(read_table(snakemake.input[0], "poisoning_many_run"), snakemake.output),
)
