# Beyond the paper: which cells to clean until every test point is certified - random order,
# a CPClean-style policy, nbcert's policy and the minimum with the truth with the truth
# (studies.cleaning), one job per data set.
rule run_cleaning:
    input:
        "data/discretized/{ds}.csv",
    output:
        "results/tables/cleaning_{ds}.csv",
    log:
        "logs/run_cleaning/{ds}.log",
        benchmark="logs/benchmarks/run_cleaning/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1  # timings are single-threaded
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(1500, 100),
        runtime=per_attempt(60),
    params:
        label=label,
        seed=S.seed,
        settings=canonical(B.cleaning),
    script:
        "../scripts/studies/cleaning/run.py"


rule draw_cleaning:
    input:
        obtained("results/tables/cleaning_{ds}.csv"),
    output:
        pdf="results/figures/cleaning.pdf",
        png=report(
            "results/figures/cleaning.png",
            caption="../report/beyond.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/draw/cleaning.log",
        benchmark="logs/benchmarks/draw/cleaning.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/studies/cleaning/figure.py"
