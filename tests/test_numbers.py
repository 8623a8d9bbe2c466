"""Numbers compared by value.

pandas writes an integer column as ``4.0`` once it has a blank, a complete frame writes
``4``, Parquet keeps ints and floats: a feature column whose observed values all read as
finite numbers is one of numbers, each value's category its number, on every path (CSV,
Parquet, DataFrames, streamed, Dask) and in the test rows; a column with any other value is
text, as written.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from test_cli import run, run_json, write
from test_input import counts, frame

import nbcert
from nbcert.reading.counts import frame_stats
from nbcert.reading.encoding import encode
from nbcert.reading.streamed import source_stats

FEATURES = ["a", "b", "tenure"]


def tables():
    """(complete table, the same with blanks in a and b): integer features, 3 labels."""
    rng = np.random.default_rng(7)
    n = 40
    full = pd.DataFrame(
        {
            "a": rng.integers(1, 5, n),
            "b": rng.integers(0, 3, n),
            "tenure": rng.integers(1, 4, n),
            "y": rng.choice(["p", "q", "r"], n),
        }
    )
    dirty = full.copy()
    for c, share in (("a", 0.2), ("b", 0.1), ("tenure", 0.1)):
        dirty[c] = dirty[c].astype(float)
        dirty.loc[rng.random(n) < share, c] = np.nan
    return full, dirty


def as_int_text(df: pd.DataFrame) -> pd.DataFrame:
    """Every value the text of its integer (``4``), missing cells None."""
    return df.apply(
        lambda c: c.map(lambda v: None if pd.isna(v) else str(int(v)) if c.name != "y" else v)
    ).astype(object)


def spellings(tmp_path, df: pd.DataFrame, stem: str) -> dict:
    """The table as pandas writes it (floats ``4.0`` where a column has a blank, or all
    floats), as integers (``4``), as Parquet floats and Parquet ints, and as DataFrames."""
    floats = df.astype({c: float for c in FEATURES})
    ints = df.astype({c: "Int64" for c in FEATURES})
    paths = {
        "float csv": tmp_path / f"{stem}-float.csv",
        "int csv": tmp_path / f"{stem}-int.csv",
        "float parquet": tmp_path / f"{stem}-float.parquet",
        "int parquet": tmp_path / f"{stem}-int.parquet",
    }
    floats.to_csv(paths["float csv"], index=False)
    ints.to_csv(paths["int csv"], index=False)
    floats.to_parquet(paths["float parquet"], index=False)
    ints.to_parquet(paths["int parquet"], index=False)
    out = {k: str(p) for k, p in paths.items()}
    out["float frame"] = floats
    out["int frame"] = ints
    out["read_csv of float csv"] = nbcert.read_csv(paths["float csv"])
    return out


def query_sets(tmp_path, full):
    """The test rows as a complete frame writes them (``4``), as floats (``4.0``) and as
    DataFrames of ints, floats and text."""
    rows = full[FEATURES].iloc[:12]
    write(tmp_path, "test-int.csv", rows.to_csv(index=False))
    write(tmp_path, "test-float.csv", rows.astype(float).to_csv(index=False))
    return {
        "int csv": nbcert.read_csv(tmp_path / "test-int.csv"),
        "float csv": nbcert.read_csv(tmp_path / "test-float.csv"),
        "int frame": rows,
        "float frame": rows.astype(float),
    }


def domains(table) -> list:
    """Each feature's domain values, as a list."""
    return [list(c) for c in table.categories]


def certified(res: pd.DataFrame) -> list:
    return [
        (r, None if lab is None else str(lab), sorted(map(str, ls)), t)
        for r, lab, ls, t in zip(
            res["robust"], res["label"], res["possible_labels"], res["tie_possible"]
        )
    ]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("numbers")
    full, dirty = tables()
    return {
        "tmp": tmp,
        "full": full,
        "dirty": dirty,
        "train": spellings(tmp, dirty, "dirty"),
        "clean": spellings(tmp, full, "clean"),
        "tests": query_sets(tmp, full),
    }


def test_certify_and_count_identical_from_every_spelling(data):
    """Certify and count (API): the same answers whatever the training table's spelling
    and the test rows', and the answers of the table as integer text.  On the old code
    the float CSV against an integer test file made every row tie."""
    ref_train = as_int_text(data["dirty"])
    ref_test = as_int_text(data["full"][FEATURES].iloc[:12])
    want = certified(nbcert.certify(ref_train, ref_test, "y"))
    want_counts = counts(nbcert.count_worlds(ref_train, ref_test, "y", method="exact"))
    assert any(len(ls) > 0 for _, _, ls, _ in want)  # not every row a tie
    for tname, train in data["train"].items():
        for qname, test in data["tests"].items():
            got = certified(nbcert.certify(train, test, "y"))
            assert got == want, (tname, qname)
        assert counts(nbcert.count_worlds(train, test, "y", method="exact")) == want_counts, tname


