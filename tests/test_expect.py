"""The expected contents of the pipeline's run files (common.expect) hold for the
tables the stages really write: each run, written and read back as the pipeline's gather
step reads it, passes with its expectation and fails with another's."""

import numpy as np
import pandas as pd
import pytest
from certify import certify_runs
from common import expect, job
from common.draws import split
from common.settings import study
from common.tables import TableError, read_table, write_table
from poison import poisoning_runs
from studies.poisoning_together import run as poisoning_together


def table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {f"f{j}": rng.choice(["a", "b", "c"], n) for j in range(4)}
        | {"y": rng.choice(["p", "q"], n)}
    )


def round_trip(df, tmp_path, schema, expectation):
    path = tmp_path / f"{schema}.csv"
    write_table(job.stamp(df), path, schema)
    return read_table(path, schema, **expectation)


def test_a_certify_run_has_the_rows_its_expectation_says(tmp_path):
    train, test = split(table(), 4, seed=1, name="demo", rep=1)
    dirty = train.mask(np.random.default_rng(2).random(train.shape) < 0.3).assign(y=train.y)
    ks = [1, 2, 4]
    df = certify_runs(
        train,
        dirty,
        test,
        "y",
        ks,
        ad_worlds=5,
        seed=1,
        name="demo",
        rep=1,
        perturbation="uniform",
        rate=0.3,
        progress=lambda _: None,
    )
    got = round_trip(
        df, tmp_path, "certify_run", expect.certify_run("demo", 1, "uniform", "0.3", ks)
    )
    assert len(got) == len(df)
    with pytest.raises(TableError):
        round_trip(
            df, tmp_path, "certify_run", expect.certify_run("demo", 1, "uniform", "0.3", ks[:2])
        )
    with pytest.raises(TableError):
        round_trip(df, tmp_path, "certify_run", expect.certify_run("demo", 1, "feature", "0.3", ks))


def test_a_poisoning_run_has_the_rows_its_expectation_says(tmp_path):
    train, test = split(table(), 1, seed=1, name="demo", rep=0)
    df = poisoning_runs(train, test, "y", seed=1, name="demo", rep=0, progress=lambda _: None)
    assert len(round_trip(df, tmp_path, "poisoning_run", expect.poisoning_run("demo", 0))) == len(
        df
    )
    with pytest.raises(TableError):
        round_trip(df, tmp_path, "poisoning_run", expect.poisoning_run("demo", 1))


def test_a_together_poisoning_run_has_the_rows_its_expectation_says(tmp_path):
    train, test = split(table(), 3, seed=1, name="demo", rep=0)
    df = poisoning_together.run(
        train,
        test,
        "y",
        3,
        study("poison_together", points=[3], time_limit=5),
        name="demo",
        progress=lambda _: None,
    )
    assert len(
        round_trip(df, tmp_path, "poisoning_together_run", expect.poisoning_together_run("demo", 3))
    ) == len(df)
    with pytest.raises(TableError):
        round_trip(df, tmp_path, "poisoning_together_run", expect.poisoning_together_run("demo", 2))


def test_a_scaling_run_promises_its_size_only():
    assert expect.scaling_run(1000) == {"rows": None, "equal": {"n": 1000}}
