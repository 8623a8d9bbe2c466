"""`nbcert clean`: the JSON contract with --truth, the ranked list without it, and one-line
errors for a truth file that does not match the training file."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from brute import brute_is_robust_after_cleaning, brute_min_clean
from hypothesis import HealthCheck, given, settings
from strategies import dirty_instances
from test_cli import run, write

import nbcert
from nbcert.cli import main

# Rows are not grouped by label (p, q, p, q, q, p, p), so data rows differ from encoded rows.
#   test (a, x): robust p already.  test (a, y): two cells must be cleaned (4:g and 5:g,
#   found by exhaustive search).  test (c, x): 'c' occurs nowhere, so every support is 0
#   in every cleaning (alpha = 0): impossible.
DIRTY = "f,g,y\na,x,p\nb,y,q\na,x,p\n,y,q\nb,,q\na,,p\n,x,p\n"
TRUTH = "f,g,y\na,x,p\nb,y,q\na,x,p\na,y,q\nb,x,q\na,y,p\nb,x,p\n"
TEST = "f,g\na,x\na,y\nc,x\n"
ROWS = [{"f": "a", "g": "x"}, {"f": "a", "g": "y"}, {"f": "c", "g": "x"}]


@pytest.fixture
def files(tmp_path):
    return (
        write(tmp_path, "dirty.csv", DIRTY),
        write(tmp_path, "truth.csv", TRUTH),
        write(tmp_path, "q.csv", TEST),
    )


def test_truth_json_contract(capsys, files):
    dirty, truth, test = files
    rc, out, err = run(
        capsys,
        "clean",
        "--train",
        dirty,
        "--test",
        test,
        "--label",
        "y",
        "--truth",
        truth,
        "--json",
    )
    assert rc == 0, err
    doc = json.loads(out)
    res = doc["results"]
    assert [r["test_index"] for r in res] == [0, 1, 2]
    assert res[0]["num_cells"] == 0 and res[0]["cells"] == [] and res[0]["label"] == "p"
    assert res[1]["num_cells"] == 2 and res[1]["label"] == "p"
    assert res[1]["cells"] == [{"row": 4, "column": "g"}, {"row": 5, "column": "g"}]
    assert res[2]["num_cells"] is None and res[2]["cells"] == [] and res[2]["label"] is None
    d, t = pd.read_csv(dirty, dtype=str), pd.read_csv(truth, dtype=str)
    for r, row in zip(res, ROWS):
        assert r["num_cells"] == brute_min_clean(d, t, "y", [row])
    # row 2 is impossible: set aside and named, the answer is about rows 0 and 1
    tg = doc["together"]
    assert tg["excluded"] == [2] and tg["target_rows"] == tg["certified_rows"] == 2
    assert tg["num_cells"] == 2 == tg["lower_bound"] and tg["optimal"] is True
    assert tg["num_rows"] == 2 and tg["budget_limited"] is False
    assert brute_min_clean(d, t, "y", ROWS[:2]) == 2
    cells = [(c["row"], c["column"]) for c in tg["cells"]]
    assert all(brute_is_robust_after_cleaning(d, t, "y", row, cells) for row in ROWS[:2])
    assert (
        set(doc["path"]) == {"num_cells", "cells", "certifies_all"}
        and doc["path"]["certifies_all"] is True
    )


def test_truth_text_output(capsys, files):
    dirty, truth, test = files
    rc, out, _ = run(
        capsys, "clean", "--train", dirty, "--test", test, "--label", "y", "--truth", truth
    )
    assert rc == 0
    assert (
        "4:g, 5:g" in out
        and "(already robust)" in out
        and "(impossible: no cleaning makes it robust)" in out
    )
    assert (
        "all points together: 2 cells in 2 rows (optimal: at least 2 needed, proven; found by "
        "exact): 4:g, 5:g" in out
    )
    assert "set aside: 1 point that no cleaning certifies (proven): 2" in out
    assert "policy path:" in out


def test_a_target_met_without_cleaning_says_so(capsys, files):
    """With --target 0.5 one of the two rows some cleaning certifies is enough, and it is
    robust already: 0 cells, optimal because nothing needs cleaning (it printed "0 cells
    (optimal, greedy)", a heuristic's name beside a proof)."""
    dirty, truth, test = files
    args = ["--train", dirty, "--test", test, "--label", "y", "--truth", truth]
    rc, out, _ = run(capsys, "clean", *args, "--target", "0.5")
    assert rc == 0 and "(optimal, greedy)" not in out
    assert "all points together: 0 cells (optimal: the points asked for are robust without " in out
    rc, out, _ = run(capsys, "clean", *args, "--target", "0.5", "--json")
    together = json.loads(out)["together"]
    assert together["num_cells"] == 0 and together["why_not_optimal"] is None


def test_the_default_proves_the_readme_examples_optimum(tmp_path):
    """clean --truth on the README's example: by default the exact search proves 857 cells
    optimal for all rows together (the default stopped at greedy's 864, unproven)."""
    import subprocess
    import sys

    from conftest import ROOT

    pytest.importorskip("sklearn.datasets")
    subprocess.run(
        [sys.executable, str(ROOT / "examples/breast_cancer.py")], cwd=tmp_path, check=True
    )
    paths = [str(tmp_path / f) for f in ("train.csv", "truth.csv", "test.csv")]
    tg = nbcert.clean_with_truth(*paths, "diagnosis", id="id", bins=5).together
    assert (tg.num_cells, tg.search_optimal, tg.search_bound, tg.method) == (
        857,
        True,
        857,
        "exact",
    )
    assert tg.lower_bound <= 857 and tg.optimal == (tg.lower_bound == 857)


def test_ranked_list_is_the_api_answer(capsys, files):
    dirty, _, test = files
    rc, out, err = run(
        capsys, "clean", "--train", dirty, "--test", test, "--label", "y", "--json", "--top", "3"
    )
    assert rc == 0, err
    got = json.loads(out)["results"]
    want = nbcert.clean(nbcert.read_csv(dirty), nbcert.read_csv(test), "y", top=3)
    assert [(r["row"], r["column"], r["label"], r["group_cells"]) for r in got] == list(
        zip(want.row, want.column, want.label, want.group_cells)
    )
    assert [r["rank"] for r in got] == list(range(1, len(got) + 1)) and all(r["why"] for r in got)
    rc, text, _ = run(
        capsys, "clean", "--train", dirty, "--test", test, "--label", "y", "--top", "3"
    )
    assert rc == 0 and text.splitlines()[0].split()[:4] == ["rank", "row", "column", "label"]


BAD_TRUTH = [
    (TRUTH.replace("f,g,y", "f,h,y"), "header"),
    (TRUTH.rsplit("b,x,p", 1)[0], "it has 6 data rows"),
    (TRUTH.replace("b,x,q", "b,,q"), "data row 4 has no value in column 'g'"),
]


@pytest.mark.parametrize("text, words", BAD_TRUTH)
def test_truth_file_errors_are_one_line(capsys, tmp_path, files, text, words):
    dirty, _, test = files
    bad = write(tmp_path, "bad.csv", text)
    rc, out, err = run(
        capsys, "clean", "--train", dirty, "--test", test, "--label", "y", "--truth", bad
    )
    assert rc == 2 and out == ""
    assert err.startswith(f"nbcert: error: {bad}: ") and words in err and err.count("\n") == 1


def test_a_truth_that_differs_on_observed_cells_is_one_warning(capsys, tmp_path, files):
    """The truth's observed cells that differ from the training file's: one warning line
    with the first pair of raw values, and the answer of the training file's values."""
    dirty, truth, test = files
    changed = TRUTH.replace("a,x,p\na,y,q", "a,y,p\na,y,q").replace("a,y,p\nb,x,p", "b,y,p\nb,x,p")
    bad = write(tmp_path, "bad.csv", changed)
    argv = ["clean", "--train", dirty, "--test", test, "--label", "y", "--json", "--truth"]
    rc, out, err = run(capsys, *argv, bad)
    assert rc == 0 and err.splitlines()[0] == (
        f"nbcert: warning: {bad}: 2 observed cells of {dirty} differ in it (the first: data "
        f"row 2, column 'g' is 'y' where {dirty} has 'x'); the truth is used for the missing "
        f"cells only, and {dirty}'s values stand"
    )
    assert "never occurs in training" in err.splitlines()[1]  # test row 2's 'c'

    rc, want, _ = run(capsys, *argv, truth)
    assert json.loads(out) == json.loads(want)


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--method", "exact"], "--method needs --truth"),
        (["--batch", "2"], "--batch needs --truth"),
        (["--alpha", "x"], "--alpha"),
    ],
)
def test_option_errors(capsys, files, extra, words):
    dirty, _, test = files
    rc, _, err = run(capsys, "clean", "--train", dirty, "--test", test, "--label", "y", *extra)
    assert rc == 2 and words in err and err.count("\n") == 1


