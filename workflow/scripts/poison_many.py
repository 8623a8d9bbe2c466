"""Poison the first k test points at once (nbcert.repro.studies.poisoning_many.run)."""
import sys

from nbcert.encoding import read_csv
from nbcert.repro.outputs import write_csv
from nbcert.repro.studies.poisoning_many import run

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
w, p = snakemake.wildcards, snakemake.params
table = run(read_csv(snakemake.input.train), read_csv(snakemake.input.test), p.label, int(w.k),
            time_limit=p.time_limit, name=w.ds)
write_csv(table, snakemake.output[0])
