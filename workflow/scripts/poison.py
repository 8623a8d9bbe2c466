"""Run RP, SR and OP for one repetition (nbcert.repro.stages.poisoning_runs)."""
import sys

from nbcert.encoding import read_csv
from nbcert.repro.stages import poisoning_runs
from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
w, p = snakemake.wildcards, snakemake.params
table = poisoning_runs(read_csv(snakemake.input.train), read_csv(snakemake.input.test), p.label,
                       seed=p.seed, name=w.ds, rep=int(w.rep))
write_csv(table, snakemake.output[0])