def test_exact_needs_alpha_zero(capsys, files):
    dirty, truth, test = files
    rc, _, err = run(
        capsys,
        "clean",
        "--train",
        dirty,
        "--test",
        test,
        "--label",
        "y",
        "--truth",
        truth,
        "--alpha",
        "1",
        "--method",
        "exact",
    )
    assert rc == 2 and "alpha = 0" in err


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(dirty_instances(max_rows=5, max_missing=5, min_labels=2))
def test_cli_minimum_matches_exhaustive_search(inst):
    with tempfile.TemporaryDirectory() as tmp:
        d, t, q = Path(tmp, "d.csv"), Path(tmp, "t.csv"), Path(tmp, "q.csv")
        inst.dirty.to_csv(d, index=False)
        inst.truth.to_csv(t, index=False)
        inst.test[inst.features].to_csv(q, index=False)
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(
                [
                    "clean",
                    "--train",
                    str(d),
                    "--test",
                    str(q),
                    "--label",
                    inst.label,
                    "--truth",
                    str(t),
                    "--json",
                    "--method",
                    "greedy",
                ]
            )
        assert rc == 0
        dirty, truth = nbcert.read_csv(d), nbcert.read_csv(t)
        for r, row in zip(json.loads(buf.getvalue())["results"], inst.test_rows()):
            row = {f: str(v) for f, v in row.items()}
            assert r["num_cells"] == brute_min_clean(dirty, truth, inst.label, [row])
            cells = [(c["row"], c["column"]) for c in r["cells"]]
            if r["num_cells"]:
                assert brute_is_robust_after_cleaning(dirty, truth, inst.label, row, cells)


