# Stage 1: the raw file of each data set, from the mirror or from Kaggle (nbcert.repro.fetch),
# then one check that at least one data set was obtained.
checkpoint fetch:
    input:
        fetch_input,
    output:
        directory("data/raw/{ds}"),
    params:
        source=lambda w: canonical(S.datasets[w.ds].source()),  # only these re-trigger a download
    priority: 100
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


rule data_status:
    input:
        fetch_status_files,
    output:
        "results/data_status.json",
    priority: 100
    benchmark:
        "benchmarks/data_status.tsv"
    log:
        "logs/data_status.log",
    script:
        "../scripts/data_status.py"
