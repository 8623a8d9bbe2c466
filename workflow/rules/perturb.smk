# Stage 3: per data set, every repetition's test points drawn from the complete rows; per
# repetition, the rest perturbed at every missing rate (common.draws).  One job per data set
# writes all of its small files: a job's start-up (Python, pandas) costs more than its work.
rule split:
    input:
        "data/discretized/{ds}.csv",
    output:
        each(EACH_REP, TRAIN) + each(EACH_REP, TEST),
    log:
        "logs/split/{ds}.log",
        benchmark="logs/benchmarks/split/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=per_attempt(500, 40),
        runtime=per_attempt(5, 1),
    params:
        label=label,
        points=POINTS_MAX,
        seed=S.seed,
        records=records(EACH_REP, train=TRAIN, test=TEST),
    script:
        "../scripts/split.py"


rule perturb:
    input:
        each(EACH_REP, TRAIN),
    output:
        each(EACH_VARIANT, PERTURBED),
    log:
        "logs/perturb/{ds}.log",
        benchmark="logs/benchmarks/perturb/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=per_attempt(500, 40),
        runtime=per_attempt(5, 8),
    params:
        label=label,
        seed=S.seed,
        feature_share=S.feature_share,
        records=records(EACH_VARIANT, train=TRAIN, output=PERTURBED),
    script:
        "../scripts/perturb.py"
