# Settings, names and helpers shared by the rules.
import json
import re
import os
import sys

from nbcert.repro import settings as nbsettings
from nbcert.repro.settings import canonical


def _sources():
    """The config files read (the workflow's own first; paths relative to the working
    directory where they lie in it) and the --config values, for the report."""
    def shown(f):
        rel = os.path.relpath(f)
        return f if rel.startswith("..") else rel

    files = sorted(map(str, workflow.configfiles), key=os.path.isabs)
    return [shown(f) for f in files] + [f"--config {k}={json.dumps(v)}"
                                        for k, v in dict(workflow.config_settings.config).items()]


try:
    S = nbsettings.load(config, os.path.join(workflow.basedir, "workflow/schemas/config.schema.yaml"),
                        cli=workflow.config_settings.overwrite_config, sources=_sources())
except nbsettings.ConfigError as e:
    sys.exit(f"nbcert: config error: {e}")

# Snakemake 9's scheduler arms one more wake-up timer per pass of its loop, so its own CPU
# grows with the square of the run; keep one pending (see nbcert.repro.scheduler).
from nbcert.repro.scheduler import one_wakeup

one_wakeup()

# Jobs check that this process is still among their ancestors (nbcert.repro.job): after a
# kill -9 of Snakemake none keeps running or writes its outputs later.
os.environ["NBCERT_SNAKEMAKE_PID"] = str(os.getpid())

DATASETS = list(S.datasets)
REPS = list(range(S.repetitions))
RATES = [f"{r:g}" for r in S.missing_rates]
KINDS = list(S.perturbations)
BEYOND = ["poisoning_many", "counting", "scaling", "cleaning"]  # the studies beyond the paper
VARIANTS = [(kind, rate) for kind in KINDS for rate in RATES]  # the perturbed tables of a repetition
SPLIT_PARTS = ["train", "test"]


wildcard_constraints:
    ds="|".join(map(re.escape, DATASETS)),
    rep=r"\d+",
    kind="uniform|feature",
    rate=r"[0-9.]+",


# ---------------------------------------------------------------- per-rule helpers

def label(wildcards):
    return S.datasets[wildcards.ds].label


def dataset_json(wildcards):
    return canonical(S.datasets[wildcards.ds])


def mem_mb(base, per_input_mb=0):
    """Memory for a job: base + per MB of input, doubled on each retry."""
    return lambda wildcards, input, attempt: attempt * int(base + per_input_mb * input.size_mb)


def minutes(base, per_input_mb=0):
    """Run time for a job: base + per MB of input, doubled on each retry."""
    return lambda wildcards, input, attempt: attempt * int(base + per_input_mb * input.size_mb)


def variant_files(pattern):
    """``pattern`` (with {kind} and {rate}) for every variant, in VARIANTS' order."""
    return [pattern.format(kind=kind, rate=rate) for kind, rate in VARIANTS]


def decision_runs_expected(ds):
    """What each decision run of a data set must hold: its row count and identity."""
    return {f"results/runs/decision/{ds}/rep{rep}/{kind}_{rate}.csv":
            {"rows": 2 + 3 * len(S.ks_for(rate)),
             "equal": {"dataset": ds, "rep": rep, "perturbation": kind, "missing_rate": float(rate)}}
            for rep in REPS for kind in KINDS for rate in RATES}


# ---------------------------------------------------------------- data sets

def raw_file(wildcards):
    """The fetched file of a data set (evaluated after its fetch checkpoint ran)."""
    folder = checkpoints.fetch.get(ds=wildcards.ds).output[0]
    return f"{folder}/{S.datasets[wildcards.ds].file}"


def fetch_status_files(wildcards=None):
    return [f"{checkpoints.fetch.get(ds=ds).output[0]}/status.json" for ds in DATASETS]


def fetch_status(ds):
    with open(f"{checkpoints.fetch.get(ds=ds).output[0]}/status.json") as f:
        return json.load(f)


def available(wildcards=None):
    """Selected data sets that were obtained (the others are reported as not obtained)."""
    return [ds for ds in DATASETS if fetch_status(ds)["ok"]]


def fetch_input(wildcards):
    """The file a data set is copied from when it is on this machine: a local file (its
    changes re-trigger the fetch), or the mirror's copy (pinned by sha256, so only its
    appearing re-triggers a fetch: a data set not obtained is fetched again once its file is
    put in the mirror).  Nothing for a Kaggle download."""
    ds = S.datasets[wildcards.ds]
    if ds.local:
        return [ds.local] if os.path.isfile(ds.local) else []
    mirror = os.environ.get("NBCERT_DATA_MIRROR") or S.data_mirror
    path = os.path.join(mirror, ds.file) if mirror else None
    return [ancient(path)] if path and os.path.isfile(path) else []


# ---------------------------------------------------------------- targets

REPORTED = ["seed", "repetitions", "missing_rates", "k_values", "k_for_rates", "subsample"]


def stale_tables(wildcards=None):
    """Tables in results/tables of data sets that are not in this run's config (ignored)."""
    import glob
    import re

    pattern = re.compile(r"^(decision|poisoning|counting|cleaning)_(.+)\.csv$")
    shared = {"poisoning_many.csv"}
    return sorted(os.path.basename(f) for f in glob.glob("results/tables/*_*.csv")
                  if (m := pattern.search(os.path.basename(f))) and m[0] not in shared and m[2] not in DATASETS)


def paper_jobs():
    """The jobs of the paper's part ({rule: wildcard values}): its figures and tables and
    every intermediate they are made from."""
    ds = available()
    return {"data_status": {}, "discretize": {"ds": ds}, "split": {"ds": ds}, "perturb": {"ds": ds, "rep": REPS},
            "decide": {"ds": ds, "rep": REPS}, "poison": {"ds": ds}, "gather_decision": {"ds": ds},
            "gather_poisoning": {"ds": ds}, "figure_rates": {"num": [6, 7]}, "figure_k": {"num": [8, 9]},
            "figure_poisoning": {}}


def beyond_jobs():
    """The jobs of the studies beyond the paper."""
    ds = available()
    return {"poison_many": {"ds": ds}, "gather_poisoning_many": {}, "counting_study": {"ds": ds},
            "cleaning_study": {"ds": ds}, "scaling_run": {"n": S.scaling.n_values},
            "scaling_stream": {"n": S.scaling.stream_n_values}, "gather_scaling": {},
            **{f"figure_{study}": {} for study in BEYOND}}


def files_of(jobs, what="output"):
    """The output (or benchmark) files of ``jobs``."""
    out = []
    for rule, values in jobs.items():
        patterns = getattr(getattr(rules, rule), what)
        for pattern in ([patterns] if what == "benchmark" else patterns):
            out += expand(pattern, **values)
    return out


def timings(jobs):
    """Benchmark files of the fetches and of ``jobs``: the report's account of the run's time."""
    return files_of({"fetch": {"ds": DATASETS}, **jobs}, "benchmark")


def paper_targets(wildcards=None):
    """Every file the paper's part of the report uses and every intermediate it is made
    from, so deleting any of them makes the next run rebuild it and exactly what depends on it."""
    if not available():
        return ["results/data_status.json"]  # fails with one line: nothing could be obtained
    return files_of(paper_jobs()) + ["results/paper.md"]


def all_targets(wildcards=None):
    """The paper's part and the studies beyond it, and the whole report."""
    if not available():
        return ["results/data_status.json"]
    return paper_targets() + files_of(beyond_jobs()) + ["results/report.md"]
