# Beyond the paper: `snakemake beyond` builds the extra studies' tables and figures.
BEYOND = ["poisoning_many", "counting", "scaling", "cleaning"]


rule beyond:
    input:
        "results/tables/poisoning_many.csv",
        lambda w: expand("results/tables/counting_{ds}.csv", ds=available()),
        "results/tables/scaling.csv",
        lambda w: expand("results/tables/cleaning_{ds}.csv", ds=available()),
        expand("results/figures/{study}.png", study=BEYOND),
