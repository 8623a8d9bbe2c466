"""Hints where an answer would say little: one warning each, never an error.

* A numeric-looking feature, not binned: more than ``MANY`` distinct values that read as
  numbers (whatever their share of the rows: 9,344 floats among 200,000 rows are as
  hopeless as categories as 300 among 500), give or take a few text tokens (see below).
  Every value is its own category, so test values are mostly unseen and every support 0.
  Integer codes with at most ``MANY`` values stay quiet; ``categorical`` silences the
  columns named.
* With bins, a feature that holds numbers and a few text tokens (at most ``STRAY``
  distinct ones, fewer than its distinct numbers: ``?``, ``n/a``, ``-``): it is not a
  numeric column, so it is not binned.  One warning names every such column with all its
  tokens, and the ``missing`` that would bin them.
* Test values never seen in training: at alpha = 0 every label's support of such a point is
  0 (all labels tie), which is rarely what was meant (a misspelling, or a text column's
  ``x1`` against ``X1``); at alpha > 0 the column says nothing for any label.  When
  cleaning with the truth, "training" is the dirty table's observed cells, and the
  warning says how many of those values the truth holds among its missing cells.
* Features holding a common missing token (``?``, ``NA``, ...) that ``missing`` does not
  list: it is a category as written.  One warning names every such column and token.
* Features whose values read as numbers once their commas are points (``0,92815``: a
  decimal comma), read without ``decimal=","``: text, so never binned.  One warning names
  every such column with one of its values, and the option.
* Identifier-like features: text with a distinct value in most rows (more than half the
  rows, and more than ``MANY`` values: a car's name, a date).  A test value is then
  almost never seen in training, so at alpha = 0 every row ties; one warning names every
  such column and the way out, ``drop=[...]`` (``--drop COL``), which leaves a column out
  without editing the file (``identifiers``).

Each is a ``DataWarning`` (a UserWarning) whose message uses the API's keywords; ``cli``
holds the command line's wording, which the command prints as one line on stderr.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np

from ..errors import DataWarning, caller_level  # noqa: F401  (nbcert.reading.hints.DataWarning)
from ..stats.domains import UNSEEN
from .decimals import COMMA, looks_decimal

MANY = 20  # distinct numeric values above which a column that is not binned looks numeric
STRAY = 10  # most distinct text tokens in a column that otherwise holds numbers
TOKENS = ("?", "NA", "null", "-", "N/A")


def _listed(names: list, most: int = 3) -> str:
    shown = ", ".join(map(repr, names[:most]))
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _all(items: list) -> str:
    """Every item: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def numeric_split(values) -> tuple:
    """(how many of the distinct ``values`` read as finite numbers, the others as a list);
    booleans are not numbers (binning's rule: they are categories)."""
    import pandas as pd

    values = pd.Index(values)
    if values.dtype.kind == "b":
        return 0, list(values)
    if values.dtype.kind in "iuf":
        finite = np.isfinite(values.to_numpy(float))
        return int(finite.sum()), list(values[~finite])
    objects = values.to_numpy(object)
    text = np.array([isinstance(v, (bool, np.bool_)) for v in objects], dtype=bool)
    numbers = pd.to_numeric(pd.Series(np.where(text, None, objects)), errors="coerce")
    ok = np.isfinite(numbers.to_numpy(float, na_value=np.nan))
    return int(ok.sum()), list(objects[~ok])


def _is_stray(numbers: int, text: list) -> bool:
    return 0 < len(text) <= STRAY and numbers > len(text)


def _text(values) -> bool:
    """Do the first values alone hold more than ``STRAY`` text tokens (so the column is
    neither numeric nor numbers with stray tokens)?  Spares reading a column of 200,000
    names as numbers."""
    return len(numeric_split(values[: 2 * STRAY + 1])[1]) > STRAY


