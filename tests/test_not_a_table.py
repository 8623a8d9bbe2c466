"""Input that is not a table gives one line and exit 2, with memory bounded: a device that is
neither a file nor a pipe is refused by name, a line longer than MAX_LINE_BYTES is refused
(the header or a record), a first line holding NUL bytes is not text; and the messages for
an empty folder and a separator that gave one column."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT
from test_cli import TEST, TRAIN, assert_error, files, run, run_json, write

import nbcert
from nbcert.reading import csvfile

# A child that runs the command line under an address-space limit and reports its peak
# resident memory (VmHWM) on its last line of stderr.
_CHILD = """
import resource, sys
limit = int(sys.argv[1]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from nbcert.cli import main
try:
    code = main(sys.argv[2:])
finally:
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]
    sys.stderr.write(f"peak {int(hwm) >> 10} MB\\n")
sys.exit(code)
"""

LIMIT_MB = 1024  # the address space the child may take (pyarrow's and numpy's own included)
PEAK_MB = 256  # the resident memory a refused input may cost


def _limited(*argv, stdin=None, cwd=None, limit_mb: int = LIMIT_MB, timeout: int = 120) -> tuple:
    """(exit status, the error lines, peak MB, stdout) of the command line run under
    ``limit_mb`` of address space."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(limit_mb), *map(str, argv)],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )
    *lines, peak = run.stderr.splitlines()
    return run.returncode, lines, int(peak.split()[1]), run.stdout


def _one_line(rc, lines, stdout, *names):
    assert rc == 2, lines
    assert stdout == ""
    assert len(lines) == 1 and lines[0].startswith("nbcert: error: "), lines
    for name in names:
        assert name in lines[0], (name, lines[0])


def test_dev_zero_is_refused_by_name_under_a_memory_limit(tmp_path):
    """``--train /dev/zero`` grew to 19.8 GB in 30 s; a device is refused before reading."""
    test = write(tmp_path, "test.csv", TEST)
    rc, lines, peak, out = _limited(
        "certify", "--train", "/dev/zero", "--test", test, "--label", "y"
    )
    _one_line(rc, lines, out, "/dev/zero", "character device", "not a file or a pipe")
    assert peak < PEAK_MB


def test_dev_zero_on_standard_input_is_refused_under_a_memory_limit(tmp_path):
    test = write(tmp_path, "test.csv", TEST)
    argv = ("certify", "--train", "-", "--test", test, "--label", "y")
    with open("/dev/zero", "rb") as zero:
        rc, lines, peak, out = _limited(*argv, stdin=zero)
    _one_line(rc, lines, out, "character device")
    assert peak < PEAK_MB
    # through a pipe: read only as far as the header, whose NUL bytes say it is not text
    feed = subprocess.Popen(["cat", "/dev/zero"], stdout=subprocess.PIPE)
    try:
        rc, lines, peak, out = _limited(*argv, stdin=feed.stdout)
    finally:
        feed.kill()
        feed.wait()
    _one_line(rc, lines, out, "NUL bytes", "not a text table")
    assert peak < PEAK_MB


def test_a_100_mb_first_line_of_nul_bytes_is_one_line(tmp_path):
    """A first line longer than a piece (pyarrow's raw "Empty CSV file or block" before)."""
    (tmp_path / "zeros.csv").write_bytes(b"\0" * (100 << 20) + b"\n")
    test = write(tmp_path, "test.csv", TEST)
    for flag in ("--train", "--test"):
        argv = {"--train": write(tmp_path, "train.csv", TRAIN), "--test": test}
        argv[flag] = str(tmp_path / "zeros.csv")
        rc, lines, peak, out = _limited(
            "certify", "--train", argv["--train"], "--test", argv["--test"], "--label", "y"
        )
        _one_line(rc, lines, out, "zeros.csv", "NUL bytes")
        assert peak < PEAK_MB


def test_a_small_file_of_nul_bytes_is_not_text(tmp_path, capsys):
    """Before: "column 'odor' is not a column of zeros.csv"."""
    zeros = tmp_path / "zeros.csv"
    zeros.write_bytes(b"\0" * 3000)
    argv = files(tmp_path)
    for i in (1, 3):
        given = list(argv)
        given[i] = zeros
        assert_error(*run(capsys, "certify", *given), "zeros.csv", "NUL bytes", "not a text table")
    with pytest.raises(nbcert.InputError, match="NUL bytes"):
        nbcert.read_csv(zeros)


