# Reproduces the experiments and Figures 6-10 of "Certifiable Robustness for Naive Bayes
# Classifiers" with the nbcert package, and the studies beyond it: `snakemake --cores 1`;
# the paper's part alone: `snakemake paper --cores 1`.  The config is validated against
# workflow/schemas/config.schema.yaml (one line naming the key at fault) in
# workflow/rules/common.smk; each stage's code is its script under workflow/scripts.
from snakemake.utils import min_version

min_version("8.0")


report: "workflow/report/workflow.rst"


configfile: "config.yaml"


include: "workflow/rules/common.smk"


wildcard_constraints:
    ds="|".join(map(re.escape, DATASETS)),
    rep=r"\d+",
    perturbation="uniform|feature",
    rate=r"[0-9.]+",
    points=r"\d+",
    run=r"(streamed_)?n\d+",
    space=r"[A-Za-z0-9_-]+/[A-Za-z0-9_-]+",


include: "workflow/rules/fetch.smk"
include: "workflow/rules/discretize.smk"
include: "workflow/rules/perturb.smk"
include: "workflow/rules/certify.smk"
include: "workflow/rules/poisoning.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/equivalents.smk"
include: "workflow/rules/poisoning_together.smk"
include: "workflow/rules/counting.smk"
include: "workflow/rules/scaling.smk"
include: "workflow/rules/cleaning.smk"
include: "workflow/rules/cpclean.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        targets("all"),


rule paper:
    input:
        targets("paper"),


rule beyond:
    input:
        targets("beyond"),
