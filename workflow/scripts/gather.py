"""Check every per-job table (schema, row count, what its file name promises), then join them."""

import json

import pandas as pd

from nbcert.repro.pipeline.tables import read_table, write_table
from nbcert.repro.runtime import job


def main():
    p = snakemake.params
    expect = json.loads(p.expect)
    frames = [
        read_table(path, p.schema, rows=expect[path]["rows"], equal=expect[path]["equal"])
        for path in snakemake.input
    ]
    write_table(pd.concat(frames, ignore_index=True), snakemake.output[0], p.schema)


job.run(snakemake, main)
