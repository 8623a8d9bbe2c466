# Stage 2: the raw file verified against its sha256, then numeric features into bins with
# KBinsDiscretizer (workflow/scripts/discretize.py); a sidecar records what was verified.


rule discretize:
    input:
        raw_file,
    output:
        table="data/discretized/{ds}.csv",
        info="data/discretized/{ds}.json",
    log:
        "logs/discretize/{ds}.log",
        benchmark="logs/benchmarks/discretize/{ds}.tsv",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=per_attempt(500, 40),
        runtime=per_attempt(5, 1),
    params:
        dataset=dataset_json,
        subsample=S.subsample,
        seed=S.seed,
    script:
        "../scripts/discretize.py"