@pytest.fixture
def short_lines(monkeypatch):
    """Lines of at most 1000 bytes, so that a test need not write 64 MiB."""
    monkeypatch.setattr(csvfile, "MAX_LINE_BYTES", 1000)
    from nbcert.reading import files as file_reading

    monkeypatch.setattr(file_reading, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 300)


def test_a_header_longer_than_the_limit_is_refused(tmp_path, capsys, short_lines):
    train = "odor" + "x" * 1200 + ",cap,y\nn,s,p\n"
    assert_error(
        *run(capsys, "certify", *files(tmp_path, train)),
        "the first line (the header)",
        "1,000 bytes",
    )
    blank = "\n" * 1200 + TRAIN
    assert_error(*run(capsys, "certify", *files(tmp_path, blank)), "blank lines")


@pytest.mark.parametrize("stdin", [False, True])
def test_a_record_longer_than_the_limit_is_named(tmp_path, capsys, short_lines, stdin):
    rows = "".join(f"{'n' if i % 2 else 'f'},s,{'e' if i % 3 else 'p'}\n" for i in range(200))
    train = "odor,cap,y\n" + rows + "x" * 2500 + ",s,p\n" + rows
    if not stdin:
        assert_error(
            *run(capsys, "count", *files(tmp_path, train)), "data row 200 (line 202)", "longer than"
        )
        quoted = "odor,cap,y\n" + rows + '"' + "x\n" * 1250 + '",s,p\n'
        assert_error(*run(capsys, "count", *files(tmp_path, quoted)), "data row 200 (line 202)")
        return
    argv = ["certify", "--train", "-", "--test", write(tmp_path, "t.csv", TEST), "--label", "y"]
    proc = subprocess.run(
        [sys.executable, "-c", _SHORT_LINES, *argv], input=train, capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "nbcert: error: -: data row 200 (line 202) is longer than 1,000 bytes, the longest line "
        "nbcert reads: not a CSV table"
    ]


_SHORT_LINES = """
import sys
from nbcert.reading import csvfile, files
csvfile.MAX_LINE_BYTES = files.MAX_LINE_BYTES = 1000
files.PIECE_BYTES = 300
from nbcert.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_lines_within_the_limit_are_read(tmp_path, capsys, short_lines):
    """Records up to the limit, across many pieces, give the answers of the whole file."""
    rows = "".join(
        f"{'n' if i % 2 else 'f'}{'z' * (i % 7) * 100},s,{'e' if i % 3 else 'p'}\n"
        for i in range(60)
    )
    got = run_json(capsys, "count", *files(tmp_path, "odor,cap,y\n" + rows, "odor,cap\nn,s\n"))
    assert got[0]["total"] == "1"


def test_an_empty_folder_is_named_as_one(tmp_path, capsys):
    """Before: "cannot read Parquet (list index out of range)"."""
    (tmp_path / "empty").mkdir()
    argv = files(tmp_path)
    argv[1] = tmp_path / "empty"
    assert_error(*run(capsys, "certify", *argv), "empty", "a directory without Parquet files")


def test_a_separator_that_gives_one_column_says_so(tmp_path, capsys):
    """Before: --sep tab on a comma file named a column 'odor,cap'."""
    for flag in ("tab", ";"):
        rc, out, err = run(capsys, "certify", *files(tmp_path), "--sep", flag)
        assert_error(rc, out, err, "train.csv", "one column 'odor,cap,y'", "separated by ','")
        assert f"not {flag!r}" in err and "--sep ','" in err


def test_a_test_column_not_in_training_names_the_id_flag(tmp_path, capsys):
    """Before: "column 'id' is not a column of train.csv", with no hint to pass --id id."""
    import pandas as pd

    argv = files(tmp_path, TRAIN, "id,odor,cap\nr1,n,s\nr2,n,x\n")
    assert_error(*run(capsys, "certify", *argv), "column 'id' is not a column of", "pass --id id")
    assert run_json(capsys, "certify", *argv, "--id", "id")[0]["id"] == "r1"
    test = pd.DataFrame({"id": ["r1"], "odor": ["n"], "cap": ["s"]})
    train = write(tmp_path, "t2.csv", TRAIN)
    with pytest.raises(nbcert.InputError, match=r"column 'id' is not a column of .* pass id='id'"):
        nbcert.certify(train, test, "y")
    with pytest.raises(nbcert.InputError, match=r"column 'id' is not a column of [^(]*$"):
        nbcert.certify(train, test.assign(name="x"), "y", id="name")
