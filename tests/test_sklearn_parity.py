"""On complete tables nbcert (alpha = 1) is plain Naive Bayes: same predictions as
scikit-learn's CategoricalNB(alpha=1, fit_prior=True) over ordinal codes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
from brute import brute_robust
from hypothesis import HealthCheck, assume, given, settings
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import OrdinalEncoder
from strategies import complete_instances

import nbcert

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def exact_supports(train: pd.DataFrame, label: str, row: dict, alpha=Fraction(1)) -> dict:
    """S(l|t) for a complete table, by direct Fraction arithmetic."""
    feats = [c for c in train.columns if c != label]
    n = len(train)
    out = {}
    for l, block in train.groupby(label, sort=False):
        N_l = len(block)
        s = Fraction(N_l, n)
        for f in feats:
            c = int((block[f] == row[f]).sum())
            s *= (c + alpha) / (N_l + alpha * train[f].nunique())
        out[l] = s
    return out


def sklearn_predict(train: pd.DataFrame, test: pd.DataFrame, label: str) -> np.ndarray:
    feats = [c for c in train.columns if c != label]
    cats = [sorted(train[f].astype(str).unique()) for f in feats]
    enc = OrdinalEncoder(categories=cats)
    X = enc.fit_transform(train[feats].astype(str)).astype(int)
    T = enc.transform(test[feats].astype(str)).astype(int)
    clf = CategoricalNB(alpha=1, min_categories=[len(c) for c in cats], fit_prior=True)
    y = train[label].tolist()  # plain Python values: sklearn rejects int labels in object arrays
    classes = list(dict.fromkeys(y))
    clf.fit(X, np.array([classes.index(v) for v in y]))
    return [classes[int(k)] for k in clf.predict(T)]


@SETTINGS
@given(
    inst=complete_instances(max_rows=25, max_features=5, min_labels=2, unseen=False, max_tests=4)
)
def test_matches_categorical_nb(inst):
    rows = inst.test_rows()
    for row in rows:
        sup = exact_supports(inst.train, inst.label, row)
        best = max(sup.values())
        assume(sum(v == best for v in sup.values()) == 1)  # no tie in the complete table
    pred = sklearn_predict(inst.train, inst.test, inst.label)
    res = nbcert.certify(inst.train, inst.test, inst.label, alpha=1, method="index")
    res_it = nbcert.certify(inst.train, inst.test, inst.label, alpha=1, method="iterate")
    counts = nbcert.count_worlds(inst.train, inst.test, inst.label, alpha=1, method="exact")
    for i, row in enumerate(rows):
        sup = exact_supports(inst.train, inst.label, row)
        argmax = max(sup, key=sup.get)
        assert pred[i] == argmax, "sklearn disagrees with the exact supports (test bug?)"
        assert brute_robust(inst.train, inst.label, row, 1) == (True, argmax)
        for r in (res, res_it):
            assert bool(r["robust"].iloc[i]), "a complete table without ties is always robust"
            assert r["label"].iloc[i] == pred[i]
        assert counts[i].total == 1 and counts[i].ties == 0 and counts[i].counts[pred[i]] == 1
