"""Identifier-like columns: a text column with a distinct value in most rows (a car's name,
a date) makes every test value unseen, so every row ties at alpha 0.  nbcert names such a
column in one line with the way out, ``--drop COL`` (``drop=`` in the API), which leaves a
column out of every table without editing the file, on every input path; and a refusal's
advice names what actually made the search large."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from test_cli import assert_error, run, write

import nbcert
from nbcert import DataWarning


def _cars(n: int = 60, seed: int = 5) -> pd.DataFrame:
    """Cars named one by one, their cylinders and origin, the label from the cylinders."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame(
        {
            "car name": [f"car {i}" for i in range(n)],
            "cyl": rng.choice(["4", "6", "8"], n),
            "origin": rng.choice(["usa", "eu", "jp"], n),
        }
    )
    table["y"] = np.where(table["cyl"] == "8", "fast", "slow")
    table.loc[rng.random(n) < 0.1, "origin"] = None
    return table


def _test_rows() -> pd.DataFrame:
    return pd.DataFrame({"car name": ["new 1", "new 2"], "cyl": ["8", "4"], "origin": ["eu", "jp"]})


def _hints(call, *args, **kw) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call(*args, **kw)
    return got, [str(w.message) for w in caught if issubclass(w.category, DataWarning)]


IDENTIFIER = (
    "column 'car name' (60 values) looks like an identifier (a distinct value in most of the "
    "60 rows): a test value there is almost never seen in training, so it says nothing of the "
    "label; leave it out with "
)


def test_an_identifier_column_is_named_with_the_way_out():
    got, said = _hints(nbcert.certify, _cars(), _test_rows(), "y")
    assert not got["robust"].any()  # every row ties: the names are unseen
    assert said[0] == IDENTIFIER + "drop=['car name']"
    got, said = _hints(nbcert.certify, _cars(), _test_rows(), "y", drop="car name")
    assert got["robust"].all() and got["label"].tolist() == ["fast", "slow"] and said == []


def test_few_distinct_values_or_numbers_are_no_identifier():
    """A column of 20 names in 60 rows, or of numbers (the numeric hint names those), is
    not called an identifier."""
    table = _cars().assign(**{"car name": [f"car {i % 20}" for i in range(60)]})
    _, said = _hints(nbcert.certify, table, _test_rows(), "y")
    assert not any("identifier" in s for s in said)
    numbers = _cars().assign(**{"car name": [str(i) for i in range(60)]})
    _, said = _hints(nbcert.certify, numbers, _test_rows().assign(**{"car name": ["1", "2"]}), "y")
    assert not any("identifier" in s for s in said) and "looks numeric" in said[0]


@pytest.fixture
def car_files(tmp_path):
    train = write(tmp_path, "cars.csv", _cars().to_csv(index=False))
    test = write(tmp_path, "new.csv", _test_rows().to_csv(index=False))
    _cars().to_parquet(tmp_path / "cars.parquet", index=False)
    return train, test, str(tmp_path / "cars.parquet")


def test_the_command_line_names_the_identifier_and_drops_it(car_files, capsys):
    train, test, _ = car_files
    args = ["--train", train, "--test", test, "--label", "y"]
    rc, out, err = run(capsys, "certify", *args)
    assert rc == 0 and f"nbcert: warning: {IDENTIFIER}--drop 'car name'\n" in err
    rc, out, err = run(capsys, "certify", *args, "--drop", "car name")
    assert rc == 0 and err == ""
    assert [line.split()[1:3] for line in out.splitlines()[1:]] == [
        ["yes", "fast"],
        ["yes", "slow"],
    ]
    # the dropped column can name the test rows
    rc, out, err = run(capsys, "certify", *args, "--drop", "car name", "--id", "car name")
    assert rc == 0 and out.splitlines()[1].split()[:4] == ["0", "new", "1", "yes"]


