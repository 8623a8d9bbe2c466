# Stage 5: RP, SR and OP on the complete training rows for a single test point per
# repetition; one job per data set, one run file per repetition.


rule poison:
    input:
        train=each(EACH_REP, TRAIN),
        test=each(EACH_REP, TEST),
    output:
        each(EACH_REP, POISONING_RUN),
    log:
        "logs/poison/{ds}.log",
        benchmark="logs/benchmarks/poison/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(800, 12),
        runtime=per_attempt(10, 5),
    params:
        label=label,
        seed=S.seed,
        records=records(EACH_REP, train=TRAIN, test=TEST, output=POISONING_RUN),
    script:
        "../scripts/poison.py"


rule gather_poisoning:
    input:
        each(EACH_REP, POISONING_RUN),
    output:
        "results/tables/poisoning_{ds}.csv",
    log:
        "logs/gather/poisoning_{ds}.log",
        benchmark="logs/benchmarks/gather/poisoning_{ds}.tsv",
    conda:
        "../../environment.yml"
    params:
        schema="poisoning_run",
        expect=poisoning_expected,
    script:
        "../scripts/gather.py"
