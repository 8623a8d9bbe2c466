# Stage 6a: Figures 6-10, one panel per obtained data set.
FIGURE_CAPTION = "../report/figure.rst"


# The paper's decision figures: what time is drawn against, under which perturbation.
DECISION_FIGURES = [
    {"num": 6, "against": "missing_rate", "perturbation": "uniform"},
    {"num": 7, "against": "missing_rate", "perturbation": "feature"},
    {"num": 8, "against": "points", "perturbation": "uniform"},
    {"num": 9, "against": "points", "perturbation": "feature"},
]
DECISION_PDF, DECISION_PNG = "results/figures/fig{num}.pdf", "results/figures/fig{num}.png"


rule figures_certify:
    # Figures 6/7 (time vs missing rate, uniform and feature perturbation) and 8/9 (time vs
    # k) from the same tables, in one job: each job pays about 2 s to start Python and
    # import pandas and matplotlib, more than drawing a figure once they are loaded.
    input:
        obtained("results/tables/certify_{ds}.csv"),
    output:
        pdf=each(DECISION_FIGURES, DECISION_PDF),
        png=report(each(DECISION_FIGURES, DECISION_PNG), caption=FIGURE_CAPTION, category="Figures"),
    log:
        "logs/figures/fig6-9.log",
        benchmark="logs/benchmarks/figures/fig6-9.tsv",
    conda:
        "../../environment.yml"
    params:
        records=records(DECISION_FIGURES, pdf=DECISION_PDF, png=DECISION_PNG),
        points=S.points_for_rates,
        rate=S.rate_for_points,
    script:
        "../scripts/figures_certify.py"


rule figure_poisoning:
    input:
        obtained("results/tables/poisoning_{ds}.csv"),
    output:
        pdf="results/figures/fig10.pdf",
        png=report("results/figures/fig10.png", caption=FIGURE_CAPTION, category="Figures"),
    log:
        "logs/figures/fig10.log",
        benchmark="logs/benchmarks/figures/fig10.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figure_poisoning.py"
