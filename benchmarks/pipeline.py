"""Benchmark of the user's main job: ``python -m benchmarks.pipeline [--mirror DIR]``.

Clones the repository's committed HEAD into a scratch folder and runs the README's main
command there with ``--cores 1`` from nothing, once for the ``paper`` target and once for
the default target (each in its own fresh clone), with the clone's ``src`` first on the
path.  While each runs it samples, every 0.2 s, the CPU time of Snakemake's own process
(``/proc/PID/stat``) and the disk the run uses beyond the data sets and results (the
clone's files but ``data/raw`` and ``results``, plus its temporary folder, where the
scaling study writes the files it streams).  Afterwards it reads every job's benchmark file
and prints, per stage, the jobs' wall and CPU seconds and the largest resident set of one
job, then each target (``TARGETS``, the one place they are set) as met or MISSED, and exits
1 if a run failed or a target was missed:

* on the default config, the whole command's wall time: the default target's and the
  ``paper`` target's (``TARGETS["wall_s"]``; another ``--configfile`` has no wall target);
* Snakemake's own CPU at most a share of the run's CPU (its own plus every job's, as the
  kernel accounts the process tree it waited for);
* no job above ``TARGETS["job_mb"]`` resident; at most ``TARGETS["disk_mb"]`` of disk beyond
  the data sets and results.

Every run is appended to the history (``--history``, by default ``benchmarks/history.csv``):
one row per stage and one for the whole run, with the date, the commit, the machine and its
load average when the run started.  ``--expected`` prints, from the history, the last
measured run of each target per stage: what a run of today's config is expected to take.

The machine, the commit and the library versions are printed with the figures;
``--targets paper`` measures the paper's part alone.  ``--repeat N`` runs each target N
times (each from its own fresh clone) and ends with one line per target: the jobs' CPU
seconds, the whole command's wall time and Snakemake's own share as the median and the
range of the runs, with the machine: the figures the README gives, since CPU time tells a
slow machine (its wall time grows, its CPU per job grows alike) from a broken run (jobs
missing or failing).

``--readme`` runs the README's first command exactly as written (virtual environment,
install with the constraints, ``snakemake --cores 1``; for the ``paper`` target with
``paper`` at its end, as the README says) in a fresh clone beside a link to the
repository's own ``../shared`` (the README's mirror path), and times the whole command;
Snakemake's own process is then found among its descendants.  Either way the runs have no
``PYTHONDONTWRITEBYTECODE``, as in a user's shell: Python keeps the bytecode it compiles.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from common.parent import proc_stat
from common.provenance import commit, versions
from common.timing import read_benchmark
from report import this_machine

ROOT = Path(__file__).resolve().parents[1]
# The pipeline's targets: the whole command's wall seconds per target on the default config
# (set-up included with --readme), Snakemake's own share of the run's CPU, the largest job's
# resident MB, and the disk beyond the data sets and results in MB.
TARGETS = {
    "wall_s": {"all": 600, "paper": 240},
    "snakemake_share": 0.05,
    "job_mb": 1000,
    "disk_mb": 1000,
}
HISTORY = ROOT / "benchmarks" / "history.csv"
TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    """One measured run of the pipeline."""

    target: str
    wall: float = 0.0
    cpu_total: float = 0.0  # Snakemake and every job it waited for
    cpu_snakemake: float = 0.0  # Snakemake's own process
    peak_disk: int = 0  # bytes beyond data/raw and results
    returncode: int | None = None
    stages: pd.DataFrame = field(default_factory=pd.DataFrame)
    readme: bool = False  # the README's first command as written, set-up included
    default_config: bool = True  # config.yaml alone: the wall targets apply
    load: float = float("nan")  # the machine's 1-minute load average as the run started

    @property
    def share(self) -> float:
        return self.cpu_snakemake / self.cpu_total if self.cpu_total else float("nan")


def _own_cpu(pid: int) -> float | None:
    """User + system seconds of process ``pid`` itself (not its children)."""
    fields = proc_stat(pid)
    return (int(fields[11]) + int(fields[12])) / TICK if fields else None


def _size(path: Path, skip=()) -> int:
    """Bytes of the files under ``path`` (blocks actually used), outside the ``skip`` folders."""
    total = 0
    for folder, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if Path(folder, d) not in skip]
        for f in files:
            try:
                total += os.lstat(os.path.join(folder, f)).st_blocks * 512
            except OSError:
                pass
    return total


class _Sampler(threading.Thread):
    """Samples Snakemake's own CPU time and the run's disk use until stopped."""

    def __init__(self, pid: int, clone: Path, tmp: Path, below: bool = False):
        super().__init__(daemon=True)
        self.pid, self.clone, self.tmp = pid, clone, tmp
        self.below = below  # Snakemake runs under ``pid`` (a shell), not as ``pid``
        self.cpu, self.disk = 0.0, 0
        self.stop = threading.Event()

    def run(self):
        skip = tuple(self.clone / part for part in ("data/raw", "results", ".git", ".venv"))
        last_disk = 0.0
        while not self.stop.wait(0.2):
            if self.below:
                found = _snakemake_below(self.pid)
                if found:
                    self.pid, self.below = found, False
            cpu = None if self.below else _own_cpu(self.pid)
            if cpu is not None:
                self.cpu = cpu
            if time.monotonic() - last_disk >= 1.0:
                self.disk = max(self.disk, _size(self.clone, skip) + _size(self.tmp))
                last_disk = time.monotonic()


def readme_command(readme: Path) -> str:
    """The first command line of the README's first code block (the main job's)."""
    lines = readme.read_text().split("```", 2)[1].splitlines()[1:]
    return next(
        line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")
    )


def _cmdline(pid) -> list | None:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None


def _is_snakemake(cmd: list) -> bool:
    return any(part.endswith(b"bin/snakemake") for part in cmd[:2])


def _snakemake_below(pid: int) -> int | None:
    """``pid`` or the first process under it whose command is Snakemake's main program (a
    shell runs the last command of its line in its own process)."""
    cmd = _cmdline(pid)
    if cmd is None or _is_snakemake(cmd):
        return None if cmd is None else pid
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat, cmd = proc_stat(entry.name), _cmdline(entry.name)
            if stat and cmd is not None:  # else the process has gone
                children.setdefault(int(stat[1]), []).append((int(entry.name), cmd))
    todo = [pid]
    while todo:
        for child, cmd in children.get(todo.pop(), []):
            if _is_snakemake(cmd):
                return child
            todo.append(child)
    return None


def clone(repo: Path, into: Path) -> Path:
    """A scratch clone of ``repo``'s committed HEAD."""
    subprocess.run(["git", "clone", "--quiet", str(repo), str(into)], check=True)
    return into


