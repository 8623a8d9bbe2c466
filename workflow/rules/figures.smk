# Stage 6a: Figures 6-10, one panel per obtained data set.
FIGURE_CAPTION = "../report/figure.rst"


# The paper's figures of the certify runs: what time is drawn against, under which perturbation.
CERTIFY_FIGURES = [
    {"num": 6, "against": "missing_rate", "perturbation": "uniform"},
    {"num": 7, "against": "missing_rate", "perturbation": "feature"},
    {"num": 8, "against": "points", "perturbation": "uniform"},
    {"num": 9, "against": "points", "perturbation": "feature"},
]
CERTIFY_PDF, CERTIFY_PNG = "results/figures/fig{num}.pdf", "results/figures/fig{num}.png"


rule draw_certify:
    # Figures 6/7 (time vs missing rate, uniform and feature perturbation) and 8/9 (time vs
    # the number of test points) from the same tables, in one job: a job's start-up (Python,
    # pandas, matplotlib) costs more than drawing a figure once they are loaded.
    input:
        obtained("results/tables/certify_{ds}.csv"),
    output:
        pdf=each(CERTIFY_FIGURES, CERTIFY_PDF),
        png=report(each(CERTIFY_FIGURES, CERTIFY_PNG), caption=FIGURE_CAPTION, category="Figures"),
    log:
        "logs/draw/fig6-9.log",
        benchmark="logs/benchmarks/draw/fig6-9.tsv",
    conda:
        "../../environment.yml"
    params:
        records=records(CERTIFY_FIGURES, pdf=CERTIFY_PDF, png=CERTIFY_PNG),
        points=S.points_for_rates,
        rate=S.rate_for_points,
    script:
        "../scripts/figures_certify.py"


rule draw_poisoning:
    input:
        obtained("results/tables/poisoning_{ds}.csv"),
    output:
        pdf="results/figures/fig10.pdf",
        png=report("results/figures/fig10.png", caption=FIGURE_CAPTION, category="Figures"),
    log:
        "logs/draw/fig10.log",
        benchmark="logs/benchmarks/draw/fig10.tsv",
    conda:
        "../../environment.yml"
    script:
        "../scripts/figure_poisoning.py"
