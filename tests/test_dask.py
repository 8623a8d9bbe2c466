"""Dask: the statistics of a Dask DataFrame, computed per partition on a LocalCluster with
two worker processes, give the in-memory answers; so does the CLI with --scheduler."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import instances
from test_cli import TEST, assert_error, run, run_json, write
from test_input import as_text, counts, frame

import nbcert

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as c:
            yield c


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(inst=instances(), data=st.data())
def test_dask_equals_in_memory(client, inst, data):
    train = as_text(inst.train).reset_index(drop=True)
    test = as_text(inst.test[inst.features])
    ddf = dd.from_pandas(
        train, npartitions=data.draw(st.integers(1, len(train)), label="partitions"), sort=False
    )
    assert frame(nbcert.certify(ddf, test, inst.label)) == frame(
        nbcert.certify(train, test, inst.label)
    )
    assert counts(nbcert.count_worlds(ddf, test, inst.label, method="exact")) == counts(
        nbcert.count_worlds(train, test, inst.label, method="exact")
    )


def test_dask_missing_label_named_by_its_row(client):
    train = pd.DataFrame({"a": list("xyzxyzxy"), "y": ["p", "q", "p", "q", "p", None, "q", "p"]})
    ddf = dd.from_pandas(train, npartitions=3, sort=False)
    with pytest.raises(nbcert.InputError, match="data row 5 has no value in label column 'y'"):
        nbcert.certify(ddf, train[["a"]], "y")
    with pytest.raises(nbcert.InputError, match="needs the table in memory"):
        nbcert.certify(ddf, train[["a"]], "y", method="iterate")


def test_cli_scheduler_parquet_folder(client, tmp_path, capsys, monkeypatch):
    df = pd.DataFrame(
        {
            "odor": ["n", "n", "n", "f", "f"],
            "cap": ["s", None, None, "s", "x"],
            "y": ["p", "e", "e", "e", "e"],
        }
    )
    folder = tmp_path / "pq"
    folder.mkdir()
    for i, rows in enumerate(([0, 1], [2], [3, 4])):
        df.iloc[rows].to_parquet(folder / f"part-{i}.parquet", index=False)
    test = write(tmp_path, "test.csv", TEST)
    local = run_json(capsys, "count", "--train", folder, "--test", test, "--label", "y")
    address = client.scheduler.address
    assert (
        run_json(
            capsys,
            "count",
            "--train",
            folder,
            "--test",
            test,
            "--label",
            "y",
            "--scheduler",
            address,
        )
        == local
    )
    local = run_json(capsys, "certify", "--train", folder, "--test", test, "--label", "y")
    monkeypatch.setenv("NBCERT_DASK_SCHEDULER", address)
    assert run_json(capsys, "certify", "--train", folder, "--test", test, "--label", "y") == local
    rc, out, err = run(
        capsys, "certify", "--train", folder, "--test", test, "--label", "y", "--method", "iterate"
    )
    assert_error(rc, out, err, str(folder), "needs the table in memory")
    rc, out, err = run(
        capsys,
        "certify",
        "--train",
        write(tmp_path, "t.csv", "a,y\nx,p\n"),
        "--test",
        write(tmp_path, "q.csv", "a\nx\n"),
        "--label",
        "y",
    )
    assert_error(rc, out, err, "t.csv", "Parquet")


def test_dask_numbers_compared_by_value(client, tmp_path, capsys):
    """A Parquet folder of floats (``4.0``, blanks) on the cluster, against test
    rows written ``4`` (API) and ``4.0`` (CLI): the answers of the table as integer text, by the API and by the CLI
    with --scheduler (the workers make the values text: ``3.0`` becomes ``3``)."""
    rng = np.random.default_rng(5)
    n = 30
    df = pd.DataFrame(
        {
            "a": rng.integers(1, 4, n).astype(float),
            "b": rng.integers(0, 3, n).astype(float) + 0.5,
            "y": rng.choice(["p", "q"], n),
        }
    )
    df.loc[rng.random(n) < 0.2, "a"] = np.nan
    folder = tmp_path / "pq"
    folder.mkdir()
    for i, rows in enumerate((range(0, 10), range(10, 20), range(20, 30))):
        df.iloc[list(rows)].to_parquet(folder / f"part-{i}.parquet", index=False)
    test = df[["a", "b"]].iloc[:6].fillna(2).astype({"a": int})
    text = df.astype(object).where(df.notna(), None)
    text["a"] = df["a"].map(lambda v: None if pd.isna(v) else str(int(v)))
    text["b"] = df["b"].map(str)
    want = nbcert.certify(text, test.astype(str), "y")
    assert any(len(ls) for ls in want["possible_labels"])
    q = tmp_path / "q.csv"
    test.to_csv(q, index=False)  # a written 4
    got = nbcert.certify(dd.read_parquet(str(folder)), nbcert.read_csv(q), "y")
    assert frame(got) == frame(want)
    assert list(got["possible_labels"]) == list(want["possible_labels"])
    test.astype(float).to_csv(q, index=False)  # a written 4.0
    args = ["--train", folder, "--test", q, "--label", "y"]
    local = run_json(capsys, "certify", *args)
    assert run_json(capsys, "certify", *args, "--scheduler", client.scheduler.address) == local
    assert [r["possible_labels"] for r in local] == [
        sorted(map(str, ls)) for ls in want["possible_labels"]
    ]
