# What the workflow's rules share, and nothing but functions and names: the validated settings
# (S), the wildcards' values, the files of a repetition, the resource helpers, the data sets
# obtained, and the targets.  A rule file uses only names defined here or in itself.
import json
import re
import os
import sys

# The scripts' shared code (workflow/scripts/common, studies) is imported from this checkout,
# here while the workflow is parsed and in every job (which inherits PYTHONPATH), never from
# whatever is installed.
SCRIPTS = os.path.join(workflow.basedir, "workflow", "scripts")
sys.path.insert(0, SCRIPTS)
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [SCRIPTS, os.environ.get("PYTHONPATH")])))

from common import expect
from common.errors import ConfigError
from common.scheduler import one_wakeup
from common.settings import canonical, load, mirror_folder
from studies.scaling.memory import job_mem_mb

# Workarounds for Snakemake's own behaviour (workflow/scripts/common: each names the
# Snakemake version it was written against; tests/test_runtime.py and test_scheduler.py say
# when it can go).  Snakemake 9's scheduler arms one more wake-up timer per pass of its
# loop, so its own CPU grows with the square of the run: keep one pending.  Jobs check
# that this process is still among their ancestors (common.parent): after a kill -9 of
# Snakemake none keeps running or writes its outputs later.  The third, jobs writing their
# own benchmark files, is each rule's `log: benchmark=...` (common.job).
one_wakeup()
os.environ.update(NBCERT_SNAKEMAKE_PID=str(os.getpid()))


def config_sources():
    """The config files read (the workflow's own first; paths relative to the working
    directory where they lie in it) and the --config values, for the report."""
    shown = lambda f: f if os.path.relpath(f).startswith("..") else os.path.relpath(f)
    files = sorted(map(str, workflow.configfiles), key=os.path.isabs)
    given = dict(workflow.config_settings.config).items()
    return [shown(f) for f in files] + [f"--config {k}={json.dumps(v)}" for k, v in given]


try:
    S = load(config, cli=workflow.config_settings.overwrite_config, sources=config_sources())
except ConfigError as e:
    sys.exit(f"nbcert: config error: {e}")

B = S.beyond
DATASETS = list(S.datasets)
REPS = list(range(S.repetitions))
RATES = [f"{r:g}" for r in S.missing_rates]
POINTS_MAX = max(S.points)
BEYOND = [
    "poisoning_together",
    "counting",
    "scaling",
    "cleaning",
    "cpclean",
]  # studies beyond the paper

# The files of a repetition, and the run tables made from them.
TRAIN = "data/splits/{ds}/rep{rep}/train.csv"
TEST = "data/splits/{ds}/rep{rep}/test.csv"
PERTURBED = "data/perturbed/{ds}/rep{rep}/{perturbation}_{rate}.csv"
CERTIFY_RUN = "results/runs/certify/{ds}/rep{rep}/{perturbation}_{rate}.csv"
POISONING_RUN = "results/runs/poisoning/{ds}/rep{rep}.csv"
CERTIFICATE = "results/certificates/{ds}/rep{rep}/{perturbation}_{rate}.json"
POISONING_TOGETHER_RUN = "results/runs/poisoning_together/{ds}/points{points}.csv"
SCALING_RUN = "results/runs/scaling/{run}.csv"  # run: n{n} in memory, streamed_n{n} from disk
SCALING_RUNS = [f"n{n}" for n in B.scaling.n_values] + [
    f"streamed_n{n}" for n in B.scaling.stream_n_values
]
EQUIVALENTS = "results/tables/equivalents_{table}_{ds}.csv"
CPCLEAN_SPACE = "data/cpclean/{space}"  # space: <data set>/<missingness>, e.g. BabyProduct/real
CPCLEAN_SUMMARY = "results/runs/cpclean/{space}/summary.csv"
CPCLEAN_CURVE = "results/runs/cpclean/{space}/curve.csv"
SPACES = list(B.cpclean.spaces)
# the list of CPClean's files and their sha256, relative to the checkout unless absolute
CPCLEAN_CHECKSUMS = os.path.join(workflow.basedir, B.cpclean.checksums)


