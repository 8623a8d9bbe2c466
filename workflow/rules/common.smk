# What the rule files share: the validated settings (S), the names of the wildcards' values,
# the resource helper, the data sets obtained, and the job plan (which rule runs for which
# wildcard values) from which the targets, the inputs that read every data set, and the
# report's timings are all derived.  A rule file uses only names defined here or in itself.
import itertools
import json
import os
import re
import sys

# The scripts' shared code (workflow/scripts/common, studies) is imported from this checkout,
# here while the workflow is parsed and in every job (which inherits PYTHONPATH), never from
# whatever is installed.
SCRIPTS = os.path.join(workflow.basedir, "workflow", "scripts")
sys.path.insert(0, SCRIPTS)
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [SCRIPTS, os.environ.get("PYTHONPATH")])))

from common import expect
from common import settings as nbsettings
from common.settings import canonical, mirror_folder

# The workarounds for Snakemake's own behaviour that act while the workflow is parsed
# (workflow/scripts/common: each names the Snakemake version it was written against, and
# tests/test_runtime.py and test_scheduler.py say when it can go).  The third, jobs writing
# their own benchmark files, is each rule's `log: benchmark=...` (common.job).
from common.scheduler import one_wakeup

# Snakemake 9's scheduler arms one more wake-up timer per pass of its loop, so its own CPU
# grows with the square of the run; keep one pending (common.scheduler).
one_wakeup()

# Jobs check that this process is still among their ancestors (common.parent): after a
# kill -9 of Snakemake none keeps running or writes its outputs later.
os.environ.update(NBCERT_SNAKEMAKE_PID=str(os.getpid()))


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

DATASETS = list(S.datasets)
REPS = list(range(S.repetitions))
RATES = [f"{r:g}" for r in S.missing_rates]
KINDS = list(S.perturbations)
BEYOND = ["poisoning_many", "counting", "scaling", "cleaning"]  # the studies beyond the paper
VARIANTS = [(kind, rate) for kind in KINDS for rate in RATES]  # the perturbed tables of a repetition

# The files of a repetition, and the run tables made from them.
TRAIN = "data/splits/{ds}/rep{rep}/train.csv"
TEST = "data/splits/{ds}/rep{rep}/test.csv"
PERTURBED = "data/perturbed/{ds}/rep{rep}/{kind}_{rate}.csv"
DECISION_RUN = "results/runs/decision/{ds}/rep{rep}/{kind}_{rate}.csv"
POISONING_RUN = "results/runs/poisoning/{ds}/rep{rep}.csv"


wildcard_constraints:
    ds="|".join(map(re.escape, DATASETS)),
    rep=r"\d+",
    kind="uniform|feature",
    rate=r"[0-9.]+",


# ---------------------------------------------------------------- per-rule helpers

def label(wildcards):
    return S.datasets[wildcards.ds].label


def per_attempt(base, per_input_mb=0):
    """A job's memory (MB) or run time (minutes): ``base`` (a number, or a function of the
    wildcards) plus ``per_input_mb`` for each MB of input, times the attempt (a retry gets
    twice as much, then three times ...)."""
    def amount(wildcards, input, attempt):
        fixed = base(wildcards) if callable(base) else base
        return attempt * int(fixed + per_input_mb * input.size_mb)

    return amount


def whole_node(wildcards):
    """A timed job's `node_share`: every share the run has, so that it runs alone.  Where
    the run caps `node_share` (cloudlab/pipeline.sh on one node: `--resources node_share=N
    --default-resources node_share=1`, every other job taking one share), a timed job waits
    for the node to empty and no other job starts until it ends; elsewhere (no cap, or a
    cluster, where Slurm gives each job cores of its own) it takes none."""
    shares = workflow.global_resources.get("node_share")
    value = getattr(shares, "value", shares)
    return value if isinstance(value, int) else 0


def variant_files(pattern):
    """``pattern`` (with {kind} and {rate}) for every variant, in VARIANTS' order."""
    return [pattern.format(kind=kind, rate=rate) for kind, rate in VARIANTS]


# ---------------------------------------------------------------- data sets

def data_mirror():
    """The mirror folder the data sets are copied from, or None: the environment variable
    NBCERT_DATA_MIRROR wins over the config's data_mirror."""
    return mirror_folder(S.data_mirror)


