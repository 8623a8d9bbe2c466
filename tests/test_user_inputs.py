"""Inputs as users have them: --sep and the separator error, the hints (missing tokens,
unseen test values, numeric-looking columns) and their absence, and --bins giving the
same answer through the command line and the API."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from test_cli import run, write

import nbcert
from nbcert import DataWarning

TRAIN = "odor,cap,y\nn,s,p\nn,,e\nn,,e\nf,s,e\nf,x,e\n"
TEST = "odor,cap\nn,s\nn,x\n"


def certify_json(capsys, train, test, *extra):
    rc, out, err = run(
        capsys, "certify", "--train", train, "--test", test, "--label", "y", "--json", *extra
    )
    assert rc == 0, err
    return json.loads(out)["results"], err


# ---------------------------------------------------------------------------------------
# separators


@pytest.mark.parametrize("sep, flag", [(";", ";"), ("|", "|"), ("\t", "tab"), ("\t", "\\t")])
def test_sep_reads_the_same_answer_as_commas(tmp_path, capsys, sep, flag):
    want, _ = certify_json(capsys, write(tmp_path, "t.csv", TRAIN), write(tmp_path, "q.csv", TEST))
    got, _ = certify_json(
        capsys,
        write(tmp_path, "ts.csv", TRAIN.replace(",", sep)),
        write(tmp_path, "qs.csv", TEST.replace(",", sep)),
        "--sep",
        flag,
    )
    assert got == want


@pytest.mark.parametrize("sep, shown", [(";", "';'"), ("|", "'|'"), ("\t", "'tab'")])
def test_one_column_header_with_a_separator_is_an_error_naming_it(tmp_path, capsys, sep, shown):
    train = write(tmp_path, "t.csv", TRAIN.replace(",", sep))
    rc, out, err = run(
        capsys,
        "certify",
        "--train",
        train,
        "--test",
        write(tmp_path, "q.csv", TEST),
        "--label",
        "y",
    )
    assert rc == 2 and out == ""
    assert (
        err.count("\n") == 1
        and f"{train}: the header is one column" in err
        and f"--sep {shown}" in err
    )
    with pytest.raises(nbcert.InputError, match=f"sep={shown}"):
        nbcert.certify(train, pd.DataFrame({"odor": ["n"], "cap": ["s"]}), "y")


@pytest.mark.parametrize("sep, shown", [(";", "';'"), ("|", "'|'"), ("\t", "'tab'")])
def test_a_header_name_holding_a_comma_keeps_the_separator_hint(tmp_path, capsys, sep, shown):
    """A ``;`` file whose column name holds a comma ("cap, size") is two columns read with
    commas, so the header check passed and the first record said only "has 1 field,
    expected 2"; the record and the header split alike by ``;`` name it."""

    def spelt(text: str) -> str:
        return (
            text.replace("cap", "cap, size")
            .replace(",", sep)
            .replace(f"cap{sep} size", "cap, size")
        )

    train, test = write(tmp_path, "t.csv", spelt(TRAIN)), write(tmp_path, "q.csv", spelt(TEST))
    argv = ["--train", train, "--test", test, "--label", "y"]
    rc, out, err = run(capsys, "certify", *argv)
    hint = f"the fields look separated by {shown}, not ','"
    hint += f" (use --sep {shown}; sep={shown} in Python)"
    said = f"data row 0 (line 2) has 1 field, expected 2: {hint}"
    assert rc == 2 and out == "" and err == f"nbcert: error: {test}: {said}\n"
    with pytest.raises(nbcert.InputError) as caught:  # the API reads the header first
        nbcert.certify(train, pd.DataFrame({"odor": ["n"], "cap, size": ["s"]}), "y")
    assert str(caught.value).startswith(f"{train}: no label column 'y' (columns: ")
    assert str(caught.value).endswith(
        f"): the fields look separated by {shown} (use --sep {shown}; sep={shown} in Python)"
    )
    rc, out, err = run(capsys, "certify", *argv, "--sep", shown.strip("'"))
    assert rc == 0 and "robust" in out  # read with the separator, the file is a table