def points_for(rate):
    """Every number of test points at the rate of Figures 8/9, only that of Figures 6/7 elsewhere."""
    return sorted(S.points) if float(rate) == float(S.rate_for_points) else [S.points_for_rates]


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


def scaling_mem_mb(wildcards):
    """The memory (MB) of a scaling job: the study's own model (studies/scaling/memory.py),
    the one it checks a size against before running it."""
    where, n = wildcards.run.rsplit("n", 1)
    return job_mem_mb(int(n), B.scaling.d, streamed=where == "streamed_")


def scaling_minutes(wildcards):
    """The run time (minutes) of a scaling job: five, and one per 75 million cells in memory
    (the time budgets of Iterate and AD included) or per 30 million streamed (the file is
    written and read about four times), twice what a job took on the machine of
    docs/benchmarks.md."""
    where, n = wildcards.run.rsplit("n", 1)
    return 5 + int(n) * B.scaling.d // (30 if where == "streamed_" else 75) // 10**6


# ---------------------------------------------------------------- batched jobs

# A job that handles several files (a data set's repetitions, variants, numbers of test points) gets from
# its rule an explicit record per file set, not an order of its input and output lists.
EACH_REP = [{"rep": rep} for rep in REPS]
EACH_VARIANT = [  # a repetition's perturbed tables
    {"rep": rep, "perturbation": perturbation, "rate": rate}
    for rep in REPS
    for perturbation in S.perturbations
    for rate in RATES
]
EACH_POINTS = [{"points": points} for points in B.poison_together.points]


def each(over, pattern):
    """``pattern`` filled in for every record of ``over`` ({ds} left to the rule's wildcard):
    a rule's input or output list, in the order of its records."""
    return [pattern.format(ds="{ds}", **values) for values in over]


def records(over, **paths):
    """A params function: one record per entry of ``over`` (e.g. EACH_VARIANT), holding the
    data set, the entry's values (rep, perturbation, rate, points ...) and each of ``paths`` (patterns
    with {ds} and those values) filled in; a script reads and writes the files its records
    name, so no list order has to match another."""

    def params(wildcards):
        fixed = dict(wildcards.items())  # the data set, for a job per data set
        return [
            {**fixed, **values, **{name: p.format(**fixed, **values) for name, p in paths.items()}}
            for values in over
        ]

    return params


# What each run table must hold before it is gathered (common/expect.py): its rows and the
# values its file name promises.
def certify_expected(wildcards):
    run = lambda v: expect.certify_run(
        wildcards.ds, v["rep"], v["perturbation"], v["rate"], points_for(v["rate"])
    )
    return canonical({CERTIFY_RUN.format(ds=wildcards.ds, **v): run(v) for v in EACH_VARIANT})


def poisoning_expected(wildcards):
    run = lambda rep: expect.poisoning_run(wildcards.ds, rep)
    return canonical({POISONING_RUN.format(ds=wildcards.ds, rep=rep): run(rep) for rep in REPS})


def poisoning_together_expected(wildcards):
    files = {
        (ds, points): POISONING_TOGETHER_RUN.format(ds=ds, points=points)
        for ds in available()
        for points in B.poison_together.points
    }
    return canonical(
        {f: expect.poisoning_together_run(ds, points) for (ds, points), f in files.items()}
    )


SCALING_EXPECTED = canonical(
    {
        SCALING_RUN.format(run=run): expect.scaling_run(int(run.rsplit("n", 1)[1]))
        for run in SCALING_RUNS
    }
)


# ---------------------------------------------------------------- data sets


def fetch_input(wildcards):
    """The file a data set is copied from when it is on this machine: a local file (its
    changes re-trigger the fetch), or the mirror's copy (pinned by sha256, so only its
    appearing re-triggers a fetch: a data set not obtained is fetched again once its file is
    put in the mirror).  Nothing for a Kaggle download."""
    ds = S.datasets[wildcards.ds]
    if ds.local:
        return [ds.local] if os.path.isfile(ds.local) else []
    mirror = mirror_folder(S.data_mirror)  # NBCERT_DATA_MIRROR wins over data_mirror
    path = mirror / ds.file if mirror else None
    return [ancient(str(path))] if path and path.is_file() else []


