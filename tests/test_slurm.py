"""The pipeline through a real single-node Slurm, via `--profile profiles/slurm`.

The fixture installs Slurm and MUNGE from Debian's packages if needed, starts munged,
slurmctld and slurmd (state, logs and pid files in a temporary folder) and stops each
daemon by its PID afterwards.  The Slurm config goes to /etc/slurm/slurm.conf because
the plugin's job steps drop SLURM_CONF from the environment of their inner srun.
"""

import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT, snakemake, workdir_with_config

PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]
MARK = "# written by nbcert's tests/test_slurm.py\n"
ETC = Path("/etc/slurm")


def _ensure_packages():
    if os.geteuid() != 0:
        pytest.skip("a real Slurm needs root to start its daemons")
    if all(shutil.which(c) for c in ("slurmctld", "slurmd", "sbatch", "munged")):
        return
    if not shutil.which("apt-get"):
        pytest.skip("Slurm is not installed and there is no apt-get to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = [
        "-o",
        "DPkg::Lock::Timeout=600",
    ]  # test_cloudlab_startup.py may be installing them at the same time
    subprocess.run(["apt-get", *wait, "update", "-qq"], env=env, check=True, capture_output=True)
    subprocess.run(
        ["apt-get", *wait, "install", "-y", "-qq", *PACKAGES],
        env=env,
        check=True,
        capture_output=True,
    )


