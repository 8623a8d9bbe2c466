# Stage 4: AD, Iterate and Iterate+Index timed on every perturbed table, one job each.
# `timed` jobs never run side by side (the profiles cap the resource at 1).
rule decide:
    input:
        clean="data/splits/{ds}/rep{rep}/train.csv",
        dirty="data/perturbed/{ds}/rep{rep}/{kind}_{rate}.csv",
        test="data/splits/{ds}/rep{rep}/test.csv",
    output:
        "results/runs/decision/{ds}/rep{rep}/{kind}_{rate}.csv",
    params:
        label=label,
        ks=lambda w: S.ks_for(w.rate),
        ad_worlds=S.ad_worlds,
        seed=S.seed,
    threads: 1  # timings are single-threaded, as in the paper
    resources:
        timed=1,
        mem_mb=mem_mb(800, 60),
        runtime=minutes(10, 10),
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
    params:
        schema="decision_run",
        expect=lambda w: canonical(decision_runs_expected(w.ds)),
    log:
        "logs/gather/decision_{ds}.log",
    script:
        "../scripts/gather.py"