@pytest.mark.parametrize("how", ["csv", "parquet", "streamed", "frame", "iterate", "dask"])
def test_drop_gives_the_answers_of_the_table_without_the_column(car_files, how):
    train, test, parquet = car_files
    rows = _test_rows()
    without = _cars().drop(columns="car name"), rows.drop(columns="car name")
    want = nbcert.certify(*without, "y")
    kw = {"drop": ["car name"]}
    if how == "dask":
        dd = pytest.importorskip("dask.dataframe")
        source = dd.from_pandas(_cars(), npartitions=3)
    else:
        source = {"csv": train, "parquet": parquet, "streamed": train, "iterate": train}.get(
            how, _cars()
        )
        kw |= {"streamed": {"stream": True, "batch_rows": 7}, "iterate": {"method": "iterate"}}.get(
            how, {}
        )
    got = nbcert.certify(source, rows, "y", **kw)
    assert got[["robust", "label"]].equals(want[["robust", "label"]]), how
    kw.pop("method", None)
    counts = nbcert.count_worlds(source, rows, "y", method="exact", **kw)
    assert [c.counts for c in counts] == [c.counts for c in nbcert.count_worlds(*without, "y")]


def test_clean_with_truth_drops_from_the_truth_too(car_files):
    truth = _cars().fillna({"origin": "usa"})
    got = nbcert.clean_with_truth(_cars(), truth, _test_rows(), "y", drop="car name")
    assert [p.num_cells for p in got.points] == [0, 0]


def test_a_wrong_drop_is_one_line(car_files, capsys, tmp_path):
    train, test, _ = car_files
    args = ["--train", train, "--test", test, "--label", "y"]
    assert_error(*run(capsys, "certify", *args, "--drop", "nme"), "no column 'nme' to drop")
    assert_error(*run(capsys, "certify", *args, "--drop", "y"), "drop names the label column")
    cert = str(tmp_path / "c.json")
    assert_error(
        *run(capsys, "certify", *args, "--drop", "car name", "--certificate", cert),
        "--certificate: not written with --drop",
    )
    with pytest.raises(nbcert.InputError, match="drop names 'nme', which is not one of its"):
        nbcert.certify(_cars(), _test_rows(), "y", drop=["nme"])
    with pytest.raises(nbcert.ParameterError, match="drop must be"):
        nbcert.certify(_cars(), _test_rows(), "y", drop=[3])


def test_the_refusal_names_the_identifier_not_binning(monkeypatch):
    """``poison --alpha 1`` on a binned table whose names make its search over whole values
    large advised "use alpha 0 or bin the columns (--bins N)"; now it names the column and
    the way to leave it out, and no binning where the table is binned."""
    from nbcert.poisoning import minimum

    monkeypatch.setattr(minimum, "SEARCH_LIMIT", 40)  # the search's limit, reached at once
    table = _cars().fillna({"origin": "usa"}).assign(weight=np.arange(60.0))
    with pytest.raises(nbcert.InputError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        nbcert.poison(table, _test_rows().assign(weight=[3.0, 40.0]), "y", alpha=1, bins=5)
    said = str(caught.value)
    assert "'car name' (60 values, an identifier?)" in said
    assert "--drop 'car name'; drop=['car name'] in Python" in said and "--bins" not in said
    assert "more than 40 sets of values" in said


def test_clean_s_refusal_advises_binning_only_for_numbers():
    """The per-row search past its limit advised "bin the numeric columns" whatever the
    columns that made it large: for a text column the ways on are alpha 0 and leaving it
    out; for numbers, binning too."""
    from test_bounded_memory import _many_new_values

    dirty, truth, test = _many_new_values(18)
    with pytest.raises(nbcert.InputError) as caught:
        nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1)
    said = str(caught.value)
    assert "'brand' (18)" in said and "--bins" not in said
    assert said.endswith(
        "use alpha 0, where only one-value columns and unseen test values "
        "branch; or leave them out (--drop brand; drop=['brand'] in Python)"
    )
    numbers = {"brand": {f"b{i}": str(100 + i) for i in range(18)} | {"a": "1", "c": "3"}}
    with pytest.raises(nbcert.InputError, match=r"bin them \(--bins N; bins=N in Python\)"):
        nbcert.clean_with_truth(
            dirty.replace(numbers), truth.replace(numbers), test.replace(numbers), "y", alpha=1
        )
