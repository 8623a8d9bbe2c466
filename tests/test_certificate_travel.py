"""Certificates travel: a file is named relative to the certificate's folder and checked by
its SHA-256, so a certificate written from one folder verifies from any other, and from a
folder it was copied to with its data files beside it; tables given to the API as
DataFrames are written beside the certificate (CSV, hashed) and read back as nbcert read
them."""

from __future__ import annotations

import json
import os
import shutil
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import dirty_instances
from test_certificates import holds

import nbcert
from nbcert import verify
from nbcert.cli import main

TRAIN = "f,g,y\na,x,p\nb,x,p\n,y,q\na,,q\nb,y,p\na,x,q\nb,x,p\n"
TRUTH = "f,g,y\na,x,p\nb,x,p\nb,y,q\na,y,q\nb,y,p\na,x,q\nb,x,p\n"
TEST = "name,f,g\nt0,a,x\nt1,b,y\nt2,,x\nt3,c,y\n"


def _status(capsys, *argv) -> tuple:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """data/ holds the tables (the command runs there); work/ gets the certificates."""
    data, work = tmp_path / "data", tmp_path / "work"
    data.mkdir()
    work.mkdir()
    for name, text in (("train.csv", TRAIN), ("truth.csv", TRUTH), ("test.csv", TEST)):
        (data / name).write_text(text)
    monkeypatch.chdir(data)
    return tmp_path


COMMANDS = {
    "certify": ["certify", "--train", "train.csv"],
    "poison": ["poison", "--train", "truth.csv"],
    "poison --together": ["poison", "--together", "--train", "truth.csv"],
    "clean --truth": ["clean", "--train", "train.csv", "--truth", "truth.csv"],
}


@pytest.mark.parametrize("command", COMMANDS, ids=list(COMMANDS))
def test_written_in_one_folder_it_verifies_from_another(folders, capsys, command):
    argv = [*COMMANDS[command], "--test", "test.csv", "--label", "y", "--id", "name"]
    assert _status(capsys, *argv, "--certificate", "../work/cert.json")[0] == 0
    doc = json.loads((folders / "work" / "cert.json").read_text())
    assert {f["path"] for f in doc["inputs"]["files"].values()} <= {
        f"..{os.sep}data{os.sep}{name}" for name in ("train.csv", "truth.csv", "test.csv")
    }
    os.chdir(folders / "work")
    rc, out, err = _status(capsys, "verify", "cert.json")
    assert rc == 0, out + err
    os.chdir(folders)
    assert _status(capsys, "verify", "work/cert.json")[0] == 0


def test_copied_with_its_files_beside_it_it_verifies_anywhere(folders, capsys):
    argv = [*COMMANDS["clean --truth"], "--test", "test.csv", "--label", "y", "--id", "name"]
    assert _status(capsys, *argv, "--certificate", "../work/cert.json")[0] == 0
    referee = folders / "referee"
    referee.mkdir()
    shutil.copy(folders / "work" / "cert.json", referee)
    for name in ("train.csv", "truth.csv", "test.csv"):
        shutil.copy(folders / "data" / name, referee)
    elsewhere = folders / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    shutil.rmtree(folders / "data")
    rc, out, err = _status(capsys, "verify", str(referee / "cert.json"))
    assert rc == 0, out + err
    (referee / "test.csv").write_text(TEST.replace("t3,c,y", "t3,a,y"))
    rc, out, err = _status(capsys, "verify", str(referee / "cert.json"))
    assert rc == 2 and "the test file has changed (its SHA-256 differs)" in err


def test_dataframes_are_written_beside_the_certificate(folders, capsys):
    """Every question asked with DataFrames and certificate=: the tables are written as
    <certificate>.<role>.csv, the certificate names and hashes them, and it verifies from
    another folder after the folder is moved."""
    read = {name: nbcert.read_csv(f"{name}.csv") for name in ("train", "truth", "test")}
    out = folders / "work"
    nbcert.certify(read["train"], read["test"], "y", id="name", certificate=out / "a.json")
    nbcert.poison(read["truth"], read["test"], "y", id="name", certificate=out / "b.json")
    nbcert.poison_together(read["truth"], read["test"], "y", id="name",
                           certificate=out / "c.json")  # fmt: skip
    nbcert.clean_with_truth(read["train"], read["truth"], "test.csv", "y", id="name",
                            certificate=out / "d.json")  # fmt: skip
    assert (out / "a.train.csv").exists() and (out / "a.test.csv").exists()
    assert (out / "d.truth.csv").exists() and not (out / "d.test.csv").exists()
    doc = json.loads((out / "d.json").read_text())
    assert doc["inputs"]["files"]["truth"]["path"] == "d.truth.csv"
    assert doc["inputs"]["files"]["test"]["path"] == f"..{os.sep}data{os.sep}test.csv"
    moved = folders / "moved"
    shutil.copytree(out, moved)
    shutil.copy("test.csv", moved)
    os.chdir(folders)
    for name in "abcd":
        assert _status(capsys, "verify", str(moved / f"{name}.json"))[0] == 0


def test_a_dataframe_a_file_cannot_hold_is_refused_before_any_answer(folders):
    train = nbcert.read_csv("train.csv")
    test = nbcert.read_csv("test.csv")
    with pytest.raises(nbcert.ParameterError, match="holds an empty string"):
        nbcert.certify(train.fillna({"g": ""}), test, "y", certificate="c.json")
    with pytest.raises(nbcert.ParameterError, match=r"reset_index\(drop=True\)"):
        nbcert.certify(train, test.iloc[[1, 3]], "y", certificate="c.json")
    shutil.copy("train.csv", "c.test.csv")  # a training file where the test table would go
    with pytest.raises(nbcert.InputError, match="would overwrite it"):
        nbcert.certify("c.test.csv", test, "y", id="name", certificate="c.json")
    assert not os.path.exists("c.json") and open("c.test.csv").read() == TRAIN


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), alpha=st.sampled_from([0, Fraction(1, 2), 1]))
def test_a_dataframes_certificate_holds_as_its_files_would(tmp_path_factory, data, alpha):
    """Random small tables (text and integer values, blanks, unseen test values) given as
    DataFrames: the certificate written from them holds, and its answers are those of the
    same tables given as files."""
    inst = data.draw(dirty_instances(max_rows=6, max_missing=4))
    folder = tmp_path_factory.mktemp("frames")
    train, test = inst.train, inst.test.reset_index(drop=True)
    cert = folder / "c.json"
    got = nbcert.certify(train, test, inst.label, alpha=alpha, certificate=cert)
    holds(cert)
    again = nbcert.certify(folder / "c.train.csv", folder / "c.test.csv", inst.label, alpha=alpha)
    for frame in (got, again):  # a file's labels are text
        frame["label"] = [None if x is None else str(x) for x in frame["label"]]
        frame["possible_labels"] = [[str(x) for x in p] for p in frame["possible_labels"]]
    pd.testing.assert_frame_equal(got.reset_index(drop=True), again.reset_index(drop=True))
    assert verify.check(cert)
