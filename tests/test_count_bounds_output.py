"""What ``count --method bounds`` prints: each label's share (and the ties') as a proven
interval rounded outward, a rare share with its order of magnitude, JSON's ``proven``
counts as decimal strings and ``proven_shares`` as floats rounded outward; and the
README's count example."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from test_count_output import _run, _write
from test_readme_example import _nbcert, _shown, example  # noqa: F401 (a fixture)

import nbcert
from nbcert.cli.counts import percent
from nbcert.count import refine


def _table(seed=4, n=80, d=5):
    """Three labels, 5 features of 2-4 values, 35 % of the cells blank; test rows with an
    unseen value and a blank cell."""
    rng = np.random.default_rng(seed)
    X = np.array([rng.choice(["p", "q", "r", "s"][: 2 + j % 3], n) for j in range(d)]).T
    X = X.astype(object)
    X[rng.random(X.shape) < 0.35] = None
    train = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    train["y"] = rng.choice(["u", "v", "w"], n)
    test = train.drop(columns="y").iloc[:3].fillna("p").reset_index(drop=True)
    test.loc[1, "f0"], test.loc[2, "f1"] = "zz", None
    return train, test


def test_bounds_json_holds_the_exact_counts(tmp_path, capsys):
    args = _write(tmp_path, *_table(), "y")
    rc, out, err = _run(capsys, "count", *args, "--method", "exact", "--json")
    assert rc == 0, err
    want = json.loads(out)["results"]
    rc, out, err = _run(capsys, "count", *args, "--method", "bounds", "--width", "0.01", "--json")
    assert rc == 0, err
    got = json.loads(out)["results"]
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        assert g["method"] == "bounds" and g["counts"] is None and g["ties"] is None
        assert g["total"] == w["total"]
        total = int(w["total"])
        assert set(g["proven"]) == set(g["proven_shares"]) == {"u", "v", "w", "ties"}
        for label in ("u", "v", "w", "ties"):
            exact = int(w["ties"] if label == "ties" else w["counts"][label])
            low, high = (int(g["proven"][label][end]) for end in ("low", "high"))
            assert low <= exact <= high
            share = g["proven_shares"][label]
            assert Fraction(share["low"]) <= Fraction(exact, total) <= Fraction(share["high"])
            assert share["high"] - share["low"] <= 0.01 + 1e-12


def test_bounds_text_shows_intervals_rounded_outward(tmp_path, capsys):
    args = _write(tmp_path, *_table(), "y")
    rc, out, err = _run(capsys, "count", *args, "--method", "bounds", "--width", "0.2")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["test_index", "u", "v", "w", "ties", "total", "method"]
    assert all(line.split()[-1] == "bounds" for line in lines[1:4])
    assert re.search(r"\[[0-9.e-]+%, [0-9.e-]+%\]", "\n".join(lines[1:4]))
    assert lines[-1].startswith("([low, high]: the share of worlds proven to lie")


@pytest.mark.parametrize(
    "part, whole",
    [(1, 3), (2, 3), (999, 1000), (9995, 10_000), (1, 10**50), (7, 3**500), (1234, 10**6)],
)
def test_interval_ends_are_rounded_outward(part, whole):
    """A lower end never shows more than the share, an upper end never less."""
    share = Fraction(part, whole)

    def value(text):
        return Fraction(text.rstrip("%")) / 100  # exact: "3.1e-240%" too

    low, high = percent(part, whole, "down"), percent(part, whole, "up")
    assert value(low) <= share <= value(high)
    assert low != "0%" and high != "0%" and value(high) <= 10 * value(low)


def _rare_table():
    """With alpha = 1, label b wins only when 30 or more of its 60 blank cells take the test
    value v0 (one of 81 values): about 10^-41 of the worlds, and no world ties.  a has 100
    rows, 30 of them v0; b 101, none of them v0 observed."""
    a = ["v0"] * 30 + [f"v{i}" for i in range(1, 71)]
    b = [f"v{i}" for i in range(40, 81)] + [None] * 60
    train = pd.DataFrame({"f": a + b, "y": ["a"] * 100 + ["b"] * 101}, dtype=object)
    return train, pd.DataFrame({"f": ["v0"]})


def test_a_rare_share_prints_its_order_of_magnitude(tmp_path, capsys, monkeypatch):
    """The issue's '~0% [0%, 0.029%]' for a label possible in 10^-41 of the worlds: the
    proven interval shows its digits and order of magnitude (the buckets without exact
    keys, as on a table at full size)."""
    train, test = _rare_table()
    [wc] = nbcert.count_worlds(train, test, "y", alpha=1, method="exact")
    share = Fraction(wc.counts["b"], wc.total)
    assert 1e-43 < share < 1e-39 and wc.ties == 0
    monkeypatch.setattr(refine, "keyed_basis", lambda *a: None)
    args = _write(tmp_path, train, test, "y")
    rc, out, err = _run(
        capsys, "count", *args, "--alpha", "1", "--method", "bounds", "--time-limit", "30"
    )
    assert rc == 0, err
    b_cell = re.search(r"\[([0-9.]+e-\d+)%, ([0-9.]+e-\d+)%\]", out.splitlines()[1])
    assert b_cell is not None, out
    low, high = (Fraction(x) / 100 for x in b_cell.groups())
    assert low <= share <= high and high <= 10 * low


def test_blank_test_cells_multiply_the_proven_counts():
    """A blank test cell leaves its column out: its blanks' fillings multiply every count."""
    train, test = _table()
    exact = nbcert.count_worlds(train, test, "y", method="exact")
    proven = nbcert.count_worlds(train, test, "y", method="bounds", width=0.01)
    for e, p in zip(exact, proven):
        assert p.total == e.total
        for label, c in e.counts.items():
            assert p.proven[label][0] <= c <= p.proven[label][1]
        assert p.proven_ties[0] <= e.ties <= p.proven_ties[1]


def test_readme_count_example_shows_proven_intervals(example):  # noqa: F811
    """The README's count example, with time enough for every grid (a slower machine may
    stop refining earlier, within the default time limit)."""
    command = "nbcert count --train train.csv --test test.csv --label diagnosis --id id --bins 5"
    run = _nbcert(example, *command.split()[1:], "--time-limit", "60")
    shown = _shown(command)
    assert run.stdout.splitlines() == shown
    assert all(line.split()[-1] == "bounds" for line in shown[1:11])
