"""cloudlab/startup.sh, the start-up every CloudLab node runs at boot, run on this machine.

One node: a fresh clone of the committed HEAD plays /local/repository; the script installs
the venv (uv from PyPI), runs the test config's pipeline detached and keeps the status
file; a second start-up finds the run finished and starts nothing.

Several nodes: each node is a network namespace made here (addresses 10.77.0.x on a bridge
in a namespace of its own: nothing leaves this machine), with its own mount and UTS
namespaces (its own /etc/hosts, /etc/slurm, /etc/munge, /run/munge and host name, as on a
real node, and its own clone at one common path).  node0 runs slurmctld and the pipeline,
every node munged and slurmd, all started by startup.sh itself.  Each node installs its venv
first (NBCERT_INSTALL_ONLY) outside its network namespace, which reaches nothing but the
other nodes.  The namespaces share one file system, so NFS is bypassed (NBCERT_NO_NFS=1):
the work folder is already shared.  This machine's kernel has no NFS at all (neither nfs
nor nfsd in /proc/filesystems, no modules), so the NFS steps are checked with stand-in
exportfs and mount commands: what node0 exports and what a worker mounts.
"""

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
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
    return {
        **os.environ,
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


def test_old_python_is_refused_in_one_line(tmp_path):
    _needs_root()
    old = tmp_path / "python3"
    old.write_text(
        '#!/bin/sh\nif [ "$1" = -c ]; then case "$2" in *platform*) echo 3.10.12;; *) exit 1;; esac; fi\n'
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
    assert re.search(r"error: .*Python 3\.10\.12, the pipeline needs 3\.11 or newer", log), log
    assert _status(tmp_path / "work" / "STATUS")["stage"] == "failed"


def test_one_node_runs_the_pipeline_once_to_the_report(tmp_path):
    _needs_root()
    repo = _clone(tmp_path / "repository")
    env = _env(tmp_path)
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
        assert (work / "results" / "report.md").stat().st_size > 0
        # the timed jobs ran one at a time on every core (the report checks the overlap)
        plog = (work / "logs" / "pipeline.log").read_text()
        assert "--cores all --resources timed=1" in plog and "--configfile" in plog
        with tarfile.open(work / "nbcert-results.tar.gz") as tar:
            names = tar.getnames()
        assert "results/report.md" in names and "logs/pipeline.log" in names
        assert "logs/startup-node0.log" in names and any(
            n.startswith("logs/decide/") for n in names
        )
        assert any(n.startswith("results/tables/decision_") for n in names)

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


# ---------------------------------------------------------------- several nodes, in namespaces

SUBNET = "10.77.0"  # exists only inside the namespaces made here


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class Cluster:
    """``n`` CloudLab nodes on this machine: network namespaces joined by a bridge in a
    namespace of its own, each node with its own /etc/slurm, /etc/munge, /run/munge, host
    name and repository clone (bind-mounted, in the node's own mount namespace, at one path
    that every node shares, as /local/repository is on CloudLab)."""

    def __init__(self, n: int, base: Path):
        self.n, self.base = n, base
        tag = uuid.uuid4().hex[:6]
        self.names = [f"nbcl{tag}n{i}" for i in range(n)]
        self.bridge = f"nbcl{tag}br"
        self.made = []  # namespaces made, for the finalizer
        self.repo = base / "repository"  # the common path; each node binds its own clone here
        self.repo.mkdir()

    def up(self):
        _ip("netns", "add", self.bridge)
        self.made.append(self.bridge)
        _ip("-n", self.bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.bridge, "link", "set", "br0", "up")
        hosts = "127.0.0.1 localhost\n" + "".join(
            f"{SUBNET}.{i + 1} node{i}\n" for i in range(self.n)
        )
        for i, ns in enumerate(self.names):
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip(
                "-n",
                self.bridge,
                "link",
                "add",
                f"v{i}",
                "type",
                "veth",
                "peer",
                "name",
                "eth0",
                "netns",
                ns,
            )
            _ip("-n", self.bridge, "link", "set", f"v{i}", "master", "br0", "up")
            _ip("-n", ns, "addr", "add", f"{SUBNET}.{i + 1}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            node = self.base / f"node{i}"
            for sub in ("etc/slurm", "etc/munge", "run-munge"):
                (node / sub).mkdir(parents=True)
            (node / "etc" / "hosts").write_text(hosts)
            _clone(node / "repository")

    def install(self, env: dict):
        """Every node's installation (venv from PyPI), at once, each in its own mount namespace
        (its clone at the common path, as the venv's scripts name it) but this machine's
        network: a node's own network namespace reaches nothing outside the cluster."""
        procs = []
        for i in range(self.n):
            node = self.base / f"node{i}"
            inner = (
                f"mount --bind {node / 'repository'} {self.repo} && exec bash {self.repo / STARTUP} "
                f"--index {i} --role {'controller' if i == 0 else 'worker'} --nodes {self.n} --target all "
                f"--config config/test.yaml --subnet {SUBNET}"
            )
            procs.append(
                subprocess.Popen(
                    ["unshare", "--mount", "--propagation", "private", "bash", "-c", inner],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    env={**env, "NBCERT_STATE": str(node / "state"), "NBCERT_INSTALL_ONLY": "1"},
                )
            )
        for i, proc in enumerate(procs):
            out = proc.communicate(timeout=600)[0]
            log = (self.base / f"node{i}" / "state" / "startup.log").read_text()
            assert proc.returncode == 0 and "installed (NBCERT_INSTALL_ONLY)" in log, (out + log)[
                -3000:
            ]

    def start(self, i: int, env: dict) -> subprocess.Popen:
        node = self.base / f"node{i}"
        inner = (
            f"hostname node{i} && {self._mounts(i)} && exec bash {self.repo / STARTUP} "
            f"--index {i} --role {'controller' if i == 0 else 'worker'} --nodes {self.n} --target all "
            f"--config config/test.yaml --subnet {SUBNET}"
        )
        return subprocess.Popen(
            [*self._enter(i), "bash", "-c", inner],
            env={**env, "NBCERT_STATE": str(node / "state")},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def _enter(self, i: int) -> list:
        """Into node i: its network namespace, and mount and UTS namespaces of its own."""
        return [
            "unshare",
            "--mount",
            "--uts",
            "--propagation",
            "private",
            "nsenter",
            f"--net=/run/netns/{self.names[i]}",
        ]

    def _mounts(self, i: int) -> str:
        """The node's own /etc/hosts, /etc/slurm, /etc/munge, /run/munge and clone (at the
        common path).  (Not `ip netns exec`'s /etc/netns binding: it also mounts a fresh
        /sys, without the cgroup file systems slurmd needs.)"""
        node = self.base / f"node{i}"
        binds = [
            (node / "etc" / "hosts", "/etc/hosts"),
            (node / "etc" / "slurm", "/etc/slurm"),
            (node / "etc" / "munge", "/etc/munge"),
            (node / "run-munge", "/run/munge"),
            (node / "repository", self.repo),
        ]
        return " && ".join(f"mount --bind {src} {dst}" for src, dst in binds)

    def run(self, i: int, *cmd) -> subprocess.CompletedProcess:
        """A command on node i (as `ssh node<i> ...`)."""
        return subprocess.run(
            [*self._enter(i), "bash", "-c", f'{self._mounts(i)} && exec "$@"', "-", *cmd],
            capture_output=True,
            text=True,
        )

    def _pids(self, ns: str) -> list:
        """The live processes in a namespace (zombies left aside: nothing to stop)."""
        out = subprocess.run(
            ["ip", "netns", "pids", ns], capture_output=True, text=True
        ).stdout.split()
        live = []
        for pid in out:
            try:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    live.append(int(pid))
            except (OSError, IndexError):
                pass
        return live

    def down(self):
        """Stop every process in the namespaces (all started here: TERM, then KILL), then
        remove the namespaces."""
        for sig in (15, 9):
            for ns in self.made:
                for pid in self._pids(ns):
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
            end = time.time() + 10
            while time.time() < end and any(self._pids(ns) for ns in self.made):
                time.sleep(0.5)
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


@pytest.fixture
def cluster():
    _needs_root()
    from test_slurm import _ensure_packages

    _ensure_packages()
    if not all(shutil.which(c) for c in ("ip", "unshare", "runuser")):
        pytest.skip("needs ip, unshare and runuser")
    Path("/run/munge").mkdir(exist_ok=True)  # the mount point each node binds its own over
    # munged runs as the munge user and must reach its files: not under pytest's private tmp
    base = Path(tempfile.mkdtemp(prefix="nbcert-cloudlab-", dir="/tmp"))
    base.chmod(0o755)
    c = Cluster(3, base)
    try:
        c.up()
        yield c
    finally:
        c.down()
        shutil.rmtree(base, ignore_errors=True)


def test_three_nodes_run_the_pipeline_through_slurm_as_a_local_run_does(cluster, local_run):
    from test_slurm import _deterministic

    base = cluster.base
    env = _env(
        base,
        NBCERT_NO_NFS="1",
        NBCERT_SLURM_DIR=str(base / "slurm"),
        NBCERT_NODE_CPUS="1",
        NBCERT_NODE_MEM_MB="8000",
        NBCERT_SNAKEMAKE_ARGS=(
            "--jobs 8 --slurm-init-seconds-before-status-checks 1 --seconds-between-status-checks 2"
        ),
    )
    work = base / "work"
    started = time.time()
    cluster.install(env)
    print(f"three nodes installed: {time.time() - started:.0f} s")
    procs = [
        cluster.start(i, env) for i in (2, 1, 0)
    ]  # the workers first: node0 must wait for them anyway
    outs = [p.communicate(timeout=900)[0] for p in procs]
    logs = [base / f"node{i}" / "state" / "startup.log" for i in range(3)]
    assert all(p.returncode == 0 for p in procs), "\n".join(
        outs + [p.read_text()[-3000:] for p in logs if p.exists()]
    )
    status = _wait_status(
        work / "STATUS",
        900,
        [work / "logs" / "pipeline.log", *logs, base / "slurm" / "controller" / "slurmctld.log"],
    )
    print(f"three nodes, start-up and pipeline: {time.time() - started:.0f} s")
    assert status["stage"] == "done", status
    done, total = map(int, status["jobs"].split("/"))
    assert done == total > 5, status

    # the cluster that ran it: three nodes, each its own slurmd, node0 the controller
    conf = (base / "node0" / "etc" / "slurm" / "slurm.conf").read_text()
    assert f"SlurmctldHost=node0({SUBNET}.1)" in conf
    for i in range(3):
        assert f"NodeName=node{i} NodeAddr={SUBNET}.{i + 1} CPUs=1 RealMemory=8000" in conf
        assert (base / f"node{i}" / "etc" / "slurm" / "slurm.conf").read_text() == conf
        assert (base / f"node{i}" / "etc" / "munge" / "munge.key").read_bytes() == (
            work / "cluster" / "munge.key"
        ).read_bytes()
    sinfo = cluster.run(1, "sinfo", "-h", "-N", "-o", "%N %T").stdout.split("\n")
    assert sorted(line.split()[0] for line in sinfo if line) == ["node0", "node1", "node2"], sinfo
    plog = (work / "logs" / "pipeline.log").read_text()
    assert "--profile" in plog and "--slurm-no-account" in plog
    ids = set(re.findall(r"submitted with SLURM jobid (\d+)", plog))
    assert ids, plog[-2000:]
    # jobs ran on the workers, not only on node0 (Slurm's record of where each job ran)
    where = cluster.run(0, "scontrol", "show", "job").stdout
    used = set(re.findall(r"BatchHost=(node\d)", where))
    assert len(used) >= 2, used

    for table in sorted((local_run / "results" / "tables").glob("*.csv")):
        here, there = _deterministic(
            *(pd.read_csv(t) for t in (work / "results" / "tables" / table.name, table))
        )
        pd.testing.assert_frame_equal(here, there, obj=table.name)
    with tarfile.open(work / "nbcert-results.tar.gz") as tar:
        assert "results/report.md" in tar.getnames()

    # every node started again (a reboot of the cluster's start-up): nothing starts twice
    procs = [cluster.start(i, env) for i in (2, 1, 0)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    log0 = logs[0].read_text()
    assert log0.count("pipeline started") == 1 and "not starting it again" in log0
    assert _status(work / "STATUS")["stage"] == "done"
    for i in range(3):
        assert (base / f"node{i}" / "state" / "startup.log").read_text().count("start-up done") == 2
        assert (base / f"node{i}" / "state" / "startup.log").read_text().count(
            "apt-get install"
        ) == 0
    for i, ns in enumerate(cluster.names):  # one slurmd per node, one slurmctld on node0
        pids = subprocess.run(
            ["ip", "netns", "pids", ns], capture_output=True, text=True
        ).stdout.split()
        comms = [
            Path(f"/proc/{p}/comm").read_text().strip() for p in pids if Path(f"/proc/{p}").exists()
        ]
        assert (
            comms.count("slurmd") == 1
            and comms.count("slurmctld") == (i == 0)
            and comms.count("munged") == 1
        ), comms


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
            "[Wed Dec  2 16:16:32 2026]\nFinished jobid: 5 (Rule: decide)\n3 of 13 steps (23%) done\n"
            "Error in rule decide:\n    jobid: 7\nRuleException: CalledProcessError in file x, line 3\n"
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
