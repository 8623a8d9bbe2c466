"""Numbers written with decimal commas (Chile's ``statusquo`` ``0,92815``, ``;``-separated):
``--decimal ,`` in the command, ``decimal=`` in the API and a data set's config, and the
hint that names it when a column looks like such numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from test_cli import run, write

import nbcert
from nbcert import DataWarning
from nbcert.reading import decimals


def _table(n: int = 80, seed: int = 0) -> pd.DataFrame:
    """A numeric column that decides the label, one of text with commas, one of integers."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(3)
    return pd.DataFrame(
        {
            "score": x,
            "name": rng.choice(["Smith, J", "Lee, K", "Diaz, M"], n),
            "count": rng.integers(0, 4, n),
            "vote": np.where(x + rng.normal(scale=0.3, size=n) > 0, "Y", "N"),
        }
    )


def _written(df: pd.DataFrame, path, decimal: str) -> str:
    df.to_csv(path, sep=";", index=False, decimal=decimal)
    return str(path)


@pytest.fixture
def chile_like(tmp_path):
    df = _table()
    df.loc[::9, "score"] = np.nan
    test = _table(6, seed=1).drop(columns="vote")
    files = {}
    for mark, name in ((",", "comma"), (".", "point")):
        files[name] = (
            _written(df, tmp_path / f"train_{name}.csv", mark),
            _written(test, tmp_path / f"test_{name}.csv", mark),
        )
    return files


def _certify(capsys, train, test, *flags):
    rc, out, err = run(
        capsys, "certify", "--train", train, "--test", test, "--label", "vote", "--sep", ";", *flags
    )
    assert rc == 0, err
    return out, err


def test_decimal_commas_are_binned_as_the_same_numbers_with_points(chile_like, capsys):
    """Before: --bins did nothing to 0,92815, no hint said why, and rows came out (all tie)."""
    comma, point = chile_like["comma"], chile_like["point"]
    want, _ = _certify(capsys, *point, "--bins", "4", "--json")
    got, err = _certify(capsys, *comma, "--bins", "4", "--json", "--decimal", ",")
    assert got == want and err == (
        "nbcert: warning: --bins 4: column 'count' (4 values) has no more distinct numbers "
        "than bins: each number is its own bin, none merged\n"
    )
    assert any(r["robust"] for r in json.loads(got)["results"])
    text, _ = _certify(capsys, *comma, "--bins", "4", "--decimal", ",")
    assert text == _certify(capsys, *point, "--bins", "4")[0]


def test_a_column_of_decimal_commas_is_hinted(chile_like, capsys):
    comma = chile_like["comma"]
    for flags in ((), ("--bins", "4")):
        _, err = _certify(capsys, *comma, *flags)
        hint = [line for line in err.splitlines() if "decimal commas" in line]
        assert len(hint) == 1, err
        assert "'score'" in hint[0] and "--decimal ','" in hint[0] and "'name'" not in hint[0]
    _, err = _certify(capsys, *comma, "--decimal", ",")
    assert "decimal commas" not in err
    _, err = _certify(capsys, *chile_like["point"])
    assert "decimal commas" not in err


def test_the_api_takes_decimal_for_paths_and_frames(chile_like):
    comma, point = chile_like["comma"], chile_like["point"]
    q = nbcert.read_csv(comma[1], sep=";", decimal=",")
    assert q["score"].str.contains(",").sum() == 0 and q["name"].str.contains(",").all()
    want = nbcert.certify(point[0], nbcert.read_csv(point[1], sep=";"), "vote", sep=";", bins=4)
    got = nbcert.certify(comma[0], q, "vote", sep=";", decimal=",", bins=4)
    pd.testing.assert_frame_equal(got, want)
    # a DataFrame read without it: its text numbers are rewritten too
    frame = nbcert.read_csv(comma[0], sep=";")
    raw_test = nbcert.read_csv(comma[1], sep=";")
    with pytest.warns(DataWarning, match=r"decimal commas.*decimal=','"):
        nbcert.certify(frame, raw_test, "vote", bins=4)
    pd.testing.assert_frame_equal(
        nbcert.certify(frame, raw_test, "vote", bins=4, decimal=","), want
    )
    # not binned: the numbers are compared by value, streamed or in memory alike
    for stream in (None, True):
        a = nbcert.count_worlds(comma[0], q, "vote", sep=";", decimal=",", stream=stream)
        b = nbcert.count_worlds(point[0], nbcert.read_csv(point[1], sep=";"), "vote", sep=";")
        assert [x.counts for x in a] == [x.counts for x in b]


def test_only_numbers_written_with_the_mark_change():
    df = pd.DataFrame(
        {"a": ["1,5", "-0,25", ",5", "2", "1,2,3", "1.234,5", "x, y", None, "3,"]}, dtype=object
    )
    got = decimals.frame(df, ",")["a"].tolist()
    assert got == ["1.5", "-0.25", ".5", "2", "1,2,3", "1.234,5", "x, y", None, "3."]
    assert decimals.frame(df, None) is df
    assert decimals.looks_decimal(pd.Index(["1,5", "2,5", "2", "?"])) == "1,5"
    assert decimals.looks_decimal(pd.Index(["Smith, J", "Lee, K"])) is None
    assert decimals.looks_decimal(pd.Index(["1.5", "2"])) is None


def test_a_bad_decimal_is_named(tmp_path, capsys):
    train = write(tmp_path, "t.csv", "a,y\n1,p\n")
    rc, out, err = run(
        capsys, "certify", "--train", train, "--test", train, "--label", "y", "--decimal", "ab"
    )
    assert rc == 2 and err.startswith("nbcert: error: argument --decimal: expected one character")
    with pytest.raises(nbcert.ParameterError, match="decimal must be None or one character"):
        nbcert.certify(train, pd.DataFrame({"a": ["1"]}), "y", decimal="7")
    with pytest.raises(nbcert.ParameterError, match="decimal"):
        nbcert.read_csv(train, decimal="ab")


def test_a_data_set_in_the_config_takes_sep_encoding_and_decimal(tmp_path):
    from common.errors import ConfigError
    from common.settings import reading, section
    from common.tables import read_data
    from discretize import discretize

    df = _table()
    path = tmp_path / "chile.csv"
    df.to_csv(path, sep=";", index=False, decimal=",", encoding="latin-1")
    ds = section(
        {"name": "chile", "label": "vote", "sep": ";", "encoding": "latin-1", "decimal": ","}
    )
    raw = read_data(path, ds.label, **reading(ds))
    out = discretize(raw, ds.label, n_bins=3, name=ds.name)
    assert set(out["score"]) == {"bin0", "bin1", "bin2"} and out["name"].str.contains(", ").all()
    with pytest.raises(ConfigError, match=r"^datasets\.chile\.decimal: decimal must be"):
        reading(section({"name": "chile", "sep": None, "encoding": None, "decimal": "ab"}))
