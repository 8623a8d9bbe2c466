# Beyond the paper: time and memory of every decision, counting and poisoning method vs n
# on synthetic tables with planted Naive Bayes structure (nbcert.repro.studies.scaling), one job per n.
SCALING = config["beyond"]["scaling"]


rule scaling_run:
    output:
        "results/tables/scaling/n{n}.csv",
    wildcard_constraints:
        n=r"\d+",
    params:
        cfg=SCALING,
        seed=config["seed"],
    threads: 1  # timings are single-threaded
    resources:
        # nbcert.repro.studies.scaling.job_mem_mb: 300 MB + 48 bytes per cell (the table, 8, plus RP's 40)
        # (a streamed size holds one record batch: 2 GB)
        mem_mb=lambda w, attempt: attempt * (2000 if int(w.n) in SCALING.get("stream_n_values", []) else
                                             400 + int(w.n) * SCALING["d"] * 48 // 10**6),
        # about 1.5 us per cell measured (AD on one point at the largest n included), doubled
        runtime=lambda w, attempt: attempt * (10 + int(w.n) * SCALING["d"] // 10**7),
    benchmark:
        "benchmarks/scaling/n{n}.tsv"
    log:
        "logs/scaling/n{n}.log",
    script:
        "../scripts/scaling_run.py"


rule scaling_figure:
    input:
        expand("results/tables/scaling/n{n}.csv", n=SCALING["n_values"] + SCALING.get("stream_n_values", [])),
    output:
        table="results/tables/scaling.csv",
        pdf="results/figures/scaling.pdf",
        png=report("results/figures/scaling.png", caption="../report/beyond.rst", category="Beyond the paper"),
        md="results/beyond/scaling.md",
    log:
        "logs/figures/scaling.log",
    script:
        "../scripts/scaling_figure.py"
