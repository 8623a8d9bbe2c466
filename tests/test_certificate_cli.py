"""``--certificate FILE`` and ``nbcert verify``: the certificate's results are what ``--json``
prints, it is written beside the usual output and only when the run succeeds, a mistake is
one line (nothing written), and the pipeline's entry points write and check certificates of
coded runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nbcert
from nbcert import verify
from nbcert.cli import main

TRAIN = "f,g,y\na,x,p\nb,x,p\n,y,q\na,,q\nb,y,p\na,x,q\nb,x,p\n"
TRUTH = "f,g,y\na,x,p\nb,x,p\nb,y,q\na,y,q\nb,y,p\na,x,q\nb,x,p\n"
TEST = "name,f,g\nt0,a,x\nt1,b,y\nt2,,x\nt3,c,y\n"


@pytest.fixture
def files(tmp_path, monkeypatch) -> Path:
    """A dirty table, its truth and four test rows (an id column; a blank and an unseen
    test value), in the current folder: paths as a user gives them."""
    monkeypatch.chdir(tmp_path)
    for name, text in (("train.csv", TRAIN), ("truth.csv", TRUTH), ("test.csv", TEST)):
        (tmp_path / name).write_text(text)
    return tmp_path


COMMANDS = {
    "certify": ["certify", "--train", "train.csv"],
    "certify --alpha": ["certify", "--train", "train.csv", "--alpha", "1/2", "--method", "iterate"],
    "poison": ["poison", "--train", "truth.csv"],
    "poison --alpha": ["poison", "--train", "truth.csv", "--alpha", "1"],
    "poison sr": ["poison", "--train", "truth.csv", "--method", "sr", "--seed", "1"],
    "poison --together": ["poison", "--train", "truth.csv", "--together"],
    "clean --truth": ["clean", "--train", "train.csv", "--truth", "truth.csv"],
}
COMMON = ["--test", "test.csv", "--label", "y", "--id", "name"]


def _run(argv, capsys) -> tuple:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


# how an answer was found, which ``--json`` says and a certificate does not (no claims)
HOW = {
    "method",
    "time_limited",
    "node_limited",
    "memory_limited",
    "budget_limited",
    "search_bound",
    "why_not_optimal",
}
# what a certificate claims only as far as its checker proves it (never more than --json)
PROVEN = {"optimal", "lower_bound", "status", "minimal"}


def _claims(value, drop=("evidence",)):
    if isinstance(value, dict):
        return {k: _claims(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [_claims(v, drop) for v in value]
    return value


@pytest.mark.parametrize("command", COMMANDS, ids=list(COMMANDS))
def test_the_certificate_holds_the_json_answers(files, capsys, command):
    argv = [*COMMANDS[command], *COMMON]
    rc, printed, _ = _run([*argv, "--json"], capsys)
    assert rc == 0
    rc, with_cert, _ = _run([*argv, "--json", "--certificate", "c.json"], capsys)
    assert rc == 0 and with_cert == printed  # written beside the output, never instead of it
    doc = json.loads((files / "c.json").read_text())
    answer = json.loads(printed)
    assert doc["format"] == "nbcert certificate" and doc["version"] == verify.VERSION
    assert _claims(doc["results"], {"evidence", *PROVEN}) == _claims(
        answer["results"], {*HOW, *PROVEN}
    )
    for key in ("together", "path"):
        assert _claims(doc.get(key), {"evidence", *PROVEN}) == _claims(
            answer.get(key), {*HOW, *PROVEN}
        )
    for mine, said in zip(
        [*doc["results"], doc.get("together")], [*answer["results"], answer.get("together")]
    ):
        if mine and "status" in mine:
            assert mine["status"] in (said["status"], "none_found")
        if mine and mine.get("optimal"):
            assert said["optimal"] and mine["lower_bound"] == said["lower_bound"]
    assert all("evidence" in r for r in doc["results"])
    inputs = doc["inputs"]
    assert inputs["label"] == "y" and inputs["reading"]["id"] == "name"
    assert {f["path"] for f in inputs["files"].values()} <= {"train.csv", "truth.csv", "test.csv"}
    rc, text, err = _run(["verify", "c.json"], capsys)
    assert rc == 0, text + err
    assert "FAIL" not in text and text.splitlines()[-1].startswith("nbcert verify: ")


def test_text_output_is_unchanged_by_a_certificate(files, capsys):
    argv = [*COMMANDS["certify"], *COMMON]
    assert _run(argv, capsys)[1] == _run([*argv, "--certificate", "c.json"], capsys)[1]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["certify", "--train", "train.csv", "--method", "ad"], "exact method"),
        (["clean", "--train", "train.csv"], "--certificate needs --truth"),
        (["certify", "--train", "-"], "standard input"),
        (["certify", "--train", "train.csv", "--certificate", "train.csv"], "overwrite"),
        (["certify", "--train", "train.csv", "--certificate", "nowhere/c.json"], "no folder"),
        (["certify", "--train", "train.csv", "--certificate", "."], "folder"),
        (["certify", "--train", "train.csv", "--label", "nolabel"], "nolabel"),
    ],
)
def test_a_mistake_is_one_line_and_writes_nothing(files, capsys, argv, said):
    if "--certificate" not in argv:
        argv = [*argv, "--certificate", "c.json"]
    before = {p: p.read_bytes() for p in files.iterdir()}
    rc, out, err = _run([argv[0], *COMMON, *argv[1:]], capsys)  # the case's flags win
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and said in err, err
    assert {p: p.read_bytes() for p in files.iterdir()} == before


def test_count_has_no_certificate(files, capsys):
    rc, _, err = _run(["count", "--train", "train.csv", *COMMON, "--certificate", "c.json"], capsys)
    assert rc == 2 and "unrecognized arguments: --certificate" in err
    assert not (files / "c.json").exists()


def test_verify_command_statuses(files, capsys):
    assert _run([*COMMANDS["poison"], *COMMON, "--certificate", "c.json"], capsys)[0] == 0
    doc = json.loads((files / "c.json").read_text())
    bad = next(r for r in doc["results"] if r["status"] == "poisoned")
    bad["num_cells"] += 1
    (files / "bad.json").write_text(json.dumps(doc))
    rc, out, _ = _run(["verify", "bad.json"], capsys)
    assert rc == 1 and "FAIL" in out
    rc, out, err = _run(["verify", "missing.json"], capsys)
    assert rc == 2 and out == "" and err.startswith("nbcert verify: error: missing.json")
    rc, _, err = _run(["verify"], capsys)
    assert rc == 2 and "required: CERT" in err


def test_relative_paths_are_found_beside_the_certificate(files, capsys, tmp_path_factory):
    assert _run([*COMMANDS["certify"], *COMMON, "--certificate", "c.json"], capsys)[0] == 0
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    os.chdir(elsewhere)
    claims = verify.check(files / "c.json")
    assert claims and all(c.ok for c in claims)


def test_the_api_writes_a_certificate_and_reads_a_test_path(files):
    """certify(train path, test path, certificate=): the test path is read (as the command
    does) and the id column named by id= goes to the results."""
    out = nbcert.certify("train.csv", "test.csv", "y", id="name", certificate="c.json")
    assert list(out["name"]) == ["t0", "t1", "t2", "t3"]
    doc = json.loads((files / "c.json").read_text())
    assert [r["id"] for r in doc["results"]] == ["t0", "t1", "t2", "t3"]
    assert all(c.ok for c in verify.check("c.json"))
    with pytest.raises(nbcert.ParameterError, match="must be a file or a DataFrame"):
        nbcert.certify("train.csv", np.zeros((2, 2)), "y", certificate="d.json")
    assert not (files / "d.json").exists()


def test_the_pipelines_entry_points(files):
    """A coded run (as the reproduction's decide stage codes its tables) writes a
    certificate with nbcert.certificate.certify_encoded; nbcert.verify.check returns one
    (claim, ok, message) per claim."""
    from nbcert.certificate import certify_encoded
    from nbcert.reading.encoding import encode

    train = nbcert.read_csv("train.csv")
    test = nbcert.read_csv("test.csv")
    enc = encode(train, "y")
    T = enc.encode_test(test.drop(columns="name"))
    doc = certify_encoded("run.json", enc, T[1:3], train="train.csv", test="test.csv",
                          label="y", alpha="1/2", test_indices=[1, 2])  # fmt: skip
    assert [r["test_index"] for r in doc["results"]] == [1, 2]
    assert doc["inputs"]["alpha"] == "1/2"
    assert doc["inputs"]["test_indices"] == [1, 2]
    claims = verify.check("run.json")
    assert claims[0] == (
        "the results answer each of the 2 test points listed (2 of 4) once",
        True,
        "",
    )
    assert all(c.ok for c in claims) and len(claims) >= 3
    doc["inputs"]["test_indices"] = [0, 1, 2]  # a point said to be answered and not answered
    Path("bad.json").write_text(json.dumps(doc))
    assert not verify.check("bad.json")[0].ok


def test_certify_encoded_writes_what_certify_answers(files):
    from nbcert.certificate import certify_encoded
    from nbcert.reading.encoding import encode

    train = nbcert.read_csv("train.csv")
    test = nbcert.read_csv("test.csv").drop(columns="name")
    enc = encode(train, "y")
    doc = certify_encoded("run.json", enc, enc.encode_test(test), train="train.csv",
                          test="test.csv", label="y")  # fmt: skip
    answer = nbcert.certify("train.csv", "test.csv", "y", id="name")
    assert [r["robust"] for r in doc["results"]] == answer["robust"].tolist()
    assert [r["possible_labels"] for r in doc["results"]] == answer["possible_labels"].tolist()
    assert all(c.ok for c in verify.check("run.json"))


def test_python_m_nbcert_verify(files):
    assert nbcert.certify("train.csv", "test.csv", "y", id="name", certificate="c.json") is not None
    done = subprocess.run(
        [sys.executable, "-m", "nbcert.verify", "c.json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "question: certify, written by nbcert " + nbcert.__version__
    claims = [line for line in lines if not line.startswith(("question: ", "  "))]
    assert np.all([line.startswith("ok") for line in claims[:-1]]) and len(claims) > 2
