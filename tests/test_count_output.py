"""What ``count`` prints: shares that never hide a possible label, the
exact total as a decimal string at any size, and ``auto`` that does not spend seconds a row
proving a row too large before estimating it anyway (checked by the work it does, not by
a clock: timings are in ``python -m nbcert.bench``)."""

from __future__ import annotations

import json
import math
import re
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcert
from nbcert import DataWarning
from nbcert.cli import counts as cli_counts
from nbcert.cli import main
from nbcert.count import AUTO_STATES, MAX_TOTAL_DIGITS, Worlds, exact, point_stats, states
from nbcert.stats import as_stats


def _run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _write(tmp_path, train: pd.DataFrame, test: pd.DataFrame, label: str) -> list:
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    return ["--train", tmp_path / "train.csv", "--test", tmp_path / "test.csv", "--label", label]


def _one_in_a_million():
    """Label b wins in exactly 1 of the 2^20 worlds: a has 19 of 20 rows with the test
    value x, b's 20 rows are blank (two values), and b wins only if all 20 take x (20
    worlds tie, at 19 each)."""
    train = pd.DataFrame(
        {"f": ["x"] * 19 + ["y"] + [None] * 20, "y": ["a"] * 20 + ["b"] * 20}, dtype=object
    )
    return train, pd.DataFrame({"f": ["x"]})


def _percent(cell: str) -> float:
    return float(re.fullmatch(r"\(?~?([0-9.e+-]+)%\)?,?\]?", cell.strip("[")).group(1))


def test_exact_share_of_a_possible_label_is_printed_in_significant_digits(tmp_path, capsys):
    """1 world in 2^20 (9.5e-05 %) printed as its two significant digits, not '<0.1%'."""
    args = _write(tmp_path, *_one_in_a_million(), "y")
    rc, out, err = _run(capsys, "count", *args, "--method", "exact")
    assert rc == 0, err
    header, row = (line.split() for line in out.splitlines())
    assert header == ["test_index", "a", "b", "ties", "total", "method"]
    assert row[3] == "1" and row[5] == "20" and row[7] == "1.05e+6"
    share = _percent(row[4])
    assert share == pytest.approx(100 / 2**20, rel=0.05)
    assert row[4] == "(9.5e-05%)"
    [res] = json.loads(_run(capsys, "count", *args, "--method", "exact", "--json")[1])["results"]
    assert res["counts"] == {"a": str(2**20 - 21), "b": "1"} and res["total"] == str(2**20)


def test_montecarlo_interval_of_an_unsampled_label_is_not_zero(tmp_path, capsys):
    """The issue's '~0.0% [0.0%, 0.0%]' for a possible label: the upper end of the interval
    is positive and printed so."""
    args = _write(tmp_path, *_one_in_a_million(), "y")
    rc, out, err = _run(capsys, "count", *args, "--method", "montecarlo", "--seed", "0")
    assert rc == 0, err
    [res] = json.loads(
        _run(capsys, "count", *args, "--method", "montecarlo", "--seed", "0", "--json")[1]
    )["results"]
    lo, hi = res["intervals"]["b"]
    assert res["fractions"]["b"] == 0 and lo == 0 and 0 < hi < 1e-3
    row = out.splitlines()[1]
    b_cell = re.search(r"~0% \[0%, ([0-9.e+-]+)%\]", row)
    assert b_cell is not None, row
    assert float(b_cell.group(1)) == pytest.approx(100 * hi, rel=0.05)
    assert "0.0%" not in row


