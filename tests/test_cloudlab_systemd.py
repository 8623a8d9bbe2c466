"""cloudlab/startup.sh on nodes that boot as CloudLab's do: Debian containers under systemd.

A node is a Debian 12 root file system made by debootstrap from Debian's packages (systemd,
slurmd, slurmctld, munge, python3, git, sudo), booted by systemd-nspawn with systemd as its
init and cgroup v2 alone, as on Ubuntu 24.04.  A unit stands in for CloudLab's execute
service: once the node is up it runs the profile's command (`sudo bash
/local/repository/cloudlab/startup.sh ...`) as the experiment's user, who owns the clone at
/local/repository, its output in /var/tmp/startup-0.txt, and ends (so whatever the
start-up left in its cgroup is killed with it).  So the start-up takes the systemd branch:
`systemctl disable --now` of the packaged munge and Slurm units, `systemd-run` for munged,
slurmd, slurmctld and the pipeline.  The data sets come from a read-only mirror, and the
package caches of this machine are bound in to spare downloads; everything else is the
node's own.

- One node, with this machine's network: python3-venv is left out of the image, so the
  start-up installs it with apt, then the venv from PyPI, then runs the pipeline to STATUS
  done; a reboot starts nothing again.
- Three nodes on a bridge of their own (network namespaces made here, addresses 10.78.0.x
  that exist only in them): each installs its venv first with this machine's network
  (NBCERT_INSTALL_ONLY: the bridge reaches nothing else), then boots on the bridge.  node0
  runs slurmctld, every node munged and slurmd, all under systemd; Slurm runs the pipeline.
  Each node says it is one physical core with two hyperthreads, so a job given a core has
  the node to itself.  This kernel has no NFS (see test_cloudlab_startup.py), so the work
  folder is one folder of this machine bound into every node (NBCERT_NO_NFS=1).  These
  nodes boot with the cgroup versions this machine has: here both (v1 controllers, v2 for
  systemd alone), and with cgroup v2 alone slurmd 22.05 stops at once ("fatal: Hybrid
  mode is not supported": /proc/self/cgroup lists the kernel's v1 hierarchies whatever
  the container mounts), so on this machine slurmd runs its cgroup/v1 plugin; on a
  machine with cgroup v2 alone (Ubuntu 24.04's) the nodes have v2 alone too.
- The apt lock: a node whose package lists and then dpkg are locked for a while, as
  apt-daily and unattended-upgrades lock them on a fresh boot.
- An image too old for the pipeline (Debian 11, Python 3.9): STATUS says so.

The root file systems are made once and kept in NBCERT_TEST_ROOTS [/var/cache/nbcert-tests]
(Debian 12's about 50 s and 450 MB, Debian 11's 30 s and 230 MB); each test copies them.
"""

import fcntl
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pandas as pd
import pytest
from conftest import MIRROR, ROOT
from test_cloudlab_startup import _status, _wait_status, job_times, jobs_beside_timed

ROOTS = Path(os.environ.get("NBCERT_TEST_ROOTS", "/var/cache/nbcert-tests"))
DEBIAN = os.environ.get("NBCERT_TEST_DEBIAN_MIRROR", "http://deb.debian.org/debian")
NODE_PACKAGES = [
    "systemd",
    "systemd-sysv",
    "dbus",
    "sudo",
    "python3",
    "python3-venv",
    "git",
    "ca-certificates",
    "iproute2",
    "procps",
    "slurmd",
    "slurmctld",
    "slurm-client",
    "munge",
]
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
# what makes uv and pip trust that bundle, where this machine sets it
TLS_ENV = {k: os.environ[k] for k in ("SSL_CERT_FILE", "PIP_CERT") if k in os.environ}
USER, UID = "geniuser", 20001  # the experiment's user, who owns /local/repository
SUBNET = "10.78.0"  # exists only inside the namespaces made here
STARTUP = "/local/repository/cloudlab/startup.sh"
# what each node offers Slurm: one physical core, two hyperthreads
ONE_CORE_TWO_THREADS = "CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=1 ThreadsPerCore=2"


# ---------------------------------------------------------------- the machine