def stray_tokens(values) -> list:
    """The text tokens of a column whose distinct ``values`` are numbers but for a few
    tokens (at most ``STRAY``, fewer than the numbers), else []."""
    if _text(values):
        return []
    numbers, text = numeric_split(values)
    return text if _is_stray(numbers, text) else []


def columns_with(found: dict) -> str:
    """Columns and their tokens: "column 'a' ('?', 'n/a')", "columns 'a' ('?') and 'b' ('-')"."""
    named = [f"{c!r} ({', '.join(map(repr, map(str, t)))})" for c, t in found.items()]
    return f"column{'s' * (len(named) != 1)} {_all(named)}"


def _missing_advice(tokens: list, given: list, them: str) -> tuple:
    """(the API's advice, the command line's) to declare ``tokens`` missing."""
    api = [*given, *(t for t in tokens if t not in given)]
    cli = " ".join(f"--missing {t!r}" for t in tokens)
    return f"pass missing={api!r}{them}", f"give {cli}{them}"


def stray_warning(found: dict, missing=None, binner: bool = False) -> DataWarning:
    """The one warning for the columns ``found`` (column -> its text tokens) that hold
    numbers and a few text tokens, so are not binned."""
    tokens = list(dict.fromkeys(str(t) for ts in found.values() for t in ts))
    plural = len(found) != 1
    what = (
        f"{columns_with(found)} look{'s' * (not plural)} numeric but hold{'s' * (not plural)} "
        f"text: not binned; "
    )
    if binner:  # no missing=: the Binner reads NaN as missing
        return DataWarning(
            what + f"replace {'those values' if len(tokens) > 1 else repr(tokens[0])} with NaN "
            "to bin them (categorical=[...] keeps them as they are)"
        )
    api, cli = _missing_advice(tokens, _given(missing), " to bin them")
    return DataWarning(
        what + api + " (categorical=[...] keeps them as they are)",
        what + cli + " (--categorical COL keeps them as they are)",
    )


def _given(missing) -> list:
    if missing is None:
        return []
    return [str(missing)] if isinstance(missing, str) else [str(t) for t in missing]


def _numeric_like(dom, skip: Iterable[str]) -> list:
    out = []
    for f, values in zip(dom.features, dom.categories):
        if f in skip or len(values) <= MANY or _text(values):
            continue
        numbers, text = numeric_split(values)
        if numbers > MANY and (not text or _is_stray(numbers, text)):
            out.append(f)
    return out


def _stray(dom, skip: Iterable[str]) -> dict:
    """Column -> text tokens of the columns that binning left as they are for a few tokens."""
    found = {}
    for f, values in zip(dom.features, dom.categories):
        tokens = [] if f in skip else stray_tokens(values)
        if tokens:
            found[f] = tokens
    return found


def _unseen(dom, T: np.ndarray, alpha=0, truth: np.ndarray | None = None) -> DataWarning | None:
    """The test values that no training cell holds, and what that does at ``alpha``.
    ``truth``: the same test points coded in the domains of the truth table (cleaning with
    the truth): how many of those values the truth holds among the missing cells."""
    unseen = np.asarray(T) == UNSEEN  # not BLANK: a blank test cell is left out
    if not unseen.any():
        return None
    cols = [f for f, u in zip(dom.features, unseen.any(axis=0)) if u]
    k = int(unseen.sum())
    msg = (
        f"{k} test value{'s' * (k != 1)} (in {int(unseen.any(axis=1).sum())} of "
        f"{len(T)} test points; column{'s' * (len(cols) != 1)} {_listed(cols)}) never occur{'s' * (k == 1)} "
        f"in training: {_unseen_effect(alpha)}"
    )
    if truth is not None:
        nowhere = int((unseen & (np.asarray(truth) == UNSEEN)).sum())
        msg += (
            f"; {k - nowhere} of them {'is' if k - nowhere == 1 else 'are'} the true value of "
            f"missing cells (cleaning can bring {'it' if k - nowhere == 1 else 'them'} in), "
            f"{nowhere} occur{'s' * (nowhere == 1)} nowhere, not even in the truth"
        )
    return DataWarning(msg)