NUMERIC = (
    "x,g,y\n6.37,v,lo\n2.7,v,hi\n,u,lo\n,v,lo\n8.13,v,hi\n,v,hi\n,u,hi\n,v,hi\n5.44,v,hi\n9.35,v,hi\n"
    "8.16,u,hi\n0.03,,lo\n,v,hi\n0.34,v,lo\n7.3,u,lo\n1.76,v,lo\n8.63,v,hi\n5.41,v,hi\n3.0,u,lo\n"
    "4.23,u,lo\n0.28,,lo\n,v,lo\n6.71,u,hi\n6.47,,hi\n,u,hi\n3.84,v,lo\n9.97,u,hi\n9.81,v,hi\n,,hi\n"
    "6.5,u,lo\n,v,hi\n3.89,,hi\n,v,lo\n7.21,v,hi\n5.25,,hi\n,u,lo\n4.86,v,lo\n,u,hi\n9.34,u,hi\n3.58,,hi\n"
)


def test_the_reason_names_the_test_value_and_its_bin(capsys, tmp_path):
    """A binned column's test value is named by its bin (``x ∈ [7.21, inf)``), a category
    by its value (``g = u``), in the text and in the JSON."""
    train, test = write(tmp_path, "num.csv", NUMERIC), write(tmp_path, "q.csv", "x,g\n7.5,u\n")
    rc, out, err = run(
        capsys, "clean", "--train", train, "--test", test, "--label", "y", "--bins", "3", "--json"
    )
    assert rc == 0, err
    got = json.loads(out)["results"]
    binned = nbcert.reading.binning.fit_columns(nbcert.read_csv(train), "y", 3, "quantile")[0]
    bin_of_test = binned.named(pd.Series([7.5]).to_numpy(float), pd.RangeIndex(1))[0]
    assert bin_of_test == "[7.21, inf)"
    assert {(r["column"], r["test_value"]) for r in got} == {("x", bin_of_test), ("g", "u")}
    rc, text, _ = run(
        capsys, "clean", "--train", train, "--test", test, "--label", "y", "--bins", "3"
    )
    assert rc == 0
    assert (
        "may hold another value than x ∈ [7.21, inf)" in text
        and "may hold the test value g = u" in text
    )


