"""The command exits with its real status: no abort at interpreter exit.

The abort (exit 134, "terminate called without an active exception") came from a threaded
``pyarrow.csv.read_csv`` whose reader was released on an Arrow thread after the table was
returned: releasing a Python object it held (the invalid-row handler, a buffer over Python
bytes) needs the interpreter's lock, which a thread cannot take while the interpreter
exits.  These tests hold the reader to holding no Python object on a threaded read, and
run the small command a few dozen times (the benchmark runs it 500 times).
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from benchmarks.methods import exit_statuses
from nbcert.reading import csvfile, files


def test_small_command_exits_cleanly_every_time():
    got = exit_statuses(40, parallel=2)
    assert got == {0: 40, "stderr": 0}


@pytest.fixture
def reads(monkeypatch):
    """Every pyarrow.csv.read_csv call of the reader: (input, threads, handler)."""
    calls = []
    real = pacsv.read_csv

    def spy(source, read_options=None, parse_options=None, convert_options=None, **kw):
        calls.append(
            (
                source,
                read_options.use_threads if read_options else True,
                parse_options.invalid_row_handler if parse_options else None,
            )
        )
        return real(
            source,
            read_options=read_options,
            parse_options=parse_options,
            convert_options=convert_options,
            **kw,
        )

    monkeypatch.setattr(pacsv, "read_csv", spy)
    return calls


def test_threaded_reads_hold_no_python_object(tmp_path, reads):
    """Threaded reads get Arrow buffers and no row handler; the one piece with a line of
    spaces is parsed again on this thread, which skips the line as before."""
    p = tmp_path / "t.csv"
    p.write_text("a,b,y\nx,1,p\n   \ny,,q\n\nz,2,p\n")
    table = files.TableSource(p).read()
    assert table.column("a").to_pylist() == ["x", "y", "z"]
    assert table.column("b").to_pylist() == ["1", None, "2"]
    threaded = [c for c in reads if c[1]]
    assert threaded and all(
        isinstance(src, pa.Buffer) and handler is None for src, _, handler in threaded
    )
    assert any(not threads and handler is not None for _, threads, handler in reads)
    assert all(isinstance(src, pa.Buffer) for src, _, _ in reads)


def test_a_bad_record_is_still_named(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("a,b,y\nx,1,p\n   \ny,,q,4\n")
    with pytest.raises(files.InputError, match=r"data row 1 \(line 4\) has 4 fields, expected 3"):
        files.TableSource(p, name="t.csv").read()


@pytest.mark.parametrize("size", [1, 2, 5, 13, 64, 1 << 16])
def test_pieces_end_at_record_ends(size):
    """Pieces are whole records (newlines inside quotes never cut), together the stream."""
    rng = np.random.default_rng(size)
    rows = [f'"q\n{i}",{i}\n' if rng.random() < 0.3 else f"v{i},{i}\n" for i in range(200)]
    data = "".join(rows).encode() + b'tail,"no newline"'
    pieces = list(csvfile.byte_pieces(io.BytesIO(data), size))
    assert all(isinstance(p, pa.Buffer) for p in pieces)
    assert b"".join(p.to_pybytes() for p in pieces) == data
    for p in pieces[:-1]:
        text = p.to_pybytes()
        assert text.endswith(b"\n") and text.count(b'"') % 2 == 0
