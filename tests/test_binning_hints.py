"""Binning that says what it does: a numeric column kept from binning by
a few text tokens is named with all its tokens, all such columns in one warning, and binned
once the tokens are declared missing; the missing-token hint names every column and token;
the "looks numeric" hint holds at any table size; ``bins`` is bounded before any work."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from test_cli import run, write

import nbcert
from nbcert import DataWarning


def _hints(call, *args, **kw) -> list:
    """The DataWarnings' messages of ``call(*args, **kw)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(*args, **kw)
    return [str(w.message) for w in caught if issubclass(w.category, DataWarning)]


# ---------------------------------------------------------------------------------------
# --bins is bounded


@pytest.mark.parametrize("bins", [10_001, 2_147_483_648, 10**12])
def test_bins_beyond_the_bound_is_one_parameter_error_before_reading(tmp_path, bins):
    absent = str(tmp_path / "absent.csv")
    message = rf"^bins must be an integer from 2 to 10,000 \(.*\), got {bins}$"
    with pytest.raises(nbcert.ParameterError, match=message):
        nbcert.certify(absent, pd.DataFrame({"x": [1]}), "y", bins=bins)
    with pytest.raises(nbcert.ParameterError, match=message.replace("bins", "n_bins", 1)):
        nbcert.Binner(bins).fit(np.zeros((3, 1)))


def test_bins_at_the_bound_is_accepted():
    from nbcert import params

    assert params.validate(bins=10_000) == {"bins": 10_000}
    assert params.validate(bins=2) == {"bins": 2}
    X = np.arange(40.0).reshape(-1, 1)
    binner = nbcert.Binner(10_000).fit(X)  # KBinsDiscretizer merges the empty bins' edges
    assert len(binner.bin_edges_[0]) < 100 and len(np.unique(binner.transform(X))) == 40


@pytest.mark.parametrize("bins", ["10001", "2147483648", "1000000000000"])
def test_cli_bins_beyond_the_bound_is_a_usage_error(tmp_path, capsys, bins):
    absent = str(tmp_path / "absent.csv")
    rc, out, err = run(
        capsys, "certify", "--train", absent, "--test", absent, "--label", "y", "--bins", bins
    )
    assert rc == 2 and out == "" and "Traceback" not in err
    assert err == (
        "nbcert: error: argument --bins: expected an integer from 2 to 10,000 (more "
        f"bins than that give nearly every value a bin of its own), got '{bins}' "
        "(see nbcert certify --help)\n"
    )


# ---------------------------------------------------------------------------------------
# numeric columns with stray text tokens


def _stray_table(n=200, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n).astype(str).astype(object)
    age[[3, 50]] = "?"
    age[[7, 80, 120]] = "n/a"
    income = rng.normal(50, 10, n).round(2).astype(str).astype(object)
    income[[11, 90]] = "-"
    return pd.DataFrame(
        {
            "age": age,
            "income": income,
            "city": rng.choice(list("abc"), n),
            "y": np.where(rng.random(n) < 0.5, "p", "q"),
        }
    )


TEST_ROWS = "age,income,city\n40,50.5,a\n70,38.25,b\n"


def test_cli_one_warning_names_every_column_with_all_its_tokens(tmp_path, capsys):
    train = str(tmp_path / "t.csv")
    _stray_table().to_csv(train, index=False)
    test = write(tmp_path, "q.csv", TEST_ROWS)
    argv = ["certify", "--train", train, "--test", test, "--label", "y", "--bins", "4", "--json"]
    rc, _, err = run(capsys, *argv)
    assert rc == 0
    assert err.splitlines()[0] == (
        "nbcert: warning: columns 'age' ('?', 'n/a') and 'income' ('-') look numeric but hold "
        "text: not binned; give --missing '?' --missing 'n/a' --missing '-' to bin them "
        "(--categorical COL keeps them as they are)"
    )
    assert "common missing token" not in err  # the one warning says it all
    rc, _, err = run(capsys, *argv, "--missing", "?", "--missing", "n/a", "--missing", "-")
    assert rc == 0 and err == ""  # binned: no hint left


