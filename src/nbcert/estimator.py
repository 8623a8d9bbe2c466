"""A scikit-learn style estimator, so certification drops into existing sklearn code.

Inputs are checked here, the way scikit-learn's own estimators check them (2-D dense X,
a 1-D y of class labels, NotFittedError before ``fit``), with one difference: a NaN in
X is a missing cell, which is the point of the estimator, not an error.  Parameters are
declared in ``_parameter_constraints`` as scikit-learn's estimators declare them, with
nbcert's rules (``nbcert.params``, the API's and the command line's), and checked when
``fit`` starts (a ``ParameterError``: a ValueError and a TypeError).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d

from . import blanks
from .blanks import BLANK
from .certification import certify_index, possible_index
from .count import count_encoded
from .kernel import exact_support, first_argmax, log_factors, log_tolerance
from .params import RULES, validate
from .reading.encoding import encode
from .stats import from_table


def _frame(X, name: str = "X") -> pd.DataFrame:
    """X as a DataFrame of objects, after sklearn's shape checks (with its messages)."""
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(f"{name}: sparse input is not supported; pass a dense array or a DataFrame")
    if isinstance(X, pd.DataFrame):
        Xf = X.reset_index(drop=True)
    else:
        arr = np.asarray(X)
        if np.iscomplexobj(arr):
            raise ValueError(f"{name}: Complex data not supported")
        if arr.ndim != 2:
            raise ValueError(
                f"{name}: expected a 2-dimensional array, got {arr.ndim} dimension(s). "
                "Reshape your data with array.reshape(-1, 1) for a single feature or "
                "array.reshape(1, -1) for a single sample."
            )
        Xf = pd.DataFrame(arr.astype(object))
    for size, what in ((Xf.shape[0], "sample"), (Xf.shape[1], "feature")):
        if size == 0:
            raise ValueError(
                f"{name}: Found array with 0 {what}(s) (shape={Xf.shape}) while a minimum "
                "of 1 is required."
            )
    return Xf


def _labels(y, n: int) -> np.ndarray:
    """Give y as a 1-D object array of class labels, n of them, none missing."""
    if y is None:
        raise ValueError("CertifiedNB requires y to be passed, but the target y is None")
    arr = np.asarray(y)
    # a list mixing text and NaN becomes text, NaN the string "nan": keep the objects
    y = column_or_1d(np.asarray(y, dtype=object) if arr.dtype.kind in "US" else arr, warn=True)
    if np.iscomplexobj(y):
        raise ValueError("y: Complex data not supported")
    if y.dtype.kind == "f":
        finite = y[np.isfinite(y)]
        if np.isinf(y).any() or np.any(finite != np.floor(finite)):
            raise ValueError("y: Unknown label type: continuous; y must hold class labels")
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} elements")
    missing = pd.isna(y)
    if missing.any():
        raise ValueError(f"y: element {int(np.flatnonzero(missing)[0])} is missing")
    return y.astype(object)


def observed_factors(
    C: np.ndarray, observed: np.ndarray, delta: np.ndarray, alpha: Fraction
) -> np.ndarray:
    """Give the log of each feature's factor.

    log of each feature's factor (C + alpha) / (observed + alpha * delta), (k, m, d); a
    label with no observed value in a column (observed 0, so C 0) gets the uniform factor
    1 / delta there, which is what the formula gives for every alpha > 0 and its limit.
    """
    none = observed == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = log_factors(C, np.where(none, 1, observed), delta, alpha)
    return np.where(none, -np.log(delta.astype(float)), logs)


def _argmax(logs, C, observed, enc, alpha, T) -> np.ndarray:
    """Give per row the first label of largest support.

    Per row the first label of largest support; rows whose top two log supports are
    closer than the rounding bound (a near-tie, or any row with a huge alpha) are decided
    in exact arithmetic: N_l * prod_j (q C_lj + p) / (q observed_lj + p delta_j) over the
    row's non-blank features.
    """
    N = enc.label_sizes

    def exact_row(r):
        j = T[r] != BLANK
        delta = enc.delta[j]
        return [exact_support(C[r, l, j], N[l], delta, alpha, observed[l, j]) for l in range(enc.m)]

    return first_argmax(logs, log_tolerance(enc.d, enc.n, alpha), exact_row)


