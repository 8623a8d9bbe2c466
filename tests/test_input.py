"""Input paths: CSV and Parquet files read by pyarrow, in memory or streamed in batches of
any size, compact codes and the statistics seam.  Every path must give the answers of the
in-memory DataFrame path (itself held against the brute-force enumerator)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from brute import brute_robust
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import complete_instances, instances, small_rival_instances
from test_cli import ERROR_CASES, TEST, TRAIN, assert_error, files, run, run_json, write

import nbcert
from nbcert import stats
from nbcert.reading import counts as reading_counts
from nbcert.reading import files as file_reading
from nbcert.reading import parallel, parquetfile
from nbcert.reading.encoding import encode, from_codes
from nbcert.stats.domains import code_dtype

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


def as_text(df: pd.DataFrame) -> pd.DataFrame:
    """The table as a CSV file shows it: every value its text, missing cells None."""
    return df.apply(lambda c: c.map(lambda v: None if pd.isna(v) else str(v))).astype(object)


def write_csv(df: pd.DataFrame, path) -> str:
    as_text(df).to_csv(path, index=False)
    return str(path)


def write_parquet(df: pd.DataFrame, path, row_group_size=None) -> str:
    as_text(df).to_parquet(path, index=False, row_group_size=row_group_size)
    return str(path)


class pieces:
    """Cut CSV files into pieces of about this many bytes (each with its own dictionaries)."""

    def __init__(self, size):
        self.size = size

    def __enter__(self):
        self.old, file_reading.PIECE_BYTES = file_reading.PIECE_BYTES, self.size

    def __exit__(self, *exc):
        file_reading.PIECE_BYTES = self.old


def frame(res: pd.DataFrame) -> list:
    return [
        (bool(r), None if lab is None else str(lab)) for r, lab in zip(res["robust"], res["label"])
    ]


def counts(wcs) -> list:
    return [({str(k): v for k, v in wc.counts.items()}, wc.ties, wc.total) for wc in wcs]


@SETTINGS
@given(inst=instances(), data=st.data())
def test_streamed_csv_and_parquet_equal_in_memory(tmp_path_factory, inst, data):
    """Any batch size (down to one row), any row order, CSV or Parquet: the answers of the
    DataFrame in memory, which the brute-force enumerator confirms."""
    tmp = tmp_path_factory.mktemp("stream")
    order = data.draw(st.permutations(range(len(inst.train))), label="row order")
    train = inst.train.iloc[list(order)]
    test = as_text(inst.test[inst.features])
    expected = frame(nbcert.certify(as_text(train), test, inst.label))
    for i, row in enumerate(test.to_dict("records")):
        robust, lab = brute_robust(as_text(train), inst.label, row, 0)
        assert expected[i] == (robust, lab if robust else None)
    batch = data.draw(st.sampled_from([None, 1, 2, 3, len(train)]), label="batch rows")
    piece = data.draw(st.sampled_from([1, 10, 30, 1 << 26]), label="piece bytes")
    csv = write_csv(train, tmp / "t.csv")
    parquet = write_parquet(
        train, tmp / "t.parquet", row_group_size=data.draw(st.integers(1, len(train)))
    )
    with pieces(piece):
        for path in (csv, parquet):
            assert frame(nbcert.certify(path, test, inst.label, batch_rows=batch)) == expected, path
        assert counts(
            nbcert.count_worlds(csv, test, inst.label, batch_rows=batch, method="exact")
        ) == counts(nbcert.count_worlds(as_text(train), test, inst.label, method="exact"))


@SETTINGS
@given(
    inst=st.one_of(complete_instances(min_labels=2), small_rival_instances()),
    alpha=st.sampled_from([0, 0, 1]),
    data=st.data(),
)
def test_streamed_op_names_the_same_cells(tmp_path_factory, inst, alpha, data):
    """OP on a streamed file (statistics, then a second pass for the cells) returns the
    cells the in-memory OP returns, at alpha > 0 too (steps that name a value)."""
    tmp = tmp_path_factory.mktemp("op")
    test = as_text(inst.test[inst.features])
    path = write_csv(inst.train, tmp / "t.csv")
    batch = data.draw(st.sampled_from([None, 1, 2, 3]), label="batch rows")
    with pieces(data.draw(st.sampled_from([1, 10, 1 << 26]), label="piece bytes")):
        streamed = nbcert.poison(path, test, inst.label, stream=True, batch_rows=batch, alpha=alpha)
    in_memory = nbcert.poison(as_text(inst.train), test, inst.label, alpha=alpha)
    assert [(p.possible, p.cells) for p in streamed] == [(p.possible, p.cells) for p in in_memory]


@pytest.mark.parametrize("piece", [1, 7, 64])
@pytest.mark.parametrize(
    "case", [c for c, v in ERROR_CASES.items() if v[0] is not None and v[2] == []]
)
def test_errors_in_late_pieces(tmp_path, capsys, monkeypatch, case, piece):
    """Cut into pieces of a few bytes, every file gives the same one-line error."""
    monkeypatch.setattr(file_reading, "PIECE_BYTES", piece)
    train, test, extra, names = ERROR_CASES[case]
    write(tmp_path, "train.csv", train)
    if test is not None:
        write(tmp_path, "test.csv", test)
    rc, out, err = run(
        capsys,
        "certify",
        "--train",
        tmp_path / "train.csv",
        "--test",
        tmp_path / "test.csv",
        "--label",
        "y",
        "--batch-rows",
        "1",
    )
    assert_error(rc, out, err, *names)


GOOD = "".join(
    f"{'n' if i % 3 else 'f'},{'s' if i % 2 else 'x'},{'e' if i % 5 else 'p'}\n"
    for i in range(2000)
)


@pytest.mark.parametrize(
    "fault, names",
    [
        ("n,s\n", ["data row 2000 (line 2002)", "2 fields", "expected 3"]),
        ("n,s,e,9\n", ["data row 2000 (line 2002)", "4 fields"]),
        ("n,s,\n", ["data row 2000", "'y'"]),
        ('\n\n  \nn,"a\nb",e,1\n', ["data row 2000 (line 2005)", "4 fields"]),
        ("n,\xff,e\n", ["not a UTF-8 text file"]),
    ],
)
@pytest.mark.parametrize("command", ["certify", "count", "poison"])
def test_fault_after_many_rows(tmp_path, capsys, monkeypatch, fault, names, command):
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 1000)
    (tmp_path / "train.csv").write_bytes(
        ("odor,cap,y\n" + GOOD + fault + GOOD)
        .encode("utf-8", "surrogateescape")
        .replace("\xff".encode(), b"\xff")
    )
    write(tmp_path, "test.csv", TEST)
    rc, out, err = run(
        capsys,
        command,
        "--train",
        tmp_path / "train.csv",
        "--test",
        tmp_path / "test.csv",
        "--label",
        "y",
    )
    assert_error(rc, out, err, str(tmp_path / "train.csv"), *names)


def test_late_values_labels_and_all_missing_feature(tmp_path, capsys, monkeypatch):
    """A value and a label first seen in the last piece count; a feature missing in every
    piece is an error."""
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 50)
    train = "odor,cap,y\n" + GOOD + "z,w,late\n"
    whole = run_json(capsys, "count", *files(tmp_path, train, "odor,cap\nz,w\nn,s\n"))
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 1 << 26)
    assert whole == run_json(capsys, "count", *files(tmp_path, train, "odor,cap\nz,w\nn,s\n"))
    assert "late" in whole[0]["counts"]
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 50)
    empty = "odor,cap,y\n" + "".join(f"n,,{'e' if i % 2 else 'p'}\n" for i in range(300))
    rc, out, err = run(capsys, "certify", *files(tmp_path, empty))
    assert_error(rc, out, err, "train.csv", "'cap'", "no observed value")


def test_train_from_stdin(tmp_path):
    """A pipe is read once (it cannot be read twice)."""
    test = write(tmp_path, "test.csv", TEST)
    for command in ("certify", "poison"):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "nbcert.cli",
                command,
                "--train",
                "/dev/stdin",
                "--test",
                test,
                "--label",
                "y",
                "--json",
            ],
            input=TRAIN if command == "certify" else "odor,cap,y\nn,s,p\nn,x,e\nf,s,e\nf,x,e\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert len(proc.stdout) > 0 and proc.stderr == ""


@pytest.mark.parametrize("size", [1 << 20, 3 << 20, 20 << 20])
def test_huge_field(tmp_path, capsys, size):
    """A field of 1 MB or more (beyond the csv module's limit and pyarrow's block) is a value."""
    train = "odor,cap,y\n" + "x" * size + ",s,p\nn,,e\nn,s,e\nf,x,e\n"
    res = run_json(capsys, "count", *files(tmp_path, train, "odor,cap\nn,s\n"))
    assert res[0]["total"] == "2"


def test_quoted_fields_across_pieces(tmp_path, capsys, monkeypatch):
    """Newlines inside quoted values never cut a piece."""
    rows = "".join(f'"a\nb{i % 3}","c,""d""{i % 2}",{"p" if i % 4 else "e"}\n' for i in range(400))
    train = "odor,cap,y\n" + rows
    test = 'odor,cap\n"a\nb1","c,""d""0"\n'
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 37)
    small = run_json(capsys, "count", *files(tmp_path, train, test))
    monkeypatch.setattr(file_reading, "PIECE_BYTES", 1 << 26)
    assert small == run_json(capsys, "count", *files(tmp_path, train, test))
    df = nbcert.read_csv(write(tmp_path, "t.csv", train))
    assert df.shape == (400, 3) and df["odor"].iloc[0] == "a\nb0" and df["cap"].iloc[0] == 'c,"d"0'


def test_parquet_folder_and_text_values(tmp_path, capsys):
    """A folder of Parquet files is one table (files in name order); the CLI compares
    Parquet values with the CSV test file as text."""
    df = pd.DataFrame(
        {"odor": [1, 1, 2, 2, 3], "cap": ["s", None, "s", "x", "x"], "y": ["p", "e", "e", "p", "e"]}
    )
    folder = tmp_path / "pq"
    folder.mkdir()
    df.iloc[:2].to_parquet(folder / "part-0.parquet", index=False)
    df.iloc[2:].to_parquet(folder / "part-1.parquet", index=False)
    csv = write_csv(df, tmp_path / "t.csv")
    test = write(tmp_path, "q.csv", "odor,cap\n1,s\n3,x\n")
    assert run_json(capsys, "count", "--train", folder, "--test", test, "--label", "y") == run_json(
        capsys, "count", "--train", csv, "--test", test, "--label", "y"
    )
    res = nbcert.certify(str(folder), df[["odor", "cap"]].iloc[[0]].assign(cap="s"), "y")
    assert frame(res) == frame(
        nbcert.certify(df, df[["odor", "cap"]].iloc[[0]].assign(cap="s"), "y")
    )


class side_by_side:
    """Work on columns on two threads however short the table (nbcert.reading.parallel)."""

    def __enter__(self):
        self.old = parallel.PARALLEL_ROWS, parallel.threads
        parallel.PARALLEL_ROWS, parallel.threads = 0, lambda: 2

    def __exit__(self, *exc):
        parallel.PARALLEL_ROWS, parallel.threads = self.old


def test_columns_side_by_side_are_used_for_long_tables(monkeypatch):
    """The pool works for a table of PARALLEL_ROWS rows (not below) when Arrow has threads."""
    calls = []
    monkeypatch.setattr(parallel, "threads", lambda: 2)
    monkeypatch.setattr(parallel, "_pool", lambda: calls.append(1) or ThreadPoolExecutor(2))
    assert (
        parallel.map_columns(str, [1, 2, 3], parallel.PARALLEL_ROWS - 1) == ["1", "2", "3"]
        and not calls
    )
    assert parallel.map_columns(str, [1, 2, 3], parallel.PARALLEL_ROWS) == ["1", "2", "3"] and calls


@SETTINGS
@given(inst=instances(), data=st.data())
def test_columns_side_by_side_give_the_same_answers(tmp_path_factory, inst, data):
    """Columns coded and counted on threads: the answers of the loop, from a DataFrame, a
    CSV file and a Parquet file with integer columns (coded by Arrow from int64)."""
    tmp = tmp_path_factory.mktemp("threads")
    test = as_text(inst.test[inst.features])
    ints = inst.train.copy()
    for f in inst.features:  # integer columns, missing cells as nulls, where the values allow
        as_int = pd.to_numeric(ints[f], errors="coerce")
        if as_int.notna().sum() == ints[f].notna().sum():
            ints[f] = as_int.astype("Int64")
    parquet = tmp / "t.parquet"
    ints.to_parquet(
        parquet, index=False, row_group_size=data.draw(st.integers(1, len(ints)), label="row group")
    )
    csv = write_csv(inst.train, tmp / "t.csv")
    batch = data.draw(st.sampled_from([None, 1, 2]), label="batch rows")
    sources = [
        (as_text(inst.train), {}),
        (csv, {"batch_rows": batch}),
        (str(parquet), {"batch_rows": batch}),
    ]

    def answers():
        return [
            (
                frame(nbcert.certify(src, test, inst.label, **kw)),
                counts(nbcert.count_worlds(src, test, inst.label, method="exact", **kw)),
            )
            for src, kw in sources
        ]

    expected = answers()
    with side_by_side():
        assert answers() == expected


@pytest.mark.parametrize(
    "groups, batch_rows, want",
    [
        ([10**6] * 10, 1 << 20, 10**6),  # one group to a batch, none across two
        ([1_500_000, 1_500_000, 7], 1 << 20, 750_000),  # each group in two equal batches
        ([600, 600, 5], 1000, 600),
        ([400, 400, 400], 1000, 1000),  # small groups: several to a batch
        ([], 1000, 1000),
    ],
)
def test_parquet_batches_follow_the_row_groups(groups, batch_rows, want):
    class Meta:
        num_row_groups = len(groups)

        def row_group(self, i):
            return type("G", (), {"num_rows": groups[i]})

    assert parquetfile._group_batch_rows(Meta(), batch_rows) == want


def test_parquet_batches_do_not_straddle_row_groups(tmp_path, monkeypatch):
    df = pd.DataFrame({"f": list("abcabcabcab"), "y": list("pq" * 5 + "p")})
    path = write_parquet(df, tmp_path / "t.parquet", row_group_size=4)
    monkeypatch.setattr(file_reading, "PARQUET_BATCH_ROWS", 6)
    sizes = [b.num_rows for _, b in file_reading.TableSource(path).tables()]
    assert sizes == [4, 4, 3]


def test_row_methods_refuse_a_streamed_table(tmp_path, capsys):
    for argv in (["certify", "--method", "iterate"], ["poison", "--method", "sr"]):
        rc, out, err = run(capsys, argv[0], *files(tmp_path), *argv[1:], "--stream")
        assert_error(rc, out, err, "train.csv", "needs the training table in memory")


def test_compact_codes():
    assert [code_dtype(k) for k in (1, 256, 257, 65536, 65537)] == [
        np.uint8,
        np.uint8,
        np.uint16,
        np.uint16,
        np.int32,
    ]
    df = pd.DataFrame({"a": list("xyzx"), "b": [1, 2, None, 1], "y": ["p", "q", "p", "p"]})
    assert encode(df, "y").X.dtype == np.uint8
    wide = pd.DataFrame({"a": [f"v{i}" for i in range(300)], "y": ["p", "q"] * 150})
    assert encode(wide, "y").X.dtype == np.uint16


def test_tally_in_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.integers(-1, 4, (5000, 7))
    X[:4] = np.arange(4)[:, None]
    y = rng.integers(0, 3, 5000)
    enc = from_codes(X, y, np.full(7, 4))
    whole = stats.tally(enc)
    monkeypatch.setattr(stats, "CHUNK_CELLS", 13)
    assert np.array_equal(stats.tally(enc), whole)
    naive = np.stack(
        [
            np.bincount(
                enc.X[enc.label_bounds[l] : enc.label_bounds[l + 1]].ravel().astype(np.intp),
                minlength=enc.n_codes,
            )
            for l in range(enc.m)
        ]
    )
    assert np.array_equal(whole, naive)


@SETTINGS
@given(inst=instances())
def test_arrow_backed_strings_equal_objects(inst):
    """pandas' Arrow-backed string columns and object columns give the same answers."""
    text = as_text(inst.train)
    arrow = text.astype("string[pyarrow]")
    test = as_text(inst.test[inst.features])
    assert frame(nbcert.certify(arrow, test, inst.label)) == frame(
        nbcert.certify(text, test, inst.label)
    )
    assert frame(nbcert.certify(arrow, test, inst.label, method="iterate")) == frame(
        nbcert.certify(text, test, inst.label)
    )


INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _span_with_nulls(arr) -> int:
    """The span int_dictionary codes: the values', with 0 where there are nulls."""
    values = [v for v in arr.to_pylist() if v is not None] + ([0] if arr.null_count else [])
    return max(values) - min(values) + 1


@SETTINGS
@given(data=st.data())
def test_int_dictionary_is_arrows_dictionary_encode(data):
    """Integer columns of a narrow span are dictionary-encoded by lookup tables: the same
    dictionary (order of first appearance) and indices as pyarrow's dictionary_encode, for
    every integer type, at either end of its range, with nulls whose bytes are arbitrary
    and with slices; anything else is left to Arrow (None)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from nbcert.reading.buffers import INT_SPAN_MAX, int_dictionary

    typ = data.draw(st.sampled_from(INT_TYPES), label="type")
    info = np.iinfo(typ)
    span = data.draw(st.integers(1, 40), label="span")
    lo = data.draw(
        st.one_of(
            st.integers(int(info.min), int(info.max) - span + 1),
            st.sampled_from([int(info.min), int(info.max) - span + 1, 0]),
        ),
        label="lowest value",
    )
    n = data.draw(st.integers(1, 200), label="rows")
    rel = data.draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n), label="values")
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="nulls"))
    junk = data.draw(
        st.lists(st.integers(int(info.min), int(info.max)), min_size=n, max_size=n),
        label="null bytes",
    )
    values = np.array([j if m else lo + v for v, m, j in zip(rel, mask, junk)], dtype=typ)
    arr = pa.array(values, mask=mask)  # Arrow keeps a null's bytes as given
    start = data.draw(st.integers(0, n - 1), label="slice start")
    arr = arr.slice(start, data.draw(st.integers(0, n - start), label="slice length"))
    got = int_dictionary(arr)
    if got is None:
        assert arr.null_count == len(arr) or _span_with_nulls(arr) > min(INT_SPAN_MAX, len(arr))
        return
    got.validate(full=True)
    want = pc.dictionary_encode(arr)
    assert got.dictionary.equals(want.dictionary)
    assert got.indices.equals(want.indices)


def test_int_dictionary_leaves_wide_and_empty_columns_to_arrow():
    import pyarrow as pa

    from nbcert.reading.buffers import INT_SPAN_MAX, int_dictionary

    assert int_dictionary(pa.array(np.arange(INT_SPAN_MAX) + 10**12)) is not None
    assert int_dictionary(pa.array(np.arange(INT_SPAN_MAX + 1))) is None
    assert int_dictionary(pa.array([None, None], pa.int64())) is None
    assert int_dictionary(pa.array(["a"])) is None
    assert int_dictionary(pa.array([5, 1000], mask=[False, True])) is None  # 0..5: 6 values, 2 rows
    assert int_dictionary(pa.array([1, 1000, 2], mask=[False, True, False])) is not None  # 0..2


def _int_column(data, n: int, name: str):
    """An Arrow integer column of n cells: any type, a narrow or a wide span (wider than
    the column: dictionary-encoded first), nulls with arbitrary bytes."""
    import pyarrow as pa

    typ = data.draw(st.sampled_from(INT_TYPES), label=f"{name} type")
    info = np.iinfo(typ)
    span = min(
        data.draw(st.sampled_from([1, 2, 5, 300]), label=f"{name} span"),
        int(info.max) - int(info.min) + 1,
    )
    ends = [int(info.min), int(info.max) - span + 1]  # nulls (as 0) make these spans wide
    near0 = [min(max(int(info.min), v), int(info.max) - span + 1) for v in (0, -(span // 2))]
    lo = data.draw(st.sampled_from([*ends, *near0]), label=f"{name} lowest")
    rel = data.draw(
        st.lists(st.integers(0, span - 1), min_size=n, max_size=n), label=f"{name} values"
    )
    mask = np.array(
        data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label=f"{name} nulls")
    )
    junk = data.draw(st.integers(int(info.min), int(info.max)), label=f"{name} null bytes")
    return pa.array(
        np.array([junk if m else lo + v for v, m in zip(rel, mask)], dtype=typ), mask=mask
    )


@SETTINGS
@given(data=st.data())
def test_integer_batches_are_counted_as_their_text(data):
    """A record batch of integer columns (as a Parquet batch arrives for statistics) is
    counted straight from its values: the same part, value for value and in the same
    order, as the batch made text first and coded, with the first missing cell, for any
    slice, integer labels and missing tokens (which take the general path)."""
    import pyarrow as pa

    from nbcert.reading.buffers import text_column

    n = data.draw(st.integers(1, 60), label="rows")
    feats = [f"f{j}" for j in range(data.draw(st.integers(1, 3), label="features"))]
    cols = [_int_column(data, n, f) for f in feats]
    y = data.draw(
        st.lists(st.integers(1, 3), min_size=n, max_size=n), label="labels"
    )  # a token "0" is no label
    label = (
        pa.array(y, pa.int16())
        if data.draw(st.booleans(), label="integer labels")
        else pa.array([f"c{v}" for v in y])
    )
    batch = pa.RecordBatch.from_arrays([*cols, label], names=[*feats, "y"])
    start = data.draw(st.integers(0, n - 1), label="slice start")
    batch = batch.slice(start, data.draw(st.integers(1, n - start), label="slice length"))
    texts = pa.RecordBatch.from_arrays(
        [text_column(c, True) for c in batch.columns], names=batch.schema.names
    )
    tokens = data.draw(st.sampled_from([None, ["zz"], ["0"]]), label="tokens")
    kw = dict(missing=tokens, start=3, features=tuple(feats), find_missing=True)
    got = reading_counts.partial_counts(batch, "y", **kw)
    try:
        fused = reading_counts._dictionary_partial
        reading_counts._dictionary_partial = lambda *a: None
        want = reading_counts.partial_counts(texts, "y", **kw)
    finally:
        reading_counts._dictionary_partial = fused
    assert (
        got.labels == want.labels
        and got.rows == want.rows
        and got.first_missing == want.first_missing
    )
    for gv, gc, wv, wc in zip(got.values, got.counts, want.values, want.counts):
        held = wc[:, :-1].sum(axis=0) > 0
        assert list(gv) == list(wv[held])
        assert np.array_equal(gc, np.concatenate([wc[:, :-1][:, held], wc[:, -1:]], axis=1))


@pytest.mark.parametrize(
    "typ, lo, span",
    [
        ("int8", -128, 256),
        ("int8", -100, 201),
        ("uint8", 0, 256),
        ("int16", -32768, 40000),
        ("int32", 2**31 - 300, 300),
        ("uint64", 2**64 - 500, 500),
        ("int64", -(2**63), 1000),
    ],
)
def test_integer_columns_spanning_their_type_are_counted_right(typ, lo, span):
    """Offsets from the lowest value beyond what the type holds (int8's -128..127 is 255
    apart) are taken in a wide type: the text path's counts."""
    import pyarrow as pa

    from nbcert.reading.buffers import text_column

    rng = np.random.default_rng(span)
    values = (np.array(lo, dtype=object) + rng.permutation(np.arange(span).repeat(3))).tolist()
    col = pa.array(values, type=pa.from_numpy_dtype(np.dtype(typ)), mask=rng.random(3 * span) < 0.2)
    y = pa.array(rng.choice(["p", "q"], 3 * span))
    batch = pa.RecordBatch.from_arrays([col, y], names=["f", "y"])
    texts = pa.RecordBatch.from_arrays([text_column(col, True), y], names=["f", "y"])
    got, want = reading_counts.partial_counts(batch, "y"), reading_counts.partial_counts(texts, "y")
    held = want.counts[0][:, :-1].sum(axis=0) > 0
    assert list(got.values[0]) == list(want.values[0][held])
    assert np.array_equal(
        got.counts[0], np.concatenate([want.counts[0][:, :-1][:, held], want.counts[0][:, -1:]], 1)
    )


