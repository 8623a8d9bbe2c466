# Stage 1: the raw file of each data set, from the mirror or from Kaggle
# (common.fetch), then one check that at least one data set was obtained.
def fetch_input(wildcards):
    """The file a data set is copied from when it is on this machine: a local file (its
    changes re-trigger the fetch), or the mirror's copy (pinned by sha256, so only its
    appearing re-triggers a fetch: a data set not obtained is fetched again once its file is
    put in the mirror).  Nothing for a Kaggle download."""
    ds = S.datasets[wildcards.ds]
    if ds.local:
        return [ds.local] if os.path.isfile(ds.local) else []
    mirror = data_mirror()
    path = mirror / ds.file if mirror else None
    return [ancient(str(path))] if path and path.is_file() else []


def fetch_source(wildcards):
    """What identifies the raw file: only these params re-trigger a download."""
    return canonical(S.datasets[wildcards.ds].source())


def fetch_options(wildcards, input):
    """Where the file is looked for and what to do when it cannot be obtained.  It takes the
    input (the file copied, when this machine has it) so that Snakemake counts it as derived
    from the input, not among the params whose change re-runs a job: changing these never
    fetches an obtained data set again."""
    mirror = data_mirror()
    return canonical({"mirror": str(mirror) if mirror else None, "on_unavailable": S.on_unavailable})


def fetch_status_files(wildcards=None):
    return [f"{checkpoints.fetch.get(ds=ds).output[0]}/status.json" for ds in DATASETS]


checkpoint fetch:
    input:
        fetch_input,
    output:
        directory("data/raw/{ds}"),
    params:
        source=fetch_source,
        options=fetch_options,
    priority: 100
    threads: 1
    resources:
        mem_mb=500,
        runtime=30,
    log:
        "logs/fetch/{ds}.log",
        benchmark="logs/benchmarks/fetch/{ds}.tsv",
    script:
        "../scripts/fetch.py"


rule data_status:
    input:
        fetch_status_files,
    output:
        "results/data_status.json",
    priority: 100
    log:
        "logs/data_status.log",
        benchmark="logs/benchmarks/data_status.tsv",
    script:
        "../scripts/data_status.py"
