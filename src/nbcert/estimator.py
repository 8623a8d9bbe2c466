"""A scikit-learn style estimator, so certification drops into existing sklearn code."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .counting import count_encoded
from .decision import certify_index
from .encoding import encode
from .stats import from_table
from .support import as_alpha


def _frame(X) -> pd.DataFrame:
    return X.reset_index(drop=True) if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object))


class CertifiedNB(ClassifierMixin, BaseEstimator):
    """Categorical Naive Bayes trained on a table with missing cells (NaN).

    ``predict`` is the usual classifier with missing cells left out of the counts
    (on complete data: the paper's classifier, and sklearn's CategoricalNB for alpha=1);
    ``certify`` says whether every possible cleaning of the training table gives the
    same unique prediction, ``certified_predict`` returns that label or None, and
    ``count_worlds`` counts cleanings per predicted label.
    """

    def __init__(self, alpha=0.0):
        self.alpha = alpha

    def fit(self, X, y):
        as_alpha(self.alpha)
        Xf = _frame(X)
        label = "__label__"
        while label in Xf.columns:
            label += "_"
        table = Xf.assign(**{label: np.asarray(y, dtype=object)})
        self.encoded_ = encode(table, label)
        self.stats_ = from_table(self.encoded_)
        self.index_ = self.stats_.counts
        self.classes_ = np.array(self.encoded_.labels, dtype=object)
        self.feature_names_in_ = np.array(self.encoded_.features, dtype=object)
        return self

    def _codes(self, X):
        check_is_fitted(self, "encoded_")
        Xf = _frame(X)
        if not isinstance(X, pd.DataFrame):
            if Xf.shape[1] != len(self.encoded_.features):
                raise ValueError(f"X has {Xf.shape[1]} features, the estimator was fitted with {len(self.encoded_.features)}")
            Xf.columns = list(self.encoded_.features)
        return self.encoded_.encode_test(Xf, name="X")

    def predict(self, X) -> np.ndarray:
        enc, idx = self.encoded_, self.index_
        T = self._codes(X)
        a = float(as_alpha(self.alpha))
        seen = T >= 0
        C = np.where(seen[:, None, :], idx[:, enc.global_codes(T)].transpose(1, 0, 2), 0)
        observed = enc.label_sizes[:, None] - idx[:, enc.missing_codes]  # (m, d)
        with np.errstate(divide="ignore"):
            logs = (np.log(C + a) - np.log(observed + a * enc.delta)).sum(-1) + np.log(enc.label_sizes)
        return self.classes_[np.argmax(logs, axis=1)]

    def certify(self, X) -> np.ndarray:
        return certify_index(self.stats_, self._codes(X), self.alpha).robust

    def certified_predict(self, X) -> np.ndarray:
        dec = certify_index(self.stats_, self._codes(X), self.alpha)
        return np.array([self.classes_[c] if c >= 0 else None for c in dec.label], dtype=object)

    def count_worlds(self, X, **kwargs):
        return count_encoded(self.stats_, self._codes(X), self.alpha, **kwargs)
