# Beyond the paper: cheaper equivalents of the paper's baselines - AD (counts only), RP and SR
# (incremental) - on the paper's own perturbed tables and test points, with the paper's seeds
# (studies.equivalents), one job per data set.
rule run_equivalents:
    input:
        train=each(EACH_REP, TRAIN),
        test=each(EACH_REP, TEST),
        dirty=each(EACH_VARIANT, PERTURBED),
    output:
        certify="results/tables/equivalents_certify_{ds}.csv",
        poisoning="results/tables/equivalents_poisoning_{ds}.csv",
    log:
        "logs/run_equivalents/{ds}.log",
        benchmark="logs/benchmarks/run_equivalents/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1  # timings are single-threaded
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(800, 10),
        runtime=per_attempt(5 * len(REPS), 10),
    params:
        label=label,
        records=records(EACH_VARIANT, train=TRAIN, test=TEST, dirty=PERTURBED),
        repetitions=records(EACH_REP, train=TRAIN, test=TEST),
        points={rate: points_for(rate) for rate in RATES},
        ad_worlds=S.ad_worlds,
        seed=S.seed,
    script:
        "../scripts/studies/equivalents/run.py"
