"""Time and measure every method on one synthetic table of n rows (nbcert.repro.studies.scaling.run_size)."""
import sys

from nbcert.repro.outputs import write_csv
from nbcert.repro.studies.scaling import run_size, run_streamed

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
n, cfg = int(snakemake.wildcards.n), snakemake.params.cfg
run = run_streamed if n in cfg.get("stream_n_values", []) else run_size  # beyond memory: files on disk
table = run(n, cfg, snakemake.params.seed)
write_csv(table, snakemake.output[0])
