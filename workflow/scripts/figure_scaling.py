"""Scaling: the log-log figure (nbcert.repro.studies.scaling)."""
from nbcert.repro import job
from nbcert.repro.studies.scaling import figure
from nbcert.repro.tables import read_table

job.run(snakemake, lambda: figure(read_table(snakemake.input[0], "scaling_run").sort_values("n", kind="stable"),
                                  snakemake.output))
