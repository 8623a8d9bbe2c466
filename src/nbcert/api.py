"""The DataFrame-level API: certify, count_worlds, poison, poison_together, clean, clean_with_truth.

``train`` is a pandas DataFrame, a path to a CSV or Parquet file (or a folder of Parquet
files), or a Dask DataFrame; the answers are the same whichever it is.  Certification
(Iterate+Index) and counting need only the table's statistics (``nbcert.stats``), which a
path yields in record batches (memory bounded by the batch) and a Dask DataFrame per
partition on its cluster.  The methods that need rows (Iterate, AD, SR, RP, many-point
poisoning, cleaning) encode the whole table in memory; OP on a streamed table plans from the
statistics and names its cells in a second pass.  Codes are mapped back to the values as
they appear in the input.

Numeric columns are binned with ``bins=N`` (``nbcert.reading.binning``: KBinsDiscretizer
fitted on the training table's observed values, test rows cut at its edges, a bin named
by its interval such as ``[10.9, 14.5)``); binning holds the training table in memory.
Where an answer would say little (a numeric-looking column not binned, test values never
seen in training, a common missing token read as a category) a ``DataWarning`` says so.

Every parameter is checked against its rule (``nbcert.params``, by the ``validated``
decorator) before any data is read, and the functions see only checked values; a value that
breaks its rule is a ``ParameterError``.  Problems in the tables are ``InputError``s
naming the table ("training table", "test table", "truth table", a path's own name, or the
names given in ``names``), the column and the data row.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Literal, Unpack

import numpy as np
import pandas as pd

from . import approximate, blanks, certification, deprecation
from .count import WorldCounts, count_encoded
from .errors import InputError, ParameterError
from .inputs import (
    Need,
    Reading,
    ReadingOptions,
    ask,  # noqa: F401 (the API's callers' ask, as before)
    ask_with,
    binned_with,
    candidate_table,
    check_columns_of_test,
    check_id,
    coded_candidates,
    coded_test,
    is_path,
    prepare_truth,
    read_paths,
    require_complete,
    split_id,
    train_frame,
    truth_for_missing,
    warn,
    with_id,
)
from .params import validate, validated
from .reading import hints
from .reading.candidates import wide as wide_candidates
from .reading.encoding import EncodedTable

if TYPE_CHECKING:  # imported where used: the certify command needs neither
    from . import cleaning, poisoning


@validated
def certify(
    train,
    test: pd.DataFrame,
    label: str,
    *,
    alpha=0,
    method: Literal["index", "iterate", "ad"] = "index",
    n_worlds: int = 100,
    seed=None,
    certificate=None,
    candidates=None,
    **options: Unpack[ReadingOptions],
) -> pd.DataFrame:
    r"""Decide whether each test row is certifiably robust.

    A robust row gets the same unique Naive Bayes prediction in every possible cleaning of
    ``train``.

    Parameters
    ----------
    train : DataFrame, path, TableSource or Dask DataFrame
        The training table; a missing cell is NaN/None (or one of ``missing``).  A path is
        read in record batches; ``iterate`` and ``ad`` hold its table in memory.
    test : DataFrame
        The test rows: ``train``'s feature columns (other columns are ignored); a blank
        cell leaves its feature out of the row's product, as Naive Bayes does
        (``nbcert.blanks``), unless ``test_missing="error"``.
    label : str
        The name of the label column of ``train``.
    alpha : number, Fraction or str, default 0
        Laplace smoothing, read exactly (0.1 means 1/10; "1/3" is accepted).
    method : {"index", "iterate", "ad"}, default "index"
        ``index`` and ``iterate`` are exact; ``ad`` (the paper's approximate decision)
        samples ``n_worlds`` worlds per row and may wrongly report robust: its result says
        only what those worlds saw (see Returns).
    n_worlds : int, default 100
        Worlds sampled per test row by ``ad``.
    seed : None, int or numpy Generator, optional
        Random seed of ``ad``.
    certificate : str or path, optional
        Also write a certificate there (``nbcert.certificate``): the answer with the
        evidence that ``nbcert.verify`` checks; ``train`` and ``test`` must then be files
        (paths), and the method exact.
    candidates : DataFrame or path, optional
        Candidate repairs: the possible values of missing cells, a long table with the
        columns ``row`` (the data row of ``train``), ``column`` and ``value`` (one line per
        value; values never observed are allowed), as a DataFrame or a CSV path, or the
        path of CPClean's ``X_train_repairs/`` folder (``nbcert.reading.candidates``).  A
        listed cell takes one of its values, a cell not listed any value of its column's
        domain, which is then its observed values and its candidate values (alpha's
        ``|domain|`` counts them all).  Binned with ``train``'s edges; ``method`` must be
        "index", and no certificate is written.
    **options
        The reading options, the same for every function of the API (``ReadingOptions``):
        ``missing``, ``stream``, ``batch_rows``, ``names``, ``bins``, ``binning``,
        ``categorical``, ``sep``, ``encoding``, ``test_missing`` and ``id``, as follows.
    missing : iterable of values, optional
        Values that also mean missing, in both tables.
    stream : bool, optional
        True refuses to hold a path's table in memory (``iterate`` and ``ad`` then fail);
        the default streams a file larger than the memory available allows.
    batch_rows : int, optional
        Rows per record batch when reading a path (default: about 64 MB of file each).
    names : mapping, optional
        Names of the tables in error messages, keys ``"train"`` and ``"test"`` (default
        "training table", "test table"; a path is named by itself).
    bins : int, optional
        Cut each numeric feature column (every observed value a number, or text of one)
        into this many bins fitted on ``train``'s observed values; test values take the bin
        of the training edges they fall in (beyond them: an end bin), named by its interval,
        e.g. ``[10.9, 14.5)``.  Default: no binning (each value is a category).  A path is
        then read into memory (``stream=True`` is refused).
    binning : {"quantile", "uniform", "kmeans"}, default "quantile"
        KBinsDiscretizer's strategy: quantile bins hold about equal numbers of training
        values, so no bin is empty and skewed columns are cut where the values are.
    categorical : column name or list of them, optional
        Numeric columns that are categories (integer codes): never binned, never warned of.
    sep : str, optional
        The field separator of a CSV path (default ","; "tab" or "\t" for a tab).
    encoding : str, optional
        The text encoding of a CSV path (default UTF-8), e.g. ``"latin-1"``; a path ending
        in ``.gz``, ``.bz2``, ``.zst``, ``.lz4`` or ``.br`` is decompressed, ``"-"`` is
        standard input.
    test_missing : {"leave_out", "error"}, default "leave_out"
        A blank test cell: left out of the row's product (its factor is 1, in every
        question and front end), or an InputError naming its row and column.
    id : str, optional
        A column of ``test`` that names its rows (not a feature); ``certify`` carries it
        to its result as the first column.

    Returns
    -------
    DataFrame
        One row per test row (same index): ``robust`` (bool); ``label``, the prediction
        every world makes (None when not robust); ``possible_labels``, the list of labels
        that some world predicts as its unique winner (exact, whatever the method; empty
        when every world ties); ``tie_possible``, whether some world ties at the top: True
        or False where proven, None where undecided (two or more possible labels whose
        supports could still tie inside their ranges; ``count_worlds`` counts the ties).
        With ``method="ad"`` the exact columns are left out: ``robust`` (no sampled world
        disagreed or tied: not a proof), ``label`` (their common prediction, None when not
        robust), ``sampled_labels`` (the labels the sampled worlds predicted as their unique
        winner; each is a real world's), ``sampled_tie`` (whether one of them tied) and
        ``worlds_sampled`` (fewer than ``n_worlds`` when AD stopped at a disagreement).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> nbcert.certify(train, test, "y")
       robust label possible_labels  tie_possible
    0   False  None          [a, b]         False
    1    True     b             [b]         False

    Row 0 is predicted ``a`` in some worlds and ``b`` in others.  Candidate repairs narrow
    the worlds: if row 3's missing color can only be blue, row 0 is certified too.

    >>> candidates = pd.DataFrame({"row": [3], "column": ["color"], "value": ["blue"]})
    >>> nbcert.certify(train, test, "y", candidates=candidates)
       robust label possible_labels  tie_possible
    0    True     a             [a]         False
    1    True     b             [b]         False
    """
    reading = Reading.of(train, **options)
    if candidates is not None and method != "index":
        raise ParameterError(
            f"certify method {method!r} is the paper's, over every value of the domain; "
            "with candidates use method 'index'"
        )
    written = _target(certificate, method != "ad", candidates, train=train, test=test)
    need = Need(None if method == "index" else f"certify method {method!r}")
    bins = []
    table, T, test, ids, cand = ask_with(
        train, test, label, reading, need, alpha, candidates, fitted=bins
    )
    out = with_id(_certified(table, T, alpha, method, n_worlds, seed, test.index, cand), ids)
    if written is not None:
        from . import certificate as cert

        cert.write_certify(
            written,
            table,
            T,
            out,
            label=label,
            alpha=alpha,
            reading=reading,
            bins=bins,
            test_rows=list(test.index),
            ids=ids,
        )
    return out


def _target(certificate, exact: bool = True, candidates=None, **tables):
    """The certificate's Target (checked before any data is read), or None without one."""
    if certificate is None:
        return None
    if not exact:
        raise ParameterError("certificate: needs an exact method (index or iterate), not ad")
    if candidates is not None:
        raise ParameterError(
            "certificate: not written with candidate repairs (the checker knows domains, "
            "not candidate sets); drop one of the two"
        )
    from .certificate import Target

    return Target.of(certificate, **tables)


EXACT_COLUMNS = ("label", "possible_labels", "tie_possible")
AD_COLUMNS = ("label", "sampled_labels", "sampled_tie", "worlds_sampled")


def _certified(table, T, alpha, method, n_worlds, seed, index, cand=None) -> pd.DataFrame:
    """Answer certify for every test row, as certify's table.

    certify's table: robust, label, possible_labels, tie_possible per test row (AD:
    robust, label and what its worlds saw); each group of rows with the same blank cells is
    answered on its projection (``nbcert.blanks``).
    """

    def answer(sub, codes, rows, keep):
        if method == "ad":
            return zip(*_sampled(sub, codes, alpha, n_worlds, seed), strict=True)
        own = None if cand is None else cand.project(keep)
        return zip(*_answers(sub, codes, alpha, method, own), strict=True)

    names = AD_COLUMNS if method == "ad" else EXACT_COLUMNS
    found = list(zip(*blanks.per_group(table, T, answer), strict=True))
    robust, *rest = found or [()] * (1 + len(names))
    out = pd.DataFrame({"robust": np.array(robust, bool)}, index=index)
    for name, column in zip(names, rest):
        out[name] = pd.Series(_objects(column), index=index, dtype=object)  # None stays None
    if method == "ad":
        out["sampled_tie"] = out["sampled_tie"].astype(bool)
        out["worlds_sampled"] = out["worlds_sampled"].astype(np.int64)
    return out


def _sampled(table, T, alpha, n_worlds, seed) -> tuple:
    """Say what AD's sampled worlds saw, per test row.

    (robust, label, sampled labels, sampled tie, worlds), one entry per test row: what
    AD saw, never the exact possible labels (its robust may be wrong; what it saw is not).
    """
    seen = approximate.sample_ad(table, T, alpha, n_worlds=n_worlds, seed=seed)
    return (
        [s.robust for s in seen],
        [table.labels[s.label] if s.robust else None for s in seen],
        [[table.labels[c] for c in s.labels] for s in seen],
        [s.tie for s in seen],
        [s.worlds for s in seen],
    )


def _answers(table, T, alpha, method, cand=None) -> tuple:
    """(robust, label, possible labels, tie possible), one entry per test row, of one table."""
    if method == "index":
        dec = certification.certify_index(table, T, alpha, cand)
    else:
        dec = certification.certify_iterate(table, T, alpha)
    pos = certification.possible_index(table, T, alpha, cand)
    labels = [table.labels[c] if c >= 0 else None for c in dec.label.tolist()]
    possible = [[table.labels[c] for c in row.nonzero()[0]] for row in pos.labels]
    tie = [
        None if t == certification.TIE_UNKNOWN else bool(t == certification.TIE_YES)
        for t in pos.tie.tolist()
    ]
    return dec.robust.tolist(), labels, possible, tie


def _objects(values) -> np.ndarray:
    """A list as an object array of its entries (lists stay whole)."""
    out = np.empty(len(values), object)
    out[:] = values
    return out


@validated
def count_worlds(
    train,
    test: pd.DataFrame,
    label: str,
    *,
    alpha=0,
    method: Literal["auto", "exact", "batch", "montecarlo", "bounds"] = "auto",
    n_worlds: int = 20_000,
    confidence: float = 0.95,
    seed=None,
    max_states: int = 2_000_000,
    width: float = 0.001,
    time_limit: float = 2.0,
    progress=None,
    candidates=None,
    n_samples: int | None = None,
    **options: Unpack[ReadingOptions],
) -> list[WorldCounts]:
    """How many possible worlds predict each label (and how many tie), per test row.

    Parameters
    ----------
    train, test, label, alpha, **options
        As for ``certify`` (counting needs only the statistics: a path is always read in
        record batches).
    method : {"auto", "exact", "batch", "montecarlo", "bounds"}, default "auto"
        ``exact`` builds each label's support distribution separately and combines them;
        ``batch`` is the paper's Algorithm 2 (all labels jointly; a reference);
        ``montecarlo`` estimates the fractions with confidence intervals; ``bounds``
        proves an interval for every label's count (and the ties') at any size; ``auto``
        is exact unless a label's distribution is proven to exceed ``min(max_states,
        20000)`` states (decided before building it), then proven bounds where they
        reach ``width`` within ``time_limit``, then Monte-Carlo (a DataWarning says how
        many rows it estimated).
    n_worlds : int, default 20000
        Worlds sampled per test row by ``montecarlo``.
    confidence : float, default 0.95
        Confidence level of the montecarlo intervals, strictly between 0 and 1.
    seed : None, int or numpy Generator, optional
        Random seed of ``montecarlo``.
    max_states : int, default 2000000
        The most distinct supports per label that exact counting may build.
    width : float, default 0.001
        The widest proven interval ``bounds`` refines to, as a share of the worlds
        (0.001: 0.1 percentage point).
    time_limit : float, default 2.0
        Seconds per test row that ``bounds`` refines for (it then gives what it proved).
    progress : callable, optional
        Called as ``progress(done, total, method)`` before each test row and at the end.
    candidates : DataFrame or path, optional
        Candidate repairs, as for ``certify``: each listed cell's candidates are its
        values, and the worlds counted are theirs (every method).
    n_samples : int, optional
        Deprecated name of ``n_worlds`` (a FutureWarning), removed in the next release.

    Returns
    -------
    list of WorldCounts
        One per test row, saying which method produced it: exact counts (``counts``,
        ``ties``, ``total``), proven intervals (``proven``, ``proven_ties``,
        ``proven_shares``) or estimated ``fractions`` with ``intervals``.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> counts = nbcert.count_worlds(train, test, "y")
    >>> [(c.counts, c.ties, c.total) for c in counts]
    [({'a': 3, 'b': 1}, 0, 4), ({'a': 0, 'b': 4}, 0, 4)]
    """
    if n_samples is not None:
        deprecation.warn("count_worlds(n_samples=...)", "n_worlds=...")
        n_worlds = n_samples
    reading = Reading.of(train, **options)
    table, T, _, _, cand = ask_with(train, test, label, reading, alpha=alpha, candidates=candidates)
    return count_encoded(
        table,
        T,
        alpha,
        method=method,
        n_worlds=n_worlds,
        confidence=confidence,
        seed=seed,
        max_states=max_states,
        width=width,
        time_limit=time_limit,
        progress=progress,
        cand=cand,
    )


NO_CANDIDATES_TO_POISON = (
    "poisoning takes no candidates: the attacker blanks cells of a complete table, which "
    "has no missing cell to give candidates to, and a blanked cell may take any value of its "
    "column (there is no imputer's guess for a cell that was never missing)"
)


@validated
def poison(
    train,
    test: pd.DataFrame,
    label: str,
    *,
    method: Literal["op", "sr", "rp"] = "op",
    seed=None,
    alpha=0,
    certificate=None,
    candidates=None,
    **options: Unpack[ReadingOptions],
) -> list[poisoning.Poisoning]:
    """Find the fewest cells that make each test row, on its own, not robust.

    The cells of the complete table ``train`` to blank so each test row, on its own, stops
    being certifiably robust (alpha = 0, the paper's classifier, unless ``alpha``).

    Parameters
    ----------
    train, test, label, **options
        As for ``certify``; ``train`` must be complete.  A streamed path is read twice (OP
        only): the plan from its statistics, then the cells.
    method : {"op", "sr", "rp"}, default "op"
        ``op`` returns a minimum set (proven: ``docs/design.md``, "One-point poisoning");
        ``sr`` and ``rp`` are the paper's randomized baselines (alpha = 0 only).
    seed : None, int or numpy Generator, optional
        Random seed of ``sr`` and ``rp``.
    alpha : float, Fraction or str, default 0
        The classifier's smoothing, read exactly (``"1/2"``, 0.5).  With alpha > 0 a blanking
        that removes every cell of a value moves that column's domain size, and so every
        label's denominator: OP searches those blankings too, and refuses (one line) when
        there are more than ``nbcert.poisoning.minimum.SEARCH_LIMIT`` sets of such values.
    certificate : str or path, optional
        Also write a certificate there, as for ``certify`` (the table held in memory).
    candidates : None
        Refused (a ParameterError): ``NO_CANDIDATES_TO_POISON`` says why.

    Returns
    -------
    list of Poisoning
        One per test row: ``cells`` as (row position in ``train``, column name); when none
        was found ``num_cells`` is None and ``status`` says "impossible" (proven: op, or a
        single label) or "none_found" (sr and rp prove nothing).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> found = nbcert.poison(truth, test, "y")
    >>> [(p.status, list(p.cells)) for p in found]
    [('poisoned', [(3, 'color'), (4, 'color')]), ('poisoned', [(5, 'size'), (6, 'size')])]
    """
    from . import poisoning

    if candidates is not None:
        raise ParameterError(NO_CANDIDATES_TO_POISON)
    reading = Reading.of(train, **options)
    written = _target(certificate, train=train, test=test)
    need = Need(f"poison method {method!r}", second_pass=method == "op" and written is None)
    bins = []
    table, T, test, ids = ask(train, test, label, reading, need, alpha, fitted=bins)
    require_complete(table, reading)

    def answer(sub, codes, rows, keep):
        if not isinstance(sub, EncodedTable):  # streamed: OP plans, a second pass names cells
            return [poisoning.poison_streamed(sub, t, alpha) for t in codes]
        return [
            poisoning.poison_encoded(sub, t, method=method, seed=seed, alpha=alpha) for t in codes
        ]

    found = blanks.per_group(table, T, answer)
    if written is not None:
        from . import certificate as cert

        cert.write_poison(
            written,
            table,
            T,
            found,
            method=method,
            label=label,
            alpha=alpha,
            reading=reading,
            bins=bins,
            test_rows=list(test.index),
            ids=ids,
        )
    return found


@validated
def poison_together(
    train,
    test: pd.DataFrame,
    label: str,
    *,
    method: Literal["auto", "exact", "greedy"] = "auto",
    time_limit: float = 30.0,
    certificate=None,
    **options: Unpack[ReadingOptions],
) -> poisoning.TogetherPoisoning:
    """Find the fewest cells that make every test row not robust at once.

    The cells of the complete table ``train`` to blank so that every test row is non-robust
    at once (alpha = 0).

    Parameters
    ----------
    train, test, label, **options
        As for ``certify``; ``train`` must be complete and is held in memory.
    method : {"auto", "exact", "greedy"}, default "auto"
        ``exact`` (and ``auto``) proves what it can within ``time_limit`` (every blanking
        where few, else a mixed-integer program, HiGHS); ``greedy`` is fast for large
        instances.  Each gives a proven lower bound; ``why_not_optimal`` says why an
        answer is not proven optimal.
    time_limit : float, default 30.0
        Seconds the exact search may run.
    certificate : str or path, optional
        Also write a certificate there, as for ``certify``.

    Returns
    -------
    TogetherPoisoning
        The cells, whether they are proven optimal, a proven lower bound, and whether the
        time limit cut the search short (``time_limited``: the answer then depends on the
        machine's speed).

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> found = nbcert.poison_together(truth, test, "y", method="exact")
    >>> found.cells, found.optimal
    (((0, 'color'), (3, 'color'), (4, 'color')), True)
    """
    from . import poisoning

    reading = Reading.of(train, **options)
    written = _target(certificate, train=train, test=test)
    bins = []
    table, T, test, ids = ask(
        train, test, label, reading, Need("poisoning many points together"), fitted=bins
    )
    require_complete(table, reading)
    result = poisoning.poison_together_encoded(table, T, method=method, time_limit=time_limit)
    _limit_warnings(("poison_together", "poison --together"), result, time_limit)
    if written is not None:
        from . import certificate as cert

        cert.write_poison_together(
            written,
            table,
            T,
            result,
            label=label,
            reading=reading,
            bins=bins,
            test_rows=list(test.index),
            ids=ids,
        )
    return result


def _memory_note(names: tuple) -> tuple:
    """Word an exact program given up at its size limit.

    The API's and the command line's words for an exact program given up at its size
    limit (``nbcert.milp.ONE_HOT_MAX_COLUMNS``, a bound on its memory).
    """
    from .milp import ONE_HOT_MAX_COLUMNS

    said = (
        f"a search's exact program passed its size limit ({ONE_HOT_MAX_COLUMNS:,} columns, "
        "or more memory than is left under 2 GB) and was not solved; the answer is the best "
        "found with its proven lower bound; fewer test rows, fewer cells to clean ("
    )
    return (
        f"{names[0]}: {said}bins=N, candidates=) or method='greedy' keep it small",
        f"{names[1]}: {said}--bins N, --candidates) or --method greedy keep it small",
    )


def _limit_warnings(names: tuple, result, time_limit: float, node_limit: int | None = None):
    """Warn once for each limit that stopped a search.

    One DataWarning for each limit (time, nodes) that stopped a search of ``result``,
    naming the option that raises it (``names``: the question in the API and the command).
    """
    import warnings

    stopped = []
    if result.time_limited:
        stopped.append(("time limit", f"{time_limit:g} s", "time_limit", "--time-limit SEC"))
    if getattr(result, "node_limited", False):
        nodes = f"{node_limit:,} node{'s' * (node_limit != 1)}"
        stopped.append(("node limit", nodes, "node_limit", "--node-limit N"))
    if getattr(result, "memory_limited", False):
        warnings.warn(hints.DataWarning(*_memory_note(names)), stacklevel=hints.caller_level())
    for limit, size, keyword, flag in stopped:
        proven = (
            "its answer is proven optimal all the same"
            if result.optimal
            else "its answer is the best found, not proven optimal"
        )
        said = [f"{name}: a search stopped at its {limit} ({size}); {proven}; " for name in names]
        warnings.warn(
            hints.DataWarning(
                said[0] + f"a larger {keyword} may prove more", said[1] + f"{flag} raises it"
            ),
            stacklevel=hints.caller_level(),
        )


# ---------------------------------------------------------------------------------------
# which cells to clean (beyond the paper)


@validated
def clean(
    train: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    *,
    alpha=0,
    prior: Literal["observed", "worlds"] = "observed",
    top: int = 10,
    candidates=None,
    **options: Unpack[ReadingOptions],
) -> pd.DataFrame:
    """Rank the missing cells of ``train`` to clean next.

    The cells whose cleaning may make the test rows certifiably robust, by a heuristic
    policy (the truth is unknown).

    Parameters
    ----------
    train, test, label, alpha, **options
        As for ``certify``; ``train`` is held in memory.
    prior : {"observed", "worlds"}, default "observed"
        How a missing cell's possible values are weighed: ``observed`` by its label's
        observed frequencies, ``worlds`` uniformly over the domain.
    top : int, default 10
        The most groups returned.
    candidates : DataFrame or path, optional
        Candidate repairs, as for ``certify``: the policy weighs each point's counts over
        the candidate worlds (with ``prior="worlds"`` a cell holds each of its candidates
        with equal odds).

    Returns
    -------
    DataFrame
        One row per group of interchangeable cells (one label and column), best first:
        ``row`` and ``column`` of its first missing cell, the row's ``label``, the group's
        size ``group_cells``, the policy's ``score`` and how many non-robust test rows it may
        help as their likely winner's cell (``as_winner``: its truth may equal the test
        value) or as a rival's (``as_rival``: its truth may differ), and ``test_value``: the
        value all those test rows have in the column (with ``bins``, the bin's interval),
        missing when they differ; ``group_rows``, the data rows of every cell of the group
        (its column is ``column``).  Empty when every test row is robust or nothing may help.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> nbcert.clean(train, test, "y")[["row", "column", "label", "score"]].round(3)
       row column label  score
    0    3  color     b  0.405
    1    1   size     a  0.203
    """
    from . import cleaning

    reading = Reading.of(train, **options)
    need = Need("cleaning advice")
    enc, T, test, _, cand = ask_with(train, test, label, reading, need, alpha, candidates)
    values = test[list(enc.features)]  # T's rows: none missing
    groups = cleaning.advice(enc, T, alpha, prior, top, values, cand)
    return pd.DataFrame(groups, columns=cleaning.ADVICE_COLUMNS)


@validated
def clean_with_truth(
    train: pd.DataFrame,
    truth: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    *,
    alpha=0,
    prior: Literal["observed", "worlds"] = "observed",
    method: Literal["auto", "exact", "greedy"] = "auto",
    node_limit: int = 20_000,
    time_limit: float = 60.0,
    batch: int = 1,
    target: float = 1.0,
    budget: int | None = None,
    progress=None,
    certificate=None,
    candidates=None,
    **options: Unpack[ReadingOptions],
) -> cleaning.CleaningReport:
    """Find the fewest cells to clean, with the true values known.

    With the true values of ``train``'s missing cells known: the fewest cells to clean, per
    test row and for all rows together, and the path the ``clean`` policy would take.

    Parameters
    ----------
    train, test, label, alpha, prior, **options
        As for ``clean``; the truth is binned at ``train``'s edges, and ``names`` may name
        it (key ``"truth"``).
    truth : DataFrame
        ``train`` with every cell filled: the same header and rows.  Only its values of
        ``train``'s missing cells are used; where its other cells differ from ``train``'s
        (e.g. floats rounded), a DataWarning names how many and the first, and ``train``'s
        values stand.
    method : {"auto", "exact", "greedy"}, default "auto"
        For all rows together: ``exact`` proves what it can within ``time_limit`` (every
        cleaning where few, else a HiGHS program: alpha = 0 only), ``greedy`` gives a
        proven lower bound, ``auto`` is ``exact`` where it applies, else greedy (saying
        why in ``why_not_optimal``).
    node_limit : int, default 20000
        Branch-and-bound nodes of the exact program.
    time_limit : float, default 60.0
        Seconds the exact search for all rows together may run.
    batch : int, default 1
        Cells of its chosen group the policy cleans per step along its path.
    target : float, default 1.0
        The share of the test rows that some cleaning certifies that the cells for all
        rows together (and the policy's path) must certify; the rows no cleaning certifies
        (proven) are set aside and named (``together.excluded``).  Below 1 the answer is
        greedy's, with a proven lower bound (the smallest single-row minima).
    budget : int, optional
        Early termination: the most cells to clean for all rows together (greedy, which
        stops before a round that would pass it) and along the policy's path.
    progress : callable, optional
        Called as ``progress(done, total, stage)``: per test row while the fewest cells per
        row are found (``total`` the rows), then with ``total`` None as the search for all
        rows together and the policy's path begin, and ``progress(1, 1, stage)`` at the end.
    certificate : str or path, optional
        Also write a certificate there, as for ``certify`` (``truth`` a file too).
    candidates : DataFrame or path, optional
        Candidate repairs of ``train``'s missing cells, as for ``certify`` (alpha 0 only,
        ``nbcert.cleaning.candidates``): a cell's possible values are its candidates (a cell
        not listed: the dirty table's domain, observed and candidate values) until it is
        cleaned to its true value, which need not be one of them (no certificate is written with them).

    Returns
    -------
    CleaningReport
        ``points``: per test row the fewest cells whose cleaning certifies it (exact;
        ``num_cells`` None when none does, proven); ``together``: the fewest for all rows
        together that some cleaning certifies (``excluded``: the others; ``target`` and
        ``certified``: the rows to certify and those certified; ``num_rows``: the training
        rows cleaned); ``path``: the cells the policy cleans, in order, and
        ``path_certifies``.
        A search for all rows together that a limit stopped (``time_limited``,
        ``node_limited``) also gives a ``DataWarning`` naming the limit.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> report = nbcert.clean_with_truth(train, truth, test, "y")
    >>> [p.cells for p in report.points]
    [((3, 'color'),), ()]
    >>> report.together.cells, report.together.optimal
    (((3, 'color'),), True)
    """
    from . import cleaning

    reading = Reading.of(train, **options)
    if certificate is not None and (target != 1 or budget is not None):
        raise ParameterError(
            "certificate: written for every row some cleaning certifies (target 1, no budget)"
        )
    written = _target(certificate, True, candidates, train=train, test=test, truth=truth)
    bins = []
    tab, T, cand, _, ids, index = _with_truth(
        train, truth, test, label, reading, candidates, alpha, fitted=bins
    )
    model = cleaning.cell_model(tab, cand)
    try:
        found = cleaning.report(
            model, T, alpha, prior, method, node_limit, time_limit, batch, progress, target, budget
        )
    except cleaning.TooManyBranches as e:
        raise InputError(_too_many_branches(e, tab, alpha, reading)) from None
    _limit_warnings(("clean_with_truth", "clean --truth"), found.together, time_limit, node_limit)
    if written is not None:
        from . import certificate as cert

        cert.write_clean(
            written,
            tab,
            T,
            found,
            label=label,
            alpha=alpha,
            reading=reading,
            bins=bins,
            test_rows=index,
            ids=ids,
        )
    return found


def _with_truth(
    train, truth, test, label, reading: Reading, candidates, alpha, fill=None, fitted=None
):
    """Read and check a dirty table with its truth, coded.

    (CleaningTable, test codes, Candidates or None, fill codes or None, RowIds or None,
    test row labels) of a dirty table with its truth, after every check and warning;
    ``fill``: a repaired copy of the table (its feature columns), coded in the truth's
    domains (-1 outside them); ``fitted``: see ``inputs.binned``.
    """
    from . import cleaning

    if candidates is not None and alpha != 0:
        from .cleaning.candidates import NEEDS_ZERO_ALPHA

        raise ParameterError(f"candidates: {NEEDS_ZERO_ALPHA}")
    test, truth, reading = read_paths(test, truth, reading)
    _, ids = split_id(test, reading.id, reading.names)
    train = train_frame(train, reading)  # compared with the truth as read, before binning
    listed, extra = None, []
    if candidates is not None:
        train, listed, reading = candidate_table(train, candidates, label, reading)
        extra = [wide_candidates(listed, [c for c in train.columns if c != label])]
    if fill is not None:
        fill, _, _ = read_paths(
            fill, None, replace(reading, names={**reading.names, "test": "fill table"})
        )
    truth = truth_for_missing(train, truth, label, reading)
    train, (test, truth, fill, *extra) = binned_with(
        train,
        [test, truth, fill, *extra],
        label,
        reading,
        ("test", "truth", "fill", "candidates"),
        fitted,
    )
    train = train_frame(train, reading)
    enc, miss = prepare_truth(train, truth, label, reading.missing, reading.names)
    cand = None
    if listed is not None:
        enc, cand = coded_candidates(enc, listed, extra[0], reading, miss)
    check_id(ids, enc.features, reading.names)
    check_columns_of_test(test, enc.features, label, reading)
    T = coded_test(enc, test, reading)
    tab = cleaning.CleaningTable.build(enc, miss)
    if cand is not None:
        cand = cand.with_unlisted(tab.dirty_domain(cand))
    warn(reading, enc, tab.dirty_codes(T, cand), alpha, truth=T)
    codes = None if fill is None else _fill_codes(enc, fill)
    return tab, T, cand, codes, ids, list(test.index)


def _read_fill(fill, reading: Reading) -> pd.DataFrame:
    """The repaired copy of the table, read as the test table is (a path: as written)."""
    if isinstance(fill, pd.DataFrame):
        return fill
    if not is_path(fill):
        raise InputError(f"fill: expected a DataFrame or a path, got {type(fill).__name__}")
    from .reading.files import read_csv

    return read_csv(
        fill, reading.missing, str(fill), reading.sep, reading.encoding, reading.decimal
    )


def _fill_codes(enc: EncodedTable, fill: pd.DataFrame) -> np.ndarray:
    """Code a repaired copy of the table.

    (n, d) codes of a repaired copy of the table, rows in ``enc``'s order (-1: a value
    outside the domain, or blank).
    """
    absent = [f for f in enc.features if f not in fill.columns]
    if absent or len(fill) != enc.n:
        raise InputError(
            f"fill table: it must have the training table's feature columns and its {enc.n} "
            f"rows ({'no column ' + repr(absent[0]) if absent else f'it has {len(fill)} rows'})"
        )
    from .reading.columns import positions

    codes = np.column_stack([positions(c, fill[f]) for f, c in zip(enc.features, enc.categories)])
    return codes[enc.rows]


@validated
def cleaning_curve(
    train,
    truth,
    test,
    label: str,
    *,
    labels=None,
    order: Literal["policy", "random"] = "policy",
    unit: Literal["cells", "rows"] = "cells",
    seed=None,
    alpha=0,
    prior: Literal["observed", "worlds"] = "observed",
    batch: int = 1,
    fill=None,
    points: int = 200,
    candidates=None,
    **options: Unpack[ReadingOptions],
) -> pd.DataFrame:
    """Follow the certain test rows and the accuracy along a cleaning order.

    The cleaning curve: certain test rows, and Naive Bayes' accuracy, as the missing cells
    of ``train`` are cleaned in an order, up to every row some cleaning certifies.

    Parameters
    ----------
    train, truth, test, label, alpha, prior, batch, candidates, **options
        As for ``clean_with_truth`` (the truth is read for the missing cells only).
    labels : array-like, optional
        The test rows' true labels: the curve then gives the accuracy of the Naive Bayes
        classifier trained on the table as it stands (cleaned cells at their truth).
    order : {"policy", "random"}, default "policy"
        ``policy``: the truth-free policy's path (``clean``'s ranking, the truth revealed as
        cells are cleaned), until every row some cleaning certifies is certain; ``random``:
        the missing cells (or rows) in a random order (CPClean's RandomClean), all of them.
    unit : {"cells", "rows"}, default "cells"
        ``rows``: a training row is cleaned whole at its first cell in the order (CPClean's
        unit of cleaning).
    seed : None, int or numpy Generator, optional
        The random order's seed.
    fill : DataFrame or path, optional
        A repaired copy of ``train`` (its feature columns; CPClean's default repair is
        ``X_train_repairs/mean.csv``): for the accuracy, the cells not yet cleaned take its
        values; without it they are left out of the counts (``CertifiedNB.predict``).
    points : int, default 200
        About how many states of the order are evaluated (the first and last always).

    Returns
    -------
    DataFrame
        One row per state evaluated: ``order``, ``cells`` and ``rows`` cleaned, ``certain``
        test rows (certifiably robust, exact; with candidates over their worlds),
        ``share`` of the test rows certain, and ``accuracy`` on ``labels`` (NaN without).
        ``attrs["cells"]``: the order's cells as (data row, column), in order.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({
    ...     "color": ["red", "red", "blue", None, "blue", "red", "blue"],
    ...     "size": ["S", None, "L", "S", "S", "L", "L"],
    ...     "y": ["a", "a", "a", "b", "b", "b", "b"],
    ... })
    >>> test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    >>> truth = train.fillna({"color": "blue", "size": "S"})  # the true values
    >>> nbcert.cleaning_curve(train, truth, test, "y", labels=["a", "b"])
        order  cells  rows  certain  share  accuracy
    0  policy      0     0        1    0.5       1.0
    1  policy      1     1        2    1.0       1.0
    """
    from . import cleaning
    from .cleaning import curve

    reading = Reading.of(train, **options)
    tab, T, cand, codes, _, _ = _with_truth(
        train, truth, test, label, reading, candidates, alpha, fill
    )
    model = cleaning.cell_model(tab, cand)
    if order == "random":
        cells = curve.random_order(tab, unit, seed)
    else:
        cells = cleaning.path_cells(model, T, alpha, prior, batch)
        cells = curve.by_rows(cells, tab) if unit == "rows" else cells
    truth_labels = None if labels is None else _label_codes(tab.enc, labels, len(T))
    found = curve.follow_curve(model, T, cells, alpha, truth_labels, codes, points, order)
    out = pd.DataFrame(
        {"order": found.order, "cells": found.cells, "rows": found.rows, "certain": found.certain}
    )
    out["share"] = out["certain"] / max(found.points, 1)
    out["accuracy"] = np.nan if found.correct is None else found.correct / max(found.points, 1)
    out.attrs["cells"] = tab.named_in_order(cells)
    return out


def _label_codes(enc: EncodedTable, labels, k: int) -> np.ndarray:
    """Code the test rows' true labels.

    The test rows' true labels as label codes (-1: a label the table does not have),
    compared as text.
    """
    values = list(labels)
    if len(values) != k:
        raise InputError(f"labels: {len(values)} labels for {k} test rows")
    code = {str(l): c for c, l in enumerate(enc.labels)}
    return np.array([code.get(str(v), -1) for v in values], np.intp)


def _too_many_branches(e, tab, alpha, reading: Reading) -> str:
    """What stops the exact per-row minimum, and the way on: binning, or alpha 0."""
    from . import cleaning

    columns = cleaning.branching_columns(tab)
    named = [f"{c!r} ({n})" if n else f"{c!r} (one observed value)" for c, n, _ in columns[:3]]
    more = f" and {len(columns) - 3} more" if len(columns) > 3 else ""
    ways = [] if reading.binned() else ["bin the numeric columns (--bins N; bins=N in Python)"]
    if alpha != 0:
        ways.append("use alpha 0, where only one-value columns and unseen test values branch")
    way = " or ".join(ways) or "leave out the columns named (they branch at any alpha)"
    return (
        f"{e}: values seen only among a column's missing cells multiply them ({', '.join(named)}"
        f"{more}); {way}"
    )


def read_csv(
    path,
    missing=None,
    name: str | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    decimal: str | None = None,
) -> pd.DataFrame:
    r"""Read a CSV (or Parquet) file as the command line reads it.

    Every value is the text written in it; only an empty field (and the ``missing`` tokens)
    is missing.

    Parameters
    ----------
    path : str or path
        The file (``.csv.gz``, ``.bz2``, ``.zst``, ``.lz4``, ``.br`` are decompressed;
        ``"-"`` is standard input), or a Parquet file or folder.
    missing : iterable of str, optional
        Values that also mean missing.
    name : str, optional
        The file's name in messages (default: the path).
    sep, encoding, decimal : str, optional
        As for ``certify``: the field separator ("tab" or "\t" for a tab), the text
        encoding, the decimal mark of numbers (``","`` reads ``0,93`` as ``0.93``).

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import nbcert
    >>> with open("train.csv", "w") as f:
    ...     _ = f.write("color,size,y\nred,S,a\nNA,,b\n")
    >>> nbcert.read_csv("train.csv")  # NA is a category; only the empty field is missing
      color size  y
    0   red    S  a
    1    NA  NaN  b
    """
    from .reading import files

    checked = validate(sep=sep, encoding=encoding, decimal=decimal)
    return files.read_csv(path, missing, name, **checked)


# the names before the glossary's, for one release (FutureWarning; not in __all__)
poison_many = deprecation.renamed(poison_together, "nbcert.poison_many", "nbcert.poison_together")
clean_offline = deprecation.renamed(
    clean_with_truth, "nbcert.clean_offline", "nbcert.clean_with_truth"
)

__all__ = [
    "read_csv",
    "certify",
    "count_worlds",
    "poison",
    "poison_together",
    "clean",
    "clean_with_truth",
    "cleaning_curve",
    "NO_CANDIDATES_TO_POISON",
    "EncodedTable",
    "InputError",
    "ParameterError",
]
