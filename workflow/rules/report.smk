# Stage 6b: the report, every sentence from this run's checked tables (report.py):
# results/paper.md, the paper's claims beside the numbers measured here (target `paper`), and
# results/report.md, the same followed by the studies beyond the paper (the default target).
# Each states how long the jobs it reports on took (their benchmark files) and on what machine.
import glob
import os
import re

REPORTED = ["seed", "repetitions", "missing_rates", "k_values", "k_for_rates", "rate_for_k", "feature_share", "subsample"]  # settings it shows


def report_inputs(part):
    """The report's inputs: the paper's tables and figures, and for the whole report the
    studies' too, with the benchmark files of every job they come from."""
    def inputs(wildcards):
        ds = available()
        files = {"status": "results/data_status.json",
                 "info": expand("data/discretized/{ds}.json", ds=ds),
                 "decision": files_of({"gather_decision": {"ds": ds}}),
                 "poisoning": files_of({"gather_poisoning": {"ds": ds}}),
                 "figures": expand("results/figures/fig{num}.png", num=[6, 7, 8, 9, 10])}
        jobs = paper_jobs()
        if part == "all":
            jobs.update(beyond_jobs())
            files.update(poisoning_many="results/tables/poisoning_many.csv",
                         counting=files_of({"counting_study": {"ds": ds}}),
                         scaling="results/tables/scaling.csv",
                         cleaning=files_of({"cleaning_study": {"ds": ds}}),
                         beyond_figures=expand("results/figures/{study}.png", study=BEYOND))
        return {**files, "timings": timings(jobs)}

    return inputs


def stale_tables(wildcards=None):
    """Tables in results/tables of data sets that are not in this run's config (ignored)."""
    pattern = re.compile(r"^(decision|poisoning|counting|cleaning)_(.+)\.csv$")
    shared = {"poisoning_many.csv"}
    return sorted(os.path.basename(f) for f in glob.glob("results/tables/*_*.csv")
                  if (m := pattern.search(os.path.basename(f))) and m[0] not in shared and m[2] not in DATASETS)


REPORT_PARAMS = dict(settings=canonical({k: getattr(S, k) for k in REPORTED}), sources=S.sources, stale=stale_tables)


rule report_paper:
    input:
        unpack(report_inputs("paper")),
    output:
        "results/paper.md",
    params:
        **REPORT_PARAMS,
    log:
        "logs/report_paper.log",
    script:
        "../scripts/report.py"


rule report:
    input:
        unpack(report_inputs("all")),
    output:
        "results/report.md",
    params:
        **REPORT_PARAMS,
    log:
        "logs/report.log",
    script:
        "../scripts/report.py"
