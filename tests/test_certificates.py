"""Certificates: every honest certificate is accepted by the copied-out ``verify.py`` run by a
bare Python, and its answers are brute force's (the checker's bounds are held to brute force
in ``test_certificate_bounds``).

Instances are the brute-force reference's small random tables (``strategies``): blanks,
one-value domains, unseen and blank test values, ties, alpha 0, 1/2 and 1.  Each example
writes its tables as CSV files, asks every question with ``certificate=`` and checks the
certificates twice: in this process (``nbcert.verify.check``, claim by claim) and with a
copy of ``verify.py`` alone in a temporary folder, run by ``python -I -S`` (no site
packages: nothing but the standard library can be imported).
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from brute import TIE, brute_min_clean, iter_world_predictions, min_poison_by_groups
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import dirty_instances, small_rival_instances

import nbcert
from nbcert import verify

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ALPHAS = st.sampled_from([0, Fraction(1, 2), 1])
VERIFY = Path(verify.__file__)


# ---------------------------------------------------------------------------------------
# helpers


def bare_python(folder: Path, *certificates: Path) -> subprocess.CompletedProcess:
    """The copied-out verify.py checking each certificate, run by Python without its site
    packages (-I -S): exit 0 only if every one passes."""
    copy = folder / "checker"
    copy.mkdir(exist_ok=True)
    shutil.copy(VERIFY, copy / "verify.py")
    driver = (
        "import sys; sys.path.insert(0, sys.argv[1]); import verify; "
        "sys.exit(max(verify.main([c]) for c in sys.argv[2:]))"
    )
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", driver, str(copy), *map(str, certificates)],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
    )


def holds(path: Path) -> list:
    """The claims of a certificate, checked in this process: every one must hold."""
    claims = verify.check(path)
    bad = [c for c in claims if not c.ok]
    assert not bad, bad
    assert claims and all(c.ok is True for c in claims)
    return claims


def write(folder: Path, inst, truth: pd.DataFrame | None = None) -> dict:
    """The instance's tables as CSV files (a blank cell: an empty field)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"train": folder / "train.csv", "test": folder / "test.csv"}
    inst.train.to_csv(paths["train"], index=False)
    inst.test.to_csv(paths["test"], index=False)
    if truth is not None:
        paths["truth"] = folder / "truth.csv"
        truth.to_csv(paths["truth"], index=False)
    return paths


@st.composite
def blank_test_cells(draw, inst):
    """The instance with some test cells blank (a blank test cell leaves its feature out)."""
    test = inst.test.copy()
    for i in range(len(test)):
        for f in inst.features:
            if draw(st.integers(0, 5)) == 0:
                test.iloc[i, test.columns.get_loc(f)] = np.nan
    inst.test = test
    return inst


def rows_of(test: pd.DataFrame, features) -> list:
    return [[None if pd.isna(v) else v for v in test[features].iloc[i]] for i in range(len(test))]


def brute_possible(train, label, row, alpha) -> tuple:
    preds = list(iter_world_predictions(train, label, row, alpha))
    return {str(p) for p in preds if p is not TIE}, any(p is TIE for p in preds)


# ---------------------------------------------------------------------------------------
# every honest certificate is accepted, and its answers are brute force's


def _certify(paths, inst, alpha, cert):
    res = nbcert.certify(paths["train"], paths["test"], inst.label, alpha=alpha, certificate=cert)
    for i, r in enumerate(res.itertuples()):
        row = {f: inst.test[f].iloc[i] for f in inst.features}
        labels, tie = brute_possible(inst.train, inst.label, row, alpha)
        assert (
            set(r.possible_labels) == {str(x) for x in labels}
            or set(map(str, r.possible_labels)) == labels
        )
        assert r.tie_possible is None or r.tie_possible == tie
    return res


def _poison(paths, inst, alpha, cert):
    found = nbcert.poison(paths["truth"], paths["test"], inst.label, alpha=alpha, certificate=cert)
    truth = inst.truth
    cols = [truth[f].tolist() for f in inst.features]
    for p, t in zip(found, rows_of(inst.test, inst.features)):
        expected = min_poison_by_groups(truth[inst.label].tolist(), cols, t, alpha)
        assert p.num_cells == expected


@SETTINGS
@given(data=st.data(), alpha=ALPHAS)
def test_every_certificate_holds(tmp_path_factory, data, alpha):
    inst = data.draw(dirty_instances(max_rows=6, max_missing=5))
    inst = data.draw(blank_test_cells(inst))
    folder = tmp_path_factory.mktemp("cert")
    paths = write(folder, inst, inst.truth)
    certs = [folder / f"{q}.json" for q in ("certify", "poison", "clean", "together")]
    _certify(paths, inst, alpha, certs[0])
    _poison(paths, inst, alpha, certs[1])
    report = nbcert.clean_with_truth(
        paths["train"], paths["truth"], paths["test"], inst.label, alpha=alpha, certificate=certs[2]
    )
    for pt, i in zip(report.points, range(len(inst.test))):
        want = brute_min_clean(inst.train, inst.truth, inst.label, [inst.test_rows()[i]], alpha)
        assert pt.num_cells == want
    if alpha == 0:
        nbcert.poison_together(paths["truth"], paths["test"], inst.label, certificate=certs[3])
    else:
        certs.pop()
    for c in certs:
        holds(c)
    done = bare_python(folder, *certs)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout


