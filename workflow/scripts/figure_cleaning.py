"""Which cells to clean: the figure (nbcert.repro.studies.cleaning)."""

from nbcert.repro.pipeline.tables import read_tables
from nbcert.repro.runtime import job
from nbcert.repro.studies.cleaning.figure import figure

job.run(snakemake, lambda: figure(read_tables(snakemake.input, "cleaning"), snakemake.output))
