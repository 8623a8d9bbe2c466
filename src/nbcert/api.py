"""The DataFrame-level API: certify, count_worlds, poison.

Each function encodes the tables once (``nbcert.encoding``), runs the chosen algorithm on
integer codes and maps codes back to the values as they appear in the input.
"""

from __future__ import annotations

from typing import Iterable, Literal

import pandas as pd

from . import counting, decision, poisoning, poisoning_many
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
                 seed=None, max_states: int = 2_000_000) -> list[counting.WorldCounts]:
    """How many possible worlds predict each label (and how many tie), per test row.

    ``exact`` builds each label's support distribution separately and combines them;
    ``batch`` is the paper's Algorithm 2 (all labels jointly; a reference);
    ``montecarlo`` estimates the fractions with confidence intervals;
    ``auto`` is exact unless a label's distribution would exceed ``max_states`` states.
    Each result says which method produced it.
    """
    enc, T = _prepare(train, test, label, missing, alpha=alpha)
    return counting.count_encoded(enc, T, alpha, method=method, n_samples=n_samples,
                                  confidence=confidence, seed=seed, max_states=max_states)


def poison(train: pd.DataFrame, test: pd.DataFrame, label: str, *,
           method: Literal["op", "sr", "rp"] = "op", seed=None,
           missing: Iterable | None = None) -> list[poisoning.Poisoning]:
    """Cells of the complete table ``train`` to blank so each test row, on its own,
    stops being certifiably robust (alpha = 0, the paper's classifier).

    ``op`` returns a minimum set; ``sr`` and ``rp`` are the paper's randomized baselines.
    Cells are (row position in ``train``, column name); ``cells`` is None when no
    blanking can do it.
    """
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
    ``time_limit`` seconds and reports whether the answer is proven optimal and a proven
    lower bound; ``greedy`` is fast for large instances; ``auto`` picks by size.
    """
    enc, T = _prepare(train, test, label, missing)
    _require_complete(enc)
    return poisoning_many.poison_many_encoded(enc, T, method=method, time_limit=time_limit)


__all__ = ["certify", "count_worlds", "poison", "poison_many", "EncodedTable", "InputError"]


# ---------------------------------------------------------------------------------------
# which cells to clean (beyond the paper)

from . import cleaning  # noqa: E402


def _prepare_truth(train, truth, label, missing):
    """The truth table's encoding and the dirty table's missing cells in its row order,
    after checking that the truth has the same header and rows and agrees on every
    non-missing cell."""
    if not isinstance(truth, pd.DataFrame):
        raise InputError(f"truth table: expected a pandas DataFrame, got {type(truth).__name__}")
    dirty, truth = _as_missing(train, missing), _as_missing(truth, missing)
    if list(truth.columns) != list(dirty.columns):
        raise InputError(f"truth table: its header ({', '.join(map(str, truth.columns))}) differs from the "
                         f"training table's ({', '.join(map(str, dirty.columns))})")
    if len(truth) != len(dirty):
        raise InputError(f"truth table: it has {len(truth)} data rows, the training table has {len(dirty)}")
    gaps = truth.isna().to_numpy()
    if gaps.any():
        r, c = map(int, next(zip(*gaps.nonzero())))
        raise InputError(f"truth table: data row {r} has no value in column {truth.columns[c]!r} "
                         "(the truth must be complete)")
    known = dirty.notna().to_numpy()
    differ = known & (dirty.to_numpy(dtype=object) != truth.to_numpy(dtype=object))
    if differ.any():
        r, c = map(int, next(zip(*differ.nonzero())))
        raise InputError(f"truth table: data row {r}, column {truth.columns[c]!r} is {truth.iat[r, c]!r} but the "
                         f"training table has {dirty.iat[r, c]!r} there")
    enc = encode(truth, label, name="truth table")
    features = list(enc.features)
    return enc, dirty[features].isna().to_numpy()[enc.rows]


def clean(train: pd.DataFrame, test: pd.DataFrame, label: str, *, alpha=0, missing: Iterable | None = None,
          prior: Literal["observed", "worlds"] = "observed", top: int = 10) -> pd.DataFrame:
    """Which missing cells of ``train`` to clean next so that the test rows become
    certifiably robust (a heuristic policy; the truth is unknown).

    Cells of one (label, column) are interchangeable, so one row per such group is returned,
    best first: ``row`` and ``column`` of its first missing cell, the row's ``label``, the
    group's size ``group_cells``, the policy's ``score`` and how many non-robust test rows
    it may help as their likely winner's cell (``as_winner``: its truth may equal the test
    value) or as a rival's (``as_rival``: its truth may differ).  ``prior`` weighs a missing
    cell's possible values: ``observed`` by its label's observed frequencies, ``worlds``
    uniformly over the domain.  Empty when every test row is robust or nothing may help.
    """
    enc, T = _prepare(train, test, label, missing, alpha=alpha)
    if prior not in cleaning.PRIORS:
        raise InputError(f"unknown prior {prior!r} (use observed or worlds)")
    rows = cleaning.advice(enc, T, alpha, prior, top)
    return pd.DataFrame(rows, columns=["row", "column", "label", "score", "group_cells", "as_winner", "as_rival"])


def clean_offline(train: pd.DataFrame, truth: pd.DataFrame, test: pd.DataFrame, label: str, *, alpha=0,
                  missing: Iterable | None = None, prior: Literal["observed", "worlds"] = "observed",
                  method: Literal["auto", "exact", "greedy"] = "auto", node_limit: int = 20_000,
                  time_limit: float = 60.0, batch: int = 1) -> cleaning.CleaningReport:
    """With the true values of ``train``'s missing cells known (``truth``: the same header
    and rows, agreeing on every non-missing cell): per test row the fewest cells whose
    cleaning certifies it (exact; ``num_cells`` None when none does, proven), the fewest
    for all rows together (``method``: ``exact`` solves a HiGHS program for alpha = 0 within
    ``node_limit`` nodes and says whether it is proven optimal, ``greedy`` gives a proven
    lower bound; ``auto`` picks by size), and the path the ``clean`` policy would take,
    cleaning ``batch`` cells of its chosen group per step.
    """
    encode(train, label, missing=missing)  # the dirty table's own checks
    enc, miss = _prepare_truth(train, truth, label, missing)
    if not isinstance(test, pd.DataFrame):
        raise InputError(f"test table: expected a pandas DataFrame, got {type(test).__name__}")
    try:
        as_alpha(alpha)
    except ValueError as e:
        raise InputError(str(e)) from None
    if prior not in cleaning.PRIORS:
        raise InputError(f"unknown prior {prior!r} (use observed or worlds)")
    if method not in ("auto", "exact", "greedy"):
        raise InputError(f"unknown method {method!r} (use auto, exact or greedy)")
    if method == "exact" and as_alpha(alpha) != 0:
        raise InputError("method 'exact' (the many-point program) needs alpha = 0; use 'greedy' or 'auto'")
    T = enc.encode_test(_as_missing(test, missing))
    tab = cleaning.CleaningTable.build(enc, miss)
    try:
        return cleaning.report(tab, T, alpha, prior, method, node_limit, time_limit, batch)
    except cleaning.TooManyBranches as e:
        raise InputError(f"{e}: many columns hold values seen only among their missing cells (with alpha > 0) "
                         "or have one observed value") from None


__all__ += ["clean", "clean_offline"]
