# The two targets besides the default (rule all in the Snakefile: everything):
#   snakemake paper   - Figures 6-10 and results/paper.md, the paper's part alone
#   snakemake beyond  - the studies beyond the paper, their tables and figures
rule paper:
    input:
        paper_targets,


rule beyond:
    input:
        beyond_targets,
