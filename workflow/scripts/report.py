"""results/report.md, or results/paper.md without the studies, from this run's checked tables (nbcert.repro.report)."""

import json
from pathlib import Path

from nbcert.repro.pipeline.provenance import describe
from nbcert.repro.pipeline.tables import read_table, read_tables
from nbcert.repro.report import ReportInputs, render
from nbcert.repro.report.timing import stage_times
from nbcert.repro.runtime import job
from nbcert.repro.runtime.outputs import write_text


def beyond(i) -> dict:
    """The studies' tables, where this report has them."""
    if "beyond_figures" not in i.keys():
        return {}
    from nbcert.repro.studies.counting.run import load as load_counting

    return dict(
        poisoning_many=read_table(i.poisoning_many, "poisoning_many_run"),
        counting=load_counting(i.counting),
        scaling=read_table(i.scaling, "scaling_run"),
        cleaning=read_tables(i.cleaning, "cleaning"),
        beyond_figures={Path(f).stem: f for f in i.beyond_figures},
    )


def main():
    i, p = snakemake.input, snakemake.params
    inputs = ReportInputs(
        settings=json.loads(p.settings),
        sources=list(p.sources),
        statuses=json.loads(Path(i.status).read_text()),
        infos=[json.loads(Path(f).read_text()) for f in i.info],
        decision=read_tables(i.decision, "decision_run"),
        poisoning=read_tables(i.poisoning, "poisoning_run"),
        figures=list(i.figures),
        timings=stage_times(i.timings),
        provenance=describe(snakemake.scriptdir),
        stale=list(p.stale),
        **beyond(i),
    )
    write_text(render(inputs), snakemake.output[0])


job.run(snakemake, main)
