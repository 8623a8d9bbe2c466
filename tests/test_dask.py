"""Dask: the statistics of a Dask DataFrame, computed per partition on a LocalCluster with
two worker processes, give the in-memory answers; so does the CLI with --scheduler."""

from __future__ import annotations

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
