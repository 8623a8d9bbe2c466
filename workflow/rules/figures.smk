# Stage 6a: Figures 6-10, one panel per obtained data set (nbcert.repro.figures).
FIGURE_CAPTION = "../report/figure.rst"


rule figure_rates:
    input:
        lambda w: expand("results/tables/decision_{ds}.csv", ds=available()),
    output:
        pdf="results/figures/fig{num}.pdf",
        png=report("results/figures/fig{num}.png", caption=FIGURE_CAPTION, category="Figures"),
    wildcard_constraints:
        num="6|7",
    params:
        kind=lambda w: {"6": "uniform", "7": "feature"}[w.num],
        k=S.k_for_rates,
    benchmark:
        "benchmarks/figures/fig{num}.tsv"
    log:
        "logs/figures/fig{num}.log",
    script:
        "../scripts/figure_rates.py"


rule figure_k:
    input:
        lambda w: expand("results/tables/decision_{ds}.csv", ds=available()),
    output:
        pdf="results/figures/fig{num}.pdf",
        png=report("results/figures/fig{num}.png", caption=FIGURE_CAPTION, category="Figures"),
    wildcard_constraints:
        num="8|9",
    params:
        kind=lambda w: {"8": "uniform", "9": "feature"}[w.num],
        rate=S.rate_for_k,
    benchmark:
        "benchmarks/figures/fig{num}.tsv"
    log:
        "logs/figures/fig{num}.log",
    script:
        "../scripts/figure_k.py"


rule figure_poisoning:
    input:
        lambda w: expand("results/tables/poisoning_{ds}.csv", ds=available()),
    output:
        pdf="results/figures/fig10.pdf",
        png=report("results/figures/fig10.png", caption=FIGURE_CAPTION, category="Figures"),
    benchmark:
        "benchmarks/figures/fig10.tsv"
    log:
        "logs/figures/fig10.log",
    script:
        "../scripts/figure_poisoning.py"