def _unseen_effect(alpha) -> str:
    """What a test value no training cell holds does to the supports at ``alpha``."""
    if not alpha:
        return "at alpha = 0 every label's support of such a point is 0"
    return (
        f"at alpha = {alpha} no training cell speaks for any label there (the factor is "
        "alpha / (N_l + alpha * |domain|) for every label l)"
    )


def _raw(value) -> str:
    """A cell's value as written in a message: text quoted, a number as Python writes it."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def warn_differing(truth: str, train: str, k: int, differ: np.ndarray, T, D) -> None:
    """One DataWarning: ``k`` observed cells (``differ``, (n, d)) of the training table
    ``train`` hold other values in the truth ``truth`` (frames T and D), the first named
    with both raw values; the training table's values stand."""
    r, c = map(int, next(zip(*differ.nonzero())))
    said, had = (_raw(F.iat[r, c]) for F in (T, D))
    msg = (
        f"{truth}: {k:,} observed cell{'s' * (k != 1)} of {train} differ{'s' * (k == 1)} in "
        f"it (the first: data row {r}, column {T.columns[c]!r} is {said} where {train} has "
        f"{had}); the truth is used for the missing cells only, and {train}'s values stand"
    )
    warnings.warn(DataWarning(msg), stacklevel=caller_level())


def _tokens(dom, missing, skip: Iterable[str] = ()) -> DataWarning | None:
    given = _given(missing)
    candidates = [t for t in TOKENS if t not in given]
    found = {}
    for f, values in zip(dom.features, dom.categories):
        hit = values.isin(candidates) if f not in skip else np.zeros(len(values), bool)
        if hit.any():
            found[f] = [str(t) for t in values[hit]]
    if not found:
        return None
    tokens = list(dict.fromkeys(t for ts in found.values() for t in ts))
    if len(found) == 1 and len(tokens) == 1:
        (f,) = found
        what = f"column {f!r} holds {tokens[0]!r}, a common missing token, as a category"
        them = "; if it means missing, "
    else:
        plural = len(found) != 1
        what = f"{columns_with(found)} hold{'s' * (not plural)} common missing tokens as categories"
        them = "; if they mean missing, "
    api, cli = _missing_advice(tokens, given, "")
    return DataWarning(what + them + api, what + them + cli)


def identifiers(dom, skip: Iterable[str] = ()) -> dict:
    """Column -> its number of distinct values, for the identifier-like features of the
    domains ``dom`` (see the module): text (not every value a number) with a distinct
    value in more than half of the table's rows, and more than ``MANY`` values."""
    found = {}
    for f, values in zip(dom.features, dom.categories):
        k = len(values)
        if f in skip or k <= max(MANY, dom.n / 2):
            continue
        if _text(values) or len(numeric_split(values)[1]) > 0:
            found[f] = k
    return found


def drop_advice(columns: list) -> tuple:
    """(the API's, the command line's) way to leave ``columns`` out."""
    import shlex

    return f"drop={list(columns)!r}", "--drop " + " ".join(shlex.quote(str(c)) for c in columns)


def _identifiers(dom, skip: Iterable[str]) -> DataWarning | None:
    found = identifiers(dom, skip)
    if not found:
        return None
    one = len(found) == 1
    named = _all([f"{c!r} ({k:,} values)" for c, k in list(found.items())[:5]])
    named += f" and {len(found) - 5} more" if len(found) > 5 else ""
    what = (
        f"column{'s' * (not one)} {named} look{'s' * one} like "
        f"{'an identifier' if one else 'identifiers'} (a distinct value in most of the "
        f"{dom.n:,} rows): a test value there is almost never seen in training, so "
        f"{'it says' if one else 'they say'} nothing of the label; leave "
        f"{'it' if one else 'them'} out with "
    )
    api, cli = drop_advice(list(found))
    return DataWarning(what + api, what + cli)