def test_a_short_record_says_no_separator_where_none_fits(tmp_path, capsys):
    train = write(tmp_path, "t.csv", "odor,cap,y\nn,s,p\nn,s\n")
    rc, out, err = run(capsys, "certify", "--train", train, "--test", train, "--label", "y")
    assert (
        rc == 2 and err == f"nbcert: error: {train}: data row 1 (line 3) has 2 fields, expected 3\n"
    )


def test_api_sep_reads_a_path(tmp_path):
    train = write(tmp_path, "t.csv", TRAIN.replace(",", ";"))
    test = pd.DataFrame({"odor": ["n", "n"], "cap": ["s", "x"]})
    got = nbcert.certify(train, test, "y", sep=";")
    assert got.equals(nbcert.certify(write(tmp_path, "c.csv", TRAIN), test, "y"))
    with pytest.raises(nbcert.ParameterError, match="sep must be"):
        nbcert.certify(train, test, "y", sep=";;")


# ---------------------------------------------------------------------------------------
# hints


def test_missing_token_hint_and_its_absence(tmp_path, capsys):
    train = write(tmp_path, "t.csv", TRAIN.replace("n,,e", "n,?,e"))
    test = write(tmp_path, "q.csv", TEST)
    _, err = certify_json(capsys, train, test)
    assert (
        err
        == "nbcert: warning: column 'cap' holds '?', a common missing token, as a category; if it means "
        "missing, give --missing '?'\n"
    )
    _, err = certify_json(capsys, train, test, "--missing", "?")
    assert err == ""
    with pytest.warns(DataWarning, match=r"missing=\['\?'\]"):
        nbcert.certify(train, pd.DataFrame({"odor": ["n"], "cap": ["s"]}), "y")


def test_unseen_test_value_is_counted_once(tmp_path, capsys):
    _, err = certify_json(
        capsys,
        write(tmp_path, "t.csv", TRAIN),
        write(tmp_path, "q.csv", "odor,cap\nz,s\nn,1\nn,s\n"),
    )
    assert err == (
        "nbcert: warning: 2 test values (in 2 of 3 test points; columns 'odor', 'cap') never occur in training: "
        "at alpha = 0 every label's support of such a point is 0\n"
    )
    _, err = certify_json(capsys, write(tmp_path, "t.csv", TRAIN), write(tmp_path, "q.csv", TEST))
    assert err == ""


def test_the_unseen_value_warning_says_what_alpha_does(tmp_path, capsys):
    """At alpha 1 an unseen test value does not make every support 0: the warning says what
    it does at the alpha asked for (it said "at alpha = 0" whatever the alpha)."""
    args = (write(tmp_path, "t.csv", TRAIN), write(tmp_path, "q.csv", "odor,cap\nz,s\n"))
    _, err = certify_json(capsys, *args, "--alpha", "1")
    assert "never occurs in training" in err and "alpha = 0" not in err
    assert "at alpha = 1 no training cell speaks for any label there" in err
    _, err = certify_json(capsys, *args)
    assert "at alpha = 0 every label's support of such a point is 0" in err


