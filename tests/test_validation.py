"""Parameters are checked once at the API boundary against their rules (nbcert.params): a
ParameterError (a TypeError and a ValueError) naming the parameter (the CLI: its usage
error), instead of a deep numpy/scipy error or a silently accepted nonsense value."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

import nbcert
from nbcert.cli import main

TRAIN = pd.DataFrame({"f": ["a", np.nan, "b", "a"], "y": ["p", "q", "q", "p"]}, dtype=object)
CLEAN = pd.DataFrame(
    {"f": ["a", "b", "b", "a"], "g": ["x", "x", "y", "y"], "y": ["p", "q", "q", "p"]}, dtype=object
)
TEST = pd.DataFrame({"f": ["a"]}, dtype=object)
CLEAN_TEST = pd.DataFrame({"f": ["a"], "g": ["x"]}, dtype=object)


def certify(**kw):
    return nbcert.certify(TRAIN, TEST, "y", method="ad", **kw)


def count(**kw):
    return nbcert.count_worlds(TRAIN, TEST, "y", method="montecarlo", **kw)


def poison(**kw):
    return nbcert.poison(CLEAN, CLEAN_TEST, "y", method="rp", **kw)


def poison_together(**kw):
    return nbcert.poison_together(CLEAN, CLEAN_TEST, "y", method="exact", **kw)


BAD = [  # (function, keyword, value, expected exception)
    (certify, "n_worlds", 0, ValueError),
    (certify, "n_worlds", -5, ValueError),
    (certify, "n_worlds", 2.5, TypeError),
    (certify, "n_worlds", "10", TypeError),
    (certify, "seed", "abc", TypeError),
    (certify, "seed", -1, ValueError),
    (certify, "seed", 1.0, TypeError),
    (count, "n_worlds", 0, ValueError),
    (count, "n_worlds", None, TypeError),
    (count, "confidence", 0, ValueError),
    (count, "confidence", 1, ValueError),
    (count, "confidence", math.nan, ValueError),
    (count, "confidence", "0.9", TypeError),
    (count, "seed", "abc", TypeError),
    (count, "max_states", 0, ValueError),
    (count, "max_states", 1e6, TypeError),
    (poison, "seed", "abc", TypeError),
    (poison, "seed", -3, ValueError),
    (poison_together, "time_limit", 0, ValueError),
    (poison_together, "time_limit", -1, ValueError),
    (poison_together, "time_limit", math.nan, ValueError),
    (poison_together, "time_limit", math.inf, ValueError),
    (poison_together, "time_limit", "30", TypeError),
    (certify, "alpha", 1e400, ValueError),
    (certify, "alpha", "1e400", ValueError),
    (count, "alpha", math.nan, ValueError),
    (count, "alpha", -1, ValueError),
    (certify, "alpha", [1], TypeError),
]


@pytest.mark.parametrize(
    "fn, key, value, error", BAD, ids=[f"{f.__name__}-{k}={v!r}" for f, k, v, _ in BAD]
)
def test_bad_parameter_is_a_clear_error(fn, key, value, error):
    with pytest.raises(error, match=key) as e:
        fn(**{key: value})
    # one mistake, one error type: ParameterError is an InputError, a ValueError and a TypeError
    assert type(e.value) is nbcert.ParameterError and isinstance(e.value, nbcert.InputError)


@pytest.mark.parametrize(
    "seed", [None, 0, 7, np.int64(3), np.random.default_rng(1), np.random.SeedSequence(2)]
)
def test_good_seeds_are_accepted(seed):
    assert len(certify(seed=seed, n_worlds=3)) == 1
    assert count(seed=seed, n_worlds=10)[0].n_worlds == 10
    assert poison(seed=seed)[0].possible in (True, False)


def test_good_values_are_accepted():
    assert poison_together(time_limit=5).possible
    assert poison_together(time_limit=1).optimal in (True, False)
    assert count(confidence=0.5, max_states=1, n_worlds=np.int64(20))[0].n_worlds == 20


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["poison", "--together", "--time-limit", "-1"], "--time-limit"),
        (["poison", "--together", "--time-limit=nan"], "--time-limit"),
        (["poison", "--together", "--time-limit=inf"], "--time-limit"),
        (["poison", "--together", "--time-limit", "0"], "--time-limit"),
        (["poison", "--seed", "abc"], "--seed"),
        (["poison", "--seed=-2"], "--seed"),
        (["certify", "--method", "ad", "--worlds", "0"], "--worlds"),
        (["certify", "--method", "ad", "--seed", "x"], "--seed"),
        (["count", "--worlds", "0"], "--worlds"),
        (["count", "--confidence", "nan"], "--confidence"),
        (["count", "--seed", "1.5"], "--seed"),
    ],
)
def test_cli_rejects_bad_flags(tmp_path, capsys, argv, flag):
    train, test = tmp_path / "t.csv", tmp_path / "q.csv"
    CLEAN.to_csv(train, index=False)
    CLEAN_TEST.to_csv(test, index=False)
    rc = main([argv[0], "--train", str(train), "--test", str(test), "--label", "y", *argv[1:]])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1].startswith("nbcert: error: ") and flag in err.splitlines()[-1]


# ---------------------------------------------------------------------------------------
# one rule per option: the API, the estimator and the command line agree


SAME_MISTAKE = [  # (parameter, bad value, the CLI's arguments for it)
    ("alpha", -1, ["certify", "--alpha", "-1"]),
    ("alpha", "abc", ["count", "--alpha", "abc"]),
    ("n_worlds", 0, ["count", "--worlds", "0"]),
    ("confidence", 1, ["count", "--confidence", "1"]),
    ("seed", -1, ["count", "--seed=-1"]),
    ("max_states", 0, None),
]


def _api_error(key, value):
    call = certify if key == "alpha" else count
    with pytest.raises(nbcert.ParameterError) as e:
        call(**{key: value})
    return e.value


def _estimator_error(key, value):
    X, y = TRAIN[["f"]], TRAIN["y"]
    with pytest.raises(nbcert.ParameterError) as e:
        if key == "alpha":
            nbcert.CertifiedNB(alpha=value).fit(X, y)
        else:
            nbcert.CertifiedNB().fit(X, y).count_worlds(TEST, method="montecarlo", **{key: value})
    return e.value


@pytest.mark.parametrize(
    "key, value, argv", SAME_MISTAKE, ids=[f"{k}={v!r}" for k, v, _ in SAME_MISTAKE]
)
def test_one_mistake_one_error_everywhere(tmp_path, capsys, key, value, argv):
    from nbcert import params

    api, est = _api_error(key, value), _estimator_error(key, value)
    assert type(api) is type(est) is nbcert.ParameterError
    assert str(api) == str(est) == f"{key} must be {params.rule(key).what}, got {value!r}"
    assert (
        isinstance(api, (ValueError))
        and isinstance(api, TypeError)
        and isinstance(api, nbcert.InputError)
    )
    if argv is None:
        return
    train, test = tmp_path / "t.csv", tmp_path / "q.csv"
    TRAIN.to_csv(train, index=False)
    TEST.to_csv(test, index=False)
    rc = main([argv[0], "--train", str(train), "--test", str(test), "--label", "y", *argv[1:]])
    out, err = capsys.readouterr()
    last = re.sub(r" \(see nbcert \w+ --help\)$", "", err.splitlines()[-1])
    assert rc == 2 and out == "" and "Traceback" not in err
    assert last.endswith(params.rule(key).expected(str(value)))  # the same rule says it
    if key == "alpha":  # read exactly after parsing: one line, no usage
        assert err.splitlines() == [
            f"nbcert: error: --alpha: {params.rule(key).expected(str(value))}"
        ]


def test_cli_choices_are_the_rules_options():
    import argparse

    from nbcert import params
    from nbcert.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    choices = {
        (cmd, a.dest): tuple(a.choices)
        for cmd, p in sub.choices.items()
        for a in p._actions
        if a.choices
    }
    assert choices == {
        ("certify", "method"): params.options("method", "certify"),
        ("count", "method"): params.options("method", "count_worlds"),
        ("poison", "method"): params.options("method", "poison")
        + params.options("method", "poison_together"),
        ("clean", "method"): params.options("method", "clean_with_truth"),
        ("clean", "prior"): params.options("prior"),
        **{
            (cmd, option): params.options(option)
            for cmd in ("certify", "count", "poison", "clean")
            for option in ("binning", "test_missing")
        },
    }
    assert choices[("count", "method")] == ("auto", "exact", "batch", "montecarlo", "bounds")


@pytest.mark.parametrize(
    "call",
    [
        lambda path: nbcert.clean(path, TEST, "y", prior="uniform"),
        lambda path: nbcert.clean_with_truth(path, CLEAN, TEST, "y", prior="uniform"),
        lambda path: nbcert.count_worlds(path, TEST, "y", method="bogus"),
        lambda path: nbcert.poison_together(path, TEST, "y", method="op"),
        lambda path: nbcert.certify(path, TEST, "y", batch_rows=0),
    ],
)
def test_a_mistyped_option_is_refused_before_the_table_is_read(tmp_path, call):
    path = str(tmp_path / "no-such-training-file.csv")
    with pytest.raises(nbcert.ParameterError) as e:
        call(path)
    assert "no-such-training-file" not in str(e.value)


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--prior", "uniform"], "--prior"),
        (["--alpha", "-1"], "--alpha"),
        (["--method", "exact"], "--method needs --truth"),
        (["--stream"], "in memory"),
    ],
)
def test_cli_refuses_a_mistyped_option_before_reading(tmp_path, capsys, extra, words):
    test = tmp_path / "q.csv"
    TEST.to_csv(test, index=False)
    missing = str(tmp_path / "no-such-training-file.csv")
    rc = main(["clean", "--train", missing, "--test", str(test), "--label", "y", *extra])
    out, err = capsys.readouterr()
    assert (
        rc == 2
        and out == ""
        and words in err.splitlines()[-1]
        and "no-such-training-file" not in err
    )


def test_clean_with_truth_checks_the_dirty_table_without_encoding_it(monkeypatch):
    import nbcert.reading.asked

    dirty = pd.DataFrame(
        {"f": ["a", None, "b", "a"], "g": ["x", "y", None, "y"], "y": ["p", "q", "q", "p"]}
    )
    truth = dirty.fillna({"f": "b", "g": "x"})
    with pytest.raises(
        nbcert.InputError, match=r"^training table: data row 2 has no value in label column 'y'$"
    ):
        nbcert.clean_with_truth(dirty.assign(y=["p", "q", None, "p"]), truth, TEST, "y")
    with pytest.raises(
        nbcert.InputError, match=r"^training table: feature column 'g' has no observed value$"
    ):
        nbcert.clean_with_truth(dirty.assign(g=None), truth, TEST, "y")
    with pytest.raises(nbcert.InputError, match=r"^mine: no label column 'z'"):
        nbcert.clean_with_truth(dirty, truth, TEST, "z", names={"train": "mine"})
    import nbcert.reading.truth

    encoded = []
    real = nbcert.reading.asked.encode
    for module in (nbcert.reading.asked, nbcert.reading.truth):
        monkeypatch.setattr(
            module, "encode", lambda *a, **k: encoded.append(k.get("name")) or real(*a, **k)
        )
    rep = nbcert.clean_with_truth(dirty, truth, pd.DataFrame({"f": ["a"], "g": ["y"]}), "y")
    assert encoded == ["truth table"] and len(rep.points) == 1


def test_errors_module_stands_alone():
    import ast
    import inspect

    from nbcert import errors
    from nbcert.reading import encoding

    imports = [
        node
        for node in ast.walk(ast.parse(inspect.getsource(errors)))
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]  # (its docstrings' examples import nbcert, as a user would)
    # the standard library only: any module of nbcert may import it
    modules = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in imports
        for alias in node.names
    ]
    assert all(node.level == 0 for node in imports if isinstance(node, ast.ImportFrom))
    assert set(modules) <= {"__future__", "sys"}
    assert encoding.InputError is errors.InputError is nbcert.InputError
    assert issubclass(errors.ParameterError, (errors.InputError, ValueError, TypeError))
    assert {errors.InputError, ValueError, TypeError} <= set(errors.ParameterError.__mro__)


@pytest.mark.parametrize(
    "call",
    [
        lambda **kw: nbcert.certify(TRAIN, TEST, "y", **kw),
        lambda **kw: nbcert.count_worlds(TRAIN, TEST, "y", **kw),
        lambda **kw: nbcert.poison(CLEAN, CLEAN_TEST, "y", **kw),
        lambda **kw: nbcert.poison_together(CLEAN, CLEAN_TEST, "y", **kw),
        lambda **kw: nbcert.clean(TRAIN, TEST, "y", **kw),
        lambda **kw: nbcert.clean_with_truth(TRAIN, TRAIN.fillna("b"), TEST, "y", **kw),
    ],
    ids=["certify", "count_worlds", "poison", "poison_together", "clean", "clean_with_truth"],
)
def test_every_api_function_takes_the_same_reading_options(call):
    """One set of reading options for the whole API: each function takes sep and id (which
    it reads off the test table) and names an unknown option in one ParameterError."""
    test_with_id = {"id": "name"}
    with pytest.raises(nbcert.ParameterError, match=r"^unknown option 'sepp' \(the reading"):
        call(sepp=";")
    with pytest.raises(nbcert.ParameterError, match=r"^sep must be None or one character"):
        call(sep="")
    with pytest.raises(nbcert.InputError, match=r"^test table: no id column 'name'$"):
        call(sep=";", **test_with_id)


def test_the_api_refuses_a_test_column_the_training_table_lacks():
    """As the command does: a misspelt test column is an error, not silently dropped (the
    label and the id column are allowed)."""
    test = CLEAN_TEST.assign(colour=["red"])
    with pytest.raises(nbcert.InputError, match=r"^test table: column 'colour' is not a column"):
        nbcert.certify(CLEAN, test, "y")
    with pytest.raises(nbcert.InputError, match=r"column 'colour' is not a column"):
        nbcert.clean_with_truth(TRAIN, TRAIN.fillna("b"), TEST.assign(colour=["red"]), "y")
    ok = CLEAN_TEST.assign(y=["p"], name=["first"])
    assert nbcert.certify(CLEAN, ok, "y", id="name").name.tolist() == ["first"]