def _command(
    work: Path, target: str, mirror: str | None, cores: int, configfile: Path | None, readme: bool
) -> tuple[list, dict]:
    """The command line and environment of one run in the clone ``work``."""
    env = {**os.environ}
    env.pop(
        "PYTHONDONTWRITEBYTECODE", None
    )  # a user's shell: Python keeps the bytecode it compiles
    if readme:  # the README: "the paper's part alone: the same command with `paper` at the end"
        env.pop("PYTHONPATH", None)
        env.pop("NBCERT_DATA_MIRROR", None)
        return [
            "bash",
            "-c",
            readme_command(work / "README.md") + ("" if target == "all" else f" {target}"),
        ], env
    env["PYTHONPATH"] = str(work / "src")
    if mirror:
        env["NBCERT_DATA_MIRROR"] = mirror
    snakemake = Path(sys.executable).with_name("snakemake")
    cmd = [str(snakemake), "--cores", str(cores)] + ([] if target == "all" else [target])
    if configfile:
        cmd += ["--configfile", str(Path(configfile).resolve())]
    return cmd, env


def run_target(
    repo: Path,
    scratch: Path,
    target: str,
    mirror: str | None,
    cores: int = 1,
    configfile: Path | None = None,
    readme: bool = False,
) -> Run:
    """Run ``snakemake [target] --cores N`` (or, with ``readme``, the README's first command)
    from nothing in a fresh clone, measured."""
    work = clone(repo, scratch / f"clone-{target}")
    shared = Path(repo).resolve().parent / "shared"
    if readme and shared.is_dir() and not (scratch / "shared").exists():
        (scratch / "shared").symlink_to(shared)  # the README's ../shared, as beside the repository
    tmp = scratch / f"tmp-{target}"
    tmp.mkdir()
    cmd, env = _command(work, target, mirror, cores, configfile, readme)
    env["TMPDIR"] = str(tmp)
    log = open(scratch / f"{target}.log", "w")
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    sampler = _Sampler(proc.pid, work, tmp, below=readme)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    sampler.stop.set()
    sampler.join()
    log.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stages = stage_table(work / "logs" / "benchmarks")
    cpu = usage.ru_utime + usage.ru_stime
    if (
        readme
    ):  # the run's CPU without the set-up's: every job's (benchmark files) and Snakemake's own
        cpu = float(stages.cpu_seconds.sum()) + sampler.cpu
    return Run(
        target,
        wall,
        cpu,
        sampler.cpu,
        sampler.disk,
        proc.returncode,
        stages,
        readme,
        configfile is None,
        load,
    )


