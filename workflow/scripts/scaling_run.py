"""Time and measure every method on one synthetic table of n rows, in memory
(nbcert.repro.studies.scaling.run.run_size) or streamed from a file on disk
(nbcert.repro.studies.scaling.streamed.run_streamed)."""

from nbcert.repro.pipeline.settings import ScalingSettings
from nbcert.repro.pipeline.tables import write_table
from nbcert.repro.runtime import job
from nbcert.repro.studies.scaling.run import run_size
from nbcert.repro.studies.scaling.streamed import run_streamed


def main():
    n, cfg = int(snakemake.wildcards.n), ScalingSettings.from_json(snakemake.params.settings)
    run = run_streamed if snakemake.params.streamed else run_size
    write_table(job.stamp(run(n, cfg, snakemake.params.seed)), snakemake.output[0], "scaling_run")


job.run(snakemake, main)