def test_columns_are_counted_jointly_in_groups_that_fit():
    """Consecutive columns share one bincount while label x their widths stays within
    JOINT_SLOTS; a wider column is counted alone."""
    J = reading_counts.JOINT_SLOTS
    assert reading_counts._groups([6] * 7, 3) == [
        [0, 1, 2, 3, 4],
        [5, 6],
    ]  # 3 * 6^5 <= 2^15 < 3 * 6^6
    assert reading_counts._groups([J, 2, 2], 1) == [[0], [1, 2]]
    assert reading_counts._groups([2 * J, 2], 3) == [[0], [1]]
    assert reading_counts._groups([], 3) == []


def test_integer_columns_are_counted_without_a_dictionary(monkeypatch):
    """The statistics of an integer batch do not dictionary-encode its narrow columns."""
    import pyarrow as pa

    from nbcert.reading import buffers

    monkeypatch.setattr(buffers, "int_dictionary", lambda arr: pytest.fail("dictionary-encoded"))
    batch = pa.RecordBatch.from_arrays(
        [pa.array([2, 1, 2, None, -1]), pa.array(["a", "b", "a", "a", "b"])], names=["f", "y"]
    )
    part = reading_counts.partial_counts(batch, "y")
    assert list(part.values[0]) == ["2", "1", "-1"] and part.first_missing == (3, 0)
    assert part.counts[0].tolist() == [[2, 0, 0, 1], [0, 1, 1, 0]]