def stage_table(folder: Path) -> pd.DataFrame:
    """Per stage (benchmark folder): jobs, wall and CPU seconds, the largest job's MB.  An
    empty file is a job that never ended (Snakemake makes a job's log files before it starts)."""
    rows = [read_benchmark(p) for p in sorted(folder.rglob("*.tsv")) if p.stat().st_size]
    jobs = pd.DataFrame(rows, columns=["stage", "seconds", "cpu_seconds", "max_rss_mb"])
    by = jobs.groupby("stage")
    return pd.DataFrame(
        {
            "jobs": by.size(),
            "seconds": by.seconds.sum(),
            "cpu_seconds": by.cpu_seconds.sum(),
            "max_rss_mb": by.max_rss_mb.max(),
        }
    ).sort_values("seconds", ascending=False)


def verdicts(run: Run) -> list:
    """(what, measured, target, met) for one run; met is None where no target applies."""
    peak_job = float(run.stages.max_rss_mb.max()) if len(run.stages) else float("nan")
    command = {"all": "`snakemake --cores 1`", "paper": "`snakemake paper --cores 1`"}[run.target]
    readme = "the README's first command" + ("" if run.target == "all" else f" with `{run.target}`")
    wall = TARGETS["wall_s"][run.target]
    share, job_mb, disk_mb = (TARGETS[k] for k in ("snakemake_share", "job_mb", "disk_mb"))
    return [
        (
            (f"{readme} (set-up included)" if run.readme else command) + " wall time",
            f"{run.wall:.0f} s ({run.wall / 60:.1f} min)",
            f"<= {wall} s" if run.default_config else "none (not the default config)",
            run.wall <= wall if run.default_config else None,
        ),
        (
            "Snakemake's own CPU share",
            f"{run.share:.1%} ({run.cpu_snakemake:.0f} of {run.cpu_total:.0f} s)",
            f"<= {share:.0%}",
            run.share <= share,
        ),
        (
            "peak resident memory of any job",
            f"{peak_job:.0f} MB",
            f"<= {job_mb} MB",
            peak_job <= job_mb,
        ),
        (
            "peak disk beyond data sets and results",
            f"{run.peak_disk / 1e6:.0f} MB",
            f"<= {disk_mb} MB",
            run.peak_disk <= disk_mb * 1e6,
        ),
    ]


def met(run: Run) -> bool:
    """Whether the run ended well and met every target that applies to it."""
    return run.returncode == 0 and all(ok is not False for *_, ok in verdicts(run))


def render(run: Run) -> str:
    lines = [
        f"== target {run.target}: exit {run.returncode}, wall {run.wall:.1f} s, CPU {run.cpu_total:.1f} s "
        f"(Snakemake's own {run.cpu_snakemake:.1f} s)",
        f"{'stage':<18} {'jobs':>5} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}",
    ]
    for stage, r in run.stages.iterrows():
        lines.append(
            f"{stage:<18} {int(r.jobs):>5} {r.seconds:>8.1f} {r.cpu_seconds:>8.1f} {r.max_rss_mb:>8.0f}"
        )
    lines += [
        f"{'all jobs':<18} {int(run.stages.jobs.sum()):>5} {run.stages.seconds.sum():>8.1f} "
        f"{run.stages.cpu_seconds.sum():>8.1f} {run.stages.max_rss_mb.max():>8.0f}",
        "",
    ]
    for what, measured, target, ok in verdicts(run):
        said = {True: "met", False: "MISSED", None: ""}[ok]
        lines.append(f"{what}: {measured} (target {target}) {said}".rstrip())
    return "\n".join(lines)


