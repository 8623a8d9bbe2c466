"""Check every per-job table (schema, row count, what its file name promises), then join them."""

import json

import pandas as pd
from common.job import run_job
from common.tables import read_table, write_table


def main(snakemake):
    p = snakemake.params
    expect = json.loads(p.expect)
    frames = [
        read_table(path, p.schema, rows=expect[path]["rows"], equal=expect[path]["equal"])
        for path in snakemake.input
    ]
    write_table(pd.concat(frames, ignore_index=True), snakemake.output[0], p.schema)


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
