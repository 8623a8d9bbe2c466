# Beyond the paper: poisoning k test points at once (nbcert.repro.studies.poisoning_many).
rule poison_many:
    input:
        train="data/splits/{ds}/rep0/train.csv",
        test="data/splits/{ds}/rep0/test.csv",
    output:
        "results/runs/poisoning_many/{ds}/k{k}.csv",
    wildcard_constraints:
        k=r"\d+",
    params:
        label=lambda w: config["datasets"][w.ds]["label"],
        time_limit=config["beyond"]["poison_many"]["time_limit"],
    threads: 1
    resources:
        mem_mb=lambda w, input, attempt: attempt * (1000 + 100 * input.size_mb),
        runtime=lambda w, attempt: attempt * (5 + int(config["beyond"]["poison_many"]["time_limit"]) // 10),
    benchmark:
        "benchmarks/poison_many/{ds}/k{k}.tsv"
    log:
        "logs/poison_many/{ds}/k{k}.log",
    script:
        "../scripts/poison_many.py"


rule poisoning_many_figure:
    input:
        lambda w: expand("results/runs/poisoning_many/{ds}/k{k}.csv", ds=available(),
                         k=config["beyond"]["poison_many"]["k_values"]),
    output:
        table="results/tables/poisoning_many.csv",
        pdf="results/figures/poisoning_many.pdf",
        png=report("results/figures/poisoning_many.png", caption="../report/beyond.rst", category="Beyond the paper"),
        md="results/beyond/poisoning_many.md",
    log:
        "logs/figures/poisoning_many.log",
    script:
        "../scripts/poisoning_many_figure.py"
