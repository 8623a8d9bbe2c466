"""Numeric columns into bins: one implementation for the API, the command line, the
``Binner`` transformer and the pipeline's discretize stage.

*Numeric column.*  A column is numeric when it has an observed value and every observed
(non-missing) value is a finite number: a number, or text that ``pandas.to_numeric``
reads as one (``"10"``, ``"1e3"``, ``" 2.5"``).  The rule looks at the values, not at a
type, because nbcert reads a CSV as the text written in it (a column of pyarrow type
``string``); a DataFrame from ``pandas.read_csv`` (floats) and the same file's text give
the same answer.  Booleans are categories.  The same rule makes a column that is not binned
one of numbers, compared by value (``nbcert.stats.domains.as_numbers``).  The label column and the columns listed in
``categorical`` (integer codes of categories) are never binned.  A column of numbers with a
few text tokens (``?``, ``n/a``) is not numeric, so it is not binned either; a
``DataWarning`` (``nbcert.reading.hints``) names every such column with all its tokens, and
declaring the tokens missing (``missing=[...]``, ``--missing``) bins it.

*Bins.*  Each numeric column is cut by scikit-learn's ``KBinsDiscretizer`` (``encode=
"ordinal"``, strategy ``uniform``, ``quantile`` or ``kmeans``; quantiles by
``averaged_inverted_cdf``) fitted on the training table's observed values of that column
alone: a missing cell stays missing and takes no part in the edges.  Other tables (test
rows, the truth) are cut at the training edges by the fitted discretizer, whose codes are
``searchsorted(inner edges, x, side="right")``: a value below the lowest edge falls in the
first bin, above the highest in the last.

*Distinct values kept apart.*  A column with at most N distinct observed values (a 0/1
flag, a count of cylinders) is not cut by the strategy, which would merge values (the
quantiles of a 0/1 column whose median is 0 make one bin): each value is its own bin,
the edges halfway between neighbouring values (the quantile edges of the distinct values,
``fit_column``), and one ``DataWarning`` names every such column.  Where the strategy cuts
a column of more values, it may still merge bins (KBinsDiscretizer drops a bin narrower
than 1e-8: equal quantiles of a skewed column) or leave a bin without a training value
(``uniform``: a test value there is unseen); one ``DataWarning`` names every such column
and how many bins were merged or left empty (``bin_warnings``).  The pipeline's
``discretize_column`` is the paper's binning, KBinsDiscretizer as it is.

*Names.*  Bin k of a column is named by its interval at the training edges, the end bins
open to infinity because they take every value beyond them: ``(-inf, 10.9)``,
``[10.9, 14.5)``, ..., ``[20.1, inf)``; edges are printed with 3 significant digits, more
where two would print alike.  The pipeline names them ``bin0`` .. ``bin{n-1}`` (the
paper's tables).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import DataWarning, InputError, caller_level

STRATEGIES = ("uniform", "quantile", "kmeans")


def numeric_values(col: pd.Series) -> np.ndarray | None:
    """The column as float64 (NaN where missing) if it is numeric (see the module), else None."""
    if col.dtype.kind == "b":
        return None
    if col.dtype.kind in "iuf":
        values = col.to_numpy(float, na_value=np.nan)
        observed = values[~np.isnan(values)]
        return values if observed.size and np.isfinite(observed).all() else None
    na = col.isna().to_numpy()
    if na.all():
        return None
    values = pd.to_numeric(col, errors="coerce").to_numpy(float, na_value=np.nan)
    bad = np.isnan(values) & ~na
    return None if bad.any() or not np.isfinite(values[~na]).all() else values


def fit(observed: np.ndarray, n_bins: int, strategy: str):
    """A KBinsDiscretizer fitted on one column's observed (finite) values."""
    from sklearn.preprocessing import KBinsDiscretizer

    observed = np.asarray(observed, float).reshape(-1, 1)
    extra = {"quantile_method": "averaged_inverted_cdf"} if strategy == "quantile" else {}
    if strategy == "kmeans" and len(observed) < n_bins:  # k-means needs as many values as clusters
        n_bins, strategy = (
            (len(observed), strategy) if len(observed) > 1 else (2, "uniform")
        )  # 1 value: 1 bin
    kb = KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy=strategy, **extra)
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=".*(too small|constant|Bins whose width|distinct clusters).*"
        )
        kb.fit(observed)
    return kb


@dataclass(frozen=True)
class Cut:
    """One column's fitted discretizer and what the fit did to its values: ``own``, each
    distinct value is its own bin; ``merged``, bins asked for (or distinct values) that
    share a bin; ``empty``, bins that hold no training value."""

    kb: object
    own: bool = False
    merged: int = 0
    empty: int = 0

    @property
    def bins(self) -> int:
        """How many bins the column has."""
        return len(self.kb.bin_edges_[0]) - 1