def test_streamed_and_in_memory_identical(data):
    """Statistics read batch by batch (any batch size, one spelling per batch or both) and
    the table coded in memory (Iterate) give the same answers."""
    test = data["tests"]["int csv"]
    want = certified(nbcert.certify(as_int_text(data["dirty"]), test, "y"))
    for name in ("float csv", "int csv", "float parquet", "int parquet"):
        path = data["train"][name]
        for batch in (1, 7, None):
            got = nbcert.certify(path, test, "y", stream=True, batch_rows=batch)
            assert certified(got) == want, (name, batch)
        assert frame(nbcert.certify(path, test, "y", method="iterate")) == [
            (r, lab) for r, lab, _, _ in want
        ], name


def test_both_spellings_in_one_file(data):
    """One file holding ``4`` in its first rows and ``4.0`` in its last: one category, in
    memory and streamed, whatever the batches."""
    dirty = data["dirty"]
    text = as_int_text(dirty)
    mixed = text.copy()
    late = mixed.index >= len(mixed) // 2
    for c in FEATURES:
        mixed.loc[late, c] = dirty.loc[late, c].map(lambda v: None if pd.isna(v) else f"{v:.1f}")
    path = data["tmp"] / "mixed.csv"
    mixed.to_csv(path, index=False)
    test = data["tests"]["float csv"]
    want = certified(nbcert.certify(text, test, "y"))
    assert certified(nbcert.certify(mixed, test, "y")) == want
    for batch in (1, 5, None):
        assert certified(nbcert.certify(str(path), test, "y", batch_rows=batch)) == want, batch
    want = domains(encode(text, "y"))
    assert domains(encode(mixed, "y")) == want
    assert domains(frame_stats(mixed, "y")) == want


def test_poison_identical_from_every_spelling(data):
    """OP (in memory and streamed: its second pass looks values up again) names the same
    cells whatever the spelling of the complete table and of the test rows."""
    ref = as_int_text(data["full"])
    tests = data["tests"]
    want = [(p.possible, p.cells) for p in nbcert.poison(ref, tests["int csv"], "y")]
    for tname, train in data["clean"].items():
        for qname in ("int csv", "float csv"):
            for stream in (False, True) if isinstance(train, str) else (False,):
                got = nbcert.poison(train, tests[qname], "y", stream=stream, batch_rows=5)
                assert [(p.possible, p.cells) for p in got] == want, (tname, qname, stream)


def cli_answers(capsys, command, train, test, *extra):
    return run_json(capsys, command, "--train", train, "--test", test, "--label", "y", *extra)


def test_cli_identical_from_every_spelling(data, capsys):
    """The command: certify, count and poison print the same JSON from each file."""
    tmp = data["tmp"]
    for command, tables_ in (("certify", "train"), ("count", "train"), ("poison", "clean")):
        answers = [
            cli_answers(capsys, command, data[tables_][name], tmp / test)
            for name in ("float csv", "int csv", "float parquet", "int parquet")
            for test in ("test-int.csv", "test-float.csv")
        ]
        assert all(a == answers[0] for a in answers), command
    rows = cli_answers(capsys, "certify", data["train"]["float csv"], tmp / "test-int.csv")
    assert any(r["possible_labels"] for r in rows)


def test_categorical_column_with_4_and_4_0(tmp_path, capsys):
    """``--categorical tenure`` with ``--bins``: tenure (written ``4.0`` in training for
    its blanks, ``4`` in the test file) is compared by value; the old code made every row
    tie and warned that the test values never occur."""
    rng = np.random.default_rng(3)
    n = 60
    df = pd.DataFrame(
        {
            "tenure": rng.integers(1, 4, n).astype(float),
            "charge": rng.normal(50, 20, n).round(2),
            "y": rng.choice(["stay", "leave"], n),
        }
    )
    df.loc[rng.random(n) < 0.2, "tenure"] = np.nan
    train = tmp_path / "train.csv"
    df.to_csv(train, index=False)
    test = write(tmp_path, "test.csv", "tenure,charge\n1,40.5\n2,60\n3,20.25\n")
    base = ["--train", train, "--test", test, "--label", "y", "--bins", "2"]
    rc, out, err = run(capsys, "certify", *base, "--categorical", "tenure", "--json")
    assert rc == 0, err
    assert "never occur" not in err
    rows = json.loads(out)["results"]
    assert all(r["possible_labels"] for r in rows)
    as_ints = df.assign(tenure=df["tenure"].astype("Int64"))
    as_ints.to_csv(tmp_path / "train-int.csv", index=False)
    assert rows == run_json(
        capsys,
        "certify",
        *base[:1],
        tmp_path / "train-int.csv",
        *base[2:],
        "--categorical",
        "tenure",
    )
    api = nbcert.certify(str(train), nbcert.read_csv(test), "y", bins=2, categorical="tenure")
    assert [sorted(ls) for ls in api["possible_labels"]] == [
        sorted(r["possible_labels"]) for r in rows
    ]


