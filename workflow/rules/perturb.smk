# Stage 3: per repetition, k test points drawn from the complete data, then the rest
# perturbed at each missing rate (nbcert.repro.stages).
rule split:
    input:
        "data/discretized/{ds}.csv",
    output:
        train="data/splits/{ds}/rep{rep}/train.csv",
        test="data/splits/{ds}/rep{rep}/test.csv",
    params:
        k=K_MAX,
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=lambda w, input, attempt: attempt * (500 + 40 * input.size_mb),
        runtime=lambda w, input, attempt: attempt * (5 + int(input.size_mb)),
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
        label=lambda w: config["datasets"][w.ds]["label"],
        seed=config["seed"],
        feature_share=config["feature_share"],
    threads: 1
    resources:
        mem_mb=lambda w, input, attempt: attempt * (500 + 40 * input.size_mb),
        runtime=lambda w, input, attempt: attempt * (5 + int(input.size_mb)),
    benchmark:
        "benchmarks/perturb/{ds}/rep{rep}/{kind}_{rate}.tsv"
    log:
        "logs/perturb/{ds}/rep{rep}/{kind}_{rate}.log",
    script:
        "../scripts/perturb.py"
