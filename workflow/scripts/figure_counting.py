"""Counting in practice: the figure (nbcert.repro.studies.counting)."""

from nbcert.repro.runtime import job
from nbcert.repro.studies.counting.figure import figure
from nbcert.repro.studies.counting.run import load

job.run(snakemake, lambda: figure(load(snakemake.input), snakemake.output))
