# Stage 5: RP, SR and OP on the complete table for a single test point per repetition.
rule poison:
    input:
        train="data/splits/{ds}/rep{rep}/train.csv",
        test="data/splits/{ds}/rep{rep}/test.csv",
    output:
        "results/runs/poisoning/{ds}/rep{rep}.csv",
    params:
        label=lambda w: config["datasets"][w.ds]["label"],
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=lambda w, input, attempt: attempt * (800 + 60 * input.size_mb),
        runtime=lambda w, input, attempt: attempt * (10 + 5 * int(input.size_mb)),
    benchmark:
        "benchmarks/poison/{ds}/rep{rep}.tsv"
    log:
        "logs/poison/{ds}/rep{rep}.log",
    script:
        "../scripts/poison.py"


rule gather_poisoning:
    input:
        expand("results/runs/poisoning/{{ds}}/rep{rep}.csv", rep=REPS),
    output:
        "results/tables/poisoning_{ds}.csv",
    log:
        "logs/gather/poisoning_{ds}.log",
    script:
        "../scripts/gather.py"
