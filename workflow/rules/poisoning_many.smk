# Beyond the paper: poisoning k test points at once (workflow/scripts/studies/poisoning_many),
# one job per data set, one run file per k.


rule poison_many:
    input:
        train="data/splits/{ds}/rep0/train.csv",
        test="data/splits/{ds}/rep0/test.csv",
    output:
        each(EACH_K, POISONING_MANY_RUN),
    log:
        "logs/poison_many/{ds}.log",
        benchmark="logs/benchmarks/poison_many/{ds}.tsv",
    conda:
        "../envs/pipeline.yaml"
    threads: 1
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(1000, 100),
        # minutes: for each k, five and one per 10 s of the solver's time limit
        runtime=per_attempt(len(B.poison_many.k_values) * (5 + int(B.poison_many.time_limit) // 10)),
    params:
        label=label,
        settings=canonical(B.poison_many),
        records=records(EACH_K, output=POISONING_MANY_RUN),
    script:
        "../scripts/studies/poisoning_many/run.py"


rule gather_poisoning_many:
    input:
        obtained(POISONING_MANY_RUN, k=B.poison_many.k_values),
    output:
        "results/tables/poisoning_many.csv",
    log:
        "logs/gather/poisoning_many.log",
        benchmark="logs/benchmarks/gather/poisoning_many.tsv",
    conda:
        "../envs/pipeline.yaml"
    params:
        schema="poisoning_many_run",
        expect=poisoning_many_expected,
    script:
        "../scripts/gather.py"


rule figure_poisoning_many:
    input:
        "results/tables/poisoning_many.csv",
    output:
        pdf="results/figures/poisoning_many.pdf",
        png=report(
            "results/figures/poisoning_many.png",
            caption="../report/beyond.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/figures/poisoning_many.log",
        benchmark="logs/benchmarks/figures/poisoning_many.tsv",
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/studies/poisoning_many/figure.py"
