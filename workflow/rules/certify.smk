# Stage 4: AD, Iterate and Iterate+Index timed on every perturbed table, one job per data
# set (one run file per table; a job's start-up, scikit-learn's import included, costs
# about as much as a repetition's Iterate and Iterate+Index).  `timed` jobs never run side by side (the
# profiles cap the resource at 1).


rule certify:
    input:
        clean=each(EACH_REP, TRAIN),
        test=each(EACH_REP, TEST),
        dirty=each(EACH_VARIANT, PERTURBED),
    output:
        each(EACH_VARIANT, CERTIFY_RUN),
    log:
        "logs/certify/{ds}.log",
        benchmark="logs/benchmarks/certify/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1  # timings are single-threaded, as in the paper
    resources:
        timed=1,
        node_share=whole_node,
        mem_mb=per_attempt(800, 10),
        runtime=per_attempt(10 * len(REPS), 10),
    params:
        label=label,
        records=records(EACH_VARIANT, train=TRAIN, test=TEST, dirty=PERTURBED, output=CERTIFY_RUN),
        points={rate: points_for(rate) for rate in RATES},
        ad_worlds=S.ad_worlds,
        seed=S.seed,
    script:
        "../scripts/certify.py"


rule gather_certify:
    input:
        each(EACH_VARIANT, CERTIFY_RUN),
    output:
        "results/tables/certify_{ds}.csv",
    log:
        "logs/gather/certify_{ds}.log",
        benchmark="logs/benchmarks/gather/certify_{ds}.tsv",
    conda:
        "../../environment.yml"
    params:
        schema="certify_run",
        expect=certify_expected,
    script:
        "../scripts/gather.py"


# Each perturbed table's decisions written with their evidence and checked by verify.py.
rule verify:
    input:
        test=each(EACH_REP, TEST),
        dirty=each(EACH_VARIANT, PERTURBED),
        runs=each(EACH_VARIANT, CERTIFY_RUN),
    output:
        certificates=each(EACH_VARIANT, CERTIFICATE),
        table="results/tables/certified_{ds}.csv",
    log:
        "logs/verify/{ds}.log",
        benchmark="logs/benchmarks/verify/{ds}.tsv",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=per_attempt(800, 10),
        runtime=per_attempt(10, 2),
    params:
        label=label,
        records=records(
            EACH_VARIANT, test=TEST, dirty=PERTURBED, run=CERTIFY_RUN, certificate=CERTIFICATE
        ),
    script:
        "../scripts/certificates.py"
