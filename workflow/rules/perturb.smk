# Stage 3: per repetition, k test points drawn from the complete rows, then the rest
# perturbed at each missing rate (nbcert.repro.stages).
rule split:
    input:
        "data/discretized/{ds}.csv",
    output:
        train="data/splits/{ds}/rep{rep}/train.csv",
        test="data/splits/{ds}/rep{rep}/test.csv",
    params:
        label=label,
        k=S.k_max,
        seed=S.seed,
    threads: 1
    resources:
        mem_mb=mem_mb(500, 40),
        runtime=minutes(5, 1),
    benchmark:
        "benchmarks/split/{ds}/rep{rep}.tsv"
    log:
        "logs/split/{ds}/rep{rep}.log",
    script:
        "../scripts/split.py"


rule perturb:
    input:
        "data/splits/{ds}/rep{rep}/train.csv",
    output:
        "data/perturbed/{ds}/rep{rep}/{kind}_{rate}.csv",
    params:
        label=label,
        seed=S.seed,
        feature_share=S.feature_share,
    threads: 1
    resources:
        mem_mb=mem_mb(500, 40),
        runtime=minutes(5, 1),
    benchmark:
        "benchmarks/perturb/{ds}/rep{rep}/{kind}_{rate}.tsv"
    log:
        "logs/perturb/{ds}/rep{rep}/{kind}_{rate}.log",
    script:
        "../scripts/perturb.py"