def _huge_total_table():
    """One feature with 10,000 values and 25,001 blanks: 10^100004 worlds, more digits than
    MAX_TOTAL_DIGITS (where the int, and JSON's total, used to be None)."""
    observed = [f"v{i}" for i in range(10_000)]
    f = observed + [None] * 25_001
    train = pd.DataFrame({"f": f, "y": ["a", "b"] * (len(f) // 2) + ["a"]}, dtype=object)
    return train, pd.DataFrame({"f": ["v0"]})


def test_total_is_an_exact_decimal_string_past_max_total_digits(tmp_path, capsys):
    train, test = _huge_total_table()
    expected = "1" + "0" * 100_004
    assert len(expected) > MAX_TOTAL_DIGITS
    [wc] = nbcert.count_worlds(train, test, "y", method="montecarlo", n_worlds=50, seed=0)
    assert wc.total is None and wc.total_text == expected
    args = _write(tmp_path, train, test, "y")
    rc, out, err = _run(capsys, "count", *args, "--method", "montecarlo", "--worlds", "50")
    assert rc == 0, err
    assert out.splitlines()[1].split()[-2:] == ["1.00e+100004", "montecarlo"]
    rc, out, err = _run(
        capsys, "count", *args, "--method", "montecarlo", "--worlds", "50", "--json"
    )
    assert rc == 0, err
    [res] = json.loads(out)["results"]
    assert res["total"] == expected


@pytest.mark.parametrize("method", ["exact", "montecarlo"])
def test_total_text_is_the_total(method):
    rng = np.random.default_rng(3)
    X = rng.choice(np.array(["p", "q", "r"], dtype=object), size=(60, 4))
    X[rng.random(X.shape) < 0.3] = None
    train = pd.DataFrame(X, columns=list("abcd"))
    train["y"] = rng.choice(["u", "v"], size=60)
    test = train.drop(columns="y").iloc[:2].fillna("p")
    for wc in nbcert.count_worlds(train, test, "y", method=method, n_worlds=50, seed=0):
        assert int(wc.total_text) == wc.total > 3**10


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 300)), max_size=8))
def test_worlds_writes_the_exact_product(powers):
    """The digits of prod delta^M, equal domain sizes merged and products balanced, are the
    integer's own; one-value domains and features without blanks give a factor 1."""
    delta, missing = [d for d, _ in powers], [m for _, m in powers]
    w = Worlds.of_counts(delta, missing)
    expected = math.prod(d**m for d, m in powers)
    assert w.text == str(expected) and int(w) == expected
    assert len(w.text) <= w.digits and abs(w.log10 - math.log10(expected)) < 1e-9 * (1 + w.log10)


def test_a_count_writes_the_total_only_when_it_is_read(tmp_path, capsys, monkeypatch):
    """A table of 10^100004 worlds: counting leaves the digits unwritten (the text table
    shows three of them), JSON writes them in full, and the text table rounds a total
    past TEXT_DIGITS from its log10, marked ~."""
    train, test = _huge_total_table()
    [wc] = nbcert.count_worlds(train, test, "y", method="montecarlo", n_worlds=50, seed=0)
    assert "text" not in vars(wc.worlds), "the digits are written only when read"
    assert wc.total_text == "1" + "0" * 100_004 and "text" in vars(wc.worlds)
    args = _write(tmp_path, train, test, "y")
    monkeypatch.setattr(cli_counts, "TEXT_DIGITS", 1000)
    rc, out, err = _run(capsys, "count", *args, "--method", "montecarlo", "--worlds", "50")
    assert rc == 0, err
    assert out.splitlines()[1].split()[-2:] == ["~1.00e+100004", "montecarlo"]


def test_the_rows_of_one_count_share_one_total():
    """Rows with and without blank test cells are counted on different projections, but
    their totals are the whole table's: one Worlds, whose digits are written once."""
    train = pd.DataFrame(
        {"f": ["x", None, "y", "x"], "g": ["p", "q", None, "q"], "y": ["a", "a", "b", "b"]},
        dtype=object,
    )
    test = pd.DataFrame({"f": ["x", None, "y"], "g": ["p", "q", None]}, dtype=object)
    res = nbcert.count_worlds(train, test, "y", method="exact")
    assert len({id(wc.worlds) for wc in res}) == 1
    assert all(wc.total_text == "4" == str(wc.total) for wc in res)


