# Stage 5: RP, SR and OP on the complete training rows for a single test point per repetition.
rule poison:
    input:
        train="data/splits/{ds}/rep{rep}/train.csv",
        test="data/splits/{ds}/rep{rep}/test.csv",
    output:
        "results/runs/poisoning/{ds}/rep{rep}.csv",
    params:
        label=label,
        seed=S.seed,
    threads: 1
    resources:
        timed=1,
        mem_mb=mem_mb(800, 60),
        runtime=minutes(10, 5),
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
    params:
        schema="poisoning_run",
        expect=lambda w: canonical({f"results/runs/poisoning/{w.ds}/rep{rep}.csv":
                                    {"rows": 3, "equal": {"dataset": w.ds, "rep": rep}} for rep in REPS}),
    log:
        "logs/gather/poisoning_{ds}.log",
    script:
        "../scripts/gather.py"
