"""The DataFrame-level API: certify, count_worlds, poison.

Each function encodes the tables once (``nbcert.encoding``), runs the chosen algorithm on
integer codes and maps codes back to the values as they appear in the input.
"""

from __future__ import annotations

from typing import Iterable, Literal

import pandas as pd

from . import counting, decision, poisoning, poisoning_many
from ._validation import check_count_options, check_int, check_real, check_seed
from .encoding import EncodedTable, InputError, _as_missing, encode
from .support import as_alpha


def _prepare(train, test, label, missing, *, alpha=0):
    try:
        as_alpha(alpha)
    except ValueError as e:
        raise InputError(str(e)) from None
    enc = encode(train, label, missing=missing)
    if not isinstance(test, pd.DataFrame):
        raise InputError(f"test table: expected a pandas DataFrame, got {type(test).__name__}")
    T = enc.encode_test(_as_missing(test, missing))
    return enc, T


def _require_complete(enc: EncodedTable):
    if enc.is_missing().any():
        r, c = map(int, next(zip(*enc.is_missing().nonzero())))
        raise InputError(f"training table: poisoning needs a complete table, but data row "
                         f"{int(enc.rows[r])} is missing column {enc.features[c]!r}")


def certify(train: pd.DataFrame, test: pd.DataFrame, label: str, *, alpha=0,
            method: Literal["index", "iterate", "ad"] = "index", missing: Iterable | None = None,
            n_worlds: int = 100, seed=None) -> pd.DataFrame:
    """Is each test row certifiably robust: the same unique Naive Bayes prediction in
    every possible cleaning of ``train``?

    Returns one row per test row (same index) with columns ``robust`` and ``label``
    (the prediction every world makes, None when not robust).  ``method="ad"`` samples
    ``n_worlds`` worlds per point and may wrongly report robust.
    """
    check_int(n_worlds, "n_worlds")
    check_seed(seed)
    enc, T = _prepare(train, test, label, missing, alpha=alpha)
    if method == "index":
        dec = decision.certify_index(enc, T, alpha)
    elif method == "iterate":
        dec = decision.certify_iterate(enc, T, alpha)
    elif method == "ad":
        dec = decision.certify_ad(enc, T, alpha, n_worlds=n_worlds, seed=seed)
    else:
        raise InputError(f"unknown certify method {method!r} (use index, iterate or ad)")
    labels = pd.Series([enc.labels[c] if c >= 0 else None for c in dec.label], index=test.index, dtype=object)
    return pd.DataFrame({"robust": dec.robust.astype(bool), "label": labels})


def count_worlds(train: pd.DataFrame, test: pd.DataFrame, label: str, *, alpha=0,
                 method: Literal["auto", "exact", "batch", "montecarlo"] = "auto",
                 missing: Iterable | None = None, n_samples: int = 20_000, confidence: float = 0.95,
                 seed=None, max_states: int = 2_000_000, progress=None) -> list[counting.WorldCounts]:
    """How many possible worlds predict each label (and how many tie), per test row.

    ``exact`` builds each label's support distribution separately and combines them;
    ``batch`` is the paper's Algorithm 2 (all labels jointly; a reference);
    ``montecarlo`` estimates the fractions with confidence intervals;
    ``auto`` is exact unless a label's distribution is proven to exceed ``max_states``
    states (decided before building it).  Each result says which method produced it.
    ``progress(done, total, method)``, if given, is called before each test row and at
    the end.
    """
    check_count_options(n_samples=n_samples, confidence=confidence, seed=seed, max_states=max_states)
    enc, T = _prepare(train, test, label, missing, alpha=alpha)
    return counting.count_encoded(enc, T, alpha, method=method, n_samples=n_samples, confidence=confidence,
                                  seed=seed, max_states=max_states, progress=progress)


def poison(train: pd.DataFrame, test: pd.DataFrame, label: str, *,
           method: Literal["op", "sr", "rp"] = "op", seed=None,
           missing: Iterable | None = None) -> list[poisoning.Poisoning]:
    """Cells of the complete table ``train`` to blank so each test row, on its own,
    stops being certifiably robust (alpha = 0, the paper's classifier).

    ``op`` returns a minimum set; ``sr`` and ``rp`` are the paper's randomized baselines.
    Cells are (row position in ``train``, column name); when none was found ``num_cells``
    is None and ``status`` says "impossible" (proven: op, or a single label) or
    "none_found" (sr and rp prove nothing).
    """
    check_seed(seed)
    enc, T = _prepare(train, test, label, missing)
    _require_complete(enc)
    if method not in ("op", "sr", "rp"):
        raise InputError(f"unknown poison method {method!r} (use op, sr or rp)")
    return [poisoning.poison_encoded(enc, T[p], method=method, seed=seed) for p in range(len(T))]


def poison_many(train: pd.DataFrame, test: pd.DataFrame, label: str, *,
                method: Literal["auto", "exact", "greedy"] = "auto", time_limit: float = 30.0,
                missing: Iterable | None = None) -> poisoning_many.ManyPoisoning:
    """The fewest cells of the complete table ``train`` to blank so that every test row is
    non-robust at once (alpha = 0).  ``exact`` solves a mixed-integer program (HiGHS) within
    ``time_limit`` seconds and reports whether the answer is proven optimal, a proven lower
    bound, and whether the time limit cut the search short (``time_limited``: the answer then
    depends on the machine's speed); ``greedy`` is fast for large instances; ``auto`` picks by size.
    """
    check_real(time_limit, "time_limit", 0.0)
    enc, T = _prepare(train, test, label, missing)
    _require_complete(enc)
    return poisoning_many.poison_many_encoded(enc, T, method=method, time_limit=time_limit)


__all__ = ["certify", "count_worlds", "poison", "poison_many", "EncodedTable", "InputError"]