def test_a_group_s_cells_are_listed(tmp_path, capsys):
    """A cleaning group's cells: all of them in JSON, in text with --cells, and a long list
    summarised in text (the JSON keeps every cell)."""
    rows = ["a,x,p"] * 3 + ["b,y,q"] * 2 + [",y,q"] * 30 + ["a,,p"]
    train = write(tmp_path, "train.csv", "f,g,y\n" + "\n".join(rows) + "\n")
    test = write(tmp_path, "test.csv", "f,g\na,y\n")
    argv = ["clean", "--train", train, "--test", test, "--label", "y"]
    assert main([*argv, "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["results"]
    big = next(g for g in groups if g["group_cells"] == 30)
    assert [c["row"] for c in big["cells"]] == list(range(5, 35))
    assert {c["column"] for c in big["cells"]} == {"f"}
    assert main(argv) == 0
    assert "cells (row:column)" not in capsys.readouterr().out
    assert main([*argv, "--cells"]) == 0
    out = capsys.readouterr().out
    assert "5:f, 6:f" in out and "... and 18 more (all in --json)" in out


def test_the_branching_limit_names_the_way_on(tmp_path, capsys):
    """clean --truth --alpha 1 on numbers not binned stopped with "more than 4096 column
    domain outcomes" and no way forward: the line names the columns that multiply them and
    --bins; with --bins N the same question is answered exactly."""
    import numpy as np

    rng = np.random.default_rng(2)
    n = 150
    y = rng.choice(["a", "b", "c"], n)
    truth = pd.DataFrame({f"x{k}": rng.normal(size=n).round(2) + (y == "a") for k in range(3)})
    truth["y"] = y
    dirty = truth.mask((rng.random(truth.shape) < 0.12) & (truth.columns != "y"))
    paths = [str(tmp_path / f) for f in ("dirty.csv", "truth.csv", "q.csv")]
    dirty.to_csv(paths[0], index=False)
    truth.to_csv(paths[1], index=False)
    truth.drop(columns="y").iloc[:3].to_csv(paths[2], index=False)
    argv = ["clean", "--train", paths[0], "--truth", paths[1], "--test", paths[2], "--label", "y"]
    rc, out, err = run(capsys, *argv, "--alpha", "1")
    line = err.splitlines()[-1]
    assert rc == 2 and out == "" and line.startswith("nbcert: error: the exact minimum")
    assert "4,096" in line and "'x0' (" in line and "--bins N" in line and "alpha 0" in line
    rc, out, err = run(capsys, *argv, "--alpha", "1", "--bins", "3", "--json")
    assert rc == 0, err
    assert len(json.loads(out)["results"]) == 3
    with pytest.raises(nbcert.InputError, match=r"bins=N in Python"):
        nbcert.clean_with_truth(paths[0], paths[1], paths[2], "y", alpha=1)
