# Beyond the paper: counting possible worlds on the real data sets - Algorithm 2 vs the
# per-label exact method vs Monte-Carlo (studies.counting).
rule run_counting:
    input:
        "data/discretized/{ds}.csv",
    output:
        "results/tables/counting_{ds}.csv",
    log:
        "logs/run_counting/{ds}.log",
        benchmark="logs/benchmarks/run_counting/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1  # timings are single-threaded
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(1000, 20),
        runtime=per_attempt(15),
    params:
        label=label,
        seed=S.seed,
        settings=canonical(B.counting),
    script:
        "../scripts/studies/counting/run.py"


rule draw_counting:
    input:
        obtained("results/tables/counting_{ds}.csv"),
    output:
        pdf="results/figures/counting.pdf",
        png=report(
            "results/figures/counting.png",
            caption="../report/beyond.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/draw/counting.log",
        benchmark="logs/benchmarks/draw/counting.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/studies/counting/figure.py"