def _apt_install(*packages):
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    wait = ["-o", "DPkg::Lock::Timeout=600"]
    for args in (["update", "-qq"], ["install", "-y", "-qq", *packages]):
        for _attempt in range(30):  # test_slurm.py may be running apt at the same time
            proc = subprocess.run(
                ["apt-get", *wait, *args], env=env, capture_output=True, text=True
            )
            if proc.returncode == 0:
                break
            time.sleep(5)
        else:
            raise AssertionError(f"apt-get {' '.join(args)}: {proc.stderr[-1000:]}")


@pytest.fixture(scope="module")
def machine():
    """Root, the data mirror, systemd-nspawn and debootstrap (installed where missing)."""
    if os.geteuid() != 0:
        pytest.skip("containers are started as root")
    if not MIRROR.is_dir():
        pytest.skip(f"no data mirror at {MIRROR}")
    if not (shutil.which("systemd-nspawn") and shutil.which("debootstrap")):
        _apt_install("systemd-container", "debootstrap")
    _remove_cgroups([d for c in _cgroups() for d in c.glob("nbcert-test-*")])  # earlier runs'


def debian_root(suite: str, packages: list) -> Path:
    """A Debian root file system with ``packages``, made by debootstrap once and kept."""
    key = hashlib.sha256(f"{suite} minbase {sorted(packages)} {DEBIAN}".encode()).hexdigest()[:12]
    root = ROOTS / f"{suite}-{key}"
    ROOTS.mkdir(parents=True, exist_ok=True)
    with open(ROOTS / ".lock", "w") as lock:  # one maker at a time (pytest-xdist's workers)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / ".complete").exists():
            shutil.rmtree(root, ignore_errors=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{suite}-", dir=ROOTS))
            tmp.chmod(0o755)  # a root file system's / (mkdtemp's 0700 keeps its users out)
            proc = subprocess.run(
                [
                    "debootstrap",
                    "--variant=minbase",
                    f"--include={','.join(packages)}",
                    suite,
                    str(tmp),
                    DEBIAN,
                ],
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert proc.returncode == 0, f"debootstrap {suite}:\n{proc.stdout[-3000:]}"
            (tmp / ".complete").touch()
            tmp.rename(root)
            for old in ROOTS.glob(f"{suite}-*"):  # roots of other package lists
                if old != root:
                    shutil.rmtree(old, ignore_errors=True)
    return root


def _remove(path: Path):
    """A folder and everything in it (rm: much faster than shutil.rmtree on a venv)."""
    subprocess.run(["rm", "-rf", "--one-file-system", str(path)], check=False)


def _remove_cgroups(folders):
    """Empty cgroups, deepest first (cgroup v1's stay busy for a while after their last
    process: what is left is removed by the next run's ``machine``)."""
    for c in folders:
        for d in [*sorted((p for p in c.rglob("*") if p.is_dir()), reverse=True), c]:
            try:
                d.rmdir()
            except OSError:
                pass


def _cgroups() -> list:
    """The cgroup folders a container's supervisor is moved to: cgroup v2's (and, on a
    machine with both versions, v1's named systemd hierarchy)."""
    base = Path("/sys/fs/cgroup")
    if (base / "cgroup.controllers").exists():
        return [base]
    return [p for p in (base / "unified", base / "systemd") if (p / "cgroup.procs").exists()]


# ---------------------------------------------------------------- a node


class Node:
    """A container: a root file system of its own (an overlay: the kept image below, the
    node's changes above), booted (or not) by systemd-nspawn in a cgroup of its own
    (nspawn without a host systemd would put every container into one), its console in
    ``console.log``."""

    def __init__(self, name: str, image: Path, base: Path):
        self.name, self.base = name, base / name
        # a name of its own on this machine (nspawn keeps a folder per name in /run), the
        # node's own name in its /etc/hostname
        self.machine = f"{name}-{uuid.uuid4().hex[:6]}"
        self.root = self.base / "root"
        for sub in ("root", "upper", "work"):
            (self.base / sub).mkdir(parents=True)
        subprocess.run(
            [
                "mount",
                "-t",
                "overlay",
                "overlay",
                "-o",
                f"lowerdir={image},upperdir={self.base / 'upper'},workdir={self.base / 'work'}",
                str(self.root),
            ],
            check=True,
        )
        self.cgroups = [c / f"nbcert-test-{uuid.uuid4().hex[:8]}-{name}" for c in _cgroups()]
        self.proc = None
        self.binds = []

    def chroot(self, *cmd, **kw):
        return subprocess.run(["chroot", str(self.root), *cmd], check=True, **kw)

    def write(self, path: str, text: str, mode=0o644):
        f = self.root / path.lstrip("/")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
        f.chmod(mode)

    def _nspawn(self, *args) -> list:
        return [
            "systemd-nspawn",
            "--quiet",
            f"--directory={self.root}",
            f"--machine={self.machine}",
            "--register=no",
            "--keep-unit",
            *self.binds,
            *args,
        ]

    def _own_cgroup(self):
        for c in self.cgroups:
            c.mkdir(exist_ok=True)
            (c / "cgroup.procs").write_text(str(os.getpid()))

    def run(self, *cmd, timeout=900, **env) -> subprocess.CompletedProcess:
        """``cmd`` in the node's file system, not booted, with this machine's network."""
        sets = [f"--setenv={k}={v}" for k, v in {**TLS_ENV, **env}.items()]
        return subprocess.run(
            self._nspawn(*sets, "--", *cmd),
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=self._own_cgroup,
        )

    def boot(self, *args, unified=True):
        """Booted with cgroup v2 alone (``unified``), as on Ubuntu 24.04, or with the cgroup
        versions this machine has (see the three nodes' test)."""
        console = open(self.base / "console.log", "ab")
        env = {k: v for k, v in os.environ.items() if k != "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY"}
        if unified:
            env["SYSTEMD_NSPAWN_UNIFIED_HIERARCHY"] = "1"
        self.proc = subprocess.Popen(
            self._nspawn("--boot", *args),
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=self._own_cgroup,
        )
        # until its systemd answers (not until the boot is over: that waits for the execute
        # service, whose start-up may wait for the other nodes)
        end = time.time() + 120
        while self.leader() is None or self.sh(
            "systemctl is-system-running"
        ).stdout.strip() not in (
            "starting",
            "running",
            "degraded",
        ):
            assert self.proc.poll() is None, (self.base / "console.log").read_text()[-3000:]
            assert time.time() < end, (self.base / "console.log").read_text()[-3000:]
            time.sleep(1)

    def leader(self):
        """The node's init (systemd), a child of nspawn, as this machine numbers it."""
        if self.proc is None or self.proc.poll() is not None:
            return None
        out = subprocess.run(
            ["ps", "-o", "pid=,comm=", "--ppid", str(self.proc.pid)], capture_output=True, text=True
        ).stdout.split()
        pids = [int(p) for p, c in zip(out[::2], out[1::2]) if c == "systemd"]
        return pids[0] if pids else None

    def sh(self, script: str) -> subprocess.CompletedProcess:
        """A shell command on the booted node (as `ssh node sudo sh -c ...`)."""
        return subprocess.run(
            ["nsenter", "-t", str(self.leader()), "-a", "--", "sh", "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
        )

    def poweroff(self):
        """An orderly shutdown (nspawn passes SIGTERM on as the init's power-off signal);
        after 30 s the node's init is killed, and every process of the node with it."""
        if self.proc is not None and self.proc.poll() is None:
            leader = self.leader()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                print(f"{self.name}: no orderly shutdown in 30 s; killed")
                if leader:
                    os.kill(leader, signal.SIGKILL)
                try:
                    self.proc.wait(30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        self.proc = None

    def remove(self):
        self.poweroff()
        _remove_cgroups(self.cgroups)
        subprocess.run(["umount", "--lazy", str(self.root)], capture_output=True)
        _remove(self.base)

    # -- as CloudLab makes a node

    def as_cloudlab(self, command: str, hosts: str = ""):
        """The experiment's user with sudo, the clone at /local/repository owned by that user,
        Emulab's name for the node (node.experiment.project), the project's folder, and the
        execute service's stand-in running ``command`` as that user once the node is up."""
        self.chroot("useradd", "--create-home", "--uid", str(UID), "--shell", "/bin/bash", USER)
        self.write(f"/etc/sudoers.d/{USER}", f"{USER} ALL=(ALL) NOPASSWD: ALL\n", 0o440)
        repo = self.root / "local" / "repository"
        repo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
        self.commit = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        subprocess.run(["chown", "-R", f"{UID}:{UID}", str(repo)], check=True)
        self.write("/etc/hostname", f"{self.name}\n")
        self.write("/etc/hosts", f"127.0.0.1 localhost\n127.0.1.1 {self.name}\n{hosts}")
        self.write("/var/emulab/boot/nickname", f"{self.name}.nbexp.nbproj\n")
        (self.root / "proj" / "nbproj").mkdir(parents=True)
        self.write(
            "/usr/local/sbin/cloudlab-execute",
            f"#!/bin/sh\nexec {command} > /var/tmp/startup-0.txt 2>&1\n",
            0o755,
        )
        self.write(
            "/etc/systemd/system/cloudlab-execute.service",
            "[Unit]\n"
            "Description=Stand-in for CloudLab's execute service (the profile's command)\n"
            "After=multi-user.target\n"
            "[Service]\n"
            "Type=oneshot\n"
            f"User={USER}\n"
            "ExecStart=/usr/local/sbin/cloudlab-execute\n"
            "[Install]\n"
            "WantedBy=default.target\n",
        )
        wants = self.root / "etc/systemd/system/default.target.wants"
        wants.mkdir(parents=True, exist_ok=True)
        (wants / "cloudlab-execute.service").symlink_to(
            "/etc/systemd/system/cloudlab-execute.service"
        )
        for cache in ("uv", "pip"):  # this machine's downloads, not the node's to make again
            host = Path("/root/.cache") / cache
            if host.is_dir():
                (self.root / "root/.cache" / cache).mkdir(parents=True, exist_ok=True)
                self.binds.append(f"--bind={host}:/root/.cache/{cache}")
        self.binds.append(f"--bind-ro={MIRROR}:/mirror")
        # this machine's certificate authorities (TLS: its way to PyPI may re-sign what it
        # carries; _command passes TLS_ENV on)
        self.binds.append(f"--bind-ro={CA_BUNDLE}")


def _command(i: int, n: int, **env) -> str:
    """The profile's command for node i of n (profile.py; test_cloudlab_profile.py checks
    it), with the test's settings passed through sudo, as its sudoers rule allows."""
    sets = " ".join(f"{k}='{v}'" for k, v in {**TLS_ENV, **env}.items())
    role = "controller" if i == 0 else "worker"
    return (
        f"sudo {sets} bash {STARTUP} --index {i} --role {role} --nodes {n} --target all "
        f"--config config/test.yaml --subnet {SUBNET if n > 1 else '10.10.1'}"
    )


@pytest.fixture
def nodes(machine):
    """A factory of nodes, every one powered off and removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="nbcert-nodes-", dir="/var/tmp"))
    made = []

    def make(name, image):
        node = Node(name, image, base)
        made.append(node)
        return node

    try:
        yield make
    finally:
        for node in made:
            node.remove()
        _remove(base)


def _startup_log(node: Node) -> str:
    f = node.root / "local/nbcert-node/startup.log"
    return f.read_text() if f.exists() else ""


# ---------------------------------------------------------------- one node


def test_one_node_boots_and_runs_the_pipeline_under_systemd(nodes):
    image = debian_root("bookworm", NODE_PACKAGES)
    node = nodes("node0", image)
    # an image without venv support, as Ubuntu's: the start-up installs it with apt
    node.chroot("dpkg", "--purge", "python3-venv", "python3.11-venv", capture_output=True)
    node.as_cloudlab(_command(0, 1, NBCERT_DATA_MIRROR="/mirror"))
    work = node.root / "local/nbcert"
    started = time.time()
    node.boot()
    status = _wait_status(
        work / "STATUS",
        1200,
        [
            work / "logs/pipeline.log",
            node.root / "local/nbcert-node/startup.log",
            node.base / "console.log",
        ],
    )
    print(f"one node, boot to STATUS done: {time.time() - started:.0f} s")
    log = _startup_log(node)
    assert status["stage"] == "done", (status, log[-3000:])
    assert "apt-get install python3-venv" in log
    # the systemd branch: the pipeline ran as a unit of its own and outlived the execute
    # service (a oneshot unit, whose leftover processes systemd kills as it ends)
    assert not (node.root / "local/nbcert-node/run/pipeline.pid").exists()
    assert node.sh("systemctl show -p Result --value cloudlab-execute").stdout.strip() == "success"
    journal = node.sh("journalctl -q --no-pager -o cat | grep -c 'nbcert-pipeline'").stdout
    assert int(journal or 0) >= 1, node.sh("journalctl -q --no-pager -o cat | tail -50").stdout
    # the commit of a clone the experiment's user owns, read by git as root
    report = (work / "results/report.md").read_text()
    assert f"Computed by: commit {node.commit};" in report, report[:1500]
    # nothing ran beside a timed job
    plog = (work / "logs/pipeline.log").read_text()
    assert sum(r == "certify" for r, _, _ in job_times(plog).values()) == 3
    assert jobs_beside_timed(plog) == []
    # the archive, copied to the project's folder
    copies = list((node.root / "proj/nbproj/nbcert").glob("nbcert-results-nbexp-*.tar.gz"))
    assert (
        len(copies) == 1
        and status["detail"] == f"results copied to {str(copies[0])[len(str(node.root)) :]}"
    )
    with tarfile.open(copies[0]) as tar:
        assert "results/report.md" in tar.getnames()

    # a reboot: the execute service runs the start-up again, which starts nothing
    node.poweroff()
    before = (work / "STATUS").read_text()
    node.boot()
    end = time.time() + 120
    while _startup_log(node).count("start-up done") < 2:
        assert time.time() < end, _startup_log(node)[-3000:]
        time.sleep(2)
    log = _startup_log(node)
    assert log.count("pipeline started") == 1 and "not starting it again" in log
    assert log.count("apt-get install") == 1
    assert (work / "STATUS").read_text() == before
    assert node.sh("systemctl is-active nbcert-pipeline").stdout.strip() != "active"


# ---------------------------------------------------------------- the apt lock

HOLD = """
import fcntl, os, sys, time
def hold(paths, seconds):
    fds = [os.open(p, os.O_RDWR | os.O_CREAT, 0o640) for p in paths]
    for fd in fds:
        fcntl.lockf(fd, fcntl.LOCK_EX)  # fcntl locks, as apt and dpkg take them
    open("/run/held", "a").write(" ".join(paths) + "\\n")
    time.sleep(seconds)
    for fd in fds:
        os.close(fd)
hold(["/var/lib/apt/lists/lock"], float(sys.argv[1]))
hold(["/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock"], float(sys.argv[1]))
"""


def test_apt_waits_for_the_locks_of_a_fresh_boot(nodes):
    """The package lists' lock held for 20 s, then dpkg's for 20 s (as apt-daily's update
    and then unattended-upgrades' dpkg run hold them): the start-up's apt-get update and
    install wait for them, and the installation succeeds."""
    image = debian_root("bookworm", NODE_PACKAGES)
    node = nodes("node0", image)
    node.chroot("dpkg", "--purge", "python3-venv", "python3.11-venv", capture_output=True)
    repo = node.root / "local/repository"
    repo.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    (node.root / "local/nbcert-node/done").mkdir(parents=True)
    (node.root / "local/nbcert-node/done/venv").touch()  # the venv's step is not what is tested
    node.write("/hold.py", HOLD)
    started = time.time()
    proc = node.run(
        "bash",
        "-c",
        "python3 /hold.py 20 & until [ -e /run/held ]; do sleep 0.1; done; "
        f"bash {STARTUP} --index 0 --role controller --nodes 1 --config config/test.yaml; "
        "rc=$?; wait; exit $rc",
        NBCERT_INSTALL_ONLY=1,
        NBCERT_APT_RETRY_SECONDS=2,
    )
    log = _startup_log(node)
    print(f"apt with the locks held: {time.time() - started:.0f} s")
    assert proc.returncode == 0, (proc.stdout + proc.stderr + log)[-3000:]
    assert re.search(r"apt-get update: another apt or dpkg holds its lock", log), log[-3000:]
    assert "installed (NBCERT_INSTALL_ONLY)" in log
    assert (
        node.run("dpkg-query", "-W", "-f", "${Status}", "python3-venv").stdout
        == "install ok installed"
    )
    assert time.time() - started >= 20


# ---------------------------------------------------------------- an old image


def test_an_image_too_old_says_so_in_status(nodes):
    """Debian 11's python3 (3.9) writes STATUS, and STATUS says what is missing."""
    image = debian_root("bullseye", ["python3-minimal"])
    node = nodes("node0", image)
    repo = node.root / "local/repository"
    repo.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    assert (
        node.run("python3", "-c", "import sys; print(sys.version_info[:2])").stdout.strip()
        == "(3, 9)"
    )
    proc = node.run("bash", STARTUP, "--index", "0", "--role", "controller", "--nodes", "1")
    log = _startup_log(node)
    assert proc.returncode == 2, (proc.stdout + proc.stderr + log)[-3000:]
    status = _status(node.root / "local/nbcert/STATUS")
    want = "the pipeline needs Python 3.11 (this image has 3.9)"
    assert status.get("stage") == "failed" and status["last_error"].startswith(want), (status, log)
    assert "stage: installing" not in log and "Traceback" not in log


# ---------------------------------------------------------------- three nodes


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


class Bridge:
    """Network namespaces, one a node, joined by a bridge in a namespace of its own."""

    def __init__(self, n: int):
        tag = uuid.uuid4().hex[:6]
        self.names = [f"nbsd{tag}n{i}" for i in range(n)]
        self.bridge = f"nbsd{tag}br"
        self.made = []

    def up(self):
        _ip("netns", "add", self.bridge)
        self.made.append(self.bridge)
        _ip("-n", self.bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.bridge, "link", "set", "br0", "up")
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

    def down(self):
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _watch_slurm(node0: Node, stop: threading.Event, seen: list):
    """Every second: the running jobs, each with its node and the CPUs Slurm gave it."""
    while not stop.is_set():
        out = node0.sh("scontrol -d -o show job 2>/dev/null").stdout if node0.leader() else ""
        running = []
        for line in out.splitlines():
            if "JobState=RUNNING" in line:
                job = re.search(r"JobId=(\d+)", line)[1]
                for where, cpus in re.findall(r"\bNodes=(node\d) CPU_IDs=(\S+)", line):
                    running.append((job, where, cpus))
        seen.append(running)
        stop.wait(1)


def test_three_nodes_boot_and_run_the_pipeline_through_slurm_under_systemd(nodes, local_run):
    from test_slurm import _deterministic

    image = debian_root("bookworm", NODE_PACKAGES)
    bridge = Bridge(3)
    base = Path(tempfile.mkdtemp(prefix="nbcert-work-", dir="/var/tmp"))
    work = base / "work"  # the work folder node0 would export over NFS: here one folder for all
    work.mkdir()
    hosts = "".join(f"{SUBNET}.{i + 1} node{i}\n" for i in range(3))
    env = dict(
        NBCERT_DATA_MIRROR="/mirror",
        NBCERT_NO_NFS=1,
        NBCERT_NODE_HARDWARE=ONE_CORE_TWO_THREADS,
        NBCERT_NODE_MEM_MB=6000,
        NBCERT_WAIT_SECONDS=600,
        NBCERT_SNAKEMAKE_ARGS="--jobs 8 --slurm-init-seconds-before-status-checks 1 --seconds-between-status-checks 2",
    )
    stop, seen = threading.Event(), []
    watcher, cluster = None, []
    try:
        bridge.up()
        for i in range(3):
            node = nodes(f"node{i}", image)
            node.as_cloudlab(_command(i, 3, **env), hosts)
            node.binds.append(f"--bind={work}:/local/nbcert")
            cluster.append(node)
        started = time.time()
        # each node's venv first, with this machine's network (the bridge reaches nothing else)
        installs = [
            threading.Thread(
                target=lambda node, i: setattr(
                    node,
                    "installed",
                    node.run(
                        "bash",
                        "-c",
                        _command(i, 3, **env).replace("sudo ", "env NBCERT_INSTALL_ONLY=1 ", 1),
                    ),
                ),
                args=(node, i),
            )
            for i, node in enumerate(cluster)
        ]
        for t in installs:
            t.start()
        for t in installs:
            t.join()
        for node in cluster:
            assert (
                node.installed.returncode == 0
                and "installed (NBCERT_INSTALL_ONLY)" in _startup_log(node)
            ), (node.installed.stdout + node.installed.stderr + _startup_log(node))[-3000:]
        print(f"three nodes installed: {time.time() - started:.0f} s")
        for i in (2, 1, 0):
            cluster[i].boot(f"--network-namespace-path=/run/netns/{bridge.names[i]}", unified=False)
        watcher = threading.Thread(target=_watch_slurm, args=(cluster[0], stop, seen))
        watcher.start()
        logs = [n.root / "local/nbcert-node/startup.log" for n in cluster]
        status = _wait_status(
            work / "STATUS",
            1500,
            [
                work / "logs/pipeline.log",
                *logs,
                cluster[0].root / "var/lib/nbcert-slurm/controller/slurmctld.log",
            ],
        )
        stop.set()
        watcher.join()
        print(f"three nodes, boot to STATUS done: {time.time() - started:.0f} s")
        assert status["stage"] == "done", (status, *(p.read_text()[-2000:] for p in logs))

        # the daemons under systemd, the packaged units off (now and at the next boot)
        for i, node in enumerate(cluster):
            units = ["nbcert-munged", "nbcert-slurmd"] + (["nbcert-slurmctld"] if i == 0 else [])
            active = node.sh(f"systemctl is-active {' '.join(units)}").stdout.split()
            assert active == ["active"] * len(units), (
                node.name,
                active,
                _startup_log(node)[-2000:],
            )
            enabled = node.sh("systemctl is-enabled munge slurmd slurmctld").stdout.split()
            assert enabled == ["disabled"] * 3, enabled
            assert not list((node.root / "local/nbcert-node/run").glob("*.pid"))
            assert (
                node.sh("systemctl show -p Result --value cloudlab-execute").stdout.strip()
                == "success"
            )
        conf = (cluster[0].root / "etc/slurm/slurm.conf").read_text()
        for i in range(3):
            assert (
                f"NodeName=node{i} NodeAddr={SUBNET}.{i + 1} {ONE_CORE_TWO_THREADS} RealMemory=6000"
                in conf
            )
            assert (cluster[i].root / "etc/slurm/slurm.conf").read_text() == conf
        assert "SelectTypeParameters=CR_Core_Memory" in conf and "TaskPlugin=task/affinity" in conf
        sinfo = cluster[1].sh("sinfo -h -N -o '%N %T'").stdout.split("\n")
        assert sorted(line.split()[0] for line in sinfo if line) == ["node0", "node1", "node2"], (
            sinfo
        )

        # a job had its node's one core to itself: both of its threads, no other job beside it
        samples = [s for s in seen if s]
        assert len(samples) > 10, seen
        jobs = {job for s in samples for job, _, _ in s}
        assert len(jobs) >= 5, samples
        for s in samples:
            per_node = [where for _, where, _ in s]
            assert len(per_node) == len(set(per_node)), s
            assert all(cpus == "0-1" for _, _, cpus in s), s
        plog = (work / "logs/pipeline.log").read_text()
        where = cluster[0].sh("scontrol show job").stdout
        assert len(set(re.findall(r"BatchHost=(node\d)", where))) >= 2, where
        report = (work / "results/report.md").read_text()
        assert f"Computed by: commit {cluster[0].commit};" in report
        assert "--profile" in plog and "--slurm-no-account" in plog
        for table in sorted((local_run / "results/tables").glob("*.csv")):
            here, there = _deterministic(
                *(pd.read_csv(t) for t in (work / "results/tables" / table.name, table))
            )
            pd.testing.assert_frame_equal(here, there, obj=table.name)
        copies = list((cluster[0].root / "proj/nbproj/nbcert").glob("*.tar.gz"))
        assert len(copies) == 1

        # the cluster rebooted: the daemons come back under systemd, the pipeline does not
        for node in cluster:
            node.poweroff()
        for i in (2, 1, 0):
            cluster[i].boot(f"--network-namespace-path=/run/netns/{bridge.names[i]}", unified=False)
        end = time.time() + 300
        while any(_startup_log(n).count("start-up done") < 2 for n in cluster):
            assert time.time() < end, [_startup_log(n)[-1500:] for n in cluster]
            time.sleep(2)
        log0 = _startup_log(cluster[0])
        assert log0.count("pipeline started") == 1 and "not starting it again" in log0
        assert _status(work / "STATUS")["stage"] == "done"
        for node in cluster:
            assert _startup_log(node).count("apt-get install") == 0
            assert node.sh("systemctl is-active nbcert-slurmd").stdout.strip() == "active"
    finally:
        stop.set()
        if watcher is not None:
            watcher.join()
        for node in cluster:
            node.poweroff()
        bridge.down()
        _remove(base)
