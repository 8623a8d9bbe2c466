"""cloudlab/startup.sh, the start-up every CloudLab node runs at boot, run on this machine.

One node: a fresh clone of the committed HEAD plays /local/repository, owned by another
user than the one running the start-up (as CloudLab's clone is the experiment user's); the
script installs the venv (uv from PyPI), runs the test config's pipeline detached (setsid:
NBCERT_NO_SYSTEMD) with a timed job alone on the node, keeps the status file and copies the
archive to the project's folder; the report names the clone's commit; a second start-up
finds the run finished and starts nothing.

Nodes booted under systemd (the systemd-run branch, and several nodes running Slurm) are
test_cloudlab_systemd.py's.  This machine's kernel has no NFS at all (neither nfs nor nfsd
in /proc/filesystems, no modules), so the NFS steps are checked here with stand-in exportfs
and mount commands: what node0 exports and what a worker mounts.
"""

import os
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path

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
    return {
        **os.environ,
        # git's system config (where startup.sh marks the clone safe), not this machine's
        "GIT_CONFIG_SYSTEM": str(tmp / "gitconfig"),
        "NBCERT_WORK": str(tmp / "work"),
        "NBCERT_STATE": str(tmp / "state"),
        "NBCERT_DATA_MIRROR": str(MIRROR),
        "NBCERT_NO_SYSTEMD": "1",
        "NBCERT_STATUS_SECONDS": "2",
        "NBCERT_WAIT_SECONDS": "300",
        **more,
    }


def _kill_pipeline(state: Path):
    """Stop what a failed test left running (the pipeline runner, then Snakemake)."""
    for name in ("run/pipeline.pid", "snakemake.pid"):
        try:
            os.killpg(int((state / name).read_text()), 15)
        except (OSError, ValueError):
            pass


ARGS = [
    "--index",
    "0",
    "--role",
    "controller",
    "--nodes",
    "1",
    "--target",
    "all",
    "--config",
    "config/test.yaml",
]


def test_bad_arguments_are_one_line_naming_the_argument(tmp_path):
    _needs_root()
    for args, word in (
        (["--nodes", "0"], "--nodes"),
        (["--target", "figures"], "--target"),
        (["--config", "../x.yaml"], "--config"),
        (["--index", "3", "--nodes", "2"], "--index"),
        (["--role", "worker"], "--role"),
    ):
        proc = subprocess.run(
            ["bash", str(ROOT / STARTUP), *args], env=_env(tmp_path), capture_output=True, text=True
        )
        assert (
            proc.returncode == 2 and word in proc.stderr and len(proc.stderr.splitlines()) == 1
        ), (args, proc)
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "state").exists(), "a refused start-up leaves nothing behind"


