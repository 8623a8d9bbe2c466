"""What computed a result: the versions of the libraries and the commit of the workflow.

A run is repeatable a year later only if it says what ran it.  The report and the
benchmarks print these; ``constraints.txt`` at the repository's root pins the versions the
release is tested with (regenerate it with ``python workflow/scripts/common/provenance.py --freeze``).
"""

import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

PACKAGES = ("numpy", "pandas", "pyarrow", "scikit-learn", "scipy", "snakemake", "matplotlib")


def versions(packages=PACKAGES) -> dict:
    """{name: version} of Python and ``packages`` (``not installed`` where absent), read from
    the installed distributions' metadata (nothing is imported)."""
    out = {"Python": platform.python_version()}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def commit(folder) -> str:
    """The git commit checked out at ``folder``, with ``+ uncommitted changes`` where tracked
    files differ from it, or ``unknown`` outside a git checkout."""

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30
        )

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return "unknown (not a git checkout)"
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (git not available)"
    return head.stdout.strip() + (" + uncommitted changes" if dirty else "")


def describe(folder) -> str:
    """One line: the commit and every version, for a report or a benchmark's output."""
    return f"commit {commit(folder)}; " + ", ".join(f"{k} {v}" for k, v in versions().items())


def freeze() -> str:
    """The constraints file's text: ``pip freeze --exclude-editable`` of this environment
    (every installed distribution but nbcert itself, pinned) under a header saying how to
    regenerate it."""
    pins = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return (
        "# Versions nbcert's release is tested with; the README's commands and CI install with them.\n"
        "# Regenerate in a fresh venv after `pip install -e '.[test]'` with:\n"
        "#   .venv/bin/python workflow/scripts/common/provenance.py --freeze > constraints.txt\n"
        f"# Python {platform.python_version()} on {platform.machine()}.\n" + pins
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--freeze"]:
        sys.stdout.write(freeze())
    else:
        print(describe(Path.cwd()))
