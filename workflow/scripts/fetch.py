"""Fetch one data set's raw file and record the outcome in status.json
(nbcert.repro.pipeline.fetch.fetch_into)."""

import json
from pathlib import Path

from nbcert.repro.pipeline.fetch import Source, fetch_into
from nbcert.repro.runtime import job


def main():
    p = snakemake.params
    options = json.loads(p.options)
    src = Source(name=snakemake.wildcards.ds, **json.loads(p.source))
    mirror = Path(options["mirror"]) if options["mirror"] else None
    fetch_into(src, mirror, Path(snakemake.output[0]), options["on_unavailable"])


job.run(snakemake, main)