@SETTINGS
@given(inst=instances(), data=st.data())
def test_dictionary_batches_are_counted_as_coded_columns(inst, data):
    """A record batch of dictionary columns (as CSV and Parquet pieces arrive) is counted
    straight from its indices and validity bitmap: the same part as coding it first, with
    the first missing cell, for any slice of the batch (offsets) and missing tokens."""
    import pyarrow as pa

    text = as_text(inst.train)
    batch = pa.RecordBatch.from_pandas(text, preserve_index=False)
    batch = pa.RecordBatch.from_arrays(
        [c.dictionary_encode() for c in batch.columns], names=batch.schema.names
    )
    start = data.draw(st.integers(0, len(text) - 1), label="slice start")
    batch = batch.slice(start, data.draw(st.integers(1, len(text) - start), label="slice length"))
    tokens = data.draw(
        st.sampled_from([None, ["zz"], list(text[inst.features[0]].dropna()[:1])]), label="tokens"
    )
    kw = dict(missing=tokens, start=3, features=tuple(inst.features), find_missing=True)
    fused = reading_counts._dictionary_partial(
        batch, inst.label, tokens, "t", 3, tuple(inst.features), True
    )
    coded = reading_counts.partial_counts(batch, inst.label, **kw) if fused is None else None
    try:
        general = reading_counts._dictionary_partial
        reading_counts._dictionary_partial = lambda *a: None
        want = reading_counts.partial_counts(batch, inst.label, **kw)
    finally:
        reading_counts._dictionary_partial = general
    got = fused if fused is not None else coded
    assert (
        got.labels == want.labels
        and got.rows == want.rows
        and got.first_missing == want.first_missing
    )
    for gv, gc, wv, wc in zip(got.values, got.counts, want.values, want.counts):
        held = gc[:, :-1].sum(axis=0) > 0  # a dictionary may list values no cell of the slice holds
        assert list(gv[held]) == list(wv[wc[:, :-1].sum(axis=0) > 0])
        assert np.array_equal(gc[:, :-1][:, held], wc[:, :-1][:, wc[:, :-1].sum(axis=0) > 0])
        assert np.array_equal(gc[:, -1], wc[:, -1])


