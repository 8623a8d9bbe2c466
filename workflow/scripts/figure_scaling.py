"""Scaling: the log-log figure (nbcert.repro.studies.scaling)."""

from nbcert.repro.pipeline.tables import read_table
from nbcert.repro.runtime import job
from nbcert.repro.studies.scaling.figure import figure

job.run(
    snakemake,
    lambda: figure(
        read_table(snakemake.input[0], "scaling_run").sort_values("n", kind="stable"),
        snakemake.output,
    ),
)
