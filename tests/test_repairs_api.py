"""Repaired rows through the API and the command line: every input path gives the same
answers as enumeration; bad input is one line naming the file, row and column."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import brute_rows
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from repairs_strategies import crowded_instances, repair_instances

import nbcert
from nbcert.errors import InputError, ParameterError


def folder(inst, where) -> str:
    """The repairs as CPClean's folder: copy i gives each dirty row its i-th repair (its
    last where it has fewer; a repeated repair counts once)."""
    out = where / "X_train_repairs"
    out.mkdir()
    most = max((len(r) for r in inst.repairs.values()), default=1)
    for i in range(most):
        copy = inst.train[inst.features].copy()
        for r, reps in inst.repairs.items():
            for f, v in reps[min(i, len(reps) - 1)].items():
                copy.loc[r, f] = v
        copy.to_csv(out / f"imputer{i}.csv", index=False)
    return str(out)


@given(st.one_of(repair_instances(), crowded_instances()), st.sampled_from([0, 1, Fraction(1, 2)]))
@settings(max_examples=100, deadline=None)
def test_api_certify_equals_enumeration(inst, alpha):
    got = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, repairs=inst.frame)
    cols, y, reps, points, _ = inst.brute()
    for (_, row), t in zip(got.iterrows(), points):
        robust, label, possible, tie = brute_rows.certify(cols, y, reps, t, alpha)
        assert (row.robust, row.label, set(row.possible_labels)) == (robust, label, possible)
        assert row.tie_possible in (None, tie) and row.undecided is None


@given(inst=repair_instances(int_values=False))
@settings(max_examples=30, deadline=None)
def test_every_input_path_gives_the_same_answers(inst, tmp_path_factory):
    assume(inst.repairs)  # a CSV of no repairs has no data rows: an InputError
    where = tmp_path_factory.mktemp("repairs")
    inst.train.to_csv(where / "train.csv", index=False)
    inst.frame.to_csv(where / "long.csv", index=False)
    test = inst.test
    answers = [
        nbcert.certify(inst.train, test, "y", repairs=inst.frame),
        nbcert.certify(str(where / "train.csv"), test, "y", repairs=str(where / "long.csv")),
        nbcert.certify(str(where / "train.csv"), test, "y", repairs=folder(inst, where)),
    ]
    for other in answers[1:]:
        pd.testing.assert_frame_equal(answers[0], other)
    counts = [
        nbcert.count_worlds(inst.train, test, "y", repairs=inst.frame),
        nbcert.count_worlds(
            str(where / "train.csv"), test, "y", repairs=str(where / "X_train_repairs")
        ),
    ]
    assert [(c.counts, c.ties, c.total) for c in counts[0]] == [
        (c.counts, c.ties, c.total) for c in counts[1]
    ]


def test_numbers_are_binned_at_the_training_edges():
    """A repair's number takes the training table's bin (beyond the edges an end bin)."""
    train = pd.DataFrame(
        {"x": [1.0, 2.0, 9.0, 10.0, np.nan, np.nan], "y": ["a", "a", "b", "b", "a", "b"]}
    )
    test = pd.DataFrame({"x": [1.5, 9.5]})
    repairs = pd.DataFrame(
        {"row": [4, 4, 5], "repair": ["lo", "hi", "lo"], "column": "x", "value": [-50.0, 1.2, 0.5]}
    )
    got = nbcert.certify(train, test, "y", bins=2, repairs=repairs)
    # row 4 (a) is in the low bin either way; row 5 (b) too: the low bin is a's
    assert got.robust.tolist() == [True, True] and got.label.tolist() == ["a", "b"]
    counts = nbcert.count_worlds(train, test, "y", bins=2, repairs=repairs)
    assert counts[0].total == 1  # both of row 4's repairs fall in one bin: one distinct repair


@pytest.mark.parametrize(
    "repairs, said",
    [
        (
            pd.DataFrame({"row": [1], "repair": ["m"], "column": ["nope"], "value": ["x"]}),
            "repairs table: data row 0: column 'nope' is not a feature column",
        ),
        (
            pd.DataFrame({"row": [0], "repair": ["m"], "column": ["f"], "value": ["x"]}),
            "row 0, column 'f' is not missing",
        ),
        (
            pd.DataFrame(
                {"row": [1, 1], "repair": ["m", "m"], "column": ["f", "f"], "value": ["x", "z"]}
            ),
            "repairs table: data row 0: repair 'm' of row 1 gives this cell two values",
        ),
        (
            pd.DataFrame({"row": [1], "repair": ["m"], "column": ["g"], "value": ["x"]}),
            "repair 'm' of row 1 does not fill column 'f'",
        ),
        (
            pd.DataFrame(
                {"row": [1, 1], "repair": ["m", "m"], "column": ["f", "g"], "value": ["x", "y"]}
            ),
            "row 2 of the training table has missing cells but no repair",
        ),
        (pd.DataFrame({"row": [1]}), "repairs table: no column 'repair'"),
        (
            pd.DataFrame({"row": [9], "repair": ["m"], "column": ["f"], "value": ["x"]}),
            "data row 0: row 9 is not a data row of training table (0 to 2)",
        ),
    ],
)
def test_bad_repairs_are_one_line(repairs, said):
    train = pd.DataFrame({"f": ["x", None, "z"], "g": ["y", None, None], "y": ["a", "b", "a"]})
    test = pd.DataFrame({"f": ["x"], "g": ["y"]})
    with pytest.raises(InputError) as e:
        nbcert.certify(train, test, "y", repairs=repairs)
    assert said in str(e.value) and "\n" not in str(e.value)


def test_refused_combinations():
    train = pd.DataFrame({"f": ["x", None], "y": ["a", "b"]})
    test = pd.DataFrame({"f": ["x"]})
    rep = pd.DataFrame({"row": [1], "repair": ["m"], "column": ["f"], "value": ["x"]})
    cand = pd.DataFrame({"row": [1], "column": ["f"], "value": ["x"]})
    with pytest.raises(ParameterError, match="two world models"):
        nbcert.certify(train, test, "y", repairs=rep, candidates=cand)
    with pytest.raises(ParameterError, match="alpha 0"):
        nbcert.clean_with_truth(train, train.fillna("x"), test, "y", alpha=1, repairs=rep)
    with pytest.raises(ParameterError, match="not 'montecarlo'"):
        nbcert.count_worlds(train, test, "y", method="montecarlo", repairs=rep)


def test_a_row_repair_certifies_what_cells_cannot():
    """Row 2's repairs trade a match in f for one in g: per cell it may match both, which
    lifts b past a (2/15 > 1/10); whole rows never do (b at most 1/15)."""
    train = pd.DataFrame(
        {"f": ["u", "v", None, "v", "v"], "g": ["u", "v", None, "v", "u"], "y": list("aabbb")}
    )
    test = pd.DataFrame({"f": ["u"], "g": ["u"]})
    reps = pd.DataFrame(
        {
            "row": [2, 2, 2, 2],
            "repair": ["p", "p", "q", "q"],
            "column": ["f", "g", "f", "g"],
            "value": ["u", "v", "v", "u"],
        }
    )
    rows = nbcert.certify(train, test, "y", repairs=reps)
    per_cell = nbcert.certify(train, test, "y", candidates=reps[["row", "column", "value"]])
    assert not per_cell.robust[0] and per_cell.possible_labels[0] == ["a", "b"]
    assert rows.robust[0] and rows.label[0] == "a"


def cli(capsys, *args) -> tuple:
    """(exit status, stdout, stderr) of the command line, run in this process."""
    from nbcert.cli import main

    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    train = pd.DataFrame(
        {"f": ["u", "v", None, "v", "v"], "g": ["u", "v", None, "v", "u"], "y": list("aabbb")}
    )
    train.to_csv("train.csv", index=False)
    pd.DataFrame({"f": ["u", "v"], "g": ["u", "v"]}).to_csv("test.csv", index=False)
    Path("rep").mkdir()
    for name, (f, g) in {"p": ("u", "v"), "q": ("v", "u")}.items():
        train.drop(columns="y").fillna({"f": f, "g": g}).to_csv(f"rep/{name}.csv", index=False)
    base = ["--train", "train.csv", "--test", "test.csv", "--label", "y", "--repairs", "rep"]
    rc, out, err = cli(capsys, "certify", *base, "--json")
    assert rc == 0, err
    rows = json.loads(out)["results"]
    assert [(r["robust"], r["label"]) for r in rows] == [(True, "a"), (True, "b")]
    rc, out, err = cli(capsys, "count", *base, "--json")
    assert [r["total"] for r in json.loads(out)["results"]] == ["2", "2"]
    for command in ("clean", "poison"):
        rc, out, err = cli(capsys, command, *base)
        assert rc == 2 and err.count("\n") == 1 and "--repairs" in err and not out


def test_the_guide_page_runs_as_written(tmp_path, monkeypatch):
    """The Python block of docs/guide/repairs.md runs and its asserts hold."""
    monkeypatch.chdir(tmp_path)
    text = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "repairs.md").read_text()
    code = text.split("```python\n")[1].split("```")[0]
    exec(compile(code, "docs/guide/repairs.md", "exec"), {})
