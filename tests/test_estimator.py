"""CertifiedNB: the scikit-learn contract (estimator checks, NotFittedError, clear input
errors) and agreement with the DataFrame API it wraps."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks
from strategies import alphas, complete_instances, instances

import nbcert
from nbcert.estimator import CertifiedNB

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

X = pd.DataFrame(
    {"f": ["a", np.nan, "b", "a", "b"], "g": ["x", "x", "y", np.nan, "y"]}, dtype=object
)
Y = ["p", "q", "q", "p", "q"]


@parametrize_with_checks([CertifiedNB(), CertifiedNB(alpha=1)])  # no expected failure
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


class _CompleteRowsNB(CertifiedNB):
    """CertifiedNB told not to allow NaN, so sklearn's pickle check predicts complete rows."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


@pytest.mark.parametrize("readonly_memmap", [False, True])  # pickle; joblib memory-mapped
def test_sklearn_pickle_check_on_complete_rows(readonly_memmap):
    from sklearn.utils.estimator_checks import check_estimators_pickle

    for alpha in (0, 1):
        check_estimators_pickle("CertifiedNB", _CompleteRowsNB(alpha), readonly_memmap)


@pytest.mark.parametrize(
    "method",
    [
        "predict",
        "predict_proba",
        "certify",
        "certified_predict",
        "possible_labels",
        "count_worlds",
        "score",
    ],
)
def test_not_fitted(method):
    args = (X, Y) if method == "score" else (X,)
    with pytest.raises(NotFittedError):
        getattr(CertifiedNB(), method)(*args)


@pytest.mark.parametrize(
    "y, position",
    [
        (["p", np.nan, "q", "p", "q"], 1),
        ([1.0, 2.0, 1.0, None, 2.0], 3),
        (pd.Series(["p", "q", "q", "p", pd.NA]), 4),
    ],
)
def test_missing_label_is_named_by_its_position_in_y(y, position):
    with pytest.raises(ValueError, match=f"^y: element {position} is missing$"):
        CertifiedNB().fit(X, y)


def test_input_errors_name_x_and_y():
    with pytest.raises(ValueError, match="X: feature column 'g' has no observed value"):
        CertifiedNB().fit(X.assign(g=np.nan), Y)
    with pytest.raises(ValueError, match="X has 5 rows but y has 4"):
        CertifiedNB().fit(X, Y[:4])
    with pytest.raises(ValueError, match="alpha"):
        CertifiedNB(alpha=1e400).fit(X, Y)
    with pytest.raises(TypeError, match="alpha"):
        CertifiedNB(alpha=[1]).fit(X, Y)
    est = CertifiedNB().fit(X, Y)
    assert est.predict(pd.DataFrame({"f": [np.nan], "g": ["x"]})).tolist() == ["p"]  # f left out
    with pytest.raises(ValueError, match="n_worlds"):
        est.count_worlds(X.iloc[[0]].fillna("a"), method="montecarlo", n_worlds=0)


def test_parameters_are_declared_by_the_shared_rules():
    from nbcert import params

    assert set(CertifiedNB._parameter_constraints) == set(CertifiedNB().get_params())
    assert CertifiedNB._parameter_constraints["alpha"] is params.rule("alpha")
    with pytest.raises(
        nbcert.ParameterError, match="^alpha must be a finite number >= 0, got 'x'$"
    ):
        CertifiedNB(alpha="x").fit(None, None)  # checked before X and y are looked at
    est = CertifiedNB().fit(X, Y)
    with pytest.raises(nbcert.ParameterError, match="unknown counting method 'exactly'"):
        est.count_worlds(X.iloc[[0]].fillna("a"), method="exactly")


def test_clone_and_params_round_trip():
    est = CertifiedNB(alpha=Fraction(1, 3))
    assert est.get_params() == {"alpha": Fraction(1, 3)}
    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()
    assert CertifiedNB().set_params(alpha=2).alpha == 2
    test = pd.DataFrame({"f": ["a", "b"], "g": ["x", "y"]}, dtype=object)
    a, b = est.fit(X, Y), clone(est).fit(X, Y)
    assert list(a.predict(test)) == list(b.predict(test))


def test_huge_alpha_predicts_the_largest_label():
    # with alpha -> inf every factor tends to 1/delta_j: the prior decides (q has 3 rows of 5)
    test = pd.DataFrame({"f": ["a", "b"], "g": ["x", "y"]}, dtype=object)
    assert list(CertifiedNB(alpha=1).fit(X, Y).predict(test)) == ["p", "q"]
    for alpha in (1e300, 1e308, Fraction(10**308)):
        est = CertifiedNB(alpha=alpha).fit(X, Y)
        assert list(est.predict(test)) == ["q", "q"]
        assert list(est.certified_predict(test)) == ["q", "q"]


@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_certify_equals_the_api(inst, alpha):
    est = CertifiedNB(alpha=alpha).fit(inst.train[inst.features], inst.train[inst.label])
    expected = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    Xt = inst.test[inst.features]
    assert list(est.certify(Xt)) == list(expected["robust"])
    assert list(est.certified_predict(Xt)) == list(expected["label"])


@SETTINGS
@given(inst=complete_instances(min_labels=2, unseen=False), alpha=alphas)
def test_predict_on_a_complete_table_is_the_one_worlds_prediction(inst, alpha):
    est = CertifiedNB(alpha=alpha).fit(inst.train[inst.features], inst.train[inst.label])
    got = est.predict(inst.test[inst.features])
    expected = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    for g, robust, lab in zip(got, expected["robust"], expected["label"]):
        if robust:  # one world: robust unless its top labels tie
            assert g == lab