def _issue_shape(seed=0, rows=2000, d=12, test_rows=25):
    """The issue's shape: 25 test rows and 1,975 training rows of a customer-like table, 12
    columns of 3-8 values, blanks concentrated in 5 of them (2-5 %), two labels."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    cols = {}
    for j in range(d):
        k = int(rng.integers(3, 9))
        shift = rng.integers(0, k, 2)
        v = (
            rng.integers(0, k, rows) * (rng.random(rows) < 0.5)
            + shift[y] * (rng.random(rows) >= 0.5)
        ) % k
        cols[f"f{j}"] = np.array([f"v{x}" for x in v], dtype=object)
    df = pd.DataFrame(cols)
    df["churn"] = np.where(y == 1, "yes", "no")
    test = df.iloc[:test_rows].drop(columns="churn").reset_index(drop=True)
    train = df.iloc[test_rows:].reset_index(drop=True)
    rates = np.zeros(d)
    rates[rng.permutation(d)[:5]] = 0.03 * (0.5 + rng.random(5))
    feats = [f"f{j}" for j in range(d)]
    train[feats] = train[feats].mask(rng.random((len(train), d)) < rates)
    return train, test


def test_auto_on_the_issue_shape_does_bounded_work_then_proves(monkeypatch):
    """auto neither proves a row has more than 2,000,000 supports (0.5-2 s a row) nor
    builds more than AUTO_STATES of them before leaving exact counting: every limit it
    works to is at most AUTO_STATES; it then proves each row's counts within an interval,
    so nothing is estimated and no DataWarning is given."""
    train, test = _issue_shape()
    test = test.iloc[:3]
    limits = []
    lower, build = states.distinct_lower_bound, exact.label_distribution

    def recording_lower(pt, delta, l, alpha, limit):
        limits.append(limit)
        return lower(pt, delta, l, alpha, limit)

    def recording_build(pt, delta, l, alpha, max_states, basis=None):
        limits.append(max_states)
        return build(pt, delta, l, alpha, max_states, basis)

    monkeypatch.setattr(states, "distinct_lower_bound", recording_lower)
    monkeypatch.setattr(exact, "label_distribution", recording_build)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = nbcert.count_worlds(train, test, "churn", time_limit=60)
    assert [wc.method for wc in res] == ["bounds"] * 3
    assert all(wc.proven_shares and wc.fractions is None for wc in res)
    assert limits and max(limits) <= AUTO_STATES
    assert not [w for w in caught if isinstance(w.message, DataWarning)]
    stats, pts = _points(train, test, "churn")  # proven past auto's budget
    assert all(states.too_large(pt, stats.delta, Fraction(0), AUTO_STATES) for pt in pts)


def _points(train, test, label):
    """The table's statistics and the test rows' Points."""
    from nbcert.reading.asked import ask
    from nbcert.reading.options import reading_options

    asked = ask(train, test, label, reading_options(train))
    stats = as_stats(asked.table)
    return stats, point_stats(stats, asked.T)


def test_cli_says_which_rows_auto_estimated(tmp_path, capsys):
    train, test = _issue_shape()
    args = _write(tmp_path, train, test.iloc[:2], "churn")
    rc, out, err = _run(capsys, "count", *args, "--worlds", "200", "--time-limit", "1e-9")
    assert rc == 0
    assert err.splitlines() == [
        "nbcert: warning: count: all 2 test points estimated by montecarlo: exact counting "
        f"would build more than {AUTO_STATES:,} distinct supports per label there "
        "and proven bounds did not reach width 0.001 within 1e-09 s (--method bounds "
        "proves intervals with a larger --time-limit or --width)"
    ]
    rc, out, err = _run(
        capsys, "count", *args, "--worlds", "200", "--seed", "0", "--json", "--time-limit", "1e-9"
    )
    assert rc == 0 and len(err.splitlines()) == 1
    assert [r["method"] for r in json.loads(out)["results"]] == ["montecarlo"] * 2


def test_auto_stays_exact_where_small(tmp_path, capsys):
    """Small rows are still counted exactly by default, with nothing on stderr."""
    args = _write(tmp_path, *_one_in_a_million(), "y")
    rc, out, err = _run(capsys, "count", *args)
    assert rc == 0 and err == "" and out.split()[-1] == "exact"


def test_exact_method_still_counts_past_auto_budget():
    """--method exact is not bound by AUTO_STATES: one label with more distinct supports
    than auto's budget is counted exactly, and the counts add up to the total."""
    rng = np.random.default_rng(5)
    n = 240
    train = pd.DataFrame(
        {f"f{j}": rng.choice(np.array(["p", "q"], dtype=object), n) for j in range(3)}
    )
    train["y"] = rng.choice(["u", "v"], n)
    for j, rate in enumerate([0.5, 0.45, 0.4]):
        train.loc[rng.random(n) < rate, f"f{j}"] = None
    test = pd.DataFrame({f"f{j}": ["p"] for j in range(3)})
    [wc] = nbcert.count_worlds(train, test, "y", method="exact")
    assert wc.method == "exact"
    assert sum(wc.counts.values()) + wc.ties == wc.total == int(wc.total_text)
    stats, [pt] = _points(train, test, "y")
    sizes = [
        len(exact.label_distribution(pt, stats.delta, l, Fraction(0), 10**9))
        for l in range(stats.m)
    ]
    assert max(sizes) > AUTO_STATES  # 37,579 and 17,639
    [auto] = nbcert.count_worlds(train, test, "y", time_limit=60)  # past auto's states
    assert auto.method == "bounds"
    for label, c in [*wc.counts.items(), ("ties", wc.ties)]:
        low, high = auto.proven_ties if label == "ties" else auto.proven[label]
        assert low <= c <= high and high - low <= wc.total // 1000


def test_scientific_total_from_the_decimal_string_rounds_as_the_integer():
    from nbcert.cli.render import scientific

    setter = getattr(sys, "set_int_max_str_digits", None)
    old = sys.get_int_max_str_digits() if setter else None
    if setter:
        setter(0)
    try:
        for n in [10**6, 1_234_567, 1_235_000, 9_995_000, 9_994_999, 3**9000, 10**7003 - 1]:
            assert scientific(str(n)) == scientific(n)
        assert scientific("999999") == "999999"
    finally:
        if setter:
            setter(old)
