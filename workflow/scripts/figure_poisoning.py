"""Figure 10: poisoning time and poisoning rate (nbcert.repro.figures)."""
import sys

from nbcert.repro.figures import load, poisoning

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
poisoning(load(snakemake.input), snakemake.output)
