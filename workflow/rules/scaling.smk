# Beyond the paper: time and memory of every decision, counting and poisoning method vs n
# on synthetic tables with planted Naive Bayes structure (workflow/scripts/studies/scaling),
# one job per n in memory (run n{n}) and one per streamed n (run streamed_n{n}).  They need
# no data set, but wait for the data check so that a run which cannot reproduce anything
# stops before spending minutes here.
rule run_scaling:
    input:
        "results/data_status.json",
    output:
        SCALING_RUN,
    log:
        "logs/run_scaling/{run}.log",
        benchmark="logs/benchmarks/run_scaling/{run}.tsv",
    conda:
        "../../environment.yml"
    threads: 1  # timings are single-threaded
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(scaling_mem_mb),
        runtime=per_attempt(scaling_minutes),
    params:
        settings=canonical(B.scaling),
        seed=S.seed,
    script:
        "../scripts/studies/scaling/run.py"


rule gather_scaling:
    input:
        expand(SCALING_RUN, run=SCALING_RUNS),
    output:
        "results/tables/scaling.csv",
    log:
        "logs/gather/scaling.log",
        benchmark="logs/benchmarks/gather/scaling.tsv",
    conda:
        "../../environment.yml"
    params:
        schema="scaling_run",
        expect=SCALING_EXPECTED,
    script:
        "../scripts/gather.py"


rule draw_scaling:
    input:
        "results/tables/scaling.csv",
    output:
        pdf="results/figures/scaling.pdf",
        png=report(
            "results/figures/scaling.png",
            caption="../report/beyond.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/draw/scaling.log",
        benchmark="logs/benchmarks/draw/scaling.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/studies/scaling/figure.py"
