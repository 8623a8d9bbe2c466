# Beyond the paper: time and memory of every decision, counting and poisoning method vs n
# on synthetic tables with planted Naive Bayes structure (studies.scaling),
# one job per n in memory and one per streamed n.  They need no data set, but wait for the
# data check so that a run which cannot reproduce anything stops before spending minutes here.
from studies.scaling.memory import job_mem_mb


def scaling_mem_mb(streamed):
    """The memory (MB) of a scaling job at n = {n} rows: the study's own model
    (studies.scaling.memory), the one it checks a size against before running it."""
    return lambda wildcards: job_mem_mb(int(wildcards.n), S.scaling.d, streamed=streamed)


def scaling_minutes(cells_per_minute):
    """The run time (minutes) of a scaling job at n = {n} rows: five, and one per
    ``cells_per_minute`` cells."""
    return lambda wildcards: 5 + int(wildcards.n) * S.scaling.d // cells_per_minute


rule scaling_run:
    input:
        "results/data_status.json",
    output:
        S.scaling.run_file("{n}"),
    wildcard_constraints:
        n=r"\d+",
    params:
        settings=canonical(S.scaling),
        seed=S.seed,
        streamed=False,
    threads: 1  # timings are single-threaded
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(scaling_mem_mb(streamed=False)),
        # about 0.4 us per cell measured, the time budgets of Iterate and AD included, doubled
        runtime=per_attempt(scaling_minutes(75 * 10**6)),
    log:
        "logs/scaling/n{n}.log",
        benchmark="logs/benchmarks/scaling/n{n}.tsv",
    script:
        "../scripts/studies/scaling/run.py"


use rule scaling_run as scaling_stream with:
    output:
        S.scaling.run_file("{n}", streamed=True),
    params:
        settings=canonical(S.scaling),
        seed=S.seed,
        streamed=True,
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(scaling_mem_mb(streamed=True)),
        # writing and reading the file about four times, about 1 us per cell, doubled
        runtime=per_attempt(scaling_minutes(30 * 10**6)),
    log:
        "logs/scaling/streamed_n{n}.log",
        benchmark="logs/benchmarks/scaling/streamed_n{n}.tsv",


rule gather_scaling:
    input:
        S.scaling.run_files,
    output:
        "results/tables/scaling.csv",
    params:
        schema="scaling_run",
        expect=canonical({f: expect.scaling_run(n) for f, n in zip(S.scaling.run_files, S.scaling.sizes)}),
    log:
        "logs/gather/scaling.log",
        benchmark="logs/benchmarks/gather/scaling.tsv",
    script:
        "../scripts/gather.py"


rule figure_scaling:
    input:
        "results/tables/scaling.csv",
    output:
        pdf="results/figures/scaling.pdf",
        png=report("results/figures/scaling.png", caption="../report/beyond.rst", category="Beyond the paper"),
    log:
        "logs/figures/scaling.log",
        benchmark="logs/benchmarks/figures/scaling.tsv",
    script:
        "../scripts/studies/scaling/figure.py"