@SETTINGS
@given(inst=small_rival_instances(), alpha=ALPHAS)
def test_poisoning_certificates_at_the_boundaries(tmp_path_factory, inst, alpha):
    """Tables biased to one-row rivals and binding caps (where the paper's OP fails)."""
    folder = tmp_path_factory.mktemp("rival")
    inst.truth = inst.train
    paths = write(folder, inst, inst.train)
    cert = folder / "poison.json"
    _poison(paths, inst, alpha, cert)
    holds(cert)
    done = bare_python(folder, cert)
    assert done.returncode == 0, done.stdout + done.stderr


# ---------------------------------------------------------------------------------------
# witness worlds predict what they claim with scikit-learn's CategoricalNB (alpha = 1)


def _filled(train: pd.DataFrame, label: str, fill: dict) -> pd.DataFrame:
    """The table with a witness's fill: per (label, column) its missing cells, in data-row
    order, take the values listed."""
    out = train.copy().astype(object)
    for lab, columns in fill.items():
        for col, entry in columns.items():
            rows = [
                r
                for r in range(len(out))
                if str(out[label].iloc[r]) == lab and pd.isna(out[col].iloc[r])
            ]
            values = [entry] * len(rows) if not isinstance(entry, list) else []
            for v, k in entry if isinstance(entry, list) else []:
                values += [v] * k
            for r, v in zip(rows, values, strict=True):
                out.iloc[r, out.columns.get_loc(col)] = v
    return out


def _sklearn_predicts(table: pd.DataFrame, label: str, row: dict):
    """CategoricalNB(alpha=1)'s prediction for the row, categories the table's domains; the
    features whose test value is blank are left out (None: a value the domain lacks)."""
    from sklearn.naive_bayes import CategoricalNB

    feats = [f for f in table.columns if f != label and row[f] is not None]
    domains = [list(dict.fromkeys(table[f].astype(str))) for f in feats]
    if any(str(row[f]) not in d for f, d in zip(feats, domains)):
        return None
    X = np.array([[d.index(str(v)) for v, d in zip(r, domains)] for r in table[feats].values])
    t = np.array([[d.index(str(row[f])) for f, d in zip(feats, domains)]])
    if not feats:
        X, t = np.zeros((len(table), 1), int), np.zeros((1, 1), int)
    model = CategoricalNB(alpha=1, min_categories=[len(d) for d in domains] or [1])
    model.fit(X, table[label].astype(str))
    return model.predict(t)[0]


def _sklearn_agrees(folder: Path, inst) -> int:
    """Certify at alpha = 1 with a certificate; each witness world, filled into the table,
    is predicted as it claims by CategoricalNB(alpha=1): how many were compared."""
    paths = write(folder, inst)
    cert = folder / "c.json"
    nbcert.certify(paths["train"], paths["test"], inst.label, alpha=1, certificate=cert)
    doc = json.loads(cert.read_text())
    train = pd.read_csv(paths["train"], dtype=str, keep_default_na=False).replace("", np.nan)
    test = pd.read_csv(paths["test"], dtype=str, keep_default_na=False).replace("", None)
    compared = 0
    for r in doc["results"]:
        row = {f: test[f].iloc[r["test_index"]] for f in inst.features}
        for w in r["evidence"].get("worlds", []):
            if "wins" in w:
                got = _sklearn_predicts(_filled(train, inst.label, w["fill"]), inst.label, row)
                assert got is None or got == w["wins"]
                compared += got is not None
    holds(cert)
    return compared


@SETTINGS
@given(data=st.data())
def test_witness_worlds_predict_their_label_in_scikit_learn(tmp_path_factory, data):
    inst = data.draw(dirty_instances(max_rows=6, max_missing=5))
    inst = data.draw(blank_test_cells(inst))
    _sklearn_agrees(tmp_path_factory.mktemp("sk"), inst)


def test_witness_worlds_in_scikit_learn_on_a_table_with_two_possible_labels(tmp_path):
    from strategies import Instance

    train = pd.DataFrame(
        {
            "f0": ["a", None, "b", None, "a", "b"],
            "f1": ["x", "y", None, "x", "y", None],
            "y": ["p", "p", "q", "q", "q", "p"],
        }
    )
    test = pd.DataFrame({"f0": ["a", "b", "a"], "f1": ["x", "y", None]})
    assert _sklearn_agrees(tmp_path, Instance(train, test, "y")) >= 4


# ---------------------------------------------------------------------------------------
# the checker imports nothing outside the standard library