def _slurm_conf(tmp: Path) -> str:
    return (
        MARK
        + f"""ClusterName=nbcert
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
NodeName=localhost CPUs={os.cpu_count()} RealMemory=8000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""
    )


def _wait(predicate, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return
        time.sleep(0.5)
    raise TimeoutError(f"timed out waiting for {what}")


def _pid(path: Path) -> int:
    """A daemon's PID, once its pid file exists and has been written (it starts empty)."""
    _wait(lambda: path.exists() and path.read_text().strip().isdigit(), 20, path.name)
    return int(path.read_text())


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    _ensure_packages()
    conf = ETC / "slurm.conf"
    if conf.exists() and not conf.read_text().startswith(MARK):
        pytest.skip(f"{conf} belongs to a real Slurm installation; not touching it")
    tmp = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"):
        (tmp / sub).mkdir()
    ETC.mkdir(exist_ok=True)
    conf.write_text(_slurm_conf(tmp))
    (ETC / "cgroup.conf").write_text(MARK + "CgroupPlugin=autodetect\nIgnoreSystemd=yes\n")
    run = Path("/run/munge")
    run.mkdir(exist_ok=True)
    shutil.chown(run, "munge", "munge")
    pids = []
    try:
        (run / "munged.pid").unlink(missing_ok=True)  # a stale one from an earlier run
        subprocess.run(["runuser", "-u", "munge", "--", "munged", "--force"], check=True)
        pids.append(_pid(run / "munged.pid"))
        subprocess.run(["slurmctld"], check=True)
        pids.append(_pid(tmp / "slurmctld.pid"))
        subprocess.run(["slurmd", "-N", "localhost"], check=True)
        pids.append(_pid(tmp / "slurmd.pid"))
        _wait(
            lambda: (
                "idle"
                in subprocess.run(
                    ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True
                ).stdout
            ),
            60,
            "the node to become idle",
        )
        yield tmp
    finally:
        for pid in reversed(pids):
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                pass
        for f in (conf, ETC / "cgroup.conf"):
            if f.exists() and f.read_text().startswith(MARK):
                f.unlink()


# Columns read off a proven interval of counting's bounds method: the refinement picks its
# next grid by the time the last one took, so two machines prove different intervals (both
# proven, both within the width asked for); the test holds them to overlap instead.
FROM_BOUNDS = [
    "fraction",
    "tie_fraction",
    "proven_low",
    "proven_high",
    "width",
    "eps",
    "mc_contains_bounds",
    "mc_misses_bounds",
]


def _deterministic(here: pd.DataFrame, there: pd.DataFrame):
    """What must not depend on the machine: timings, memory, hosts and job times are left
    out, the rows a solver's time limit cut short in either run (the report marks those as
    machine-dependent), the counting study's test points whose proven bounds the time
    limit stopped before the width asked for (their intervals, and what is read off them),
    and the other bounds' intervals, which must overlap (each contains the true share)."""
    if "width_target" in here:
        point = ["dataset", "part", "missing_rate", "point"]
        cut = pd.concat(
            [
                t.loc[(t.method == "bounds") & (t.width > t.width_target), point]
                for t in (here, there)
            ]
        )
        keep = ~pd.MultiIndex.from_frame(here[point]).isin(pd.MultiIndex.from_frame(cut))
        here, there = here[keep].reset_index(drop=True), there[keep].reset_index(drop=True)
        bounds = (here.method == "bounds") & here.proven_low.notna()
        a, b = here[bounds], there[bounds]
        assert ((a.proven_low <= b.proven_high) & (b.proven_low <= a.proven_high)).all()
        interval = here.set_index(point).index.isin(here.loc[bounds].set_index(point).index)
        here, there = here.copy(), there.copy()
        for t in (here, there):
            t.loc[bounds, [c for c in FROM_BOUNDS if c in t]] = None
            t.loc[interval, ["mc_contains_bounds", "mc_misses_bounds"]] = None
    if "time_limited" in here:
        keep = ~(
            here.time_limited.fillna(False).astype(bool)
            | there.time_limited.fillna(False).astype(bool)
        )
        here, there = here[keep].reset_index(drop=True), there[keep].reset_index(drop=True)
    machine = [
        c
        for c in here
        if any(w in c for w in ("seconds", "cpu", "elapsed"))
        or c.endswith("_mb")
        or c in ("host", "started", "finished")
    ]
    return here.drop(columns=machine), there.drop(columns=machine)


def _cancel_one_runs_job(stop: threading.Event, cancelled: list):
    """Wait for a running group job of timed runs (decide among them) and scancel it, as a
    failed node would."""
    while not stop.is_set() and not cancelled:
        out = subprocess.run(
            ["squeue", "-h", "-t", "RUNNING", "-o", "%i %k"], capture_output=True, text=True
        ).stdout
        for line in out.splitlines():
            job, _, comment = line.partition(" ")
            if "rule_runs" in comment:
                subprocess.run(["scancel", job])
                cancelled.append(job)
                return
        time.sleep(0.5)


def _local_jobs(run) -> int:
    """How many jobs the local run's first Snakemake run executed."""
    log = sorted((run / ".snakemake" / "log").glob("*.snakemake.log"))[0].read_text()
    return int(re.findall(r"\d+ of (\d+) steps \(100%\) done", log)[-1])


def test_pipeline_runs_through_slurm_and_matches_a_local_run(slurm, local_run, tmp_path):
    workdir_with_config(tmp_path)
    stop, cancelled = threading.Event(), []
    killer = threading.Thread(target=_cancel_one_runs_job, args=(stop, cancelled))
    killer.start()
    try:
        proc = snakemake(
            tmp_path,
            "--profile",
            str(ROOT / "profiles" / "slurm"),
            "--slurm-status-command",
            "squeue",
            "--slurm-no-account",
            "--jobs",
            "8",
            "--slurm-init-seconds-before-status-checks",
            "1",
            "--seconds-between-status-checks",
            "2",
            timeout=1500,
        )
    finally:
        stop.set()
        killer.join()
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    job_ids = set(re.findall(r"submitted with SLURM jobid (\d+)", log))
    local_jobs = _local_jobs(local_run)
    assert 5 <= len(job_ids) <= 30 < local_jobs, (
        f"short jobs are grouped: {len(job_ids)} sbatch submissions for {local_jobs} jobs"
    )
    assert cancelled and cancelled[0] in job_ids
    assert (
        re.search(rf"JOB {cancelled[0]} ON \S+ CANCELLED", log) and "Error in group runs" in log
    ), "the cancelled group job was noticed (and, as the run succeeded, resubmitted)"
    for table in sorted((local_run / "results" / "tables").glob("*.csv")):
        here, there = _deterministic(
            *(pd.read_csv(t) for t in (tmp_path / "results" / "tables" / table.name, table))
        )
        pd.testing.assert_frame_equal(here, there, obj=table.name)
    assert (tmp_path / "results" / "report.md").stat().st_size > 0
    # re-running the same command after the failure has nothing left to do
    again = snakemake(
        tmp_path, "--profile", str(ROOT / "profiles" / "slurm"), "--slurm-no-account", "-n"
    )
    assert "Nothing to be done" in again.stdout
