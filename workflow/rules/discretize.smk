# Stage 2: numeric features into bins with KBinsDiscretizer (nbcert.discretize).
rule discretize:
    input:
        raw_file,
    output:
        "data/discretized/{ds}.csv",
    params:
        source=lambda w: config["datasets"][w.ds],
        subsample=config.get("subsample"),
        seed=config["seed"],
    log:
        "logs/discretize/{ds}.log",
    script:
        "../scripts/discretize.py"
