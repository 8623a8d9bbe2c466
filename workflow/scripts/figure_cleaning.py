"""Which cells to clean: the figure (nbcert.repro.studies.cleaning)."""
from nbcert.repro import job
from nbcert.repro.studies.cleaning import figure
from nbcert.repro.tables import read_tables

job.run(snakemake, lambda: figure(read_tables(snakemake.input, "cleaning"), snakemake.output))
