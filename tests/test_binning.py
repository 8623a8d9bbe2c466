"""Bins for numeric columns: one implementation (nbcert.reading.binning) held against
scikit-learn's KBinsDiscretizer, the pipeline's former discretize code, the Binner
transformer's estimator checks, and the breast-cancer table a new user would try; distinct
values never merged silently (a column of at most N values keeps each its own bin, merged
and empty bins are named)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from discretize import discretize
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbcert
from nbcert import DataWarning
from nbcert.reading import binning

STRATEGIES = ["uniform", "quantile", "kmeans"]


def kbins(values: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    extra = {"quantile_method": "averaged_inverted_cdf"} if strategy == "quantile" else {}
    kb = KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy=strategy, **extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kb.fit_transform(values.reshape(-1, 1))[:, 0]


columns = st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=3, max_size=40)


@pytest.mark.parametrize("strategy", STRATEGIES)
@settings(max_examples=40, deadline=None)
@given(values=columns, n_bins=st.integers(2, 6))
def test_codes_equal_kbinsdiscretizer_on_complete_data(strategy, values, n_bins):
    x = np.array(values)
    if (
        strategy == "kmeans" and len(x) < n_bins
    ):  # KBinsDiscretizer refuses; nbcert makes len(x) bins
        n_bins = len(x)
    got = binning.discretize_column(x, n_bins, strategy)
    assert np.array_equal(got, kbins(x, n_bins, strategy))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        binned = nbcert.Binner(n_bins, strategy).fit_transform(x.reshape(-1, 1))[:, 0]
    distinct, rank = np.unique(x, return_inverse=True)
    if len(distinct) > n_bins:  # the user's bins are the strategy's
        assert np.array_equal(binned, got)
    else:  # each value its own bin: its rank among the distinct values
        assert np.array_equal(binned, rank)


@pytest.mark.parametrize("strategy", STRATEGIES)
@settings(max_examples=40, deadline=None)
@given(
    values=columns,
    holes=st.lists(st.booleans(), min_size=40, max_size=40),
    n_bins=st.integers(2, 6),
)
def test_missing_stays_missing_and_takes_no_part_in_the_edges(strategy, values, holes, n_bins):
    x = np.array(values)
    hole = np.array(holes[: len(x)])
    hole[0] = False  # one observed value at least
    x[hole] = np.nan
    got = binning.discretize_column(x, n_bins, strategy)
    assert np.array_equal(np.isnan(got), hole)
    if (
        strategy == "kmeans" and (~hole).sum() < n_bins
    ):  # KBinsDiscretizer refuses: fewer bins, one for one value
        n_bins = int((~hole).sum())
    want = kbins(x[~hole], n_bins, strategy) if n_bins > 1 else np.zeros(1)
    assert np.array_equal(got[~hole], want)


def test_values_beyond_the_training_edges_fall_in_the_end_bins():
    train = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, np.nan, 5.0, 6.0], "y": list("aabbabb")})
    test = pd.DataFrame({"x": [-100.0, 1.0, 3.5, 6.0, 1e9]})
    fitted = binning.fit_columns(train, "y", 3, "uniform")
    names = fitted[0].names
    assert names == ("(-inf, 2.67)", "[2.67, 4.33)", "[4.33, inf)")
    out = binning.apply_columns(fitted, test, "test table")
    assert list(out["x"]) == [names[0], names[0], names[1], names[2], names[2]]
    assert binning.apply_columns(fitted, train, "t")["x"].isna().tolist() == [False] * 4 + [
        True,
        False,
        False,
    ]


def test_kmeans_with_fewer_values_than_bins_makes_fewer_bins():
    assert np.array_equal(
        binning.discretize_column(np.array([0.0, np.nan, 1.0]), 5, "kmeans"),
        [0.0, np.nan, 1.0],
        equal_nan=True,
    )


def test_interval_names_are_distinct_where_edges_are_close():
    names = binning.interval_names(np.array([0.0, 1.0001, 1.0002, 2.0]))
    assert len(set(names)) == 3 and names[1] == "[1.0001, 1.0002)"


@pytest.mark.parametrize(
    "values, numeric",
    [
        (["1", "2.5", None, "1e3", " 7"], True),
        ([1, 2, None], True),
        (["1", "x"], False),
        ([True, False], False),
        ([None, None], False),
        (["1", "inf"], False),
        (["a", None], False),
    ],
)
def test_numeric_means_every_observed_value_is_a_finite_number(values, numeric):
    assert (
        binning.numeric_values(pd.Series(values, dtype=object if values[0] is not True else bool))
        is not None
    ) == numeric


def _old_discretize(df, label, n_bins, strategy):
    """The pipeline's discretize stage before the shared implementation (reference)."""
    out = df.astype(object)
    for c in out.columns:
        observed = out[c].dropna()
        values = pd.to_numeric(observed, errors="coerce")
        if c == label or values.isna().any() or not np.isfinite(values.to_numpy(float)).all():
            continue
        extra = {"quantile_method": "averaged_inverted_cdf"} if strategy == "quantile" else {}
        kb = KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy=strategy, **extra)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            codes = kb.fit_transform(values.to_numpy(float).reshape(-1, 1))[:, 0].astype(int)
        col = pd.Series(np.nan, index=out.index, dtype=object)
        col[observed.index] = np.char.add("bin", codes.astype(str))
        out[c] = col
    return out


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_discretize_stage_unchanged(strategy):
    rng = np.random.default_rng(3)
    n = 300
    df = pd.DataFrame(
        {
            "a": rng.normal(size=n).round(3).astype(str),
            "b": rng.integers(0, 9, n).astype(str),
            "c": rng.choice(list("xyz"), n),
            "y": rng.choice(list("pq"), n),
        }
    )
    df = df.mask((rng.random(df.shape) < 0.2) & (df.columns != "y"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new = discretize(df, "y", n_bins=5, strategy=strategy)
    old = _old_discretize(df, "y", 5, strategy)
    assert new.astype(object).equals(old)


# ---------------------------------------------------------------------------------------
# the API


def test_api_bins_name_the_bins_and_keep_categorical_columns():
    train = pd.DataFrame(
        {"x": [1, 2, 3, 4, 5, 6, None, 8], "code": [1, 2, 1, 2, 1, 2, 1, 2], "y": list("ppppqqqq")}
    )
    test = pd.DataFrame({"x": [0.5, 7.5], "code": [1, 2]})
    binned, tb = binning.bin_tables(train, [(test, "test table")], "y", 2, "quantile", ["code"])
    assert set(binned["x"].dropna()) == {"(-inf, 4)", "[4, inf)"} and binned["x"].isna().sum() == 1
    assert list(tb["code"]) == [1, 2] and list(tb["x"]) == ["(-inf, 4)", "[4, inf)"]
    got = nbcert.certify(train, test, "y", bins=2, categorical=["code"])
    want = nbcert.certify(binned, tb, "y")
    assert got.equals(want) and list(got["label"]) == ["p", "q"]


def test_a_test_value_that_is_not_a_number_in_a_binned_column_is_an_error():
    train = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": list("pqp")})
    with pytest.raises(
        nbcert.InputError, match=r"test table: data row 1, column 'x' holds 'big', not a number"
    ):
        nbcert.certify(train, pd.DataFrame({"x": ["1", "big"]}), "y", bins=2)


def test_bins_refuse_streaming_and_check_before_reading(tmp_path):
    with pytest.raises(nbcert.ParameterError, match="bins needs the training table in memory"):
        nbcert.certify(
            str(tmp_path / "absent.csv"), pd.DataFrame({"x": [1]}), "y", bins=3, stream=True
        )
    for bad in (dict(bins=1), dict(bins=3, binning="median"), dict(categorical=[3])):
        with pytest.raises(nbcert.ParameterError):
            nbcert.certify(str(tmp_path / "absent.csv"), pd.DataFrame({"x": [1]}), "y", **bad)


def test_clean_with_truth_bins_the_truth_at_the_training_edges():
    truth = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "y": list("ppqqqq")})
    dirty = truth.assign(x=[1.0, None, 3.0, None, 5.0, 6.0])
    report = nbcert.clean_with_truth(
        dirty, truth, pd.DataFrame({"x": [1.5]}), "y", bins=2, binning="uniform"
    )
    assert report.points[0].num_cells is not None


