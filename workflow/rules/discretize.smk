# Stage 2: numeric features into bins with KBinsDiscretizer (nbcert.repro.discretize).
rule discretize:
    input:
        raw_file,
    output:
        "data/discretized/{ds}.csv",
    params:
        source=lambda w: config["datasets"][w.ds],
        subsample=config.get("subsample"),
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=lambda w, input, attempt: attempt * (500 + 40 * input.size_mb),
        runtime=lambda w, input, attempt: attempt * (5 + int(input.size_mb)),
    benchmark:
        "benchmarks/discretize/{ds}.tsv"
    log:
        "logs/discretize/{ds}.log",
    script:
        "../scripts/discretize.py"
