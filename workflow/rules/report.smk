# Stage 6b: results/report.md, the paper's claims beside the numbers measured here.
rule report:
    input:
        decision=lambda w: expand("results/tables/decision_{ds}.csv", ds=available()),
        poisoning=lambda w: expand("results/tables/poisoning_{ds}.csv", ds=available()),
        figures=expand("results/figures/fig{num}.png", num=[6, 7, 8, 9, 10]),
        status=lambda w: [checkpoints.fetch.get(ds=ds).output[0] for ds in DATASETS],
        beyond=expand("results/beyond/{study}.md", study=BEYOND),
        beyond_figures=expand("results/figures/{study}.png", study=BEYOND),
    output:
        "results/report.md",
    params:
        config=config,
    log:
        "logs/report.log",
    script:
        "../scripts/report.py"
