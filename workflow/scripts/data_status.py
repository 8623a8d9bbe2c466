"""Stop at once, in one line, when no data set could be obtained; else list what was
(nbcert.repro.pipeline.fetch.require_one)."""

import json

from nbcert.repro.pipeline.fetch import require_one
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_text


def main():
    statuses = require_one([json.load(open(f)) for f in snakemake.input])
    write_text(json.dumps(statuses, indent=1) + "\n", snakemake.output[0])


job.run(snakemake, main)