def fetch_source(wildcards):
    """What identifies the raw file: only these params re-trigger a download."""
    ds = S.datasets[wildcards.ds]
    return canonical({k: getattr(ds, k) for k in ("file", "kaggle", "version", "local", "sha256")})


def fetch_options(wildcards, input):
    """Where a fetch (a data set's, or a CPClean space's) looks for its files first and what
    it does when they cannot be obtained.  It takes the input (the file copied, when this
    machine has it) so that Snakemake counts it as derived from the input, not among the
    params whose change re-runs a job: changing these never fetches what was obtained again."""
    mirror = mirror_folder(S.data_mirror)  # NBCERT_DATA_MIRROR wins over data_mirror
    return canonical(
        {"mirror": str(mirror) if mirror else None, "on_unavailable": S.on_unavailable}
    )


def fetch_status(ds):
    with open(f"{checkpoints.fetch.get(ds=ds).output[0]}/status.json") as f:
        return json.load(f)


def fetch_status_files(wildcards=None):
    return [f"{checkpoints.fetch.get(ds=ds).output[0]}/status.json" for ds in DATASETS]


def raw_file(wildcards):
    """The fetched file of a data set (evaluated after its fetch checkpoint ran)."""
    return f"{checkpoints.fetch.get(ds=wildcards.ds).output[0]}/{S.datasets[wildcards.ds].file}"


def dataset_json(wildcards):
    return canonical(S.datasets[wildcards.ds])


def available(wildcards=None):
    """Selected data sets that were obtained (the others are reported as not obtained)."""
    return [ds for ds in DATASETS if fetch_status(ds)["ok"]]


def obtained(pattern, **values):
    """An input function: ``pattern`` for every data set obtained (and every combination
    of ``values``)."""
    return lambda wildcards: expand(pattern, ds=available(), **values)


# ---------------------------------------------------------------- targets and the report

# The report's figures, and the jobs whose benchmark files account for its time.
FIGURES = expand("results/figures/fig{num}.png", num=[6, 7, 8, 9, 10])
STUDY_FIGURES = expand("results/figures/{study}.png", study=BEYOND)
PAPER_JOBS = (
    "discretize split perturb certify verify poison gather_certify gather_poisoning".split()
)
PAPER_ONCE = "check_data draw_certify draw_poisoning".split()
BEYOND_JOBS = "run_equivalents run_poisoning_together run_counting run_cleaning".split()
BEYOND_ONCE = ["gather_poisoning_together", "gather_scaling"] + [
    f"draw_{study}" for study in BEYOND
]


def timings(jobs, once):
    """The benchmark files of the fetches, of ``jobs`` for every data set obtained, and of
    ``once`` (a job each): the report's account of the run's time."""
    pattern = lambda name: getattr(rules, name).log.benchmark
    return (
        expand(pattern("fetch"), ds=DATASETS)
        + [f for j in jobs for f in expand(pattern(j), ds=available())]
        + [pattern(j) for j in once]
    )