def many_values(dom, binned: bool) -> str:
    """What makes a search over a column's values large, and the ways on: the columns
    with the most values (the identifier-like ones named as such, with the way to leave
    them out), alpha 0, and binning where the numeric columns are not binned yet."""
    ids = identifiers(dom)
    most = sorted(zip(dom.features, map(len, dom.categories)), key=lambda fk: -fk[1])[:3]
    named = _all([f"{f!r} ({k:,} values{', an identifier?' if f in ids else ''})" for f, k in most])
    ways = ["use alpha 0 (the paper's classifier: blanking never moves a domain size there)"]
    if ids:
        api, cli = drop_advice(list(ids))
        ways.append(f"leave the identifiers out ({cli}; {api} in Python)")
    if not binned and _numeric_like(dom, ()):
        ways.append("bin the numeric columns (--bins N; bins=N in Python)")
    return f"the columns with the most values are {named}; {' or '.join(ways)}"


def _decimal_commas(dom, skip: Iterable[str]) -> DataWarning | None:
    """The columns whose values read as numbers once their commas are points."""
    found = {}
    for f, values in zip(dom.features, dom.categories):
        example = None if f in skip else looks_decimal(values, COMMA, STRAY)
        if example is not None:
            found[f] = example
    if not found:
        return None
    plural = len(found) != 1
    named = _all([f"{f!r} ({v!r})" for f, v in found.items()])
    what = (
        f"column{'s' * plural} {named} look{'s' * (not plural)} like numbers with decimal "
        "commas: read as text, each value is its own category and not binned; "
    )
    return DataWarning(
        what + "pass decimal=',' to read them as numbers",
        what + "give --decimal ',' to read them as numbers",
    )


def data_warnings(
    dom,
    T: np.ndarray,
    *,
    binned: bool,
    categorical: Iterable[str] = (),
    missing: Iterable | None = None,
    decimal: str | None = None,
    alpha=0,
    truth: np.ndarray | None = None,
) -> list:
    """The DataWarnings for a training table's domains ``dom`` and test codes ``T``
    (``decimal``: the decimal mark the tables were read with; None: a point; ``alpha``: the
    smoothing asked for; ``truth``: the test codes in the truth table's domains, when
    cleaning with the truth)."""
    found = []
    skip = set(categorical or ())
    commas = _decimal_commas(dom, skip) if decimal in (None, ".") else None
    if commas is not None:
        found.append(commas)
    numeric = [] if binned else _numeric_like(dom, skip)
    if numeric:
        what = (
            f"column{'s' * (len(numeric) != 1)} {_listed(numeric)} look{'s' * (len(numeric) == 1)} numeric "
            f"(more than {MANY} distinct numbers): each value is its own "
            "category, so the answers say little; bin them "
        )
        found.append(
            DataWarning(what + "with bins=N (e.g. bins=5)", what + "with --bins N (e.g. --bins 5)")
        )
    stray = _stray(dom, skip) if binned else {}
    if stray:
        found.append(stray_warning(stray, missing))
    tokens = _tokens(dom, missing, skip=set(stray))  # the stray warning names those
    ids = _identifiers(dom, skip | set(numeric))  # the numeric warning names those
    found += [w for w in (ids, _unseen(dom, T, alpha, truth), tokens) if w is not None]
    return found


def warn(dom, T: np.ndarray, **kw) -> None:
    """Issue ``data_warnings``, each pointing at the user's line that called nbcert."""
    for w in data_warnings(dom, T, **kw):
        warnings.warn(w, stacklevel=caller_level())


__all__ = [
    "DataWarning",
    "data_warnings",
    "warn",
    "numeric_split",
    "stray_tokens",
    "stray_warning",
    "warn_differing",
    "identifiers",
    "drop_advice",
    "many_values",
    "MANY",
    "STRAY",
    "TOKENS",
]
