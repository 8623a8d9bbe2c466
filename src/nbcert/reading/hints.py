"""Hints where an answer would say little: one warning each, never an error.

* A numeric-looking feature with many distinct values (more than ``MANY`` and more than
  ``SHARE`` of the rows), not binned: every value is its own category, so test values are
  mostly unseen and every support 0.  Integer codes are legitimate categories, hence a
  warning (``categorical`` silences it for the columns named).
* Test values never seen in training: at alpha = 0 every label's support of such a row is
  0 (all labels tie), which is rarely what a ``1`` against ``1.0`` meant.
* A feature holding a common missing token (``?``, ``NA``, ...) that ``missing`` does not
  list: it is a category as written.

Each is a ``DataWarning`` (a UserWarning) whose message uses the API's keywords; ``cli``
holds the command line's wording, which the command prints as one line on stderr.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np

MANY, SHARE = 20, 0.05
TOKENS = ("?", "NA", "null", "-", "N/A")


class DataWarning(UserWarning):
    """A hint about the data; ``cli`` is its command-line wording."""

    def __init__(self, message: str, cli: str | None = None):
        super().__init__(message)
        self.cli = cli or message


def _listed(names: list, most: int = 3) -> str:
    shown = ", ".join(map(repr, names[:most]))
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _numeric_like(dom, n: int, skip: Iterable[str]) -> list:
    import pandas as pd

    out = []
    for f, values in zip(dom.features, dom.categories):
        if f in skip or len(values) <= max(MANY, SHARE * n):
            continue
        if (
            values.dtype.kind in "iuf"
            or pd.to_numeric(pd.Series(values), errors="coerce").notna().all()
        ):
            out.append(f)
    return out


def _unseen(dom, T: np.ndarray) -> DataWarning | None:
    unseen = np.asarray(T) < 0
    if not unseen.any():
        return None
    cols = [f for f, u in zip(dom.features, unseen.any(axis=0)) if u]
    k = int(unseen.sum())
    msg = (
        f"{k} test value{'s' * (k != 1)} (in {int(unseen.any(axis=1).sum())} of "
        f"{len(T)} rows; column{'s' * (len(cols) != 1)} {_listed(cols)}) never occur{'s' * (k == 1)} in training: "
        "at alpha = 0 "
        "every label's support of such a row is 0"
    )
    return DataWarning(msg)


def _tokens(dom, missing: Iterable) -> DataWarning | None:
    given = {str(t) for t in missing or ()}
    candidates = [t for t in TOKENS if t not in given]
    for f, values in zip(dom.features, dom.categories):
        hit = values.isin(candidates)
        if hit.any():
            t = str(values[hit][0])
            what = f"column {f!r} holds {t!r}, a common missing token, as a category; if it means missing, "
            return DataWarning(what + f"pass missing=[{t!r}]", what + f"give --missing {t!r}")
    return None


def data_warnings(
    dom,
    T: np.ndarray,
    *,
    binned: bool,
    categorical: Iterable[str] = (),
    missing: Iterable | None = None,
) -> list:
    """The DataWarnings for a training table's domains ``dom`` and test codes ``T``."""
    found = []
    numeric = [] if binned else _numeric_like(dom, dom.n, set(categorical or ()))
    if numeric:
        what = (
            f"column{'s' * (len(numeric) != 1)} {_listed(numeric)} look{'s' * (len(numeric) == 1)} numeric "
            f"(more than {MANY} distinct values and over {SHARE:.0%} of the rows): each value is its own "
            "category, so the answers say little; bin them "
        )
        found.append(
            DataWarning(what + "with bins=N (e.g. bins=5)", what + "with --bins N (e.g. --bins 5)")
        )
    found += [w for w in (_unseen(dom, T), _tokens(dom, missing)) if w is not None]
    return found


def warn(dom, T: np.ndarray, stacklevel: int = 4, **kw) -> None:
    """Issue ``data_warnings`` (``stacklevel``: the API function's caller, seen from here)."""
    for w in data_warnings(dom, T, **kw):
        warnings.warn(w, stacklevel=stacklevel)


__all__ = ["DataWarning", "data_warnings", "warn", "MANY", "SHARE", "TOKENS"]