# ---------------------------------------------------------------------------------------
# compressed files, other encodings, standard input


@pytest.mark.parametrize("ending", [".gz", ".bz2", ".zst"])
def test_a_compressed_csv_gives_the_plain_file_s_answers(tmp_path, capsys, ending):
    """A .csv.gz (any codec pyarrow reads, by the file's ending) is the same table, for the
    command and the API, whole and streamed."""
    import pyarrow as pa

    plain = write(tmp_path, "train.csv", TRAIN)
    packed = str(tmp_path / f"train.csv{ending}")
    with pa.CompressedOutputStream(
        packed, {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}[ending]
    ) as out:
        out.write(TRAIN.encode())
    test = write(tmp_path, "test.csv", TEST)
    for flags in ([], ["--stream"]):
        want = run_json(capsys, "count", "--train", plain, "--test", test, "--label", "y", *flags)
        got = run_json(capsys, "count", "--train", packed, "--test", test, "--label", "y", *flags)
        assert got == want
    q = nbcert.read_csv(test).drop(columns="y")
    assert nbcert.certify(packed, q, "y").equals(nbcert.certify(plain, q, "y"))


def test_a_compressed_file_is_decoded_afresh_on_every_pass(tmp_path, monkeypatch):
    """A .csv.gz (or another encoding) on disk is never held whole in memory (as a pipe's
    bytes are, ``OnePass``): each pass decodes the file again, so one larger than memory
    streams; streamed in small batches it gives the in-memory answers."""
    import pyarrow as pa

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"a": rng.choice(["x", "y", ""], 3000), "b": rng.choice(["u", "v"], 3000)}
    ).assign(y=lambda f: np.where((f.a == "x") ^ (rng.random(3000) < 0.2), "p", "q"))
    text = frame.to_csv(index=False)
    packed = str(tmp_path / "train.csv.gz")
    with pa.CompressedOutputStream(packed, "gzip") as out:
        out.write(text.encode())
    plain = write(tmp_path, "train.csv", text)
    q = pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"]})
    want = nbcert.count_worlds(plain, q, "y")

    def held(self):
        raise AssertionError("a file on disk was read into memory whole")

    monkeypatch.setattr(file_reading.OnePass, "reader", held)
    for options in ({}, {"stream": True, "batch_rows": 100}):
        got = nbcert.count_worlds(packed, q, "y", **options)
        assert [g.counts for g in got] == [w.counts for w in want]
    latin = tmp_path / "latin.csv"
    latin.write_bytes(text.encode("latin-1"))
    got = nbcert.certify(str(latin), q, "y", encoding="latin-1", stream=True, batch_rows=100)
    assert got.equals(nbcert.certify(plain, q, "y"))


