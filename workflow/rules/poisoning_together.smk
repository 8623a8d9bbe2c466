# Beyond the paper: poisoning several test points together (workflow/scripts/studies/poisoning_together),
# one job per data set, one run file per number of test points.


rule run_poisoning_together:
    input:
        train="data/splits/{ds}/rep0/train.csv",
        test="data/splits/{ds}/rep0/test.csv",
    output:
        each(EACH_POINTS, POISONING_TOGETHER_RUN),
    log:
        "logs/run_poisoning_together/{ds}.log",
        benchmark="logs/benchmarks/run_poisoning_together/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(1000, 100),
        # minutes: for each number of test points, five and one per 10 s of the solver's time limit
        runtime=per_attempt(
            len(B.poison_together.points) * (5 + int(B.poison_together.time_limit) // 10)
        ),
    params:
        label=label,
        settings=canonical(B.poison_together),
        records=records(EACH_POINTS, output=POISONING_TOGETHER_RUN),
    script:
        "../scripts/studies/poisoning_together/run.py"


rule gather_poisoning_together:
    input:
        obtained(POISONING_TOGETHER_RUN, points=B.poison_together.points),
    output:
        "results/tables/poisoning_together.csv",
    log:
        "logs/gather/poisoning_together.log",
        benchmark="logs/benchmarks/gather/poisoning_together.tsv",
    conda:
        "../../environment.yml"
    params:
        schema="poisoning_together_run",
        expect=poisoning_together_expected,
    script:
        "../scripts/gather.py"


rule draw_poisoning_together:
    input:
        "results/tables/poisoning_together.csv",
    output:
        pdf="results/figures/poisoning_together.pdf",
        png=report(
            "results/figures/poisoning_together.png",
            caption="../report/beyond.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/draw/poisoning_together.log",
        benchmark="logs/benchmarks/draw/poisoning_together.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/studies/poisoning_together/figure.py"