def test_binned_columns_identical_from_every_spelling(data):
    """Binning reads numbers whatever their spelling: the same answers from each file."""
    test = data["tests"]["int csv"]
    answers = [
        certified(nbcert.certify(data["train"][name], test, "y", bins=2, categorical="tenure"))
        for name in ("float csv", "int csv", "float parquet", "int parquet", "float frame")
    ]
    assert all(a == answers[0] for a in answers)


def test_clean_truth_with_4_and_4_0(tmp_path, capsys):
    """``clean --truth``: a pandas-written dirty table (``4.0``) and its complete truth
    (``4``) agree on every known cell."""
    full, dirty = tables()
    dirty.to_csv(tmp_path / "dirty.csv", index=False)
    full.to_csv(tmp_path / "truth.csv", index=False)
    full[FEATURES].iloc[:5].to_csv(tmp_path / "q.csv", index=False)

    def clean(train: str) -> dict:
        argv = ["clean", "--train", tmp_path / train, "--test", tmp_path / "q.csv"]
        rc, out, err = run(
            capsys, *argv, "--label", "y", "--truth", tmp_path / "truth.csv", "--json"
        )
        assert rc == 0, err
        return json.loads(out)

    out = clean("dirty.csv")
    dirty.astype({c: "Int64" for c in FEATURES}).to_csv(tmp_path / "dirty-int.csv", index=False)
    out2 = clean("dirty-int.csv")
    assert out == out2


# ---------------------------------------------------------------------------------------
# the rule


def test_rule_numbers_and_text():
    """A column is numeric when every observed value reads as a finite number; then each
    value is its number (``007`` is 7), else every value stays as written."""
    from nbcert.stats.domains import as_numbers, merge_numbers, positions

    assert list(as_numbers(pd.Index(["4", "4.0", " 4", "4e0", "007"], dtype=object))) == [4] * 4 + [
        7
    ]
    assert as_numbers(pd.Index(["4", "4.0", "x"], dtype=object)) is None  # text: as written
    assert as_numbers(pd.Index(["4", "nan"], dtype=object)) is None  # "nan" is text
    assert as_numbers(pd.Index(["4", "inf"], dtype=object)) is None
    assert as_numbers(pd.Index([True, False])) is None  # booleans are categories
    assert as_numbers(pd.Index([True, 2], dtype=object)) is None
    assert list(as_numbers(pd.Index(["4", "4.5"], dtype=object))) == [4.0, 4.5]
    big = as_numbers(pd.Index(["9007199254740993", "9007199254740992"], dtype=object))
    assert len(set(big)) == 2  # integers compared exactly
    where, domain = merge_numbers(pd.Index(["4.0", "5", "4", "007", "7.0"], dtype=object))
    assert list(where) == [0, 1, 0, 2, 2] and list(domain) == [4, 5, 7]
    assert list(positions(pd.Index([4, 5]), ["4.0", 4, 5.0, " 5", "x", None, True])) == [
        0,
        0,
        1,
        1,
        -1,
        -1,
        -1,
    ]
    assert list(positions(pd.Index(["4", "x"], dtype=object), ["4.0", "4"])) == [-1, 0]


def test_text_column_keeps_its_spellings():
    """A column with one text value keeps ``7`` and ``007`` (and ``4``, ``4.0``) apart."""
    train = pd.DataFrame(
        {"a": ["7", "007", "x", "4", "4.0", "7"], "y": ["p", "q", "p", "q", "p", "q"]}
    )
    enc = encode(train, "y")
    assert list(enc.categories[0]) == ["7", "007", "x", "4", "4.0"]
    assert domains(frame_stats(train, "y")) == domains(enc)
    numeric = train[train["a"] != "x"]
    assert list(encode(numeric, "y").categories[0]) == [7, 4]


def test_first_appearance_order_on_every_path(data):
    """The domain of a numeric column is in order of first appearance on every path (its
    values the numbers), so answers that list cells or values agree."""
    want = domains(encode(as_int_text(data["dirty"]), "y"))
    for name, train in data["train"].items():
        table = encode(train if isinstance(train, pd.DataFrame) else nbcert.read_csv(train), "y")
        assert domains(table) == want, name
        assert (
            domains(
                frame_stats(train, "y")
                if isinstance(train, pd.DataFrame)
                else source_stats(nbcert.TableSource(train), "y", 7)
            )
            == want
        ), name


# ---------------------------------------------------------------------------------------
# labels by the same rule


