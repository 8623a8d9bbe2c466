"""The DataFrame-level API: certify, count_worlds, poison.

``train`` is a pandas DataFrame, a path to a CSV or Parquet file (or a folder of Parquet
files), or a Dask DataFrame; the answers are the same whichever it is.  Certification
(Iterate+Index) and counting need only the table's statistics (``nbcert.stats``), which a
path yields in record batches (memory bounded by the batch) and a Dask DataFrame per
partition on its cluster.  The methods that need rows (Iterate, AD, SR, RP, many-point
poisoning) encode the whole table in memory; OP on a streamed table plans from the
statistics and names its cells in a second pass.  Codes are mapped back to the values as
they appear in the input.
"""

from __future__ import annotations

import os
from typing import Iterable, Literal

import pandas as pd

from . import cleaning, counting, decision, poisoning, poisoning_many
from ._validation import check_count_options, check_int, check_real, check_seed
from .encoding import EncodedTable, InputError, as_missing, encode
from .stats import Stats, frame_stats
from .support import as_alpha

TRAIN = "training table"


def _is_dask(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "dask" and hasattr(obj, "to_delayed")


def _is_path(obj) -> bool:
    from .reading import TableSource

    return isinstance(obj, (str, os.PathLike, TableSource))


def _check_alpha(alpha):
    try:
        as_alpha(alpha)
    except ValueError as e:
        raise InputError(str(e)) from None


def _train(train, label, missing, *, rows: str | None, stream, batch_rows) -> Stats | EncodedTable:
    """The training table as Stats (``rows`` None) or, for the method named by ``rows``,
    as an EncodedTable (a streamed OP gets a TableSource for its second pass)."""
    if isinstance(train, pd.DataFrame):
        return encode(train, label, missing=missing) if rows else frame_stats(train, label, missing=missing)
    if _is_path(train):
        from . import streaming

        return streaming.train_from_path(train, label, missing, rows=rows, stream=stream, batch_rows=batch_rows)
    if _is_dask(train):
        from . import cluster

        if rows:
            raise InputError(f"{TRAIN}: {rows} needs the table in memory; a Dask DataFrame gives its "
                             f"statistics only (certify with method='index', count_worlds), or call .compute()")
        return cluster.dask_stats(train, label, missing=missing)
    raise InputError(f"{TRAIN}: expected a pandas DataFrame, a CSV or Parquet path or a Dask DataFrame, "
                     f"got {type(train).__name__}")


def _test_codes(source, test, missing):
    if not isinstance(test, pd.DataFrame):
        raise InputError(f"test table: expected a pandas DataFrame, got {type(test).__name__}")
    return source.encode_test(as_missing(test, missing))


def _prepare(train, test, label, missing, *, alpha=0, rows=None, stream=None, batch_rows=None):
    _check_alpha(alpha)
    source = _train(train, label, missing, rows=rows, stream=stream, batch_rows=batch_rows)
    return source, _test_codes(source, test, missing)


def _require_complete(source: Stats | EncodedTable):
    from .stats import as_stats

    first = as_stats(source).first_missing
    if first is not None:
        raise InputError(f"{TRAIN}: poisoning needs a complete table, but data row {first[0]} is missing "
                         f"column {first[1]!r}")


def certify(train, test: pd.DataFrame, label: str, *, alpha=0,
            method: Literal["index", "iterate", "ad"] = "index", missing: Iterable | None = None,
            n_worlds: int = 100, seed=None, stream: bool | None = None, batch_rows: int | None = None) -> pd.DataFrame:
    """Is each test row certifiably robust: the same unique Naive Bayes prediction in
    every possible cleaning of ``train``?

    Returns one row per test row (same index) with columns ``robust`` and ``label``
    (the prediction every world makes, None when not robust).  ``method="ad"`` samples
    ``n_worlds`` worlds per point and may wrongly report robust.  ``train`` may be a
    DataFrame, a CSV/Parquet path or a Dask DataFrame; a path is read in batches of
    ``batch_rows`` rows (default: about 64 MB of file each); ``stream=True`` refuses to
    hold a path's table in memory (``iterate`` and ``ad`` need it).
    """
    check_int(n_worlds, "n_worlds")
    check_seed(seed)
    if method not in ("index", "iterate", "ad"):
        raise InputError(f"unknown certify method {method!r} (use index, iterate or ad)")
    rows = None if method == "index" else f"certify method {method!r}"
    source, T = _prepare(train, test, label, missing, alpha=alpha, rows=rows, stream=stream, batch_rows=batch_rows)
    if method == "index":
        dec = decision.certify_index(source, T, alpha)
    elif method == "iterate":
        dec = decision.certify_iterate(source, T, alpha)
    else:
        dec = decision.certify_ad(source, T, alpha, n_worlds=n_worlds, seed=seed)
    labels = pd.Series([source.labels[c] if c >= 0 else None for c in dec.label], index=test.index, dtype=object)
    return pd.DataFrame({"robust": dec.robust.astype(bool), "label": labels})


def count_worlds(train, test: pd.DataFrame, label: str, *, alpha=0,
                 method: Literal["auto", "exact", "batch", "montecarlo"] = "auto",
                 missing: Iterable | None = None, n_samples: int = 20_000, confidence: float = 0.95,
                 seed=None, max_states: int = 2_000_000, progress=None, stream: bool | None = None,
                 batch_rows: int | None = None) -> list[counting.WorldCounts]:
    """How many possible worlds predict each label (and how many tie), per test row.

    ``exact`` builds each label's support distribution separately and combines them;
    ``batch`` is the paper's Algorithm 2 (all labels jointly; a reference);
    ``montecarlo`` estimates the fractions with confidence intervals;
    ``auto`` is exact unless a label's distribution is proven to exceed ``max_states``
    states (decided before building it).  Each result says which method produced it.
    ``progress(done, total, method)``, if given, is called before each test row and at
    the end.  ``train`` as for ``certify``.
    """
    check_count_options(n_samples=n_samples, confidence=confidence, seed=seed, max_states=max_states)
    source, T = _prepare(train, test, label, missing, alpha=alpha, stream=stream, batch_rows=batch_rows)
    return counting.count_encoded(source, T, alpha, method=method, n_samples=n_samples, confidence=confidence,
                                  seed=seed, max_states=max_states, progress=progress)


def poison(train, test: pd.DataFrame, label: str, *,
           method: Literal["op", "sr", "rp"] = "op", seed=None,
           missing: Iterable | None = None, stream: bool | None = None,
           batch_rows: int | None = None) -> list[poisoning.Poisoning]:
    """Cells of the complete table ``train`` to blank so each test row, on its own,
    stops being certifiably robust (alpha = 0, the paper's classifier).

    ``op`` returns a minimum set; ``sr`` and ``rp`` are the paper's randomized baselines.
    Cells are (row position in ``train``, column name); when none was found ``num_cells``
    is None and ``status`` says "impossible" (proven: op, or a single label) or
    "none_found" (sr and rp prove nothing).  ``train`` as for ``certify``; a streamed
    table takes two passes (OP only).
    """
    check_seed(seed)
    if method not in ("op", "sr", "rp"):
        raise InputError(f"unknown poison method {method!r} (use op, sr or rp)")
    source, T = _prepare(train, test, label, missing, rows=f"poison method {method!r}", stream=stream,
                         batch_rows=batch_rows)
    _require_complete(source)
    if not isinstance(source, EncodedTable):  # a streamed path: OP plans, a second pass names the cells
        from .streaming import poison_streamed

        return [poison_streamed(source, t) for t in T]
    return [poisoning.poison_encoded(source, T[p], method=method, seed=seed) for p in range(len(T))]


def poison_many(train, test: pd.DataFrame, label: str, *,
                method: Literal["auto", "exact", "greedy"] = "auto", time_limit: float = 30.0,
                missing: Iterable | None = None) -> poisoning_many.ManyPoisoning:
    """The fewest cells of the complete table ``train`` to blank so that every test row is
    non-robust at once (alpha = 0).  ``exact`` solves a mixed-integer program (HiGHS) within
    ``time_limit`` seconds and reports whether the answer is proven optimal, a proven lower
    bound, and whether the time limit cut the search short (``time_limited``: the answer then
    depends on the machine's speed); ``greedy`` is fast for large instances; ``auto`` picks by size.
    """
    check_real(time_limit, "time_limit", 0.0)
    source, T = _prepare(train, test, label, missing, rows="poisoning many points together", stream=False)
    _require_complete(source)
    return poisoning_many.poison_many_encoded(source, T, method=method, time_limit=time_limit)


# ---------------------------------------------------------------------------------------
# which cells to clean (beyond the paper)


def _prepare_truth(train, truth, label, missing):
    """The truth table's encoding and the dirty table's missing cells in its row order,
    after checking that the truth has the same header and rows and agrees on every
    non-missing cell."""
    if not isinstance(truth, pd.DataFrame):
        raise InputError(f"truth table: expected a pandas DataFrame, got {type(truth).__name__}")
    dirty, truth = as_missing(train, missing), as_missing(truth, missing)
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
    check_int(top, "top")
    enc, T = _prepare(train, test, label, missing, alpha=alpha, rows="cleaning advice", stream=False)
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
    _check_alpha(alpha)
    check_int(node_limit, "node_limit")
    check_int(batch, "batch")
    check_real(time_limit, "time_limit", 0.0)
    encode(train, label, missing=missing)  # the dirty table's own checks
    enc, miss = _prepare_truth(train, truth, label, missing)
    if prior not in cleaning.PRIORS:
        raise InputError(f"unknown prior {prior!r} (use observed or worlds)")
    if method not in ("auto", "exact", "greedy"):
        raise InputError(f"unknown method {method!r} (use auto, exact or greedy)")
    if method == "exact" and as_alpha(alpha) != 0:
        raise InputError("method 'exact' (the many-point program) needs alpha = 0; use 'greedy' or 'auto'")
    T = _test_codes(enc, test, missing)
    tab = cleaning.CleaningTable.build(enc, miss)
    try:
        return cleaning.report(tab, T, alpha, prior, method, node_limit, time_limit, batch)
    except cleaning.TooManyBranches as e:
        raise InputError(f"{e}: many columns hold values seen only among their missing cells (with alpha > 0) "
                         "or have one observed value") from None


__all__ = ["certify", "count_worlds", "poison", "poison_many", "clean", "clean_offline", "EncodedTable", "InputError"]
