"""Long work is not silent: on a terminal the command draws tqdm bars on stderr while it
counts, cleans with the truth and poisons together; with --json or when stderr is not a
terminal nothing extra is written.  A search that stops at its time or node limit says so
in one line naming the option that raises it."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios

import numpy as np
import pandas as pd
import pytest

import nbcert
from nbcert import milp


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """A categorical table whose test rows make HiGHS work (300 rows, 6 columns, 25 test rows)."""
    folder = tmp_path_factory.mktemp("progress")
    rng = np.random.default_rng(4)
    n = 300
    y = rng.choice(["a", "b", "c"], n, p=[0.45, 0.35, 0.2])
    code = pd.Series(y).map({"a": 0, "b": 1, "c": 2}).to_numpy()
    truth = pd.DataFrame(
        {
            f"f{k}": [
                f"v{v}"
                for v in np.where(rng.random(n) < 0.6, (code + k) % 4, rng.integers(0, 4, n))
            ]
            for k in range(6)
        }
    ).assign(y=y)
    dirty = truth.mask((rng.random(truth.shape) < 0.1) & (truth.columns != "y"))
    paths = {name: str(folder / f"{name}.csv") for name in ("truth", "dirty", "test")}
    truth.to_csv(paths["truth"], index=False)
    dirty.to_csv(paths["dirty"], index=False)
    truth.drop(columns="y").iloc[::12].to_csv(paths["test"], index=False)
    return paths


def _commands(t) -> dict:
    return {
        "count": [
            "count",
            "--train",
            t["dirty"],
            "--test",
            t["test"],
            "--label",
            "y",
            "--seed",
            "0",
            "--method",  # sampled from the seed: the same answer on a slow machine, unlike
            "montecarlo",  # proven bounds refined within a time limit
        ],
        "clean": ["clean", "--train", t["dirty"], "--truth", t["truth"], "--test", t["test"]]
        + ["--label", "y"],
        "poison": ["poison", "--train", t["truth"], "--test", t["test"], "--label", "y"]
        + ["--together"],
    }


def _run(argv, terminal: bool) -> tuple:
    """(exit status, stdout, what reached stderr) of the command, its stderr a
    pseudo-terminal of 100 columns (``terminal``) or a pipe."""
    cmd = [sys.executable, "-m", "nbcert.cli", *argv]
    if not terminal:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        return run.returncode, run.stdout, run.stderr
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read()
    proc.wait(timeout=300)
    os.close(master)
    return proc.returncode, out, seen.decode(errors="replace")


STAGES = {
    "count": ["nbcert: counting test points"],
    "clean": ["nbcert: fewest cells per row", "nbcert: fewest cells for all rows together"],
    "poison": ["nbcert: searching cells for every row at once"],
}


@pytest.mark.parametrize("command", sorted(STAGES))
def test_progress_is_drawn_on_a_terminal_and_nothing_else_changes(tables, command):
    argv = _commands(tables)[command]
    rc, out, err = _run(argv, terminal=True)
    assert rc == 0, err
    for stage in STAGES[command]:
        assert stage in err, err
    assert "\r" in err.replace("\r\n", "\n")  # redrawn in place, then erased (leave=False)
    rc, piped_out, piped_err = _run(argv, terminal=False)
    assert rc == 0 and piped_out == out  # the answer is the same
    assert "nbcert: " not in piped_err.replace("nbcert: warning: ", "")  # no bars in a pipe


@pytest.mark.parametrize("command", sorted(STAGES))
def test_no_progress_with_json_on_a_terminal(tables, command):
    rc, out, err = _run([*_commands(tables)[command], "--json"], terminal=True)
    assert rc == 0, err
    json.loads(out)
    err = err.replace("\r\n", "\n")  # a terminal ends its lines so
    assert all(line.startswith("nbcert: warning: ") for line in err.splitlines() if line), err
    assert "\r" not in err


def test_a_search_stopped_by_its_time_limit_says_so(tables, capsys):
    from nbcert.cli import main

    for command, flags in (
        ("poison", ["--method", "exact", "--time-limit", "0.001"]),
        ("clean", ["--method", "exact", "--time-limit", "0.001"]),
    ):
        assert main([*_commands(tables)[command], *flags, "--json"]) == 0
        out, err = capsys.readouterr()
        lines = [line for line in err.splitlines() if "limit" in line]
        assert len(lines) == 1, err
        assert lines[0].startswith("nbcert: warning: ") and "stopped at its time limit" in lines[0]
        assert lines[0].endswith("--time-limit SEC raises it")
        doc = json.loads(out)
        together = doc["together"] if command == "clean" else doc["results"][0]
        assert together["time_limited"] is True
    # the API says it as a DataWarning in its own words
    with pytest.warns(
        nbcert.DataWarning, match=r"poison_together: .* a larger time_limit may prove"
    ):
        nbcert.poison_together(
            tables["truth"], tables["test"], "y", method="exact", time_limit=0.001
        )


def test_highs_node_limit_is_told_from_its_time_limit():
    """HiGHS reports its node limit as a "solution limit" (scipy's status 4)."""
    rng = np.random.default_rng(0)
    prog = milp.Program()
    weights = rng.integers(1, 50, (30, 60))
    xs = [prog.int_var(0, 1, -float(c)) for c in rng.integers(1, 100, 60)]
    for row in weights:
        prog.row({x: float(w) for x, w in zip(xs, row)}, hi=float(row.sum() // 3))
    got = prog.solve(60.0, node_limit=1)
    assert got.node_limited and not got.time_limited and got.limit == "node"
    small = milp.Program()
    x = small.int_var(0, 3, -1.0)
    small.row({x: 2.0}, hi=5.0)
    solved = small.solve(60.0, node_limit=1)
    assert solved.limit is None and round(solved.value) == -2


def test_a_search_stopped_by_its_node_limit_names_node_limit(tables, capsys, monkeypatch):
    """A solve the node limit stopped reaches the command as one line naming --node-limit."""
    from dataclasses import replace

    from nbcert.cli import main

    real = milp.Program.solve
    monkeypatch.setattr(
        milp.Program,
        "solve",
        lambda self, *a, **k: replace(real(self, *a, **k), node_limited=True),
    )
    assert main([*_commands(tables)["clean"], "--method", "exact", "--node-limit", "50"]) == 0
    _, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if "limit" in line]
    assert lines == [
        "nbcert: warning: clean --truth: a search stopped at its node limit (50 nodes); "
        + lines[0].split("(50 nodes); ", 1)[1]
    ]
    assert lines[0].endswith("--node-limit N raises it")
