# Stage 6a: Figures 6-10, one panel per obtained data set (nbcert.repro.figures).
FIGURE_CAPTION = "../report/figure.rst"


def figure_kind(wildcards):
    """The perturbation a figure shows: uniform in Figures 6 and 8, feature in 7 and 9."""
    return "uniform" if wildcards.num in ("6", "8") else "feature"


rule figure_rates:
    input:
        obtained("gather_decision"),
    output:
        pdf="results/figures/fig{num}.pdf",
        png=report("results/figures/fig{num}.png", caption=FIGURE_CAPTION, category="Figures"),
    wildcard_constraints:
        num="6|7",
    params:
        kind=figure_kind,
        k=S.k_for_rates,
    benchmark:
        "benchmarks/figures/fig{num}.tsv"
    log:
        "logs/figures/fig{num}.log",
    script:
        "../scripts/figure_rates.py"


rule figure_k:
    input:
        obtained("gather_decision"),
    output:
        pdf="results/figures/fig{num}.pdf",
        png=report("results/figures/fig{num}.png", caption=FIGURE_CAPTION, category="Figures"),
    wildcard_constraints:
        num="8|9",
    params:
        kind=figure_kind,
        rate=S.rate_for_k,
    benchmark:
        "benchmarks/figures/fig{num}.tsv"
    log:
        "logs/figures/fig{num}.log",
    script:
        "../scripts/figure_k.py"


rule figure_poisoning:
    input:
        obtained("gather_poisoning"),
    output:
        pdf="results/figures/fig10.pdf",
        png=report("results/figures/fig10.png", caption=FIGURE_CAPTION, category="Figures"),
    benchmark:
        "benchmarks/figures/fig10.tsv"
    log:
        "logs/figures/fig10.log",
    script:
        "../scripts/figure_poisoning.py"
