"""The README's worked example prints what the README shows (examples/breast_cancer.py), and
the Python guide's API lines run as written."""

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


def _python_block(page: str) -> str:
    """The first ```python block of the docs site's ``page``."""
    text = (ROOT / "docs" / page).read_text()
    return text.split("```python\n", 1)[1].split("\n```", 1)[0]


def test_every_api_line_of_the_python_guide_runs(example, monkeypatch):
    """The API lines of the guide's Python page, run as written in the worked example's
    folder: each function takes what the page says (paths for train, test and truth,
    from_codes' domain_sizes)."""
    import warnings

    import nbcert

    code = _python_block("guide/python.md")
    called = set(re.findall(r"nbcert\.(\w+)\(", code))
    assert called >= {"certify", "count_worlds", "poison", "poison_together", "clean"}
    assert called >= {"clean_with_truth", "cleaning_curve", "read_csv", "from_codes"}
    assert called >= {"Binner", "CertifiedNB"}
    monkeypatch.chdir(example)
    scope: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbcert.DataWarning)
        exec(compile(code, "docs/guide/python.md", "exec"), scope)
    assert scope["est"].certify(scope["Qb"]).shape == (10,)


def test_the_one_line_api_example_of_your_own_data_runs(tmp_path):
    """``python -c "import nbcert; ..."`` under "Your own data", as written, on a table with
    a ``class`` column and numeric features."""
    import numpy as np
    import pandas as pd

    section = (ROOT / "README.md").read_text().split("\n## Your own data\n", 1)[1]
    line = next(row for row in section.splitlines() if row.startswith('python -c "'))
    code = line.split('python -c "', 1)[1].rsplit('"', 1)[0]
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    table["class"] = np.where(table.a > 0, "x", "y")
    table.mask(rng.random(table.shape) < 0.1).assign(**{"class": table["class"]}).to_csv(
        tmp_path / "train.csv", index=False
    )
    table.drop(columns="class").iloc[:4].to_csv(tmp_path / "test.csv", index=False)
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "robust" in run.stdout.splitlines()[0]


def test_from_codes_takes_domain_sizes_and_names_text_labels():
    """The README's ``from_codes(X, y, domain_sizes)``; text labels were a raw numpy
    UFuncTypeError; a coded table answers as the DataFrame of its codes does."""
    import pandas as pd

    import nbcert

    X, y = [[0, 1], [1, -1], [1, 0], [0, 0]], [0, 1, 1, 0]
    enc = nbcert.from_codes(X, y, domain_sizes=[2, 2])
    assert (enc.n, enc.d, enc.m) == (4, 2, 2)
    for labels in (["a", "b", "b", "a"], [0.5, 1, 1, 0], [-1, 0, 0, 1]):
        with pytest.raises(nbcert.InputError, match=r"^from_codes: y must hold label codes"):
            nbcert.from_codes(X, labels, [2, 2])
    test = pd.DataFrame([[0, 1], [1, 0], [0, None]])
    frame = pd.DataFrame(X, dtype=object).replace(-1, None).assign(y=y)
    got = nbcert.certify(enc, test, None)
    want = nbcert.certify(frame, test.rename(columns=str).set_axis([0, 1], axis=1), "y")
    assert got["possible_labels"].tolist() == want["possible_labels"].tolist()


def test_clean_with_truth_takes_paths(example):
    """clean_with_truth took no path for truth, and one for train only with bins."""
    import nbcert

    paths = [str(example / f) for f in ("train.csv", "truth.csv", "test.csv")]
    frames = [nbcert.read_csv(p) for p in paths]
    a = nbcert.clean_with_truth(*paths, "diagnosis", id="id", method="greedy")
    b = nbcert.clean_with_truth(*frames, "diagnosis", id="id", method="greedy")
    assert [p.num_cells for p in a.points] == [p.num_cells for p in b.points]


def test_the_certificate_flow_is_what_the_readme_shows(example):
    """The two commands: an answer with its certificate, checked by the checker where the
    README names it (it named ``verify.py``, which is ``src/nbcert/verify.py`` in the
    checkout where the example runs), by a Python without site packages (the standard
    library only)."""
    import shutil

    command = (
        "nbcert certify --train train.csv --test test.csv --label diagnosis --id id --bins 5 "
        "--certificate cert.json"
    )
    _nbcert(example, *command.split()[1:])
    text = (ROOT / "README.md").read_text()
    (check,) = re.findall(r"^\$ (python3 \S*verify\.py cert\.json)$", text, re.M)
    script = check.split()[1]
    assert (ROOT / script).is_file(), script  # the README's path, from the checkout's root
    (example / script).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / script, example / script)  # the example's folder stands for the root
    run = subprocess.run(
        [sys.executable, "-I", "-S", script, "cert.json"],
        cwd=example,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    shown, got = _shown(check), run.stdout.splitlines()
    head = shown[: shown.index("…")]
    assert got[: len(head)] == head and got[-1] == shown[-1]


def test_the_poison_excerpt_is_what_poison_prints(example):
    """The README's poison lines (an excerpt: the header and two rows) are lines of its
    output, in order (p491's three cells had changed)."""
    command = "nbcert poison --train truth.csv --test test.csv --label diagnosis --id id --bins 5"
    got = _nbcert(example, *command.split()[1:]).stdout.splitlines()
    shown = [line for line in _shown(command) if line != "…"]
    assert len(shown) == 3 and [line for line in got if line in shown] == shown


def test_the_worked_example_s_python_line_runs_on_its_files(example):
    """The worked example's ``python -c`` line, as written, in its folder: the one-liner
    under "Your own data" failed there (its test.csv has an id column)."""
    section = (ROOT / "README.md").read_text().split("**A worked example**", 1)[1]
    line = next(row for row in section.splitlines() if row.startswith('$ python -c "'))
    code = line.split('python -c "', 1)[1].rsplit('"', 1)[0]
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=example, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    command = "nbcert certify --train train.csv --test test.csv --label diagnosis --id id --bins 5"
    robust = [row.split()[2] == "yes" for row in _shown(command)[1:11]]
    rows = run.stdout.splitlines()
    assert rows[0].split()[:2] == ["id", "robust"]
    assert [row.split()[2] == "True" for row in rows[1:11]] == robust


def test_docs_link_pages_not_a_forge_s_home():
    """getting-started linked "README" to https://github.com/, a forge's home page: every
    link of the docs and the README goes to a page (a path beyond the host)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    bare = [
        (page.name, url)
        for page in pages
        for url in re.findall(r"\]\((https?://[^)\s]+)\)", page.read_text())
        if re.fullmatch(r"https?://[^/]+/?", url)
    ]
    assert bare == []