class CertifiedNB(ClassifierMixin, BaseEstimator):
    """Categorical Naive Bayes trained on a table with missing cells (NaN).

    ``predict`` is the usual classifier with missing cells left out of the counts
    (on complete data: the paper's classifier, and sklearn's CategoricalNB for alpha > 0)
    and ``predict_proba`` its normalised supports; ``certify`` says whether every possible
    cleaning of the training table gives the same unique prediction, ``certified_predict``
    returns that label or None, ``possible_labels`` the labels some cleaning predicts, and
    ``count_worlds`` counts cleanings per predicted label.

    Parameters
    ----------
    alpha : number, Fraction or str, default 0.0
        Laplace smoothing, read exactly (0.1 means 1/10).

    Attributes
    ----------
    classes_ : ndarray of objects, shape (n_classes,)
        The labels seen in ``fit``, in the order of ``predict_proba``'s columns.
    stats_ : Stats
        The training table's statistics (the paper's index): per label, the rows holding
        each feature value and the missing cells of each feature.
    encoded_ : EncodedTable
        The training table, integer-coded.
    alpha_ : Fraction
        ``alpha``, read exactly.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of str, shape (n_features,)
        The feature names seen in ``fit``; only when X was a DataFrame with string column
        names.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
    >>> model.predict([["red", "S"], ["blue", "L"]])
    array(['a', 'b'], dtype=object)
    >>> model.certify([["red", "S"], ["blue", "L"]])
    array([False,  True])
    >>> model.possible_labels([["red", "S"], ["blue", "L"]])
    array([list(['a', 'b']), list(['b'])], dtype=object)
    """

    _parameter_constraints: dict = {
        "alpha": RULES["alpha"]
    }  # nbcert.params rules, checked by _validate_params

    def __init__(self, alpha=0.0):
        self.alpha = alpha

    def __sklearn_tags__(self):
        """scikit-learn's tags, with NaN (a missing cell), text and categories allowed."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN is a missing cell
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _validate_params(self):
        """Check the parameters against ``_parameter_constraints`` (a ParameterError names the first bad one)."""
        params = self.get_params(deep=False)
        rules = self._parameter_constraints
        return {name: rule.check(params[name], name) for name, rule in rules.items()}

    def fit(self, X, y):
        """Count the training table.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Categorical features; NaN (or None) is a missing cell.
        y : array-like of shape (n_samples,)
            Class labels, none missing.

        Returns
        -------
        CertifiedNB
            The fitted estimator.

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> model.classes_
        array(['a', 'b'], dtype=object)
        >>> model.stats_.label_sizes.tolist()
        [3, 4]
        """
        self.alpha_ = self._validate_params()["alpha"]  # a Fraction, read once
        Xf = _frame(X)
        labels = _labels(y, len(Xf))
        label = "__label__"
        while label in Xf.columns:
            label += "_"
        self.encoded_ = encode(Xf.assign(**{label: labels}), label, name="X")
        self.stats_ = from_table(self.encoded_)
        self.classes_ = pd.Index(self.encoded_.labels).to_numpy()
        self.n_features_in_ = self.encoded_.d
        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.array(X.columns, dtype=object)
        return self

    def _codes(self, X):
        check_is_fitted(self, "encoded_")
        Xf = _frame(X)
        if not isinstance(X, pd.DataFrame):
            if Xf.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {Xf.shape[1]} features, but CertifiedNB is expecting "
                    f"{self.n_features_in_} features as input"
                )
            Xf.columns = list(self.encoded_.features)
        return self.encoded_.encode_test(Xf, name="X")

    def _log_supports(self, X) -> tuple:
        """Give the log supports of the test points and their counts.

        (log supports (k, m) up to -log n, agreeing counts C (k, m, d), observed cells
        (m, d), the test codes); a blank test cell's feature is left out (its factor 1).
        """
        T = self._codes(X)
        enc, idx = self.encoded_, self.stats_.counts
        C = np.where((T >= 0)[:, None, :], idx[:, enc.global_codes(T)].transpose(1, 0, 2), 0)
        observed = enc.label_sizes[:, None] - idx[:, enc.missing_codes]  # (m, d)
        factors = observed_factors(C, observed, enc.delta, self.alpha_)
        factors = np.where((T == BLANK)[:, None, :], 0.0, factors)
        return factors.sum(-1) + np.log(enc.label_sizes.astype(float)), C, observed, T

    def predict(self, X) -> np.ndarray:
        """Predict the label of largest support for each row.

        The support is counted on the observed training cells: ``S(l|t) = N_l/n * prod_j (c_lj + alpha) / (o_lj + alpha * delta_j)``,
        c_lj the observed label-l cells equal to t_j, o_lj the observed label-l cells of
        column j and delta_j its domain size.  A label with no observed value in column j
        (o_lj = 0) gets the factor 1/delta_j there: what the formula gives for any
        alpha > 0, and no evidence either way at alpha = 0.  Decided exactly where the top
        two supports are within rounding.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Test points; a blank (NaN) cell leaves its feature out of the row's product.

        Returns
        -------
        ndarray of shape (n_rows,)
            The predicted labels (the first of tied labels, in ``classes_`` order).

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> model.predict([["red", "S"], ["blue", "L"], ["blue", None]])  # None: left out
        array(['a', 'b', 'b'], dtype=object)
        """
        logs, C, observed, T = self._log_supports(X)
        return self.classes_[_argmax(logs, C, observed, self.encoded_, self.alpha_, T)]

    def predict_proba(self, X) -> np.ndarray:
        """Give the supports of ``predict``, normalised to sum to 1 per row.

        In floating point.  A row whose supports are all 0 (alpha = 0 and a value no label holds) has no
        evidence for any label: it gets the uniform 1/m.

        Parameters
        ----------
        X
            As for ``predict``.

        Returns
        -------
        ndarray of float, shape (n_rows, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> model.predict_proba([["red", "S"], ["blue", "L"]]).round(3)
        array([[0.6  , 0.4  ],
               [0.273, 0.727]])
        """
        logs = self._log_supports(X)[0]
        top = logs.max(axis=1, keepdims=True)
        none = ~np.isfinite(top)  # every support 0
        weights = np.exp(logs - np.where(none, 0.0, top))
        weights[none[:, 0]] = 1.0
        return weights / weights.sum(axis=1, keepdims=True)

    def certify(self, X) -> np.ndarray:
        """Whether each row is certifiably robust: one unique prediction in every possible world.

        Parameters
        ----------
        X
            As for ``predict``.

        Returns
        -------
        ndarray of bool, shape (n_rows,)

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> model.certify([["red", "S"], ["blue", "L"]])
        array([False,  True])
        """
        robust = self._per_group(X, lambda sub, T: certify_index(sub, T, self.alpha_).robust)
        return np.array(robust, dtype=bool)

    def certified_predict(self, X) -> np.ndarray:
        """The label every possible world predicts for each row, None where the row is not robust.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            As for ``predict``.

        Returns
        -------
        ndarray of objects, shape (n_rows,)
            A label of ``classes_``, or None.

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> model.certified_predict([["red", "S"], ["blue", "L"]])
        array([None, 'b'], dtype=object)
        """
        codes = self._per_group(X, lambda sub, T: certify_index(sub, T, self.alpha_).label)
        return np.array([self.classes_[c] if c >= 0 else None for c in codes], dtype=object)

    def possible_labels(self, X) -> np.ndarray:
        """Give the labels that some possible world predicts, per row.

        Each is the unique winner of some world (exact; ``nbcert.certify``'s
        ``possible_labels``).  A row is robust iff it has one
        possible label and no world ties; an empty list means every world ties.

        Parameters
        ----------
        X : array-like or DataFrame
            Test points, as for ``predict``.

        Returns
        -------
        labels : ndarray of objects, shape (n_rows,)
            Row i's possible labels as a list, in ``classes_`` order.

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> model.possible_labels([["red", "S"], ["blue", "L"]])
        array([list(['a', 'b']), list(['b'])], dtype=object)
        """
        rows = self._per_group(X, lambda sub, T: possible_index(sub, T, self.alpha_).labels)
        out = np.empty(len(rows), dtype=object)
        out[:] = [list(self.classes_[row]) for row in rows]
        return out

    def _per_group(self, X, answer) -> list:
        """Answer per group of rows with the same blank cells.

        ``answer(table, codes)`` per group of rows with the same blank cells, on the
        statistics' projection onto their other features (``nbcert.blanks``), per row.
        """
        T = self._codes(X)  # checks that the estimator is fitted
        return blanks.per_group(self.stats_, T, lambda sub, codes, *_: list(answer(sub, codes)))

    def count_worlds(
        self,
        X,
        *,
        method="auto",
        n_worlds=20_000,
        confidence=0.95,
        seed=None,
        max_states=2_000_000,
    ):
        """Worlds per predicted label for each row of X; see ``nbcert.count_worlds``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Test points; a blank (NaN) cell leaves its feature out of the row's product.
        method, n_worlds, confidence, seed, max_states
            As for ``nbcert.count_worlds``.

        Returns
        -------
        list of WorldCounts
            One per row.

        Examples
        --------
        >>> import nbcert
        >>> from nbcert.synthetic import example
        >>> train, _, _ = example()  # 7 rows (color, size, y), 2 missing cells
        >>> model = nbcert.CertifiedNB().fit(train[["color", "size"]], train["y"])
        >>> [c.counts for c in model.count_worlds([["red", "S"], ["blue", "L"]])]
        [{'a': 3, 'b': 1}, {'a': 0, 'b': 4}]
        """
        validate(
            "count_worlds",
            method=method,
            n_worlds=n_worlds,
            confidence=confidence,
            seed=seed,
            max_states=max_states,
        )
        T = self._codes(X)  # checks that the estimator is fitted
        return count_encoded(
            self.stats_,
            T,
            self.alpha_,
            method=method,
            n_worlds=n_worlds,
            confidence=confidence,
            seed=seed,
            max_states=max_states,
        )
