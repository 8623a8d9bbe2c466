"""The small pipeline run shared by the pipeline and Slurm tests (it takes a minute or two),
and helpers to run Snakemake on it or on a copy of it.

The suite runs on every core (pytest-xdist, ``-n auto`` in pyproject.toml): the long
end-to-end tests are collected first, so that they do not start last and leave one worker
busy long after the others are done, and the shared run is made once per session, not
once per worker."""

import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis: the README's test command (and so CI) draws the same examples on every run, so
# a landing never turns red at random; ``--hypothesis-profile explore`` searches afresh (a
# failure it finds prints its seed and blob, and becomes an ``@example`` of its test).
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("repeatable")

ROOT = Path(__file__).resolve().parents[1]
# The workflow's scripts and their shared code (``common``, ``studies``), and the benchmarks,
# are imported from the checkout, as the workflow and ``python -m benchmarks`` import them.
# (PYTHONPATH: the same for the Python processes the tests start)
_PATHS = [str(ROOT / "workflow" / "scripts"), str(ROOT)]
sys.path[:0] = _PATHS
os.environ["PYTHONPATH"] = os.pathsep.join(_PATHS + [os.environ.get("PYTHONPATH", "")]).rstrip(
    os.pathsep
)
MIRROR = ROOT.parent / "shared" / "datasets"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
TEST_CONFIG = ROOT / "config" / "test.yaml"


def snakemake(workdir, *args, env=None, timeout=900, config="test.yaml"):
    """Run the pipeline in ``workdir`` with a config file there (the test config, copied in
    by :func:`workdir_with_config`), from the mirror; returns the CompletedProcess."""
    env = {**os.environ, "NBCERT_DATA_MIRROR": str(MIRROR), **(env or {})}
    cmd = (
        [str(SNAKEMAKE), "-s", str(ROOT / "Snakefile")]
        + (["--configfile", config] if config else [])
        + list(args)
    )
    return subprocess.run(
        cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout
    )


def workdir_with_config(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    shutil.copy(TEST_CONFIG, path / "test.yaml")
    return path


def copy_run(src: Path, dst: Path) -> Path:
    """A copy of a finished run (files, times and Snakemake's records) to damage in a test."""
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns("locks", "incomplete"))
    return dst


def job_counts(dry_run_stdout: str) -> dict:
    """{rule: jobs} from the 'Job stats' table of a dry run (empty if nothing is to be done)."""
    stats = dry_run_stdout.split("Job stats:")[-1] if "Job stats:" in dry_run_stdout else ""
    rows = re.findall(r"^(\w+)\s+(\d+)\s*$", stats, flags=re.M)
    return {rule: int(n) for rule, n in rows if rule != "total"}


def table_rows(markdown: str) -> list:
    """The rows of every markdown table in ``markdown`` (header rows included, the rule
    under a header not), each as its cells without their padding."""
    lines = [line.strip() for line in markdown.splitlines() if line.strip().startswith("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return [row for row in rows if not all(set(cell) <= set("-:") for cell in row)]


LONGEST_FIRST = (
    "test_cloudlab_systemd.py",
    "test_slurm.py",
    "test_cloudlab_startup.py",
    "test_pipeline.py",
    "test_bench_pipeline.py",
    "test_exit.py",
)


def pytest_collection_modifyitems(items):
    """The long end-to-end tests first (the rest keep their order)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


def _session_dir(tmp_path_factory) -> Path:
    """A folder that every xdist worker of this session shares (the session's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def local_run(tmp_path_factory):
    """The test config's pipeline run, made by the first worker that needs it; the others
    wait for it (a lock) and share it: tests only read it or copy it."""
    if not MIRROR.is_dir():
        pytest.skip(f"no data mirror at {MIRROR}")
    shared = _session_dir(tmp_path_factory)
    work, done = shared / "local_run", shared / "local_run.done"
    with open(shared / "local_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(work, ignore_errors=True)  # what a failed attempt left
            proc = snakemake(workdir_with_config(work), "--cores", "2")
            assert proc.returncode == 0, proc.stderr[-3000:]
            done.touch()
    return work
