"""The checker as a parser a referee can trust: every field of a certificate is known and
checked (none read and ignored), duplicate keys and sizes past the limits are refused before
they cost time or memory, only regular files are read, and every error is one line.

Each malformed input is built as a referee would build it (an honest certificate, then its
JSON or one of its files edited) and checked by the copied-out ``verify.py`` run by a bare
Python in a subprocess limited to 200 MB of address space: one line on stderr, nothing on
stdout, exit status 2, within 5 seconds.  Exit statuses: 0 every claim holds, 1 a claim is
false, 2 unreadable, 3 the checker failed (never 0 or 1).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nbcert
from nbcert import verify

VERIFY = Path(verify.__file__)
MEMORY = 200 << 20
SECONDS = 5.0
TRAIN = "f,g,y\na,x,p\nb,x,p\n,y,q\na,,q\nb,y,p\na,x,q\nb,x,p\n"
TRUTH = "f,g,y\na,x,p\nb,x,p\nb,y,q\na,y,q\nb,y,p\na,x,q\nb,x,p\n"
TEST = "name,f,g\nt0,a,x\nt1,b,y\nt2,,x\nt3,c,y\n"


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def checked(folder: Path, cert: Path, *flags: str) -> tuple:
    """(exit status, stdout, stderr, seconds) of the copied-out checker on ``cert``, run by
    a bare Python limited to MEMORY bytes of address space."""
    shutil.copy(VERIFY, folder / "verify.py")
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-I", "-S", "verify.py", str(cert), *flags],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limited,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


def refused(folder: Path, cert: Path, said) -> str:
    """The one line the checker refuses ``cert`` with: exit 2, nothing on stdout, within
    SECONDS and MEMORY (a MemoryError would say "too large to check"), naming ``said`` (or
    one of them)."""
    rc, out, err, seconds = checked(folder, cert)
    assert rc == 2 and out == "", (rc, out, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    said = (said,) if isinstance(said, str) else said
    assert "too large to check" not in err and any(s in err for s in said), err
    assert seconds < SECONDS, (seconds, err)
    return err


@pytest.fixture
def honest(tmp_path, monkeypatch) -> Path:
    """A folder with a dirty table, its truth, test points with ids, and one honest
    certificate of each command."""
    monkeypatch.chdir(tmp_path)
    for name, text in (("train.csv", TRAIN), ("truth.csv", TRUTH), ("test.csv", TEST)):
        (tmp_path / name).write_text(text)
    nbcert.certify("train.csv", "test.csv", "y", id="name", certificate="certify.json")
    nbcert.poison("truth.csv", "test.csv", "y", id="name", certificate="poison.json")
    nbcert.poison_together("truth.csv", "test.csv", "y", id="name", certificate="together.json")
    nbcert.clean_with_truth("train.csv", "truth.csv", "test.csv", "y", id="name",
                            certificate="clean.json")  # fmt: skip
    for name in ("certify", "poison", "together", "clean"):
        assert checked(tmp_path, tmp_path / f"{name}.json")[0] == 0
    return tmp_path


def _edited(folder: Path, name: str, edit, text: str | None = None) -> Path:
    """The certificate ``name`` with ``edit(doc)`` applied (or replaced by ``text``)."""
    doc = json.loads((folder / f"{name}.json").read_text())
    edit(doc)
    out = folder / "edited.json"
    out.write_text(text if text is not None else json.dumps(doc))
    return out


# ---------------------------------------------------------------------------------------
# the document: duplicate keys, unknown fields, sizes, depths, digits


def test_a_duplicate_key_is_refused_not_the_last_one_kept(honest):
    text = (honest / "certify.json").read_text()
    robust = next(r for r in json.loads(text)["results"] if r["robust"])
    line = json.dumps(robust)
    assert line in text
    twice = line.replace('"robust": true', '"robust": false, "robust": true')
    cert = honest / "twice.json"
    cert.write_text(text.replace(line, twice))
    refused(honest, cert, "the key 'robust' twice in one object")


@pytest.mark.parametrize(
    "name, where, key, value",
    [
        ("together", "result", "method", "exact"),
        ("together", "result", "time_limited", True),
        ("clean", "together", "budget_limited", False),
        ("clean", "together", "method", "greedy"),
        ("certify", "result", "proven", True),
        ("certify", "inputs", "comment", "hello"),
        ("poison", "evidence", "note", 1),
    ],
)
def test_a_field_the_format_does_not_have_is_refused(honest, name, where, key, value):
    def edit(doc):
        part = {
            "result": doc["results"][0],
            "together": doc.get("together"),
            "inputs": doc["inputs"],
            "evidence": doc["results"][0]["evidence"],
        }[where]
        part[key] = value

    refused(honest, _edited(honest, name, edit), f"a field this format does not: {key!r}")


@pytest.mark.parametrize("version", [0, -5, 1, "2", 2.0, None])
def test_only_this_checkers_version_is_read(honest, version):
    err = refused(honest, _edited(honest, "certify", lambda d: d.update(version=version)), "")
    assert "format" in err and "this checker's" in err or "not a whole number" in err


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda d: d["results"][0]["evidence"].__setitem__("minimal", {"proven": 1, "by": "x"}),
         "a field this format does not: 'minimal'"),
        (lambda d: d["results"][0]["evidence"].__setitem__("lower_bound", True),
         "lower_bound is not a whole number"),
        (lambda d: d["results"][0].__setitem__("status", "proven"), "status is not one of"),
        (lambda d: d["results"][0].__setitem__("num_cells", True), "num_cells is not a whole"),
        (lambda d: d["results"][0].__setitem__("cells", [{"row": -1, "column": "f"}]),
         "row is not a whole number"),
        (lambda d: d["inputs"]["files"]["train"].__setitem__("rows", 7.0), "rows is not a whole"),
        (lambda d: d["inputs"].__setitem__("alpha", "0.5"), "not a fraction p/q in lowest terms"),
        (lambda d: d["inputs"].__setitem__("alpha", "2/4"), "not a fraction p/q in lowest terms"),
        (lambda d: d["inputs"].__setitem__("alpha", "-1"), "not a fraction p/q in lowest terms"),
        (lambda d: d["inputs"]["reading"].__setitem__("encoding", "no-such"), "no encoding"),
        (lambda d: d.__setitem__("command", "count"), "unknown command"),
    ],
)  # fmt: skip
def test_a_field_of_the_wrong_kind_is_refused(honest, edit, said):
    refused(honest, _edited(honest, "poison", edit), said)


def test_alpha_of_a_hundred_thousand_digits_is_refused_at_once(honest):
    cert = _edited(honest, "certify", lambda d: d["inputs"].__setitem__("alpha", "1e100000"))
    refused(honest, cert, "alpha is not a fraction")


@pytest.mark.parametrize(
    "written, said",
    [
        ("1" * 10**6, "an integer of 1,000,000 digits"),
        ("1e400", "not a finite number"),
        ("NaN", "NaN is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
    ],
)
def test_numbers_past_the_limits_are_refused_at_once(honest, written, said):
    text = (honest / "certify.json").read_text().replace('"rows": 7', f'"rows": {written}', 1)
    cert = honest / "numbers.json"
    cert.write_text(text)
    refused(honest, cert, said)


def test_json_nested_deeper_than_python_recurses_is_refused(honest):
    cert = honest / "deep.json"
    cert.write_text('{"format": "nbcert certificate", "x": ' + "[" * 5000 + "]" * 5000 + "}")
    refused(honest, cert, "nested too deeply")


def test_a_certificate_past_the_size_limit_is_not_read(honest):
    cert = honest / "huge.json"
    with open(cert, "wb") as f:
        f.truncate(verify.MAX_CERTIFICATE_BYTES + 1)  # sparse: no byte of it is written
    refused(honest, cert, "bytes, over")


@pytest.mark.parametrize("text", ["{", "", "[]", '"x"', "\xff\xfe{}", '{"format": 1}'])
def test_what_is_not_a_certificate_is_one_line(honest, text):
    cert = honest / "bad.json"
    cert.write_bytes(text.encode("latin-1"))
    refused(honest, cert, "bad.json")


# ---------------------------------------------------------------------------------------
# the files: only regular ones, compressed ones with a bound, lines as nbcert reads them


def _pointing(folder: Path, name: str, role: str, path: str, rows: int | None = None) -> Path:
    """The certificate ``name`` with its ``role`` file replaced by ``path`` (hashed as it is,
    where it is a regular file)."""
    digest = "0" * 64
    if os.path.isfile(path) and os.path.getsize(path) < verify.MAX_CERTIFICATE_BYTES:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()

    def edit(doc):
        spec = doc["inputs"]["files"][role]
        spec.update(path=path, sha256=digest, rows=spec["rows"] if rows is None else rows)

    return _edited(folder, name, edit)


def test_a_device_is_never_read(honest):
    refused(honest, Path("/dev/zero"), "not a regular file")
    refused(honest, _pointing(honest, "certify", "train", "/dev/zero"), "not a regular file")


def test_a_fifo_is_never_waited_for(honest):
    fifo = honest / "pipe.csv"
    os.mkfifo(fifo)
    refused(honest, _pointing(honest, "certify", "train", str(fifo)), "not a regular file")
    refused(honest, fifo, "not a regular file")


def test_a_folder_is_not_a_file(honest):
    (honest / "folder.csv").mkdir()
    refused(honest, _pointing(honest, "certify", "test", "folder.csv"), "folder.csv")


def test_a_file_past_the_size_limit_is_not_read(honest):
    big = honest / "big.csv"
    with open(big, "wb") as f:
        f.truncate(verify.MAX_FILE_BYTES + 1)
    refused(honest, _pointing(honest, "certify", "train", "big.csv"), "bytes, over")


def test_compressed_files_that_are_not_what_they_say(honest):
    (honest / "plain.csv.gz").write_text(TRAIN)  # not gzip
    refused(honest, _pointing(honest, "certify", "train", "plain.csv.gz"), "plain.csv.gz")
    whole = gzip.compress(TRAIN.encode() * 200)
    (honest / "cut.csv.gz").write_bytes(whole[: len(whole) // 2])
    err = refused(honest, _pointing(honest, "certify", "train", "cut.csv.gz", 1400), "cut.csv.gz")
    assert "truncated" in err
    (honest / "plain.csv.bz2").write_text(TRAIN)
    refused(honest, _pointing(honest, "certify", "train", "plain.csv.bz2"), "plain.csv.bz2")


BOMB = ("a compression bomb", "a line longer than", "NUL", "more than the 7 data rows",
        "blank lines")  # fmt: skip


BOMBS = {  # content by the size of a unit (bzip2 compresses repeated rows slowly)
    "zeros": lambda mb: b"0" * (mb << 20),  # one line
    "NUL": lambda mb: b"\0" * (mb << 20),
    "rows": lambda mb: b"f,g,y\n" + b"a,x,p\n" * (mb << 17),  # rows that parse
    "blank lines": lambda mb: b"f,g,y\n" + b"\n" * (mb << 20),
}


@pytest.mark.parametrize("content", BOMBS)
@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_a_compression_bomb_is_refused_within_the_limits(honest, content, suffix):
    """Whichever bound it meets first: the ratio, a line's length, a NUL, the rows said, the
    blank lines."""
    bomb = honest / f"bomb.csv{suffix}"
    if suffix == ".gz":
        bomb.write_bytes(gzip.compress(BOMBS[content](200), 6))
    else:
        bomb.write_bytes(bz2.compress(BOMBS[content](8 if content == "rows" else 32), 9))
    refused(honest, _pointing(honest, "certify", "train", bomb.name), BOMB)


def test_more_rows_than_the_certificate_says_are_not_read(honest):
    rows = honest / "rows.csv"
    rows.write_text("f,g,y\n" + "a,x,p\n" * 100_000)
    err = refused(honest, _pointing(honest, "certify", "train", "rows.csv", 7), "more than the 7")
    assert "data rows the certificate says" in err


def test_a_line_past_nbcerts_limit_is_refused_and_a_long_field_within_it_is_read(honest):
    long = honest / "long.csv"
    long.write_text("f,g,y\n" + "a" * (verify.MAX_LINE + 1) + ",x,p\n")
    refused(honest, _pointing(honest, "certify", "train", "long.csv", 1), "a line longer than")


def test_an_honest_certificate_with_a_field_longer_than_csvs_default_verifies(tmp_path):
    """csv's default field limit is 131,072 characters; nbcert reads lines up to 64 MiB, and
    its checker must read what nbcert answered on."""
    wide = "w" * 200_000
    (tmp_path / "train.csv").write_text(f"f,note,y\na,{wide},p\nb,x,q\na,x,p\n,{wide},q\n")
    (tmp_path / "test.csv").write_text(f"f,note\na,{wide}\n")
    cert = tmp_path / "c.json"
    nbcert.certify(tmp_path / "train.csv", tmp_path / "test.csv", "y", certificate=cert)
    rc, out, err, _ = checked(tmp_path, cert)
    assert rc == 0, out + err


# ---------------------------------------------------------------------------------------
# claims that were read and ignored are checked; the statuses; the question; --json


@pytest.mark.parametrize(
    "key, change", [("num_rows", 1), ("certified_rows", -1), ("target_rows", 1)]
)
def test_the_counts_of_all_points_together_are_checked(honest, key, change):
    def edit(doc):
        doc["together"][key] += change

    rc, out, err, _ = checked(honest, _edited(honest, "clean", edit))
    assert rc == 1 and "FAIL  together: its cells' rows, the points asked for" in out, out + err


def test_an_id_is_checked_against_the_test_file(honest):
    cert = _edited(honest, "certify", lambda d: d["results"][1].__setitem__("id", "t9"))
    rc, out, _, _ = checked(honest, cert)
    assert rc == 1 and "test point 1's id is 't1', not 't9'" in out


def test_the_first_lines_say_the_question(honest):
    """The same files at alpha 0 and 1: the verdicts differ, and so do the questions said."""
    cert = honest / "a1.json"
    nbcert.certify("train.csv", "test.csv", "y", id="name", alpha=1, certificate=cert)
    said = {}
    for c in (honest / "certify.json", cert):
        rc, out, _, _ = checked(honest, c)
        assert rc == 0
        said[c.name] = out.splitlines()
    zero, one = said["certify.json"], said["a1.json"]
    assert zero[0] == one[0] == f"question: certify, written by nbcert {nbcert.__version__}"
    assert "train train.csv (7 rows, sha256 " in zero[1] and "test test.csv (4 rows" in zero[1]
    assert zero[2] == "  label 'y', alpha 0, test points: all"
    assert one[2] == "  label 'y', alpha 1, test points: all"
    assert zero[3].startswith("  read with separator ',', encoding utf-8, decimal mark '.'")
    assert "id column: name" in zero[3]


def test_json_output_is_the_json_alone(honest):
    rc, out, err, _ = checked(honest, honest / "clean.json", "--json")
    doc = json.loads(out)
    assert rc == 0 and err == "" and doc["status"] == 0
    assert doc["question"]["alpha"] == "0" and doc["question"]["label"] == "y"
    assert doc["question"]["files"]["truth"]["path"] == "truth.csv"
    assert doc["claims"] and all(c["holds"] is True for c in doc["claims"])
    rc, out, err, _ = checked(honest, honest / "missing.json", "--json")
    assert rc == 2 and json.loads(out) == {"status": 2, "error": err.split("error: ", 1)[1][:-1]}


def test_a_crash_is_status_3_never_0_or_1(honest, monkeypatch, capsys):
    def broken(self):
        raise RuntimeError("a bug")

    monkeypatch.setattr(verify.Checker, "run", broken)
    assert verify.main([str(honest / "certify.json")]) == 3
    out, err = capsys.readouterr()
    assert (
        out == "" and err == "verify.py: error: the checker failed (RuntimeError: a bug); a bug\n"
    )


def test_nbcert_verify_passes_json_on(honest, capsys):
    from nbcert.cli import main

    assert main(["verify", "poison.json", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["question"]["command"] == "poison"
