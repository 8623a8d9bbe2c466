# Stage 6b: the report, every sentence from this run's checked tables (report.py):
# results/paper.md, the paper's claims beside the numbers measured here (target `paper`), and
# results/report.md, the same followed by the studies beyond the paper (the default target).
# Each states how long the jobs it reports on took (their benchmark files) and on what machine.


rule report_paper:
    input:
        unpack(report_inputs("paper")),
    output:
        "results/paper.md",
    log:
        "logs/report_paper.log",
    conda:
        "../../environment.yml"
    params:
        **report_params(),
    script:
        "../scripts/report.py"


rule report:
    input:
        unpack(report_inputs("all")),
    output:
        "results/report.md",
    log:
        "logs/report.log",
    conda:
        "../../environment.yml"
    params:
        **report_params(),
    script:
        "../scripts/report.py"
