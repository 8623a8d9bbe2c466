# The workarounds for Snakemake's own behaviour that act while the workflow is parsed
# (nbcert.repro.runtime, where each names the Snakemake version it was written against and
# tests/test_runtime.py and test_scheduler.py say when it can go).  The third, jobs writing
# their own benchmark files, is each rule's `log: benchmark=...` (nbcert.repro.runtime.job).
import os

from nbcert.repro.runtime.scheduler import one_wakeup

# Snakemake 9's scheduler arms one more wake-up timer per pass of its loop, so its own CPU
# grows with the square of the run; keep one pending (nbcert.repro.runtime.scheduler).
one_wakeup()

# Jobs check that this process is still among their ancestors (nbcert.repro.runtime.parent):
# after a kill -9 of Snakemake none keeps running or writes its outputs later.
os.environ["NBCERT_SNAKEMAKE_PID"] = str(os.getpid())
