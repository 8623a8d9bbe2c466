"""The small pipeline run shared by the pipeline and Slurm tests (it takes a minute or two)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT.parent / "shared" / "datasets"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def snakemake(workdir, *args, env=None, timeout=900):
    """Run the pipeline with the test config from the mirror; returns the CompletedProcess."""
    env = {**os.environ, "NBCERT_DATA_MIRROR": str(MIRROR), **(env or {})}
    cmd = [str(SNAKEMAKE), "-s", str(ROOT / "Snakefile"), "--configfile", str(ROOT / "config" / "test.yaml"), *args]
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def local_run(tmp_path_factory):
    if not MIRROR.is_dir():
        pytest.skip(f"no data mirror at {MIRROR}")
    work = tmp_path_factory.mktemp("pipeline")
    proc = snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return work