# ---------------------------------------------------------------------------------------
# Binner


@parametrize_with_checks([nbcert.Binner(), nbcert.Binner(3, "uniform"), nbcert.Binner(4, "kmeans")])
def test_binner_passes_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_binner_before_certifiednb_fits_on_nan_and_certifies():
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {"a": rng.normal(size=200), "b": rng.normal(size=200), "c": rng.choice(list("uv"), 200)}
    )
    y = np.where(X["a"] > 0, "p", "q")
    X = X.mask(rng.random(X.shape) < 0.1)
    pipe = make_pipeline(nbcert.Binner(4), nbcert.CertifiedNB()).fit(X, y)
    test = pd.DataFrame({"a": [2.0, -2.0], "b": [0.0, 0.0], "c": ["u", "v"]})
    assert list(pipe.predict(test)) == ["p", "q"]
    robust = pipe[-1].certify(pipe[0].transform(test))
    want = nbcert.certify(X.assign(y=y), test, "y", bins=4)
    assert list(robust) == list(want["robust"])
    assert list(pipe[0].get_feature_names_out()) == ["a", "b", "c"]
    assert pipe[0].bin_edges_[2] is None and len(pipe[0].bin_names_[0]) == 4
    kept = nbcert.Binner(4, categorical=["b"]).fit(X)
    assert kept.bin_edges_[1] is None and kept.bin_edges_[0] is not None
    assert np.array_equal(kept.transform(X)[:, 1].astype(float), X["b"].to_numpy(), equal_nan=True)