def _labelled(n: int = 40) -> tuple:
    """(a table whose labels are written ``0`` and ``1``, the same with every other row's
    label written ``0.0`` and ``1.0``)."""
    rng = np.random.default_rng(3)
    table = pd.DataFrame(
        {
            "a": rng.choice(list("uvw"), n),
            "b": rng.choice(list("xy"), n),
            "y": ["0", "1"] * (n // 2),
        }
    )
    table[["a", "b"]] = table[["a", "b"]].mask(rng.random((n, 2)) < 0.15)
    mixed = table.copy()
    mixed.loc[mixed.index % 4 >= 2, "y"] += ".0"
    return table, mixed


LABEL_HINT = (
    "label column 'y' writes numbers in more than one way ('0' and '0.0'; '1' and '1.0'): "
    "labels are compared by value, as features are, so each number is one label, shown as "
    "the first spelling listed"
)


def _hinted(call, *args, **kw) -> tuple:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call(*args, **kw)
    return got, [str(w.message) for w in caught if issubclass(w.category, nbcert.DataWarning)]


def test_labels_one_number_written_two_ways_are_one_label(tmp_path):
    """A label column holding 1 and 1.0 (0 and 0.0) was four labels, without a word, on
    every path; now two, named as written first, with one line naming the spellings."""
    table, mixed = _labelled()
    test = table[["a", "b"]].iloc[:6].fillna({"a": "u", "b": "x"})
    want = certified(nbcert.certify(table, test, "y"))
    want_counts = counts(nbcert.count_worlds(table, test, "y", method="exact"))
    got, said = _hinted(nbcert.certify, mixed, test, "y")
    assert certified(got) == want and said == [f"training table: {LABEL_HINT}"]
    assert counts(nbcert.count_worlds(mixed, test, "y", method="exact")) == want_counts
    assert frame(nbcert.certify(mixed, test, "y", method="iterate")) == frame(got)
    assert encode(mixed, "y").labels == frame_stats(mixed, "y").labels == ("0", "1")
    path = tmp_path / "mixed.csv"
    mixed.to_csv(path, index=False)
    for batch in (1, 7, None):  # the spellings in different batches: merged all the same
        got, said = _hinted(nbcert.certify, str(path), test, "y", stream=True, batch_rows=batch)
        assert certified(got) == want and said == [f"{path}: {LABEL_HINT}"], batch


def test_labels_merged_on_the_command_line_say_so_in_one_line(tmp_path, capsys):
    table, mixed = _labelled()
    write(tmp_path, "mixed.csv", mixed.to_csv(index=False))
    write(tmp_path, "plain.csv", table.to_csv(index=False))
    write(tmp_path, "q.csv", "a,b\nu,x\nw,y\n")
    args = ["--test", str(tmp_path / "q.csv"), "--label", "y", "--json"]
    rc, out, err = run(capsys, "certify", "--train", str(tmp_path / "mixed.csv"), *args)
    assert rc == 0 and err == f"nbcert: warning: {tmp_path / 'mixed.csv'}: {LABEL_HINT}\n"
    assert out == run(capsys, "certify", "--train", str(tmp_path / "plain.csv"), *args)[1]


def test_labels_written_one_way_stay_as_written():
    """Only a merge changes a label: ``1.0`` and ``2.0`` alone stay ``1.0`` and ``2.0``, as
    the file writes them (and as a certificate's checker reads them), without a word."""
    table = pd.DataFrame({"a": ["u", "v", "u", None], "y": ["1.0", "2.0", "1.0", "2.0"]})
    got, said = _hinted(nbcert.certify, table, pd.DataFrame({"a": ["u"]}), "y")
    assert got["label"].tolist() == ["1.0"] and said == []
    assert encode(table, "y").labels == ("1.0", "2.0")


def test_no_certificate_where_labels_merge(tmp_path, capsys):
    """The checker reads labels as written: a certificate over labels 1 and 1.0 (one label
    here) failed its check; none is written, in one line saying why."""
    _, mixed = _labelled()
    write(tmp_path, "mixed.csv", mixed.to_csv(index=False))
    write(tmp_path, "q.csv", "a,b\nu,x\n")
    cert = tmp_path / "cert.json"
    argv = ["certify", "--train", str(tmp_path / "mixed.csv"), "--test", str(tmp_path / "q.csv")]
    rc, out, err = run(capsys, *argv, "--label", "y", "--certificate", cert)
    assert rc == 2 and out == "" and not cert.exists()
    assert err.endswith(
        "writes a number in more than one way (1 and 1.0), one label here but "
        "two to the checker, which reads labels as written; write each label "
        "one way\n"
    )
    plain, _ = _labelled()
    write(tmp_path, "plain.csv", plain.to_csv(index=False))
    argv[2] = str(tmp_path / "plain.csv")
    assert run(capsys, *argv, "--label", "y", "--certificate", cert)[0] == 0 and cert.exists()