def test_the_unseen_value_warning_counts_against_the_training_table():
    """With the truth, a test value is unseen when no observed cell of the training table
    holds it (the truth's values of its missing cells are not training): two here, one of
    which the truth holds (cleaning can bring it in); it counted one, against the truth."""
    dirty = pd.DataFrame({"f": ["a", None, "b", None], "y": ["p", "p", "q", "q"]})
    truth = dirty.assign(f=["a", "c", "b", "b"])
    test = pd.DataFrame({"f": ["c", "z", "a"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        nbcert.clean_with_truth(dirty, truth, test, "y")
    (said,) = [str(w.message) for w in caught if "never occur" in str(w.message)]
    assert said.startswith(
        "2 test values (in 2 of 3 test points; column 'f') never occur in training"
    )
    assert said.endswith(
        "1 of them is the true value of missing cells (cleaning can bring it in), 1 occurs "
        "nowhere, not even in the truth"
    )


def _numeric_table(n=100, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(4)
    t = pd.DataFrame({"x": x, "code": rng.integers(0, 3, n), "y": np.where(x > 0, "p", "q")})
    return t.assign(x=t["x"].mask(rng.random(n) < 0.1))


def test_numeric_warning_present_without_bins_absent_with_them_or_categorical(tmp_path, capsys):
    table = _numeric_table()
    train = str(tmp_path / "t.csv")
    table.to_csv(train, index=False)
    test = write(tmp_path, "q.csv", "x,code\n1.5,1\n-1.5,2\n")
    _, err = certify_json(capsys, train, test)
    lines = err.splitlines()
    assert lines[0] == (
        "nbcert: warning: column 'x' looks numeric (more than 20 distinct numbers): each value is "
        "its own category, so the answers say little; bin them with --bins N (e.g. --bins 5)"
    )
    assert (
        len(lines) == 2 and "never occur in training" in lines[1]
    )  # 1.5 and -1.5 are not in the table
    _, err = certify_json(capsys, train, test, "--bins", "4")
    assert err == (  # the integer codes: each its own bin, and said so
        "nbcert: warning: --bins 4: column 'code' (3 values) has no more distinct numbers "
        "than bins: each number is its own bin, none merged\n"
    )
    _, err = certify_json(capsys, train, test, "--categorical", "x")
    assert "looks numeric" not in err
    few = table.assign(x=table["x"].round(0))  # few distinct values: codes, no warning
    few.to_csv(train, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        nbcert.certify(few, pd.DataFrame({"x": [1.0], "code": [1.0]}), "y")


# ---------------------------------------------------------------------------------------
# --bins: the command line and the API agree


@pytest.mark.parametrize("binning", ["quantile", "uniform", "kmeans"])
def test_bins_same_answer_through_cli_and_api(tmp_path, capsys, binning):
    table = _numeric_table(200, seed=1)
    train = str(tmp_path / "t.csv")
    table.to_csv(train, index=False)
    test = write(tmp_path, "q.csv", "x,code\n1.5,1\n-1.5,2\n0.01,0\n9,1\n")
    cli, _ = certify_json(
        capsys, train, test, "--bins", "3", "--binning", binning, "--categorical", "code"
    )
    # the path with the test rows as the command reads them, and pandas' reading of both files
    for tr, qt in ((train, nbcert.read_csv(test)), (pd.read_csv(train), pd.read_csv(test))):
        api = nbcert.certify(tr, qt, "y", bins=3, binning=binning, categorical=["code"])
        assert [r["robust"] for r in cli] == list(api["robust"])
        assert [r["label"] for r in cli] == list(api["label"])
    assert any(r["robust"] for r in cli)
    rc, out, err = run(
        capsys,
        "count",
        "--train",
        train,
        "--test",
        test,
        "--label",
        "y",
        "--json",
        "--bins",
        "3",
        "--binning",
        binning,
        "--categorical",
        "code",
    )
    counts = nbcert.count_worlds(
        train, nbcert.read_csv(test), "y", bins=3, binning=binning, categorical=["code"]
    )
    assert rc == 0 and [r["ties"] for r in json.loads(out)["results"]] == [
        str(c.ties) for c in counts
    ]


def test_binning_options_are_checked_before_reading(tmp_path, capsys):
    absent = tmp_path / "absent.csv"
    rc, _, err = run(
        capsys,
        "certify",
        "--train",
        absent,
        "--test",
        absent,
        "--label",
        "y",
        "--binning",
        "uniform",
    )
    assert rc == 2 and err == "nbcert: error: --binning needs --bins\n"
    with pytest.raises(SystemExit):
        from nbcert.cli.parser import build_parser

        build_parser().parse_args(
            ["certify", "--train", "a", "--test", "b", "--label", "y", "--bins", "1"]
        )