def summary(runs: list, machine: str) -> list:
    """One line per target of several runs: the jobs' CPU, the wall time and Snakemake's
    share, each as the median and the range (min-max) over the runs."""

    def spread(values, fmt) -> str:
        values = sorted(values)
        mid = float(pd.Series(values).median())
        if len(values) == 1:
            return fmt(mid)
        return f"{fmt(mid)} (range {fmt(values[0])}-{fmt(values[-1])})"

    lines = []
    for target in dict.fromkeys(r.target for r in runs):
        mine = [r for r in runs if r.target == target]
        jobs = [float(r.stages.cpu_seconds.sum()) if len(r.stages) else 0.0 for r in mine]
        lines.append(
            f"target {target}, {len(mine)} run{'s' * (len(mine) != 1)} on {machine}: "
            f"jobs' CPU {spread(jobs, lambda v: f'{v:.0f} s')}, "
            f"wall {spread([r.wall / 60 for r in mine], lambda v: f'{v:.1f} min')}"
            + (" (set-up included)" if mine[0].readme else "")
            + f", Snakemake's own {spread([100 * r.share for r in mine], lambda v: f'{v:.1f} %')}"
            + ("" if all(r.returncode == 0 for r in mine) else " (a run FAILED)")
        )
    return lines


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.expected:
        print(expected(args.history))
        return 0
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    if any(t not in TARGETS["wall_s"] for t in targets):
        ap.error(f"--targets: each of {', '.join(TARGETS['wall_s'])}")
    if args.repeat < 1:
        ap.error("--repeat: at least 1")
    if args.scratch:
        Path(args.scratch).mkdir(parents=True, exist_ok=True)  # a folder named, made if new
    scratch = Path(tempfile.mkdtemp(prefix="nbcert-bench-pipeline-", dir=args.scratch))
    print(
        f"machine: {this_machine()}\ncommit {commit(args.repo)} (cloned: uncommitted changes are not measured)\n"
        + ", ".join(f"{k} {v}" for k, v in versions().items())
        + f"\nscratch: {scratch}\n",
        flush=True,
    )
    try:
        runs = _runs(args, targets, scratch)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps([_figures(r) for r in runs], indent=1))
    return 0 if all(met(r) for r in runs) else 1


def _runs(args, targets: list, scratch: Path) -> list:
    """Every run asked for, each printed and appended to the history as it ends."""
    runs = []
    for k in range(args.repeat):
        for target in targets:
            where = scratch / f"run{k}" if args.repeat > 1 else scratch
            where.mkdir(exist_ok=True)
            run = run_target(
                args.repo,
                where,
                target,
                args.mirror,
                configfile=args.configfile,
                readme=args.readme,
            )
            runs.append(run)
            print(render(run) + "\n", flush=True)
            append_history(args.history, run, commit(args.repo), args.configfile)
    print("\n".join(summary(runs, this_machine())), flush=True)
    return runs


HISTORY_COLUMNS = [
    "date",
    "commit",
    "machine",
    "load",
    "target",
    "readme",
    "config",
    "stage",
    "jobs",
    "wall_s",
    "cpu_s",
    "max_rss_mb",
]
WHOLE = "(whole run)"  # the history's row of a run as a whole: its wall time, all its CPU


def append_history(path: Path, run: Run, sha: str, configfile: Path | None) -> None:
    """One row per stage of ``run`` and one for the whole run, appended to the CSV ``path``."""
    base = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": sha.split()[0][:12],
        "machine": this_machine(),
        "load": round(run.load, 2),
        "target": run.target,
        "readme": run.readme,
        "config": "default" if configfile is None else Path(configfile).name,
    }
    stages = run.stages.reset_index().rename(columns={"seconds": "wall_s", "cpu_seconds": "cpu_s"})
    whole = {
        "stage": WHOLE,
        "jobs": int(stages.jobs.sum()) if len(stages) else 0,
        "wall_s": run.wall,
        "cpu_s": run.cpu_total,
        "max_rss_mb": float(stages.max_rss_mb.max()) if len(stages) else float("nan"),
    }
    rows = pd.DataFrame([{**base, **r} for r in stages.to_dict("records") + [whole]])
    rows = rows.reindex(columns=HISTORY_COLUMNS).round({"wall_s": 1, "cpu_s": 1, "max_rss_mb": 0})
    path.parent.mkdir(parents=True, exist_ok=True)
    rows.to_csv(path, mode="a", header=not path.exists(), index=False)