def fit_column(observed: np.ndarray, n_bins: int, strategy: str) -> Cut:
    """The user's bins of one column's observed (finite) values: each distinct value its
    own bin where there are at most ``n_bins`` of them, else the strategy's (see the
    module)."""
    observed = np.asarray(observed, float)
    distinct = np.unique(observed)
    if len(distinct) <= n_bins:
        return Cut(_own_bins(distinct), own=True)
    kb = fit(observed, n_bins, strategy)
    made = len(kb.bin_edges_[0]) - 1
    held = np.bincount(codes(kb, distinct).astype(np.intp), minlength=made)
    return Cut(kb, False, n_bins - made, int(np.count_nonzero(held == 0)))


def _own_bins(distinct: np.ndarray):
    """A KBinsDiscretizer whose bins are the sorted ``distinct`` values, one each: its
    inner edges halfway between neighbours (one value: one bin)."""
    kb = fit(distinct, 2, "uniform")  # fitted (a constant column: its one bin)
    if len(distinct) > 1:
        middle = distinct[:-1] + np.diff(distinct) / 2
        kb.bin_edges_ = np.empty(1, dtype=object)  # as KBinsDiscretizer keeps them
        kb.bin_edges_[0] = np.r_[distinct[0], middle, distinct[-1]]
        kb.n_bins_ = np.array([len(distinct)])
    return kb


def codes(kb, values: np.ndarray) -> np.ndarray:
    """Bin codes (float64) of ``values`` at ``kb``'s edges; NaN stays NaN."""
    values = np.asarray(values, float)
    out = np.full(values.shape, np.nan)
    seen = ~np.isnan(values)
    if seen.any():
        out[seen] = kb.transform(values[seen].reshape(-1, 1))[:, 0]
    return out


def _texts(edges: np.ndarray, digits: int) -> list:
    return [format(float(e), f".{digits}g") for e in edges]


def interval_names(edges: np.ndarray) -> list:
    """Each bin's name: its interval, the end bins open to infinity (see the module)."""
    inner = np.asarray(edges, float)[1:-1]
    digits = 3
    texts = _texts(inner, digits)
    while len(set(texts)) < len(texts) and digits < 17:
        digits += 1
        texts = _texts(inner, digits)
    bounds = ["-inf", *texts, "inf"]
    return [
        f"{'(' if k == 0 else '['}{bounds[k]}, {bounds[k + 1]})" for k in range(len(bounds) - 1)
    ]


_INTERVAL = re.compile(r"^[\[(][^,\[\]()]+, [^,\[\]()]+\)$")  # what interval_names writes


def is_interval_name(text: str) -> bool:
    """Does ``text`` read as a bin's name (``[10.9, 14.5)``, ``(-inf, 10.9)``)?"""
    return bool(_INTERVAL.match(text))


def _column_said(column, cut: Cut, n_bins: int) -> str:
    """One column in the warning of merged or empty bins: its name and what happened."""
    parts = []
    if cut.merged:
        made = n_bins - cut.merged
        parts.append(f"{made} bin{'s' * (made != 1)}, not {n_bins}: equal edges merged")
    if cut.empty:
        parts.append(
            f"{cut.empty} bin{'s' * (cut.empty != 1)} without a training value: a test "
            "value there is never seen in training"
        )
    return f"{column} ({'; '.join(parts)})"


