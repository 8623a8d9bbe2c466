"""Time the decision methods on one perturbed table (nbcert.repro.stages.decision_runs)."""
import sys

from nbcert.encoding import read_csv
from nbcert.repro.stages import decision_runs
from nbcert.repro.outputs import write_csv

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
w, p = snakemake.wildcards, snakemake.params
table = decision_runs(read_csv(snakemake.input.clean), read_csv(snakemake.input.dirty), read_csv(snakemake.input.test),
                      p.label, p.ks, ad_worlds=p.ad_worlds, seed=p.seed, name=w.ds, rep=int(w.rep),
                      kind=w.kind, rate=float(w.rate))
write_csv(table, snakemake.output[0])
