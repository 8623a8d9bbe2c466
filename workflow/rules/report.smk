# Stage 6b: results/report.md, the paper's claims beside the numbers measured here, and
# the studies beyond the paper (nbcert.repro.report); every table it reads is checked.
rule report:
    input:
        status="results/data_status.json",
        info=lambda w: expand("data/discretized/{ds}.json", ds=available()),
        decision=lambda w: expand("results/tables/decision_{ds}.csv", ds=available()),
        poisoning=lambda w: expand("results/tables/poisoning_{ds}.csv", ds=available()),
        figures=expand("results/figures/fig{num}.png", num=[6, 7, 8, 9, 10]),
        poisoning_many="results/tables/poisoning_many.csv",
        counting=lambda w: expand("results/tables/counting_{ds}.csv", ds=available()),
        scaling="results/tables/scaling.csv",
        cleaning=lambda w: expand("results/tables/cleaning_{ds}.csv", ds=available()),
        beyond_figures=expand("results/figures/{study}.png", study=BEYOND),
    output:
        "results/report.md",
    params:
        settings=canonical({k: getattr(S, k) for k in REPORTED}),
        sources=S.sources,
        stale=stale_tables,
    log:
        "logs/report.log",
    script:
        "../scripts/report.py"
