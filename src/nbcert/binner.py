"""``Binner``: a scikit-learn transformer that bins numeric columns and keeps NaN.

scikit-learn's ``KBinsDiscretizer`` rejects NaN, so it cannot stand before
``CertifiedNB`` on a table with missing cells.  ``Binner`` fits one ``KBinsDiscretizer``
per numeric column on that column's observed values (nbcert's one binning,
``nbcert.reading.binning``: a column of at most ``n_bins`` distinct values gets a bin per
value) and codes each value by its bin (0 .. n-1, as floats), NaN
where the cell is missing; other columns (text, booleans, the ``categorical`` ones) pass
through unchanged::

    make_pipeline(nbcert.Binner(5), nbcert.CertifiedNB()).fit(X, y)

The output is a float array when every column is binned, else an object array
(``set_output(transform="pandas")`` gives a DataFrame).  ``bin_edges_`` holds each
column's edges (None for a column passed through) and ``bin_names_`` their intervals,
e.g. ``[10.9, 14.5)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .errors import ParameterError
from .params import BINS, RULES
from .reading import binning, hints


class Binner(TransformerMixin, BaseEstimator):
    """Bin numeric columns with KBinsDiscretizer fitted on their observed values; NaN stays NaN.

    Parameters
    ----------
    n_bins : int, default 5
        Bins per numeric column, 2 to 10,000 (``nbcert.params.MAX_BINS``, the bound of
        ``bins``).  A column with at most ``n_bins`` distinct values gets one bin per value
        (a 0/1 column two bins, whatever the strategy); where the strategy merges bins
        (KBinsDiscretizer drops bins narrower than 1e-8) or leaves one without a training
        value, a ``DataWarning`` names the column, as it names the columns binned value by
        value.
    strategy : {"quantile", "uniform", "kmeans"}, default "quantile"
        KBinsDiscretizer's strategy (quantiles by ``averaged_inverted_cdf``).
    categorical : list of column names or positions, optional
        Numeric columns that hold categories: passed through, never binned.  A column of
        numbers with a few text tokens (``"?"``, ``"n/a"``) is not numeric, so it passes
        through too, with a ``DataWarning`` naming it and its tokens (replace them with NaN
        to bin it, or name it here to keep it as it is).

    Attributes
    ----------
    bin_edges_ : list
        Per input column, its bin edges (an array) or None when it passes through.
    bin_names_ : list
        Per input column, the names of its bins (intervals) or None.
    n_features_in_, feature_names_in_
        As scikit-learn's transformers set them.

    Examples
    --------
    >>> import numpy as np
    >>> import nbcert
    >>> X = [[1.0], [2.0], [np.nan], [10.0], [11.0]]
    >>> binner = nbcert.Binner(2).fit(X)
    >>> binner.bin_names_
    [['(-inf, 6)', '[6, inf)']]
    >>> y = ["a", "a", "b", "b", "b"]
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(nbcert.Binner(2), nbcert.CertifiedNB()).fit(X, y)
    >>> model.predict([[1.5], [12.0]])
    array(['a', 'b'], dtype=object)
    """

    _parameter_constraints: dict = {
        "n_bins": BINS,  # nbcert.params: 2 to MAX_BINS, the bound of --bins
        "strategy": RULES["binning"],
    }

    def __init__(self, n_bins=5, strategy="quantile", categorical=None):
        self.n_bins = n_bins
        self.strategy = strategy
        self.categorical = categorical

    def __sklearn_tags__(self):
        """scikit-learn's tags, with NaN (a missing cell), text and categories allowed."""
        tags = super().__sklearn_tags__()
        inputs = tags.input_tags
        inputs.allow_nan = inputs.string = inputs.categorical = True  # NaN is a missing cell
        return tags

    def _validate_params(self) -> list:
        """The ``categorical`` entries, after every parameter's rule (a ParameterError names it)."""
        for name, rule in self._parameter_constraints.items():
            rule.check(getattr(self, name), name)
        kept = (
            []
            if self.categorical is None
            else list(np.atleast_1d(np.asarray(self.categorical, dtype=object)))
        )
        if not all(isinstance(c, (str, int, np.integer)) and not isinstance(c, bool) for c in kept):
            raise ParameterError(
                f"categorical must be column names or positions, got {self.categorical!r}"
            )
        return kept

    def _array(self, X, reset: bool) -> np.ndarray:
        return validate_data(self, X, reset=reset, dtype=None, ensure_all_finite="allow-nan")

    def fit(self, X, y=None):
        """Fit the bins of every numeric column of X (y is ignored).

        Examples
        --------
        >>> import numpy as np
        >>> import nbcert
        >>> X = [[1.0], [2.0], [np.nan], [10.0], [11.0]]
        >>> nbcert.Binner(2).fit(X).bin_edges_
        [array([ 1.,  6., 11.])]
        """
        kept = self._validate_params()
        arr = self._array(X, reset=True)
        names = getattr(self, "feature_names_in_", None)
        self.bin_edges_, self.bin_names_, self._kbs = [], [], []
        stray = {}  # column -> its text tokens, where they alone keep it from being binned
        cuts = {}  # column as named in a warning -> its Cut
        for j in range(arr.shape[1]):
            keep = j in kept or names is not None and names[j] in kept
            col = pd.Series(arr[:, j])
            values = None if keep else binning.numeric_values(col)
            tokens = [] if keep or values is not None else hints.stray_tokens(col.dropna().unique())
            if tokens:
                stray[j if names is None else names[j]] = tokens
            cut = (
                None
                if values is None
                else binning.fit_column(values[~np.isnan(values)], self.n_bins, self.strategy)
            )
            if cut is not None:
                cuts[repr(names[j]) if names is not None else str(j)] = cut
            kb = None if cut is None else cut.kb
            self._kbs.append(kb)
            self.bin_edges_.append(None if kb is None else kb.bin_edges_[0])
            self.bin_names_.append(None if kb is None else binning.interval_names(kb.bin_edges_[0]))
        if stray:
            warnings.warn(hints.stray_warning(stray, binner=True), stacklevel=2)
        flag = ((f"Binner(n_bins={self.n_bins})", "strategy={!r}"),)
        for w in binning.bin_warnings(cuts, self.n_bins, self.strategy, flag):
            warnings.warn(w, stacklevel=2)
        return self

    def transform(self, X):
        """Replace each numeric column's values by their bin codes.

        A missing cell stays NaN, in any batch (a column of the batch may have no observed
        value).

        Examples
        --------
        >>> import numpy as np
        >>> import nbcert
        >>> X = [[1.0], [2.0], [np.nan], [10.0], [11.0]]
        >>> nbcert.Binner(2).fit(X).transform(X)
        array([[ 0.],
               [ 0.],
               [nan],
               [ 1.],
               [ 1.]])
        """
        check_is_fitted(self, "bin_edges_")
        arr = self._array(X, reset=False)
        binned = all(kb is not None for kb in self._kbs)
        out = np.empty(arr.shape, dtype=float if binned else object)
        for j, kb in enumerate(self._kbs):
            if kb is None:
                out[:, j] = arr[:, j]
                continue
            col = pd.Series(arr[:, j])
            blank = col.isna().to_numpy()
            # a batch whose cells of this column are all blank (one row with a NaN) stays blank
            values = np.full(len(col), np.nan) if blank.all() else binning.numeric_values(col)
            if values is None:
                bad = int(np.flatnonzero(~blank & pd.to_numeric(col, errors="coerce").isna())[0])
                raise ValueError(
                    f"column {j} was numeric in fit but row {bad} holds {col.iloc[bad]!r}, "
                    "not a number"
                )
            out[:, j] = binning.codes(kb, values)
        return out

    def get_feature_names_out(self, input_features=None):
        """The input feature names (binning keeps the columns)."""
        from sklearn.utils.validation import _check_feature_names_in

        check_is_fitted(self, "bin_edges_")
        return _check_feature_names_in(self, input_features)


__all__ = ["Binner"]
