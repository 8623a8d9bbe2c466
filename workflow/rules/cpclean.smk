# Beyond the paper: CPClean's benchmark spaces (studies.cpclean), fetched by commit and
# sha256 (from the mirror folder where it holds them), then one job per space through
# nbcert with and without CPClean's candidate repairs, beside CPClean's own kNN numbers.
rule fetch_cpclean:
    input:
        checksums=CPCLEAN_CHECKSUMS,
    output:
        directory(CPCLEAN_SPACE),
    log:
        "logs/fetch_cpclean/{space}.log",
        benchmark="logs/benchmarks/fetch_cpclean/{space}.tsv",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=500,
        runtime=30,
    params:
        source=canonical({k: getattr(B.cpclean, k) for k in ("repository", "commit", "folder")}),
        options=fetch_options,
    script:
        "../scripts/studies/cpclean/fetch.py"


rule run_cpclean:
    input:
        CPCLEAN_SPACE,
    output:
        summary=CPCLEAN_SUMMARY,
        curve=CPCLEAN_CURVE,
    log:
        "logs/run_cpclean/{space}.log",
        benchmark="logs/benchmarks/run_cpclean/{space}.tsv",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=per_attempt(2000),
        runtime=per_attempt(30),
    params:
        seed=S.seed,
        settings=canonical(B.cpclean),
    script:
        "../scripts/studies/cpclean/run.py"


rule draw_cpclean:
    input:
        summaries=expand(CPCLEAN_SUMMARY, space=B.cpclean.spaces),
        curves=expand(CPCLEAN_CURVE, space=B.cpclean.spaces),
    output:
        pdf="results/figures/cpclean.pdf",
        png=report(
            "results/figures/cpclean.png",
            caption="../report/beyond.rst",
            category="Beyond the paper",
        ),
    log:
        "logs/draw/cpclean.log",
        benchmark="logs/benchmarks/draw/cpclean.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/studies/cpclean/figure.py"
