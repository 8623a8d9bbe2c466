"""Time and measure every method on one synthetic table of n rows (nbcert.repro.studies.scaling.run_size)."""
import sys

from nbcert.repro.outputs import write_csv
from nbcert.repro.studies.scaling import run_size

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
table = run_size(int(snakemake.wildcards.n), snakemake.params.cfg, snakemake.params.seed)
write_csv(table, snakemake.output[0])