def expected(path: Path) -> str:
    """Per target, the last run of the default config the history holds, stage by stage:
    what a run of the default config is expected to take on that machine."""
    if not path.exists():
        return (
            f"no measured run yet ({path} does not exist): python -m benchmarks.pipeline --readme"
        )
    history = pd.read_csv(path)
    history = history[history.config == "default"]
    lines = []
    for target in TARGETS["wall_s"]:
        mine = history[history.target == target]
        if mine.empty:
            continue
        last = mine[(mine.date == mine.date.iloc[-1]) & (mine.commit == mine.commit.iloc[-1])]
        whole = last[last.stage == WHOLE].iloc[-1]
        lines += [
            f"target {target}, measured {whole.date} at {whole.commit} on {whole.machine} "
            f"(load {whole.load:g} as it started): wall {whole.wall_s:.0f} s"
            + (" (set-up included)" if str(whole.readme) == "True" else "")
            + f", target {TARGETS['wall_s'][target]} s",
            f"{'stage':<24} {'jobs':>5} {'CPU s':>8} {'wall s':>8} {'peak MB':>8}",
        ]
        for r in last[last.stage != WHOLE].sort_values("cpu_s", ascending=False).itertuples():
            lines.append(
                f"{r.stage:<24} {'' if pd.isna(r.jobs) else int(r.jobs):>5} {r.cpu_s:>8.1f} "
                f"{r.wall_s:>8.1f} {r.max_rss_mb:>8.0f}"
            )
        lines.append("")
    return "\n".join(lines) or "no run of the default config in the history"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.pipeline", description=__doc__.splitlines()[0]
    )
    ap.add_argument(
        "--repo", type=Path, default=ROOT, help="the repository to clone (default: this one)"
    )
    ap.add_argument(
        "--mirror",
        default=os.environ.get("NBCERT_DATA_MIRROR"),
        help="NBCERT_DATA_MIRROR for the runs (default: the environment's)",
    )
    ap.add_argument(
        "--targets", default="paper,all", help="comma-separated: paper, all (default both)"
    )
    ap.add_argument(
        "--scratch",
        type=Path,
        default=None,
        help="where the clones go (default: a temporary folder)",
    )
    ap.add_argument(
        "--configfile",
        type=Path,
        default=None,
        help="a config on top of config.yaml (default: none, the paper's configuration)",
    )
    ap.add_argument("--keep", action="store_true", help="keep the clones")
    ap.add_argument(
        "--readme",
        action="store_true",
        help="run the README's first command as written (set-up included; with `paper` at its "
        "end for the paper target) in a fresh clone beside a link to the repository's ../shared",
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    ap.add_argument(
        "--history",
        type=Path,
        default=HISTORY,
        help="the CSV every run is appended to (default: benchmarks/history.csv)",
    )
    ap.add_argument(
        "--expected",
        action="store_true",
        help="print what the default config's runs are expected to take, from the history's last runs",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each target N times, each in a fresh clone, and give the median and range",
    )
    return ap


def _figures(run: Run) -> dict:
    """One run's figures, as the ``--json`` file gives them."""
    return {
        "target": run.target,
        "machine": this_machine(),
        "cpu_jobs": float(run.stages.cpu_seconds.sum()) if len(run.stages) else 0.0,
        "wall": run.wall,
        "cpu_total": run.cpu_total,
        "cpu_snakemake": run.cpu_snakemake,
        "peak_disk": run.peak_disk,
        "returncode": run.returncode,
        "stages": run.stages.reset_index().to_dict("records"),
    }


if __name__ == "__main__":
    raise SystemExit(main())
