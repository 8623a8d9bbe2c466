# Beyond the paper: `snakemake beyond` builds the extra studies' figures and report sections.
BEYOND = ["poisoning_many", "counting", "scaling"]


rule beyond:
    input:
        md=expand("results/beyond/{study}.md", study=BEYOND),
        figures=expand("results/figures/{study}.png", study=BEYOND),
