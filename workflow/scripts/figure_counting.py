"""Counting in practice: the figure (nbcert.repro.studies.counting)."""
from nbcert.repro import job
from nbcert.repro.studies.counting import figure, load

job.run(snakemake, lambda: figure(load(snakemake.input), snakemake.output))
