# Stage 4: AD, Iterate and Iterate+Index timed on every perturbed table, one job each.
rule decide:
    input:
        clean="data/splits/{ds}/rep{rep}/train.csv",
        dirty="data/perturbed/{ds}/rep{rep}/{kind}_{rate}.csv",
        test="data/splits/{ds}/rep{rep}/test.csv",
    output:
        "results/runs/decision/{ds}/rep{rep}/{kind}_{rate}.csv",
    params:
        label=lambda w: config["datasets"][w.ds]["label"],
        ks=lambda w: ks_for(w.rate),
        ad_worlds=config["ad_worlds"],
        seed=config["seed"],
    threads: 1  # timings are single-threaded, as in the paper
    resources:
        mem_mb=lambda w, input, attempt: attempt * (800 + 60 * input.size_mb),
        runtime=lambda w, input, attempt: attempt * (10 + 10 * int(input.size_mb)),
    benchmark:
        "benchmarks/decide/{ds}/rep{rep}/{kind}_{rate}.tsv"
    log:
        "logs/decide/{ds}/rep{rep}/{kind}_{rate}.log",
    script:
        "../scripts/decide.py"


rule gather_decision:
    input:
        expand("results/runs/decision/{{ds}}/rep{rep}/{kind}_{rate}.csv", rep=REPS, kind=KINDS, rate=RATES),
    output:
        "results/tables/decision_{ds}.csv",
    log:
        "logs/gather/decision_{ds}.log",
    script:
        "../scripts/gather.py"
