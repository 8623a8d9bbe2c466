"""Parameters are checked once at the API boundary against their rules (nbcert.params): a
ParameterError (a TypeError and a ValueError) naming the parameter (the CLI: its usage
error), instead of a deep numpy/scipy error or a silently accepted nonsense value."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import nbcert
from nbcert.cli import main

TRAIN = pd.DataFrame({"f": ["a", np.nan, "b", "a"], "y": ["p", "q", "q", "p"]}, dtype=object)
CLEAN = pd.DataFrame({"f": ["a", "b", "b", "a"], "g": ["x", "x", "y", "y"], "y": ["p", "q", "q", "p"]},
                     dtype=object)
TEST = pd.DataFrame({"f": ["a"]}, dtype=object)
CLEAN_TEST = pd.DataFrame({"f": ["a"], "g": ["x"]}, dtype=object)


def certify(**kw):
    return nbcert.certify(TRAIN, TEST, "y", method="ad", **kw)


def count(**kw):
    return nbcert.count_worlds(TRAIN, TEST, "y", method="montecarlo", **kw)


def poison(**kw):
    return nbcert.poison(CLEAN, CLEAN_TEST, "y", method="rp", **kw)


def poison_many(**kw):
    return nbcert.poison_many(CLEAN, CLEAN_TEST, "y", method="exact", **kw)


BAD = [  # (function, keyword, value, expected exception)
    (certify, "n_worlds", 0, ValueError), (certify, "n_worlds", -5, ValueError),
    (certify, "n_worlds", 2.5, TypeError), (certify, "n_worlds", "10", TypeError),
    (certify, "seed", "abc", TypeError), (certify, "seed", -1, ValueError), (certify, "seed", 1.0, TypeError),
    (count, "n_samples", 0, ValueError), (count, "n_samples", None, TypeError),
    (count, "confidence", 0, ValueError), (count, "confidence", 1, ValueError),
    (count, "confidence", math.nan, ValueError), (count, "confidence", "0.9", TypeError),
    (count, "seed", "abc", TypeError), (count, "max_states", 0, ValueError),
    (count, "max_states", 1e6, TypeError),
    (poison, "seed", "abc", TypeError), (poison, "seed", -3, ValueError),
    (poison_many, "time_limit", 0, ValueError), (poison_many, "time_limit", -1, ValueError),
    (poison_many, "time_limit", math.nan, ValueError), (poison_many, "time_limit", math.inf, ValueError),
    (poison_many, "time_limit", "30", TypeError),
    (certify, "alpha", 1e400, ValueError), (certify, "alpha", "1e400", ValueError),
    (count, "alpha", math.nan, ValueError), (count, "alpha", -1, ValueError), (certify, "alpha", [1], TypeError),
]


@pytest.mark.parametrize("fn, key, value, error", BAD, ids=[f"{f.__name__}-{k}={v!r}" for f, k, v, _ in BAD])
def test_bad_parameter_is_a_clear_error(fn, key, value, error):
    with pytest.raises(error, match=key) as e:
        fn(**{key: value})
    # one mistake, one error type: ParameterError is an InputError, a ValueError and a TypeError
    assert type(e.value) is nbcert.ParameterError and isinstance(e.value, nbcert.InputError)


@pytest.mark.parametrize("seed", [None, 0, 7, np.int64(3), np.random.default_rng(1), np.random.SeedSequence(2)])
def test_good_seeds_are_accepted(seed):
    assert len(certify(seed=seed, n_worlds=3)) == 1
    assert count(seed=seed, n_samples=10)[0].samples == 10
    assert poison(seed=seed)[0].possible in (True, False)


def test_good_values_are_accepted():
    assert poison_many(time_limit=5).possible
    assert poison_many(time_limit=1).optimal in (True, False)
    assert count(confidence=0.5, max_states=1, n_samples=np.int64(20))[0].samples == 20


@pytest.mark.parametrize("argv, flag", [
    (["poison", "--together", "--time-limit", "-1"], "--time-limit"),
    (["poison", "--together", "--time-limit=nan"], "--time-limit"),
    (["poison", "--together", "--time-limit=inf"], "--time-limit"),
    (["poison", "--together", "--time-limit", "0"], "--time-limit"),
    (["poison", "--seed", "abc"], "--seed"),
    (["poison", "--seed=-2"], "--seed"),
    (["certify", "--method", "ad", "--worlds", "0"], "--worlds"),
    (["certify", "--method", "ad", "--seed", "x"], "--seed"),
    (["count", "--samples", "0"], "--samples"),
    (["count", "--confidence", "nan"], "--confidence"),
    (["count", "--seed", "1.5"], "--seed"),
])
def test_cli_rejects_bad_flags(tmp_path, capsys, argv, flag):
    train, test = tmp_path / "t.csv", tmp_path / "q.csv"
    CLEAN.to_csv(train, index=False)
    CLEAN_TEST.to_csv(test, index=False)
    rc = main([argv[0], "--train", str(train), "--test", str(test), "--label", "y", *argv[1:]])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1].startswith("nbcert ") and flag in err.splitlines()[-1]