def _penguin_like(n: int = 120):
    """Four numeric columns with blanks, one row blank throughout (as penguins' row 3)."""
    rng = np.random.default_rng(5)
    y = rng.choice(["Adelie", "Gentoo", "Chinstrap"], n)
    shift = pd.Series(y).map({"Adelie": 0.0, "Gentoo": 2.0, "Chinstrap": 4.0}).to_numpy()
    X = pd.DataFrame(
        {
            f: shift * (k + 1) + rng.normal(size=n)
            for k, f in enumerate(["bill", "depth", "flip", "mass"])
        }
    )
    X = X.mask(rng.random(X.shape) < 0.1)
    X.iloc[3] = np.nan
    return X, y


def test_a_pipeline_predicts_one_row_with_a_missing_number():
    """Binner.transform keeps blanks missing in any batch, also one whose column has no
    observed value (one all-NaN row raised "column 0 was numeric in fit but holds a value
    that is not a number")."""
    from sklearn.pipeline import make_pipeline

    X, y = _penguin_like()
    pipe = make_pipeline(nbcert.Binner(5), nbcert.CertifiedNB(alpha=1)).fit(X, y)
    whole = pipe.predict(X)
    assert [pipe.predict(X[i : i + 1])[0] for i in range(len(X))] == list(whole)
    assert np.isnan(pipe[0].transform(X[3:4])).all()
    # an all-blank row has only the prior: the most frequent label
    assert pipe.predict(X[3:4])[0] == pd.Series(y).value_counts().idxmax()
    assert pipe.predict_proba(X[3:4]).shape == (1, 3)
    row = [[X["bill"].median(), np.nan, X["flip"].median(), X["mass"].median()]]
    named = pd.DataFrame(row, columns=X.columns)
    assert pipe.predict(named)[0] == pipe.predict(pd.DataFrame(row, columns=X.columns).iloc[:1])[0]
    one = pipe[0].transform(named)
    assert np.isnan(one[0, 1]) and not np.isnan(one[0, [0, 2, 3]]).any()
    est = pipe[-1]
    assert est.certify(one).shape == (1,) and len(est.possible_labels(one)[0]) >= 1
    with pytest.raises(ValueError, match=r"column 1 was numeric in fit but row 0 holds 'x'"):
        pipe[0].transform(pd.DataFrame([[1.0, "x", 2.0, 3.0]], columns=X.columns))


def test_a_test_file_whose_numeric_column_is_blank_is_binned(tmp_path):
    """A test file's binned column may be entirely blank: its cells are left out."""
    X, y = _penguin_like()
    train = tmp_path / "train.csv"
    X.assign(species=y).to_csv(train, index=False)
    test = X.iloc[:5].copy()
    test["depth"] = np.nan
    path = tmp_path / "test.csv"
    test.to_csv(path, index=False)
    got = nbcert.certify(str(train), nbcert.read_csv(path), "species", bins=5)
    want = nbcert.certify(X.assign(species=y), test, "species", bins=5)
    assert len(got) == 5 and got["possible_labels"].tolist() == want["possible_labels"].tolist()


# ---------------------------------------------------------------------------------------
# a numeric table as a new user has it


@pytest.fixture(scope="module")
def breast_cancer():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    rng = np.random.default_rng(0)
    X = data.data.mask(rng.random(data.data.shape) < 0.1)
    table = X.assign(diagnosis=np.where(data.target == 1, "benign", "malignant"))
    return table.iloc[10:].reset_index(drop=True), data.data.iloc[:10]