def raw_file(wildcards):
    """The fetched file of a data set (evaluated after its fetch checkpoint ran)."""
    folder = checkpoints.fetch.get(ds=wildcards.ds).output[0]
    return f"{folder}/{S.datasets[wildcards.ds].file}"


def fetch_status(ds):
    with open(f"{checkpoints.fetch.get(ds=ds).output[0]}/status.json") as f:
        return json.load(f)


def available(wildcards=None):
    """Selected data sets that were obtained (the others are reported as not obtained)."""
    return [ds for ds in DATASETS if fetch_status(ds)["ok"]]


# ---------------------------------------------------------------- the job plan and targets

def paper_jobs():
    """The jobs of the paper's part ({rule: wildcard values}): its figures and tables and
    every intermediate they are made from."""
    ds = available()
    return {"data_status": {}, "discretize": {"ds": ds}, "split": {"ds": ds}, "perturb": {"ds": ds},
            "decide": {"ds": ds}, "poison": {"ds": ds}, "gather_decision": {"ds": ds},
            "gather_poisoning": {"ds": ds}, "figures_decision": {}, "figure_poisoning": {}}


def beyond_jobs():
    """The jobs of the studies beyond the paper."""
    ds = available()
    return {"poison_many": {"ds": ds}, "gather_poisoning_many": {}, "counting_study": {"ds": ds},
            "cleaning_study": {"ds": ds}, "scaling_run": {"n": S.scaling.n_values},
            "scaling_stream": {"n": S.scaling.stream_n_values}, "gather_scaling": {},
            **{f"figure_{study}": {} for study in BEYOND}}


def files_of(jobs, what="output"):
    """The output (or, with ``what="benchmark"``, benchmark) files of ``jobs``, job by job
    (the first wildcard varying slowest), each job's files in the order its rule declares
    them.  A job writes its benchmark file itself, a named log (common.job)."""
    out = []
    for name, values in jobs.items():
        proxy = getattr(rules, name)
        patterns = [proxy.log.benchmark] if what == "benchmark" else list(proxy.output)
        for combination in itertools.product(*values.values()):
            out += expand(patterns, **dict(zip(values, combination)))
    return out


def obtained(rule, **values):
    """An input function: the outputs of ``rule`` for every data set obtained (and every
    combination of ``values``), data set by data set."""
    def outputs(wildcards=None):
        return files_of({rule: {"ds": available(), **values}})

    return outputs


def timings(jobs):
    """Benchmark files of the fetches and of ``jobs``: the report's account of the run's time."""
    return files_of({"fetch": {"ds": DATASETS}, **jobs}, "benchmark")


def paper_targets(wildcards=None):
    """Every file the paper's part of the report uses and every intermediate it is made
    from, so deleting any of them makes the next run rebuild it and exactly what depends on it."""
    if not available():
        return ["results/data_status.json"]  # fails with one line: nothing could be obtained
    return files_of(paper_jobs()) + ["results/paper.md"]


def beyond_targets(wildcards=None):
    """The studies beyond the paper: their tables and figures and every intermediate."""
    return files_of(beyond_jobs())


def all_targets(wildcards=None):
    """The paper's part and the studies beyond it, and the whole report."""
    if not available():
        return ["results/data_status.json"]
    return paper_targets() + beyond_targets() + ["results/report.md"]


# ---------------------------------------------------------------- batched jobs

# A job that handles many files (a data set's repetitions, variants, k values) gets from
# its rule an explicit record per file set, not an order of its input and output lists.
EACH_REP = [{"rep": rep} for rep in REPS]
EACH_VARIANT = [{"rep": rep, "kind": kind, "rate": rate} for rep in REPS for kind, rate in VARIANTS]


def each(over, pattern):
    """``pattern`` filled in for every record of ``over`` ({ds} left to the rule's wildcard):
    a rule's input or output list, in the order of its records."""
    return [pattern.format(ds="{ds}", **values) for values in over]


def records(over, **paths):
    """A params function: one record per entry of ``over`` (e.g. EACH_VARIANT), holding the
    data set, the entry's values (rep, kind, rate, k ...) and each of ``paths`` (patterns
    with {ds} and those values) filled in; a script reads and writes the files its records
    name, so no list order has to match another."""
    def params(wildcards):
        fixed = dict(wildcards.items())  # the data set, for a job per data set
        return [{**fixed, **values, **{name: pattern.format(**fixed, **values)
                                       for name, pattern in paths.items()}}
                for values in over]

    return params