def test_verify_imports_only_the_standard_library(tmp_path):
    copy = tmp_path / "alone"
    copy.mkdir()
    shutil.copy(VERIFY, copy / "verify.py")
    code = (
        "import sys; before = set(sys.modules); sys.path.insert(0, sys.argv[1]); "
        "import verify; new = set(sys.modules) - before - {'verify'}; "
        "print(sorted(m for m in new if m.split('.')[0] not in sys.stdlib_module_names))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(copy)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    # every import in the file: the standard library's, pyarrow for Parquet and numpy for
    # speed where they are installed (each ImportError handled)
    names = {n.split(".")[0] for n in _imported(VERIFY.read_text())}
    assert names - set(sys.stdlib_module_names) == {"pyarrow", "numpy"}


def _imported(source: str) -> set:
    import ast

    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, "a relative import"
            names.add(node.module)
    return names


def test_verify_runs_as_a_script_without_nbcert(tmp_path):
    """``python3 verify.py CERT`` with the copy alone: the README's second command."""
    train = pd.DataFrame({"a": ["x", "y", "x", None], "y": ["p", "q", "p", "q"]})
    test = pd.DataFrame({"a": ["x", "y"]})
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    nbcert.certify(
        tmp_path / "train.csv", tmp_path / "test.csv", "y", certificate=tmp_path / "c.json"
    )
    shutil.copy(VERIFY, tmp_path / "verify.py")
    done = subprocess.run(
        [sys.executable, "-I", "-S", "verify.py", "c.json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        done.stdout.splitlines()[-1] == "verify.py: 3 claims hold"
    )  # both rows, and both answered
    assert itertools  # noqa: B018 (imported for the helpers above)


# ---------------------------------------------------------------------------------------
# the checker reads the files as nbcert does: separators, encodings, missing tokens,
# decimal marks, compressed files, numbers compared by value, bins


def _tables(seed: int, blank: float = 0.25) -> tuple:
    """(truth, dirty, test) DataFrames of text as a file holds it: a text column, an integer
    column written several ways (4, 4.0, ' 4'), a float column, a label with an accent."""
    rng = np.random.default_rng(seed)
    n = 40
    truth = pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue", "007", "7"], n),
            "count": [rng.choice([f"{k}", f"{k}.0", f" {k}"]) for k in rng.integers(1, 5, n)],
            "size": [f"{x:.2f}" for x in rng.normal(10, 3, n)],
            "kind": rng.choice(["café", "tea"], n),
        }
    )
    dirty = truth.copy()
    for f in ("colour", "count", "size"):
        dirty.loc[rng.random(n) < blank, f] = ""
    test = truth.drop(columns="kind").iloc[:4].reset_index(drop=True)
    test.loc[1, "count"] = "9"  # a value unseen in training
    test.loc[2, "colour"] = ""  # a blank test cell
    return truth, dirty, test


def _write(df: pd.DataFrame, path: Path, sep: str, decimal: str, encoding: str) -> None:
    out = df.copy()
    if decimal != ".":
        out["size"] = out["size"].str.replace(".", decimal, regex=False)
    out.to_csv(path, sep=sep, index=False, encoding=encoding)


READINGS = {
    "plain": ([], ",", ".", "utf-8", ".csv"),
    "bins": (["--bins", "3"], ",", ".", "utf-8", ".csv"),
    "semicolons": (
        ["--sep", ";", "--decimal", ",", "--encoding", "latin-1"],
        ";",
        ",",
        "latin-1",
        ".csv",
    ),
    "gzip, bins, token": (["--bins", "2", "--missing", "?"], ",", ".", "utf-8", ".csv.gz"),
    "bz2, bins, decimal": (["--bins", "3", "--decimal", ","], ",", ",", "utf-8", ".csv.bz2"),
}


@pytest.mark.parametrize("reading", READINGS, ids=list(READINGS))
def test_the_checker_reads_as_nbcert_does(tmp_path, reading):
    from nbcert.cli import main

    flags, sep, decimal, encoding, suffix = READINGS[reading]
    truth, dirty, test = _tables(len(reading))
    if "?" in flags:
        dirty = dirty.replace("", "?")
    paths = {k: tmp_path / f"{k}{suffix}" for k in ("truth", "train", "test")}
    for df, key in ((truth, "truth"), (dirty, "train"), (test, "test")):
        _write(df, paths[key], sep, decimal, encoding)
    common = ["--test", str(paths["test"]), "--label", "kind", *flags]
    alpha = "1/2" if "--bins" in flags else "0"  # unbinned floats: too many values to remove
    runs = {
        "certify": ["certify", "--train", str(paths["train"]), *common],
        "poison": ["poison", "--train", str(paths["truth"]), *common, "--alpha", alpha],
        "clean": ["clean", "--train", str(paths["train"]), "--truth", str(paths["truth"]), *common],
    }
    certs = []
    for name, argv in runs.items():
        certs.append(tmp_path / f"{name}.json")
        assert main([*argv, "--certificate", str(certs[-1])]) == 0
    for c in certs[:2]:
        holds(c)
    assert not [c for c in verify.check(certs[2]) if c.ok is False]
    doc = json.loads(certs[0].read_text())
    numeric = set(doc["inputs"]["reading"]["numeric"]) | set(doc["inputs"]["reading"]["bins"])
    assert numeric == {"count", "size"}  # 4, 4.0 and ' 4' are one number; 007 is text
    done = bare_python(tmp_path, *certs)
    assert done.returncode == 0, done.stdout + done.stderr