def test_api_warning_and_binning_once_the_tokens_are_missing():
    table = _stray_table()
    test = pd.read_csv(pd.io.common.StringIO(TEST_ROWS), dtype=str)
    got = _hints(nbcert.certify, table, test, "y", bins=4, missing=["NA"])
    assert got[0] == (
        "columns 'age' ('?', 'n/a') and 'income' ('-') look numeric but hold text: not binned; "
        "pass missing=['NA', '?', 'n/a', '-'] to bin them (categorical=[...] keeps them as "
        "they are)"
    )
    missing = ["?", "n/a", "-"]
    assert _hints(nbcert.certify, table, test, "y", bins=4, missing=missing) == []
    declared = nbcert.certify(table, test, "y", bins=4, missing=missing)
    blanked = table.replace(missing, np.nan)
    nums = blanked.assign(age=blanked["age"].astype(float), income=blanked["income"].astype(float))
    test_nums = test.assign(age=test["age"].astype(float), income=test["income"].astype(float))
    assert declared.equals(nbcert.certify(nums, test_nums, "y", bins=4))


def test_categorical_silences_the_stray_warning():
    table = _stray_table()
    test = pd.read_csv(pd.io.common.StringIO(TEST_ROWS), dtype=str)
    got = _hints(nbcert.certify, table, test, "y", bins=4, categorical=["age", "income"])
    assert not any("look numeric" in m for m in got)


def test_text_columns_are_not_called_numeric():
    rng = np.random.default_rng(1)
    n = 100
    table = pd.DataFrame(
        {
            "word": rng.choice(["red", "green", "blue", "7"], n),  # mostly text
            "two": rng.choice(["1", "?"], n),  # one number, one token: not numeric-looking
            "y": rng.choice(["p", "q"], n),
        }
    )
    got = _hints(nbcert.certify, table, table.drop(columns="y").iloc[:2], "y", bins=3)
    assert not any("look numeric" in m for m in got)


def test_binner_names_every_column_it_passes_through_for_text_tokens():
    table = _stray_table().drop(columns="y")
    with pytest.warns(DataWarning) as caught:
        binner = nbcert.Binner(4).fit(table)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "columns 'age' ('?', 'n/a') and 'income' ('-') look numeric but hold text: not binned; "
        "replace those values with NaN to bin them (categorical=[...] keeps them as they are)"
    ]
    assert binner.bin_edges_[0] is None and binner.bin_edges_[1] is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        clean = nbcert.Binner(4).fit(table.replace(["?", "n/a", "-"], np.nan))
        nbcert.Binner(4, categorical=["age", "income"]).fit(table)
    assert clean.bin_edges_[0] is not None and clean.bin_edges_[1] is not None


# ---------------------------------------------------------------------------------------
# the missing-token hint names all


def test_missing_token_hint_names_every_column_and_token(tmp_path, capsys):
    train = write(
        tmp_path, "t.csv", "odor,cap,y\nn,s,p\nNA,?,e\n-,x,e\nf,s,e\nf,?,e\n"
    )  # odor: 'NA' and '-'; cap: '?'
    test = write(tmp_path, "q.csv", "odor,cap\nn,s\n")
    rc, _, err = run(capsys, "certify", "--train", train, "--test", test, "--label", "y")
    assert rc == 0
    assert err == (
        "nbcert: warning: columns 'odor' ('NA', '-') and 'cap' ('?') hold common missing tokens "
        "as categories; if they mean missing, give --missing 'NA' --missing '-' --missing '?'\n"
    )
    got = _hints(nbcert.certify, train, pd.DataFrame({"odor": ["n"], "cap": ["s"]}), "y")
    assert got == [
        "columns 'odor' ('NA', '-') and 'cap' ('?') hold common missing tokens as categories; "
        "if they mean missing, pass missing=['NA', '-', '?']"
    ]


# ---------------------------------------------------------------------------------------
# "looks numeric" at any size


def test_looks_numeric_at_200000_rows():
    """9,344 distinct floats among 200,000 rows (4.7 %): as hopeless as categories as a few
    hundred among 500, so the hint holds whatever the share; 12 integer codes stay quiet."""
    rng = np.random.default_rng(0)
    n, k = 200_000, 9_344
    pool = np.round(rng.normal(size=k) * 10, 3) + np.arange(k) * 1e-6  # k distinct floats
    x = np.concatenate([pool, pool[rng.integers(0, k, n - k)]])
    train = pd.DataFrame({"x": x, "code": rng.integers(0, 12, n), "y": np.where(x > 0, "p", "q")})
    assert train["x"].nunique() == k
    test = pd.DataFrame({"x": pool[:2], "code": [1, 2]})
    want = (
        "column 'x' looks numeric (more than 20 distinct numbers): each value is its own "
        "category, so the answers say little; bin them with bins=N (e.g. bins=5)"
    )
    assert _hints(nbcert.certify, train, test, "y") == [want]
    assert _hints(nbcert.certify, train, test, "y", categorical=["x"]) == []
    assert _hints(nbcert.certify, train, test, "y", bins=5) == []
