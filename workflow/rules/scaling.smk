# Beyond the paper: time and memory of every decision, counting and poisoning method vs n
# on synthetic tables with planted Naive Bayes structure (nbcert.repro.studies.scaling),
# one job per n.  It needs no data set, but waits for the data check so that a run which
# cannot reproduce anything stops before spending minutes here.
rule scaling_run:
    input:
        "results/data_status.json",
    output:
        "results/runs/scaling/n{n}.csv",
    wildcard_constraints:
        n=r"\d+",
    params:
        settings=canonical(S.scaling),
        seed=S.seed,
    threads: 1  # timings are single-threaded
    resources:
        timed=1,
        # nbcert.repro.studies.scaling.job_mem_mb: 300 MB + 48 bytes per cell (the table, 8, plus RP's 40)
        # (a streamed size holds one record batch: 2 GB)
        mem_mb=lambda w, attempt: attempt * (2000 if int(w.n) in S.scaling.stream_n_values else
                                             400 + int(w.n) * S.scaling.d * 48 // 10**6),
        # about 1.5 us per cell measured (AD on one point at the largest n included), doubled
        runtime=lambda w, attempt: attempt * (10 + int(w.n) * S.scaling.d // 10**7),
    benchmark:
        "benchmarks/scaling/n{n}.tsv"
    log:
        "logs/scaling/n{n}.log",
    script:
        "../scripts/scaling_run.py"


rule gather_scaling:
    input:
        expand("results/runs/scaling/n{n}.csv", n=S.scaling.sizes),
    output:
        "results/tables/scaling.csv",
    params:
        schema="scaling_run",
        expect=canonical({f"results/runs/scaling/n{n}.csv": {"rows": None, "equal": {"n": n}}
                          for n in S.scaling.sizes}),
    benchmark:
        "benchmarks/gather/scaling.tsv"
    log:
        "logs/gather/scaling.log",
    script:
        "../scripts/gather.py"


rule figure_scaling:
    input:
        "results/tables/scaling.csv",
    output:
        pdf="results/figures/scaling.pdf",
        png=report("results/figures/scaling.png", caption="../report/beyond.rst", category="Beyond the paper"),
    benchmark:
        "benchmarks/figures/scaling.tsv"
    log:
        "logs/figures/scaling.log",
    script:
        "../scripts/figure_scaling.py"
