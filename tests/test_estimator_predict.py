"""CertifiedNB.predict and predict_proba: the supports counted on the observed training
cells, a label with no observed value in a column getting 1/delta there; held against an
exact Fraction reference (labels lacking observed values included) and against
scikit-learn's CategoricalNB on complete tables (alpha > 0)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import OrdinalEncoder
from strategies import alphas, complete_instances, instances

from nbcert.estimator import CertifiedNB

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def reference_supports(train: pd.DataFrame, label: str, row: dict, alpha) -> dict:
    """S(l|t) = N_l/n * prod_j (c_lj + alpha) / (o_lj + alpha * delta_j) on the observed
    cells, factor 1/delta_j where label l has no observed value in column j (o_lj = 0)."""
    alpha = Fraction(alpha)
    feats = [c for c in train.columns if c != label]
    out = {}
    for lab in sorted(set(train[label])):
        block = train[train[label] == lab]
        s = Fraction(len(block), len(train))
        for f in feats:
            delta = len({v for v in train[f] if not _missing(v)})
            observed = [v for v in block[f] if not _missing(v)]
            if not observed:
                s *= Fraction(1, delta)
            else:
                s *= (sum(v == row[f] for v in observed) + alpha) / (len(observed) + alpha * delta)
        out[lab] = s
    return out


def _fit(inst, alpha):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (the old 0/0)
        return CertifiedNB(alpha=alpha).fit(inst.train[inst.features], inst.train[inst.label])


def _predict(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return est.predict(X), est.predict_proba(X)


def test_the_issue_case():
    """A label (q) with no observed value in column g: log(0/0) was NaN and np.argmax took it."""
    X = pd.DataFrame({"f": ["a", "b", "a"], "g": ["x", np.nan, "x"]}, dtype=object)
    y = ["p", "q", "p"]
    est = CertifiedNB().fit(X, y)
    test = pd.DataFrame({"f": ["a"], "g": ["x"]}, dtype=object)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert list(est.predict(test)) == ["p"] == list(est.certified_predict(test))  # was q
        assert est.predict_proba(test).tolist() == [[1.0, 0.0]]
    assert not caught, [str(w.message) for w in caught]
    counts = est.count_worlds(test)[0]
    assert counts.counts == {"p": 1, "q": 0} and counts.ties == 0


def test_the_uniform_factor():
    # q has no observed g (domain {x, y}): its g factor is 1/2.  alpha = 0:
    # S_p = 2/5 * 1/2 * 2/2 = 1/5, S_q = 2/5 * 1/2 * 1/2 = 1/10, S_r = 1/5 * 1 * 0 = 0
    X = pd.DataFrame(
        {"f": ["a", "b", "a", "b", "a"], "g": ["x", "x", np.nan, np.nan, "y"]}, dtype=object
    )
    y = ["p", "p", "q", "q", "r"]
    test = pd.DataFrame({"f": ["a"], "g": ["x"]}, dtype=object)
    pred, proba = _predict(CertifiedNB().fit(X, y), test)
    assert list(pred) == ["p"] and proba[0] == pytest.approx([2 / 3, 1 / 3, 0])
    # alpha = 1: the formula itself, (0 + 1) / (0 + 1 * 2) for q's g, is the same 1/delta:
    # S_p = 2/5 * 2/4 * 3/4 = 27/180, S_q = 2/5 * 2/4 * 1/2 = 18/180, S_r = 1/5 * 2/3 * 1/3 = 8/180
    pred, proba = _predict(CertifiedNB(alpha=1).fit(X, y), test)
    assert list(pred) == ["p"] and proba[0] == pytest.approx([27 / 53, 18 / 53, 8 / 53])


def test_every_support_zero_is_uniform():
    X = pd.DataFrame({"f": ["a", "b"]}, dtype=object)
    est = CertifiedNB().fit(X, ["p", "q"])
    pred, proba = _predict(est, pd.DataFrame({"f": ["z"]}, dtype=object))  # unseen: both supports 0
    assert list(pred) == ["p"] and proba.tolist() == [[0.5, 0.5]]


@st.composite
def lacking_instances(draw):
    """Instances where some label has no observed value in some column (its cells there blanked)."""
    inst = draw(instances(min_labels=2, max_missing=12))
    train = inst.train.copy()
    labels = sorted(set(train[inst.label]))
    for f in inst.features:
        lab = draw(st.sampled_from(labels + [None]))
        rows = train[inst.label] == lab
        if (
            lab is not None and train.loc[~rows, f].notna().any()
        ):  # the column keeps an observed value
            train.loc[rows, f] = np.nan
    return type(inst)(train=train, test=inst.test, label=inst.label)


@SETTINGS
@given(inst=lacking_instances(), alpha=alphas)
def test_predict_matches_the_exact_reference(inst, alpha):
    est = _fit(inst, alpha)
    pred, proba = _predict(est, inst.test[inst.features])
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
    for r, row in enumerate(inst.test_rows()):
        sup = reference_supports(inst.train, inst.label, row, alpha)
        best = max(sup.values())
        assert pred[r] == next(
            lab for lab in est.classes_ if sup[lab] == best
        )  # the first of tied labels
        total = sum(sup.values())
        expected = [float(sup[lab] / total) if total else 1 / len(sup) for lab in est.classes_]
        assert proba[r] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _sklearn(inst, alpha):
    """CategoricalNB over ordinal codes of the training values (its classes sorted, as ours)."""
    feats = inst.features
    cats = [sorted(inst.train[f].astype(str).unique()) for f in feats]
    enc = OrdinalEncoder(categories=cats)
    X = enc.fit_transform(inst.train[feats].astype(str)).astype(int)
    T = enc.transform(inst.test[feats].astype(str)).astype(int)
    classes = sorted(set(inst.train[inst.label]))
    y = np.array([classes.index(v) for v in inst.train[inst.label]])
    clf = CategoricalNB(alpha=float(alpha), min_categories=[len(c) for c in cats]).fit(X, y)
    return [classes[k] for k in clf.predict(T)], clf.predict_proba(T)


@SETTINGS
@given(
    inst=complete_instances(max_rows=20, max_features=4, min_labels=2, unseen=False, max_tests=4),
    alpha=st.sampled_from([1, Fraction(1, 2), 2, Fraction(1, 10), 7]),
)
def test_matches_categorical_nb(inst, alpha):
    for row in inst.test_rows():
        sup = reference_supports(inst.train, inst.label, row, alpha)
        assume(
            sum(v == max(sup.values()) for v in sup.values()) == 1
        )  # floats may order a tie either way
    pred, proba = _predict(_fit(inst, alpha), inst.test[inst.features])
    sk_pred, sk_proba = _sklearn(inst, alpha)
    assert list(pred) == sk_pred
    assert proba == pytest.approx(sk_proba, rel=1e-9, abs=1e-12)
