# Stage 1: the raw file of each data set, from the mirror or from Kaggle
# (workflow/scripts/fetch.py), then one check that at least one data set was obtained.


checkpoint fetch:
    input:
        fetch_input,
    output:
        directory("data/raw/{ds}"),
    log:
        "logs/fetch/{ds}.log",
        benchmark="logs/benchmarks/fetch/{ds}.tsv",
    priority: 100
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    params:
        source=fetch_source,
        options=fetch_options,
    script:
        "../scripts/fetch.py"


rule check_data:
    input:
        fetch_status_files,
    output:
        "results/data_status.json",
    log:
        "logs/check_data.log",
        benchmark="logs/benchmarks/check_data.tsv",
    priority: 100
    conda:
        "../../environment.yml"
    script:
        "../scripts/data_status.py"