def _some(items: list, most: int = 5) -> str:
    """The first ``most`` items, "a, b and c", and how many more."""
    shown = items[:most] + ([f"{len(items) - most} more"] if len(items) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def bin_warnings(cuts: dict, n_bins: int, strategy: str, flags: tuple) -> list:
    """The DataWarnings of a binning: the columns (name as shown -> Cut) whose distinct
    values are each their own bin, and those whose strategy merged bins or left one
    empty; ``flags``, per wording (the API's, the command line's), what asked for the
    bins and how another strategy is asked for (``("bins=5", "binning={!r}")``)."""
    out = []
    own = [f"{c} ({cut.bins} value{'s' * (cut.bins != 1)})" for c, cut in cuts.items() if cut.own]
    if own:
        one = len(own) == 1
        said = (
            f"column{'s' * (not one)} {_some(own)} ha{'s' if one else 've'} no more distinct "
            "numbers than bins: each number is its own bin, none merged"
        )
        out.append(DataWarning(*(f"{asked}: {said}" for asked, _ in flags)))
    odd = [_column_said(c, cut, n_bins) for c, cut in cuts.items() if cut.merged or cut.empty]
    if odd:
        said = f"{strategy} bins merged or empty in column{'s' * (len(odd) != 1)} {_some(odd)}"
        other = "kmeans" if strategy != "kmeans" else "uniform"
        out.append(
            DataWarning(
                *(f"{a}: {said}; {option.format(other)} cuts them otherwise" for a, option in flags)
            )
        )
    return out


@dataclass(frozen=True)
class ColumnBins:
    """One numeric column's fitted discretizer, the names of its bins and what the fit did
    (``cut``: see ``Cut``)."""

    column: str
    kb: object
    names: tuple
    cut: Cut | None = None

    def apply(self, col: pd.Series, table: str) -> pd.Series:
        """The column's bin names (missing stays missing); a value that is not a number is
        an InputError naming ``table``, the column and the data row."""
        na = col.isna().to_numpy()
        values = numeric_values(col) if not na.all() else np.full(len(col), np.nan)
        if values is None:
            values = pd.to_numeric(col, errors="coerce").to_numpy(float, na_value=np.nan)
            bad = np.flatnonzero(~np.isfinite(values) & ~na)
            raise InputError(
                f"{table}: data row {int(bad[0])}, column {self.column!r} holds "
                f"{col.iloc[bad[0]]!r}, not a number (the column is binned)"
            )
        return self.named(values, col.index)

    def named(self, values: np.ndarray, index: pd.Index) -> pd.Series:
        """The bin names of numbers (None where NaN)."""
        c = codes(self.kb, values)
        named = np.array(self.names, dtype=object)[np.nan_to_num(c).astype(np.intp)]
        return pd.Series(np.where(np.isnan(c), None, named), index=index, dtype=object)


def _fit(
    train: pd.DataFrame,
    label: str,
    n_bins: int,
    strategy: str,
    categorical: Iterable[str],
    name: str,
) -> tuple:
    """(ColumnBins of every numeric feature column, ``train`` with those columns binned)."""
    keep = list(categorical or ())
    unknown = [c for c in keep if c not in train.columns]
    if unknown:
        raise InputError(
            f"{name}: categorical names {unknown[0]!r}, which is not one of its columns"
        )
    fitted, out = [], train.copy()
    for c in train.columns:
        values = None if c == label or c in keep else numeric_values(train[c])
        if values is not None:
            cut = fit_column(values[~np.isnan(values)], n_bins, strategy)
            names = tuple(interval_names(cut.kb.bin_edges_[0]))
            fitted.append(ColumnBins(c, cut.kb, names, cut))
            out[c] = fitted[-1].named(values, train.index)
    cuts = {repr(cb.column): cb.cut for cb in fitted}
    flags = ((f"bins={n_bins}", "binning={!r}"), (f"--bins {n_bins}", "--binning {}"))
    for w in bin_warnings(cuts, n_bins, strategy, flags):
        warnings.warn(w, stacklevel=caller_level())
    return fitted, out


def fit_columns(train, label, n_bins, strategy, categorical=(), name="training table") -> list:
    """ColumnBins of every numeric feature column of ``train`` (not ``label`` nor ``categorical``)."""
    return _fit(train, label, n_bins, strategy, categorical, name)[0]


def apply_columns(fitted: Sequence[ColumnBins], table: pd.DataFrame, name: str) -> pd.DataFrame:
    """``table`` with each fitted column (that it has) replaced by its bin names."""
    out = table.copy()
    for cb in fitted:
        if cb.column in out.columns:
            out[cb.column] = cb.apply(out[cb.column], name)
    return out


def bin_tables(
    train: pd.DataFrame,
    others: Sequence[tuple],
    label: str,
    n_bins: int,
    strategy: str,
    categorical: Iterable[str] = (),
    name: str = "training table",
    fitted_out: list | None = None,
) -> tuple:
    """``train`` and each ``(table, its name)`` of ``others`` with the numeric columns of
    ``train`` binned at ``train``'s edges (their ColumnBins appended to ``fitted_out``, when
    given: a certificate writes the edges)."""
    fitted, binned = _fit(train, label, n_bins, strategy, categorical, name)
    if fitted_out is not None:
        fitted_out.extend(fitted)
    return (binned, *(apply_columns(fitted, t, n) for t, n in others))


def discretize_column(values: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    """Bin codes (float64, NaN where missing) of one column fitted on its own observed values."""
    values = np.asarray(values, float)
    return codes(fit(values[~np.isnan(values)], n_bins, strategy), values)


__all__ = [
    "STRATEGIES",
    "numeric_values",
    "fit",
    "Cut",
    "fit_column",
    "bin_warnings",
    "codes",
    "interval_names",
    "is_interval_name",
    "ColumnBins",
    "fit_columns",
    "apply_columns",
    "bin_tables",
    "discretize_column",
]
