# Stage 1: the raw file of each data set, from the mirror or from Kaggle (nbcert.repro.fetch).
checkpoint fetch:
    output:
        directory("data/raw/{ds}"),
    params:
        source=lambda w: config["datasets"][w.ds],
        mirror=config.get("data_mirror"),
        on_unavailable=config.get("on_unavailable", "skip"),
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    benchmark:
        "benchmarks/fetch/{ds}.tsv"
    log:
        "logs/fetch/{ds}.log",
    script:
        "../scripts/fetch.py"