def test_breast_cancer_without_bins_warns_and_with_bins_answers(breast_cancer):
    train, test = breast_cancer
    with pytest.warns(DataWarning, match=r"'mean radius'.* look numeric.*bins=N") as caught:
        plain = nbcert.certify(train, test, "diagnosis")
    assert not plain["robust"].any()
    assert any("never occur in training" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        binned = nbcert.certify(train, test, "diagnosis", bins=5)
    assert binned["robust"].sum() >= 5
    counts = nbcert.count_worlds(
        train, test.iloc[:3], "diagnosis", bins=5, method="montecarlo", n_worlds=200, seed=0
    )
    assert all(c.tie_fraction < 0.5 for c in counts)


# ---------------------------------------------------------------------------------------
# distinct values kept apart


def _messages(call, *args, **kw) -> tuple:
    """(what ``call`` returned, the messages of its DataWarnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call(*args, **kw)
    return got, [str(w.message) for w in caught if issubclass(w.category, DataWarning)]


@pytest.mark.parametrize("strategy", STRATEGIES)
@settings(max_examples=30, deadline=None)
@given(
    values=st.lists(st.sampled_from([-3.5, 0.0, 1.0, 2.0, 7.25, 1e6]), min_size=1, max_size=30),
    n_bins=st.integers(2, 8),
)
def test_a_column_of_at_most_n_values_keeps_each_value_its_own_bin(strategy, values, n_bins):
    x = np.array(values)
    distinct, rank = np.unique(x, return_inverse=True)
    if len(distinct) > n_bins:
        return
    binner, said = _messages(nbcert.Binner(n_bins, strategy).fit, x.reshape(-1, 1))
    assert np.array_equal(binner.transform(x.reshape(-1, 1))[:, 0], rank)
    assert len(binner.bin_names_[0]) == len(distinct)
    assert said == [
        f"Binner(n_bins={n_bins}): column 0 ({len(distinct)} value{'s' * (len(distinct) != 1)}) "
        "has no more distinct numbers than bins: each number is its own bin, none merged"
    ]
    # a test value between two training values falls in the bin of the nearer one
    if len(distinct) > 1:
        between = (distinct[:-1] + 0.49 * np.diff(distinct)).reshape(-1, 1)
        assert np.array_equal(binner.transform(between)[:, 0], np.arange(len(distinct) - 1))


def test_a_flag_column_is_two_bins_in_the_binner():
    """Binner(2) on a 0/1 column whose median is 0 made one bin (-inf, inf)."""
    X = np.array([0, 0, 0, 0, 1, 1, 0, 1], float).reshape(-1, 1)
    binner, said = _messages(nbcert.Binner(2).fit, X)
    assert binner.bin_names_ == [["(-inf, 0.5)", "[0.5, inf)"]]
    assert binner.transform(X)[:, 0].tolist() == X[:, 0].tolist() and len(said) == 1


def test_binned_flag_column_certifies_as_unbinned(tmp_path, capsys):
    """The reproduction: a 0/1 column with --bins 5 was one bin, so both rows said
    "(all tie)" where without --bins both are robust."""
    from test_cli import run

    (tmp_path / "b.csv").write_text("f,y\n0,a\n0,a\n0,a\n0,b\n1,b\n1,b\n0,a\n1,b\n")
    (tmp_path / "bt.csv").write_text("f\n0\n1\n")
    files = ["--train", str(tmp_path / "b.csv"), "--test", str(tmp_path / "bt.csv")]
    rc, binned, err = run(capsys, "certify", *files, "--label", "y", "--bins", "5")
    assert rc == 0 and err == (
        "nbcert: warning: --bins 5: column 'f' (2 values) has no more distinct numbers than "
        "bins: each number is its own bin, none merged\n"
    )
    rc, plain, err = run(capsys, "certify", *files, "--label", "y")
    assert rc == 0 and err == "" and binned == plain
    assert [line.split()[1:3] for line in plain.splitlines()[1:]] == [["yes", "a"], ["yes", "b"]]
    cert = tmp_path / "cert.json"  # the value-by-value bins' edges, as the checker reads them
    rc, _, _ = run(capsys, "certify", *files, "--label", "y", "--bins", "5", "--certificate", cert)
    assert rc == 0 and all(claim.ok for claim in nbcert.verify.check(cert))


def test_merged_and_empty_bins_are_named_in_one_line():
    """Quantiles of a column that is mostly 0 coincide (one bin where 5 were asked); uniform
    bins of a column with an outlier hold no training value."""
    train = pd.DataFrame(
        {
            "zeros": np.r_[np.zeros(50), np.arange(10.0)],
            "outlier": np.r_[np.arange(59.0), 1000.0],
            "y": ["p", "q"] * 30,
        }
    )
    test = train.drop(columns="y").iloc[:2]
    _, said = _messages(nbcert.certify, train, test, "y", bins=5)
    assert said == [
        "bins=5: quantile bins merged or empty in column 'zeros' (1 bin, not 5: equal edges "
        "merged); binning='kmeans' cuts them otherwise"
    ]
    _, said = _messages(nbcert.certify, train, test, "y", bins=5, binning="uniform")
    assert said == [
        "bins=5: uniform bins merged or empty in column 'outlier' (3 bins without a training "
        "value: a test value there is never seen in training); binning='kmeans' cuts them "
        "otherwise"
    ]


def test_a_column_of_many_values_quietly_gets_the_bins_asked_for(breast_cancer):
    train, test = breast_cancer
    binned, said = _messages(binning.fit_columns, train, "diagnosis", 5, "quantile")
    assert said == [] and all(len(cb.names) == 5 and cb.cut.empty == 0 for cb in binned)
