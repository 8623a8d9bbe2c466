"""The README's worked example prints what the README shows (examples/breast_cancer.py)."""

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

pytest.importorskip("sklearn.datasets")


def _shown(command: str) -> list[str]:
    """The output lines the README shows under ``$ <command>`` (up to the next prompt or fence)."""
    text = (ROOT / "README.md").read_text()
    block = text.split(f"$ {command}\n", 1)[1]
    return re.split(r"\n(?:\$ |```)", block, maxsplit=1)[0].splitlines()


def _nbcert(folder, *args):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    run = subprocess.run(
        [sys.executable, "-m", "nbcert.cli", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    return run


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    folder = tmp_path_factory.mktemp("breast_cancer")
    subprocess.run(
        [sys.executable, str(ROOT / "examples/breast_cancer.py")], cwd=folder, check=True
    )
    return folder


def test_binned_certify_prints_what_the_readme_shows(example):
    command = "nbcert certify --train train.csv --test test.csv --label diagnosis --id id --bins 5"
    assert _nbcert(example, *command.split()[1:]).stdout.splitlines() == _shown(command)


def test_unbinned_certify_warns_as_the_readme_shows(example):
    command = "nbcert certify --train train.csv --test test.csv --label diagnosis --id id"
    run = _nbcert(example, *command.split()[1:])
    shown = _shown(command)
    assert run.stdout.splitlines()[:2] == shown[:2]
    assert run.stderr.splitlines() == [line for line in shown if line.startswith("nbcert: warning")]


def test_clean_advice_is_what_the_readme_shows(example):
    command = (
        "nbcert clean --train train.csv --test test.csv --label diagnosis --id id --bins 5 --top 3"
    )
    assert _nbcert(example, *command.split()[1:]).stdout.splitlines() == _shown(command)