def test_a_config_missing_from_the_repository_fails_in_the_status_file(tmp_path):
    _needs_root()
    proc = subprocess.run(
        ["bash", str(ROOT / STARTUP), *ARGS[:-1], "config/nosuch.yaml"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    status = _status(tmp_path / "work" / "STATUS")
    assert (
        status["stage"] == "failed"
        and status["last_error"] == f"--config config/nosuch.yaml: no such file in {ROOT}"
    )


def test_old_python_is_refused_in_one_line_before_any_stage(tmp_path):
    """(A real old python3 writing STATUS: test_cloudlab_systemd.py, on Debian 11's 3.9.)"""
    _needs_root()
    old = tmp_path / "python3"
    old.write_text(
        '#!/bin/sh\nif [ "$1" = -c ]; then case "$2" in *version_info\\[:2\\]*) echo 3.10;; *) exit 1;; esac; fi\n'
    )
    old.chmod(0o755)
    proc = subprocess.run(
        ["bash", str(ROOT / STARTUP), *ARGS],
        env=_env(tmp_path, NBCERT_PYTHON=str(old)),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    log = (tmp_path / "state" / "startup.log").read_text()
    want = "the pipeline needs Python 3.11 (this image has 3.10)"
    assert re.search(rf"error: {re.escape(want)} for numpy 2\.4 and pandas 3: choose", log), log
    assert "stage: installing" not in log
    status = _status(tmp_path / "work" / "STATUS")
    assert status["stage"] == "failed" and status["last_error"].startswith(want), status


def test_status_is_written_where_no_python_can(tmp_path):
    """An image whose python3 cannot run status.py at all still gets a STATUS file."""
    _needs_root()
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python3").write_text("#!/bin/sh\nexit 1\n")
    (bin_ / "python3").chmod(0o755)
    proc = subprocess.run(
        ["bash", str(ROOT / STARTUP), *ARGS],
        env=_env(tmp_path, PATH=f"{bin_}:{os.environ['PATH']}"),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    status = _status(tmp_path / "work" / "STATUS")
    assert status["stage"] == "failed" and "needs Python 3.11" in status["last_error"], status
    assert status["jobs"] == "-" and status["updated"].endswith("UTC")


TIMED_RULES = {
    "certify",
    "poison",
    "run_poisoning_together",
    "run_counting",
    "run_cleaning",
    "run_scaling",
    "scaling_stream",
}
STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")


def job_times(log: str) -> dict:
    """{jobid: (rule, started, finished)} from Snakemake's log (whole seconds)."""
    when, rule, started, finished = None, None, {}, {}
    for line in log.splitlines():
        if m := STAMP.match(line):
            when = time.mktime(time.strptime(m[1], "%a %b %d %H:%M:%S %Y"))
        elif m := re.match(r"^(?:local)?rule (\w+):$", line):
            rule = m[1]
        elif (m := re.match(r"^\s+jobid: (\d+)$", line)) and rule:
            started[m[1]], rule = (rule, when), None
        elif m := re.match(r"^Finished jobid: (\d+) ", line):
            finished[m[1]] = when
    return {j: (r, t, finished[j]) for j, (r, t) in started.items() if j in finished}


def jobs_beside_timed(log: str) -> list:
    """(timed job, other job) pairs that ran at the same time: one started before the other
    ended and ended after it started (whole seconds, so a job that ended in the second the
    other started does not count)."""
    jobs = job_times(log)
    return [
        (f"{r}#{j}", f"{r2}#{j2}")
        for j, (r, s, e) in jobs.items()
        if r in TIMED_RULES
        for j2, (r2, s2, e2) in jobs.items()
        if j2 != j and s2 < e and e2 > s
    ]


def test_one_node_runs_the_pipeline_once_to_the_report(tmp_path):
    """From a clone another user owns (as /local/repository is the experiment user's): the
    report names its commit, a timed job runs alone on the node, and the archive is copied to
    the project's folder."""
    _needs_root()
    repo = _clone(tmp_path / "repository")
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["chown", "-R", "65534:65534", str(repo)], check=True)  # nobody's
    proj = tmp_path / "proj" / "nbproject"
    proj.mkdir(parents=True)
    env = _env(tmp_path, NBCERT_PROJECT_DIR=str(proj))
    work, state = tmp_path / "work", tmp_path / "state"
    try:
        started = time.time()
        proc = subprocess.run(
            ["bash", str(repo / STARTUP), *ARGS],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        log = (state / "startup.log").read_text()
        assert proc.returncode == 0, log[-3000:]
        assert "pipeline started" in log
        status = _wait_status(
            work / "STATUS", 900, [work / "logs" / "pipeline.log", state / "startup.log"]
        )
        print(f"start-up and pipeline: {time.time() - started:.0f} s")
        assert status["stage"] == "done", status
        done, total = map(int, status["jobs"].split("/"))
        assert done == total > 20, status
        report = (work / "results" / "report.md").read_text()
        assert f"Computed by: commit {head};" in report, report[:2000]
        # every core for the untimed jobs, but nothing beside a timed job
        plog = (work / "logs" / "pipeline.log").read_text()
        assert "--cores all --resources timed=1 node_share=" in plog and "--configfile" in plog
        times = job_times(plog)
        assert sum(r in TIMED_RULES for r, _, _ in times.values()) >= 10, times
        assert jobs_beside_timed(plog) == []
        copies = list((proj / "nbcert").glob("nbcert-results-*.tar.gz"))
        assert len(copies) == 1 and status["detail"] == f"results copied to {copies[0]}", status
        assert copies[0].read_bytes() == (work / "nbcert-results.tar.gz").read_bytes()
        with tarfile.open(work / "nbcert-results.tar.gz") as tar:
            names = tar.getnames()
        assert "results/report.md" in names and "logs/pipeline.log" in names
        assert "logs/startup-node0.log" in names and any(
            n.startswith("logs/certify/") for n in names
        )
        assert any(n.startswith("results/tables/certify_") for n in names)

        # a second start-up (a reboot) finds everything done and starts nothing
        before = (work / "logs" / "pipeline.log").stat().st_mtime, (work / "STATUS").read_text()
        proc = subprocess.run(
            ["bash", str(repo / STARTUP), *ARGS],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        log = (state / "startup.log").read_text()
        assert log.count("pipeline started") == 1 and "not starting it again" in log
        time.sleep(3)
        assert (
            (work / "logs" / "pipeline.log").stat().st_mtime,
            (work / "STATUS").read_text(),
        ) == before
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
        proc = subprocess.run(
            ["bash", str(ROOT / STARTUP), *ARGS],
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 0 and "another start-up is running" in proc.stdout, proc
        assert not (state / "startup.log").exists()
    finally:
        holder.kill()
        holder.wait()


# ---------------------------------------------------------------- several nodes

SUBNET = "10.77.0"  # only a value here: nothing is sent to it


def test_nfs_steps_export_on_node0_and_mount_on_the_others(tmp_path):
    """What node0 exports and what a worker mounts, with stand-ins for exportfs, mount,
    mountpoint and dpkg-query (this kernel has no NFS; see the module's docstring).  Each
    role then waits for the other nodes, which never come: the start-up fails after
    NBCERT_WAIT_SECONDS, saying what it waited for."""
    _needs_root()
    stubs, calls = tmp_path / "stubs", tmp_path / "calls"
    stubs.mkdir()
    for name, body in (
        ("exportfs", 'echo "exportfs $*" >> "$CALLS"'),
        ("mount", 'echo "mount $*" >> "$CALLS"'),
        ("mountpoint", "exit 1"),
        ("dpkg-query", "echo 'install ok installed'"),
    ):
        (stubs / name).write_text(f"#!/bin/sh\n{body}\n")
        (stubs / name).chmod(0o755)
    exports = tmp_path / "exports"
    exports.write_text("/srv/other 10.0.0.0/8(ro)\n")
    work = tmp_path / "work"
    # node0 twice (the export is added once), then the worker: node0 never sees it, so neither
    # role gets as far as the daemons (which would use this machine's /etc/munge and /etc/slurm)
    for i in (0, 0, 1):
        state = tmp_path / f"node{i}"
        (state / "done").mkdir(parents=True, exist_ok=True)
        (state / "done" / "venv").touch()  # installed already: the marker skips the step
        env = _env(
            tmp_path,
            NBCERT_STATE=str(state),
            NBCERT_EXPORTS=str(exports),
            NBCERT_WAIT_SECONDS="2",
            NBCERT_NODE_CPUS="2",  # (not slurmd -C: Slurm may not be installed here)
            CALLS=str(calls),
            PATH=f"{stubs}:{os.environ['PATH']}",
        )
        proc = subprocess.run(
            [
                "bash",
                str(ROOT / STARTUP),
                "--index",
                str(i),
                "--role",
                "controller" if i == 0 else "worker",
                "--nodes",
                "2",
                "--config",
                "config/test.yaml",
                "--subnet",
                SUBNET,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        log = (state / "startup.log").read_text()
        assert proc.returncode == 2, log
        assert "pip install" not in log and "apt-get" not in log
        waited = "every node's hardware" if i == 0 else "node0's slurm.conf and MUNGE key"
        assert re.search(f"error: timed out after 2s waiting for {waited}", log), log
    assert exports.read_text() == (
        f"/srv/other 10.0.0.0/8(ro)\n"
        f"{work} {SUBNET}.0/24(rw,sync,no_subtree_check,no_root_squash)\n"
    )
    assert calls.read_text().splitlines() == [
        "exportfs -ra",
        "exportfs -ra",
        f"mount -t nfs -o vers=4,hard {SUBNET}.1:{work} {work}",
    ]
    assert not list(tmp_path.glob("node*/run/*.pid")), "no daemon was started"
    status = _status(work / "STATUS")
    assert status["stage"] == "failed" and "every node's hardware" in status["last_error"], status
    assert sorted(p.name for p in (work / "cluster").iterdir()) == [
        "munge.key",
        "node0.node",
        "node1.node",
    ]


def test_status_file_from_a_snakemake_log(tmp_path):
    """cloudlab/status.py: jobs done/total from the last progress line (the job table's
    total before any job ends), the last error line, and a refusal of unknown stages."""
    log, status = tmp_path / "pipeline.log", tmp_path / "STATUS"
    script = [sys.executable, str(ROOT / "cloudlab" / "status.py"), str(status)]
    log.write_text(
        "Job stats:\njob      count\n-----  -------\nall          1\ndecide      12\ntotal       13\n\n"
    )
    subprocess.run([*script, "running", str(log)], check=True)
    assert _status(status)["jobs"] == "0/13" and _status(status)["last_error"] == "-"
    with log.open("a") as f:
        f.write(
            "[Wed Dec  2 16:16:32 2026]\nFinished jobid: 5 (Rule: certify)\n3 of 13 steps (23%) done\n"
            "Error in rule certify:\n    jobid: 7\nRuleException: CalledProcessError in file x, line 3\n"
            "4 of 13 steps (31%) done\n"
        )
    subprocess.run([*script, "failed", str(log), "snakemake exited with 1"], check=True)
    s = _status(status)
    assert (
        s["stage"] == "failed" and s["jobs"] == "4/13" and s["detail"] == "snakemake exited with 1"
    )
    assert s["last_error"] == "RuleException: CalledProcessError in file x, line 3"
    subprocess.run([*script, "installing", str(tmp_path / "none.log")], check=True)
    assert _status(status)["jobs"] == "-"
    proc = subprocess.run([*script, "finished"], capture_output=True, text=True)
    assert proc.returncode == 1 and "STAGE one of" in proc.stderr and "Traceback" not in proc.stderr