def test_a_corrupt_archive_is_one_line(tmp_path, capsys):
    bad = tmp_path / "train.csv.gz"
    bad.write_bytes(b"not gzip at all")
    test = write(tmp_path, "test.csv", TEST)
    rc, out, err = run(capsys, "certify", "--train", bad, "--test", test, "--label", "y")
    assert_error(rc, out, err, "train.csv.gz", "cannot decode the file")


def test_another_encoding_is_read_when_named(tmp_path, capsys):
    """A latin-1 file is refused as not UTF-8 with the flag to use, and read with it."""
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    train.write_bytes(TRAIN.replace("n,", "ñ,").encode("latin-1"))
    test.write_bytes(TEST.replace("n,", "ñ,").encode("latin-1"))
    argv = ["certify", "--train", train, "--test", test, "--label", "y"]
    rc, out, err = run(capsys, *argv)
    assert_error(rc, out, err, "not a UTF-8 text file", "--encoding latin-1")
    (tmp_path / "utf8").mkdir()
    utf8 = files(tmp_path / "utf8", TRAIN.replace("n,", "ñ,"), TEST.replace("n,", "ñ,"))
    named = run_json(capsys, *argv, "--encoding", "latin-1")
    assert named == run_json(capsys, "certify", *utf8)
    q = nbcert.read_csv(test, encoding="latin-1").drop(columns="y")
    assert q.odor.tolist() == ["ñ", "ñ"]
    api = nbcert.certify(str(train), q, "y", encoding="latin-1")
    assert api.robust.tolist() == [r["robust"] for r in named]
    with pytest.raises(nbcert.ParameterError, match="^encoding must be None or a text encoding"):
        nbcert.certify(str(train), q, "y", encoding="klingon")


def test_standard_input_is_a_file_named_dash(tmp_path):
    """``--train -`` (or ``--test -``) reads standard input; two of them is one error."""
    test = write(tmp_path, "test.csv", TEST)
    cmd = [sys.executable, "-m", "nbcert.cli", "certify", "--label", "y", "--json"]
    piped = subprocess.run(
        [*cmd, "--train", "-", "--test", test], input=TRAIN, capture_output=True, text=True
    )
    train = write(tmp_path, "train.csv", TRAIN)
    named = subprocess.run([*cmd, "--train", train, "--test", test], capture_output=True, text=True)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == named.stdout
    both = subprocess.run(
        [*cmd, "--train", "-", "--test", "-"], input=TRAIN, capture_output=True, text=True
    )
    assert both.returncode == 2
    assert (
        both.stderr
        == "nbcert: error: only one of --train, --test and --truth can be - (standard input)\n"
    )
