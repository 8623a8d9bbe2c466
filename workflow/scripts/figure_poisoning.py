"""Figure 10: poisoning time and poisoning rate (nbcert.repro.pipeline.figures)."""

from nbcert.repro.pipeline.figures import poisoning
from nbcert.repro.pipeline.tables import read_tables
from nbcert.repro.runtime import job

job.run(
    snakemake, lambda: poisoning(read_tables(snakemake.input, "poisoning_run"), snakemake.output)
)
