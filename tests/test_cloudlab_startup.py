"""cloudlab/startup.sh, the start-up every CloudLab node runs at boot, run on this machine.

One node: a fresh clone of the committed HEAD plays /local/repository; the script installs
the venv (uv from PyPI), runs the test config's pipeline detached and keeps the status
file; a second start-up finds the run finished and starts nothing.

Several nodes: each node is a network namespace made here (addresses 10.77.0.x on a bridge
in a namespace of its own: nothing leaves this machine), with its own mount and UTS
namespaces (its own /etc/slurm, /etc/munge, /run/munge and host name, as on a real node,
and its own clone at one common path).  node0 runs slurmctld and the pipeline, every node
munged and slurmd, all started by startup.sh itself.  The namespaces share one file system,
so NFS is bypassed (NBCERT_NO_NFS=1): the work folder is already shared.
"""

import os
import re
import shutil
import subprocess
import tarfile
import time
import uuid
from pathlib import Path

import pandas as pd
import pytest

from conftest import MIRROR, ROOT

STARTUP = "cloudlab/startup.sh"


def _status(path: Path) -> dict:
    if not path.exists():
        return {}
    return dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)


def _wait_status(status: Path, seconds: float, logs=()) -> dict:
    end = time.time() + seconds
    while time.time() < end:
        s = _status(status)
        if s.get("stage") in ("done", "failed"):
            return s
        time.sleep(3)
    tails = "\n".join(f"--- {p}\n{p.read_text()[-3000:]}" for p in logs if Path(p).exists())
    raise AssertionError(f"no end after {seconds}s; status {s}\n{tails}")


def _clone(dst: Path) -> Path:
    """A clone of the committed HEAD, as CloudLab clones the profile's repository."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dst)], check=True)
    return dst


def _needs_root():
    if os.geteuid() != 0:
        pytest.skip("the start-up runs as root (CloudLab runs it with sudo)")
    if not MIRROR.is_dir():
        pytest.skip(f"no data mirror at {MIRROR}")


def _env(tmp: Path, **more) -> dict:
    return {**os.environ, "NBCERT_WORK": str(tmp / "work"), "NBCERT_STATE": str(tmp / "state"),
            "NBCERT_DATA_MIRROR": str(MIRROR), "NBCERT_NO_SYSTEMD": "1", "NBCERT_STATUS_SECONDS": "2",
            "NBCERT_WAIT_SECONDS": "300", **more}


def _kill_pipeline(state: Path):
    """Stop what a failed test left running (the pipeline runner, then Snakemake)."""
    for name in ("run/pipeline.pid", "snakemake.pid"):
        try:
            os.killpg(int((state / name).read_text()), 15)
        except (OSError, ValueError):
            pass


ARGS = ["--index", "0", "--role", "controller", "--nodes", "1", "--target", "all", "--config", "config/test.yaml"]


def test_bad_arguments_are_one_line_naming_the_argument(tmp_path):
    _needs_root()
    for args, word in ((["--nodes", "0"], "--nodes"), (["--target", "figures"], "--target"),
                       (["--config", "../x.yaml"], "--config"), (["--index", "3", "--nodes", "2"], "--index"),
                       (["--role", "worker"], "--role")):
        proc = subprocess.run(["bash", str(ROOT / STARTUP), *args], env=_env(tmp_path), capture_output=True,
                              text=True)
        assert proc.returncode == 2 and word in proc.stderr and len(proc.stderr.splitlines()) == 1, (args, proc)
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "state").exists(), "a refused start-up leaves nothing behind"


def test_old_python_is_refused_in_one_line(tmp_path):
    _needs_root()
    old = tmp_path / "python3"
    old.write_text("#!/bin/sh\nif [ \"$1\" = -c ]; then case \"$2\" in *platform*) echo 3.10.12;; *) exit 1;; esac; fi\n")
    old.chmod(0o755)
    proc = subprocess.run(["bash", str(ROOT / STARTUP), *ARGS], env=_env(tmp_path, NBCERT_PYTHON=str(old)),
                          capture_output=True, text=True)
    assert proc.returncode == 2
    log = (tmp_path / "state" / "startup.log").read_text()
    assert re.search(r"error: .*Python 3\.10\.12, the pipeline needs 3\.11 or newer", log), log
    assert _status(tmp_path / "work" / "STATUS")["stage"] == "failed"


def test_one_node_runs_the_pipeline_once_to_the_report(tmp_path):
    _needs_root()
    repo = _clone(tmp_path / "repository")
    env = _env(tmp_path)
    work, state = tmp_path / "work", tmp_path / "state"
    try:
        started = time.time()
        proc = subprocess.run(["bash", str(repo / STARTUP), *ARGS], env=env, capture_output=True, text=True,
                              timeout=900)
        log = (state / "startup.log").read_text()
        assert proc.returncode == 0, log[-3000:]
        assert "pipeline started" in log
        status = _wait_status(work / "STATUS", 900, [work / "logs" / "pipeline.log", state / "startup.log"])
        print(f"start-up and pipeline: {time.time() - started:.0f} s")
        assert status["stage"] == "done", status
        done, total = map(int, status["jobs"].split("/"))
        assert done == total > 20, status
        assert (work / "results" / "report.md").stat().st_size > 0
        # the timed jobs ran one at a time on every core (the report checks the overlap)
        plog = (work / "logs" / "pipeline.log").read_text()
        assert "--cores all --resources timed=1" in plog and "--configfile" in plog
        with tarfile.open(work / "nbcert-results.tar.gz") as tar:
            names = tar.getnames()
        assert "results/report.md" in names and "logs/pipeline.log" in names
        assert "logs/startup-node0.log" in names and any(n.startswith("logs/decide/") for n in names)
        assert any(n.startswith("results/tables/decision_") for n in names)

        # a second start-up (a reboot) finds everything done and starts nothing
        before = (work / "logs" / "pipeline.log").stat().st_mtime, (work / "STATUS").read_text()
        proc = subprocess.run(["bash", str(repo / STARTUP), *ARGS], env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        log = (state / "startup.log").read_text()
        assert log.count("pipeline started") == 1 and "not starting it again" in log
        time.sleep(3)
        assert ((work / "logs" / "pipeline.log").stat().st_mtime, (work / "STATUS").read_text()) == before
    finally:
        _kill_pipeline(state)


def test_a_second_start_up_while_one_runs_leaves(tmp_path):
    """The start-up lock: while one start-up holds it, another exits at once, doing nothing."""
    _needs_root()
    state = tmp_path / "state"
    state.mkdir()
    holder = subprocess.Popen(["flock", str(state / "startup.lock"), "sleep", "30"])
    try:
        time.sleep(0.5)
        proc = subprocess.run(["bash", str(ROOT / STARTUP), *ARGS], env=_env(tmp_path), capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 0 and "another start-up is running" in proc.stdout, proc
        assert not (state / "startup.log").exists()
    finally:
        holder.kill()
        holder.wait()
