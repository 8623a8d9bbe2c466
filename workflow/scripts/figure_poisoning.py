"""Figure 10: poisoning time and poisoning rate (nbcert.repro.figures)."""
from nbcert.repro import job
from nbcert.repro.figures import poisoning
from nbcert.repro.tables import read_tables

job.run(snakemake, lambda: poisoning(read_tables(snakemake.input, "poisoning_run"), snakemake.output))
