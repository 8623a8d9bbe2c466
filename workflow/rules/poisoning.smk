# Stage 5: RP, SR and OP on the complete training rows for a single test point per
# repetition; one job per data set, one run file per repetition.
def poisoning_expected(wildcards):
    """What each poisoning run of a data set must hold (nbcert.repro.expect)."""
    return canonical({f"results/runs/poisoning/{wildcards.ds}/rep{rep}.csv": expect.poisoning_run(wildcards.ds, rep)
                      for rep in REPS})


rule poison:
    input:
        train=expand("data/splits/{{ds}}/rep{rep}/train.csv", rep=REPS),
        test=expand("data/splits/{{ds}}/rep{rep}/test.csv", rep=REPS),
    output:
        expand("results/runs/poisoning/{{ds}}/rep{rep}.csv", rep=REPS),
    params:
        label=label,
        seed=S.seed,
        reps=REPS,
    threads: 1
    resources:
        timed=1,
        mem_mb=per_attempt(800, 12),
        runtime=per_attempt(10, 5),
    log:
        "logs/poison/{ds}.log",
        benchmark="benchmarks/poison/{ds}.tsv",
    script:
        "../scripts/poison.py"


rule gather_poisoning:
    input:
        expand("results/runs/poisoning/{{ds}}/rep{rep}.csv", rep=REPS),
    output:
        "results/tables/poisoning_{ds}.csv",
    params:
        schema="poisoning_run",
        expect=poisoning_expected,
    log:
        "logs/gather/poisoning_{ds}.log",
        benchmark="benchmarks/gather/poisoning_{ds}.tsv",
    script:
        "../scripts/gather.py"
