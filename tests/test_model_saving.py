"""Models that save: a fitted CertifiedNB, a fitted Binner and a pipeline
of both survive pickle and joblib round trips and answer exactly as before."""

from __future__ import annotations

import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

import nbcert


@pytest.fixture(scope="module")
def dirty():
    """A table with numeric, text and missing cells, and complete test rows."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {"a": rng.normal(size=120), "b": rng.normal(size=120), "c": rng.choice(list("uvw"), 120)}
    )
    y = np.where(X["a"] + 0.5 * X["b"] > 0, "p", "q")
    test = X.iloc[:12].copy()
    return X.mask(rng.random(X.shape) < 0.15), y, test


def _round_trips(model, tmp_path):
    yield pickle.loads(pickle.dumps(model))
    path = tmp_path / "model.joblib"
    joblib.dump(model, path)
    yield joblib.load(path)


def _answers(est, X):
    return {
        "predict": list(est.predict(X)),
        "predict_proba": est.predict_proba(X).tolist(),
        "certify": list(est.certify(X)),
        "certified_predict": list(est.certified_predict(X)),
        "possible_labels": [list(p) for p in est.possible_labels(X)],
    }


def test_a_fitted_certifiednb_round_trips(dirty, tmp_path):
    X, y, test = dirty
    est = nbcert.CertifiedNB(alpha=1).fit(nbcert.Binner(4).fit_transform(X), y)
    Xt = nbcert.Binner(4).fit(X).transform(test)
    want = _answers(est, Xt)
    twins = list(_round_trips(est, tmp_path))
    for twin in twins:
        assert _answers(twin, Xt) == want
        assert twin.stats_.first_missing == est.stats_.first_missing
        assert twin.get_params() == est.get_params()


def test_a_model_pickled_before_its_first_missing_cell_is_asked_for_finds_it(dirty):
    X, y, _ = dirty
    est = nbcert.CertifiedNB().fit(X[["c"]], y)
    twin = pickle.loads(pickle.dumps(est))  # the lazy locator travels, not its answer
    assert twin.stats_.first_missing == est.stats_.first_missing
    assert twin.stats_.first_missing is not None


def test_a_fitted_binner_round_trips(dirty, tmp_path):
    X, _, test = dirty
    binner = nbcert.Binner(4, categorical=["b"]).fit(X)
    want = binner.transform(test)
    for twin in _round_trips(binner, tmp_path):
        got = twin.transform(test)
        assert got.shape == want.shape
        assert pd.DataFrame(got).equals(pd.DataFrame(want))
        assert twin.bin_names_ == binner.bin_names_


def test_a_pipeline_of_binner_and_certifiednb_round_trips(dirty, tmp_path):
    X, y, test = dirty
    pipe = make_pipeline(nbcert.Binner(4), nbcert.CertifiedNB(1)).fit(X, y)
    Xt = pipe[0].transform(test)
    want = {"pipe": list(pipe.predict(test)), "proba": pipe.predict_proba(test).tolist()}
    want_certify = list(pipe[-1].certify(Xt))
    for twin in _round_trips(pipe, tmp_path):
        assert list(twin.predict(test)) == want["pipe"]
        assert twin.predict_proba(test).tolist() == want["proba"]
        assert list(twin[-1].certify(twin[0].transform(test))) == want_certify