def report_inputs(part):
    """The report's inputs: the paper's tables and figures, and for the whole report the
    studies' too, with the benchmark files of every job they come from."""

    def inputs(wildcards):
        files = {
            "status": "results/data_status.json",
            "figures": FIGURES,
            "info": obtained("data/discretized/{ds}.json")(wildcards),
            "certify": obtained("results/tables/certify_{ds}.csv")(wildcards),
            "poisoning": obtained("results/tables/poisoning_{ds}.csv")(wildcards),
            "certified": obtained("results/tables/certified_{ds}.csv")(wildcards),
            "timings": timings(PAPER_JOBS, PAPER_ONCE),
        }
        if part == "all":
            files.update(
                equivalents_certify=obtained(EQUIVALENTS.format(table="certify", ds="{ds}"))(
                    wildcards
                ),
                equivalents_poisoning=obtained(EQUIVALENTS.format(table="poisoning", ds="{ds}"))(
                    wildcards
                ),
                poisoning_together="results/tables/poisoning_together.csv",
                counting=obtained("results/tables/counting_{ds}.csv")(wildcards),
                scaling="results/tables/scaling.csv",
                cleaning=obtained("results/tables/cleaning_{ds}.csv")(wildcards),
                cpclean=expand(CPCLEAN_SUMMARY, space=SPACES),
                beyond_figures=STUDY_FIGURES,
                timings=timings(PAPER_JOBS + BEYOND_JOBS, PAPER_ONCE + BEYOND_ONCE)
                + expand(rules.run_scaling.log.benchmark, run=SCALING_RUNS)
                + expand(rules.fetch_cpclean.log.benchmark, space=SPACES)
                + expand(rules.run_cpclean.log.benchmark, space=SPACES),
            )
        return files

    return inputs


REPORTED = "seed repetitions missing_rates points points_for_rates rate_for_points feature_share subsample".split()


def report_params():
    """What the report states about the run: the settings it shows, the config files and
    values used, and the tables it leaves aside."""
    return dict(
        settings=canonical({k: getattr(S, k) for k in REPORTED}),
        sources=S.sources,
        stale=stale_tables,
    )


def stale_tables(wildcards=None):
    """Tables in results/tables of data sets that are not in this run's config (ignored)."""
    found = glob_wildcards(
        "results/tables/{table,equivalents_certify|equivalents_poisoning|certify|poisoning|counting|cleaning}_{ds,[^/]+}.csv"
    )
    return sorted(f"{t}_{ds}.csv" for t, ds in zip(*found) if ds not in DATASETS + ["together"])


def paper_files():
    """Every file of the paper's part, intermediates included: deleting any of them makes
    the next run rebuild it and exactly what depends on it (Snakemake rebuilds a missing
    file only when it is asked for, not when a newer file was made from it)."""
    ds = available()
    return (
        ["results/data_status.json"]
        + expand("data/discretized/{ds}.{ext}", ds=ds, ext=["csv", "json"])
        + expand([TRAIN, TEST, POISONING_RUN], ds=ds, rep=REPS)
        + expand(
            [PERTURBED, CERTIFY_RUN, CERTIFICATE],
            ds=ds,
            rep=REPS,
            perturbation=S.perturbations,
            rate=RATES,
        )
        + expand(
            "results/tables/{table}_{ds}.csv", table=["certify", "poisoning", "certified"], ds=ds
        )
        + FIGURES
        + [f.replace(".png", ".pdf") for f in FIGURES]
        + ["results/paper.md"]
    )


def beyond_files():
    """Every file of the studies beyond the paper, intermediates included."""
    ds = available()
    return (
        expand(POISONING_TOGETHER_RUN, ds=ds, points=B.poison_together.points)
        + expand(SCALING_RUN, run=SCALING_RUNS)
        + expand("results/tables/{table}_{ds}.csv", table=["counting", "cleaning"], ds=ds)
        + expand(EQUIVALENTS, table=["certify", "poisoning"], ds=ds)
        + ["results/tables/poisoning_together.csv", "results/tables/scaling.csv"]
        + expand([CPCLEAN_SPACE, CPCLEAN_SUMMARY, CPCLEAN_CURVE], space=SPACES)
        + STUDY_FIGURES
        + [f.replace(".png", ".pdf") for f in STUDY_FIGURES]
    )


def targets(part):
    """What ``snakemake paper``, ``snakemake beyond`` and ``snakemake`` (all: both, and the
    whole report) make.  With no data set obtained, the one check that stops the run in one line."""

    def files(wildcards=None):
        if not available():
            return ["results/data_status.json"]
        return {"paper": paper_files, "beyond": beyond_files}.get(
            part, lambda: paper_files() + beyond_files() + ["results/report.md"]
        )()

    return files
