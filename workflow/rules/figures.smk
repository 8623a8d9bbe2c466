# Stage 6a: Figures 6-10, one panel per obtained data set (nbcert.repro.figures).
FIGURE_CAPTION = "../report/figure.rst"


# The paper's decision figures: what time is drawn against, under which perturbation.
DECISION_FIGURES = {6: ("missing_rate", "uniform"), 7: ("missing_rate", "feature"),
                    8: ("k", "uniform"), 9: ("k", "feature")}


rule figures_decision:
    # Figures 6/7 (time vs missing rate, uniform and feature perturbation) and 8/9 (time vs
    # k) from the same tables, in one job: each job pays about 2 s to start Python and
    # import pandas and matplotlib, more than drawing a figure once they are loaded.
    input:
        obtained("gather_decision"),
    output:
        pdf=expand("results/figures/fig{num}.pdf", num=DECISION_FIGURES),
        png=report(expand("results/figures/fig{num}.png", num=DECISION_FIGURES), caption=FIGURE_CAPTION,
                   category="Figures"),
    params:
        panels=list(DECISION_FIGURES.values()),  # in the order of the outputs
        k=S.k_for_rates,
        rate=S.rate_for_k,
    log:
        "logs/figures/fig6-9.log",
        benchmark="benchmarks/figures/fig6-9.tsv",
    script:
        "../scripts/figures_decision.py"


rule figure_poisoning:
    input:
        obtained("gather_poisoning"),
    output:
        pdf="results/figures/fig10.pdf",
        png=report("results/figures/fig10.png", caption=FIGURE_CAPTION, category="Figures"),
    log:
        "logs/figures/fig10.log",
        benchmark="benchmarks/figures/fig10.tsv",
    script:
        "../scripts/figure_poisoning.py"
