# Stage 4: AD, Iterate and Iterate+Index timed on every perturbed table, one job per data
# set (one run file per table; a job's start-up, scikit-learn's import included, costs
# about as much as a repetition's Iterate and Iterate+Index).  `timed` jobs never run side by side (the
# profiles cap the resource at 1).
def decision_expected(wildcards):
    """What each decision run of a data set must hold (nbcert.repro.expect)."""
    ds = wildcards.ds
    return canonical({f"results/runs/decision/{ds}/rep{rep}/{kind}_{rate}.csv":
                      expect.decision_run(ds, rep, kind, rate, S.ks_for(rate))
                      for rep in REPS for kind, rate in VARIANTS})


rule decide:
    input:
        clean=expand("data/splits/{{ds}}/rep{rep}/train.csv", rep=REPS),
        test=expand("data/splits/{{ds}}/rep{rep}/test.csv", rep=REPS),
        dirty=expand("data/perturbed/{{ds}}/rep{rep}/{kind}_{rate}.csv", rep=REPS, kind=KINDS, rate=RATES),
    output:
        expand("results/runs/decision/{{ds}}/rep{rep}/{kind}_{rate}.csv", rep=REPS, kind=KINDS, rate=RATES),
    params:
        label=label,
        reps=REPS,
        variants=VARIANTS,
        ks={rate: S.ks_for(rate) for rate in RATES},
        ad_worlds=S.ad_worlds,
        seed=S.seed,
    threads: 1  # timings are single-threaded, as in the paper
    resources:
        timed=1,
        mem_mb=per_attempt(800, 10),
        runtime=per_attempt(10 * len(REPS), 10),
    log:
        "logs/decide/{ds}.log",
        benchmark="benchmarks/decide/{ds}.tsv",
    script:
        "../scripts/decide.py"


rule gather_decision:
    input:
        expand("results/runs/decision/{{ds}}/rep{rep}/{kind}_{rate}.csv", rep=REPS, kind=KINDS, rate=RATES),
    output:
        "results/tables/decision_{ds}.csv",
    params:
        schema="decision_run",
        expect=decision_expected,
    log:
        "logs/gather/decision_{ds}.log",
        benchmark="benchmarks/gather/decision_{ds}.tsv",
    script:
        "../scripts/gather.py"
