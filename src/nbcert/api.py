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
fitted on the training table's observed values, test points cut at its edges, a bin named
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

from typing import TYPE_CHECKING, Literal, Unpack

import numpy as np
import pandas as pd

from . import approximate, blanks, certification
from .certificate import claims
from .count import WorldCounts, count_encoded
from .errors import InputError, ParameterError
from .params import validate, validated
from .reading import hints
from .reading.asked import Asked, Need, ask, require_complete
from .reading.options import Reading, ReadingOptions, is_path, reading_options
from .stats.domains import EncodedTable

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
    repairs=None,
    **options: Unpack[ReadingOptions],
) -> pd.DataFrame:
    """Decide whether each test point is certifiably robust.

    A robust point gets the same unique Naive Bayes prediction in every cleaning of ``train``.

    Parameters
    ----------
    train : DataFrame, path, TableSource or Dask DataFrame
        The training table; a missing cell is NaN/None (or one of ``missing``).  A path is
        read in record batches; ``iterate`` and ``ad`` hold its table in memory.
    test : DataFrame or path
        The test points: ``train``'s feature columns; a blank cell leaves its feature out
        of the point's product, as Naive Bayes does (``nbcert.blanks``).
    label : str
        The name of the label column of ``train``.
    alpha : number, Fraction or str, default 0
        Laplace smoothing, read exactly (0.1 means 1/10; "1/3" is accepted).
    method : {"index", "iterate", "ad"}, default "index"
        ``index`` and ``iterate`` are exact; ``ad`` (the paper's approximate decision)
        samples ``n_worlds`` worlds per point (seeded by ``seed``): it says what they saw.
    n_worlds, seed : int, and None, int or numpy Generator
        ``ad``'s worlds per test point (default 100) and its random seed.
    certificate : str or path, optional
        Also write a certificate there: the answer with the evidence that
        ``nbcert.verify`` checks (an exact method only).
    candidates : DataFrame or path, optional
        Candidate repairs (``method`` "index", no certificate): a table ``row, column,
        value`` (a line per possible value of a missing cell) or CPClean's
        ``X_train_repairs/`` folder; any other missing cell takes its column's domain.
    repairs : DataFrame or path, optional
        Repaired rows, CPClean's worlds (``method`` "index", no certificate): a table ``row,
        repair, column, value`` or CPClean's folder; a dirty row takes one of its repaired
        rows whole (``nbcert.repairs``).  The answer's ``undecided`` is then None or the
        bounds that stopped a point's search (which leaves its other columns None).
    **options
        The reading options of every function of the API (:class:`ReadingOptions`):
        ``missing``, ``sep``, ``encoding``, ``decimal``, ``bins``, ``binning``,
        ``categorical``, ``stream``, ``batch_rows``, ``names``, ``test_missing``, ``id``, ``drop``.

    Returns
    -------
    DataFrame
        A row per test point (same index): ``robust``; ``label``, every world's prediction
        (None when not robust); ``possible_labels``, the labels some world predicts as
        its unique winner; ``tie_possible``, whether some world ties at the top.  With
        ``ad``: ``robust`` (no sampled world disagreed or tied: no proof), ``label``,
        ``sampled_labels``, ``sampled_tie`` and ``worlds_sampled`` instead.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells; 2 test points
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
    reading = reading_options(train, **options)
    given = candidates if repairs is None else repairs
    need = _certify_need(method, given)
    written = _target(certificate, reading, label, method != "ad", given, train=train, test=test)
    asked = ask(train, test, label, reading, need, alpha, candidates=candidates, repairs=repairs)
    out = asked.present(_certified(asked, method, n_worlds, seed))
    _write(written, "certify", asked, out)
    return out


def _certify_need(method: str, candidates) -> Need:
    """What a certify method needs of the training table.

    Its rows, but for Iterate+Index, the only method over candidate repairs.
    """
    if candidates is not None and method != "index":
        raise ParameterError(
            f"certify method {method!r} is the paper's, over every value of the domain; "
            "with candidates use method 'index'"
        )
    return Need(None if method == "index" else f"certify method {method!r}")


def _target(certificate, reading: Reading, label, exact=True, candidates=None, **tables):
    """The certificate's Target, or None without one.

    Checked before the tables are read, but for the training file's label column
    (``_labels_one_way``).
    """
    if certificate is None:
        return None
    if reading.drop:
        raise ParameterError(
            "certificate: not written with drop (the checker reads every column of the "
            "files); leave the columns out of the files themselves, or drop the certificate"
        )
    if not exact:
        raise ParameterError("certificate: needs an exact method (index or iterate), not ad")
    if candidates is not None:
        raise ParameterError(
            "certificate: not written with candidate repairs (the checker knows domains, "
            "not candidate sets); drop one of the two"
        )
    from .certificate import Target

    target = Target.of(certificate, **tables)
    _labels_one_way(tables.get("train"), label, reading)
    return target


def _labels_one_way(train, label, reading: Reading) -> None:
    """Refuse a certificate whose labels the checker would read otherwise.

    The checker reads labels as written, so a training file whose label column writes one
    number two ways (``1`` and ``1.0``: one label here) gets no certificate.
    """
    from .stats.domains import merge_numbers

    if not is_path(train):
        return  # Target.of refuses it
    source = reading.source(train, "train", text=True)
    if label not in source.columns:
        return  # the question says so
    column = source.without([c for c in source.columns if c != label]).to_pandas()[label]
    if merge_numbers(pd.Index(column.dropna().unique()))[0] is not None:
        raise ParameterError(
            f"certificate: {source.name}'s label column {label!r} writes a number in more than "
            "one way (1 and 1.0), one label here but two to the checker, which reads labels "
            "as written; write each label one way"
        )


def _write(written, question: str, asked: Asked, answer, **extra) -> None:
    """Write the certificate of ``question``'s answer from what was asked.

    The one place the API writes certificates; nothing without a target.
    """
    if written is None:
        return
    from . import certificate

    if question != "poison_together":  # poisoning together is at alpha 0
        extra["alpha"] = asked.alpha
    getattr(certificate, f"write_{question}")(
        written,
        asked.table,
        asked.T,
        answer,
        label=asked.label,
        reading=asked.reading,
        bins=list(asked.bins),
        test_indices=asked.test_indices,
        ids=asked.ids,
        **extra,
    )


EXACT_COLUMNS = ("label", "possible_labels", "tie_possible")
AD_COLUMNS = ("label", "sampled_labels", "sampled_tie", "worlds_sampled")


def _certified(asked: Asked, method, n_worlds, seed) -> pd.DataFrame:
    """Answer certify for every test point, as certify's table.

    certify's table: robust, label, possible_labels, tie_possible per test point (AD:
    robust, label and what its worlds saw); each group of rows with the same blank cells is
    answered on its projection (``nbcert.blanks``).  Over repaired rows, with ``undecided``.
    """
    alpha, cand, index = asked.alpha, asked.cand, asked.test.index
    if asked.repairs is not None:
        from .repairs import answers

        return answers.certified(asked.repairs, asked.T, alpha).set_axis(index)

    def answer(sub, codes, rows, keep):
        if method == "ad":
            return zip(*_sampled(sub, codes, alpha, n_worlds, seed), strict=True)
        own = None if cand is None else cand.project(keep)
        return zip(*_answers(sub, codes, alpha, method, own), strict=True)

    names = AD_COLUMNS if method == "ad" else EXACT_COLUMNS
    found = list(zip(*blanks.per_group(asked.table, asked.T, answer), strict=True))
    robust, *rest = found or [()] * (1 + len(names))
    out = pd.DataFrame({"robust": np.array(robust, bool)}, index=index)
    for name, column in zip(names, rest):
        out[name] = pd.Series(_objects(column), index=index, dtype=object)  # None stays None
    if method == "ad":
        out["sampled_tie"] = out["sampled_tie"].astype(bool)
        out["worlds_sampled"] = out["worlds_sampled"].astype(np.int64)
    return out


def _sampled(table, T, alpha, n_worlds, seed) -> tuple:
    """Say what AD's sampled worlds saw, per test point.

    (robust, label, sampled labels, sampled tie, worlds), one entry per test point: what
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
    """(robust, label, possible labels, tie possible), one entry per test point, of one table."""
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
    repairs=None,
    **options: Unpack[ReadingOptions],
) -> list[WorldCounts]:
    """How many possible worlds predict each label (and how many tie), per test point.

    Parameters
    ----------
    train, test, label, alpha, **options
        As for ``certify`` (a path is read in record batches: counting needs only the
        statistics).
    method : {"auto", "exact", "batch", "montecarlo", "bounds"}, default "auto"
        ``exact`` builds each label's support distribution and combines them; ``batch`` is
        the paper's Algorithm 2 (a reference); ``montecarlo`` estimates the fractions with
        confidence intervals; ``bounds`` proves an interval for every label's count and
        the ties'; ``auto`` is exact unless a label's distribution is proven to exceed
        ``min(max_states, 20000)`` states, then proven bounds where they reach ``width``
        within ``time_limit``, then Monte-Carlo (a DataWarning says for how many rows).
    n_worlds, confidence, seed : int, float, and None, int or numpy Generator
        ``montecarlo``'s worlds per test point (default 20000), its intervals' confidence
        level (default 0.95, strictly between 0 and 1) and its random seed.
    max_states : int, default 2000000
        The most distinct supports per label that exact counting may build.
    width, time_limit : float, default 0.001 and 2.0
        The widest interval ``bounds`` refines to, as a share of the worlds (0.001: 0.1
        percentage point), and its seconds per test point (it then gives what it proved).
    progress : callable, optional
        Called as ``progress(done, total, method)`` before each test point and at the end.
    candidates : DataFrame or path, optional
        Candidate repairs, as for ``certify``: each listed cell's candidates are its
        values, and the worlds counted are theirs (every method).
    repairs : DataFrame or path, optional
        Repaired rows, as for ``certify``: the worlds counted pick one repair per dirty
        row; exact where each label's count vectors number at most ``max_states``, else
        proven intervals from the certification (``method`` "auto" or "exact").

    Returns
    -------
    list of WorldCounts
        One per test point, saying which method produced it: exact counts (``counts``,
        ``ties``, ``total``), proven intervals (``proven``, ``proven_ties``,
        ``proven_shares``) or estimated ``fractions`` with ``intervals``.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # certify's table
    >>> counts = nbcert.count_worlds(train, test, "y")
    >>> [(c.counts, c.ties, c.total) for c in counts]
    [({'a': 3, 'b': 1}, 0, 4), ({'a': 0, 'b': 4}, 0, 4)]
    """
    if repairs is not None and method not in ("auto", "exact"):
        raise ParameterError(f"repairs: counted exactly or in proven intervals, not {method!r}")
    reading = reading_options(train, **options)
    asked = ask(train, test, label, reading, alpha=alpha, candidates=candidates, repairs=repairs)
    if asked.repairs is not None:
        from .repairs import answers

        states = max_states if method == "exact" else min(max_states, answers.MAX_STATES)
        return answers.counted(asked.repairs, asked.T, alpha, states)
    return count_encoded(
        asked.table,
        asked.T,
        alpha,
        method=method,
        n_worlds=n_worlds,
        confidence=confidence,
        seed=seed,
        max_states=max_states,
        width=width,
        time_limit=time_limit,
        progress=progress,
        cand=asked.cand,
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
    """Find the fewest cells that make each test point, on its own, not robust.

    The cells of the complete table ``train`` to blank so each test point, on its own, stops
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
        One per test point: ``cells`` as (row position in ``train``, column name); when none
        was found ``num_cells`` is None and ``status`` says "impossible" (proven: op, or a
        single label) or "none_found" (sr and rp prove nothing).

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, truth = example()  # certify's table, and the true values of its blanks
    >>> found = nbcert.poison(truth, test, "y")
    >>> [(p.status, list(p.cells)) for p in found]
    [('poisoned', [(3, 'color'), (4, 'color')]), ('poisoned', [(5, 'size'), (6, 'size')])]
    """
    from . import poisoning

    if candidates is not None:
        raise ParameterError(NO_CANDIDATES_TO_POISON)
    reading = reading_options(train, **options)
    written = _target(certificate, reading, label, train=train, test=test)
    need = Need(f"poison method {method!r}", second_pass=method == "op" and written is None)
    asked = ask(train, test, label, reading, need, alpha)
    require_complete(asked.table, reading)

    def answer(sub, codes, rows, keep):
        if not isinstance(sub, EncodedTable):  # streamed: OP plans, a second pass names cells
            return [poisoning.poison_streamed(sub, t, alpha) for t in codes]
        return [
            poisoning.poison_encoded(sub, t, method=method, seed=seed, alpha=alpha) for t in codes
        ]

    try:
        found = blanks.per_group(asked.table, asked.T, answer)
    except poisoning.minimum.SearchTooLarge:
        raise InputError(_search_too_large(alpha, asked.table, reading)) from None
    found = claims.poison(asked.table, asked.T, found, asked.alpha)
    _write(written, "poison", asked, found, method=method)
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
    """Find the fewest cells that make every test point not robust at once.

    The cells of the complete table ``train`` to blank so that every test point is non-robust
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
        The cells; ``optimal`` and ``lower_bound``, what a certificate proves of them
        (``nbcert.certificate.claims``); the search's own ``search_optimal`` and
        ``search_bound``; why an answer is not proven optimal (``why_not_optimal``).

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, truth = example()  # certify's table, and the true values of its blanks
    >>> found = nbcert.poison_together(truth, test, "y", method="exact")
    >>> found.cells, found.search_optimal, found.optimal, found.lower_bound
    (((0, 'color'), (3, 'color'), (4, 'color')), True, False, 2)

    The search proves its 3 cells the fewest; a certificate (``nbcert.verify``) proves 2.
    """
    from . import poisoning

    reading = reading_options(train, **options)
    written = _target(certificate, reading, label, train=train, test=test)
    asked = ask(train, test, label, reading, Need("poisoning test points together"))
    require_complete(asked.table, reading)
    result = poisoning.poison_together_encoded(asked.table, asked.T, method, time_limit)
    result = claims.poison_together(asked.table, asked.T, result)
    _limit_warnings(("poison_together", "poison --together"), result, time_limit)
    _write(written, "poison_together", asked, result)
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
        "found with its proven lower bound; fewer test points, fewer cells to clean ("
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
    repairs=None,
    **options: Unpack[ReadingOptions],
) -> pd.DataFrame:
    """Rank the missing cells of ``train`` to clean next (a heuristic: the truth is unknown).

    Parameters
    ----------
    train, test, label, alpha, **options
        As for ``certify``; ``train`` is held in memory.
    prior : {"observed", "worlds"}, default "observed"
        How a missing cell's possible values are weighed: ``observed`` by its label's
        observed frequencies, ``worlds`` uniformly over the domain.
    top : int, default 10
        The most groups returned.
    candidates, repairs : DataFrame or path, optional
        As for ``certify``.  Candidates: the policy weighs the candidate worlds (a cell's
        candidates equally likely with ``prior="worlds"``).  Repairs: it ranks whole rows
        (no ``prior``), a table row per training row: ``row``, ``label``, ``score`` and
        ``points``, the test points not certain it may help.

    Returns
    -------
    DataFrame
        A row per group of interchangeable cells (a label and column), best first: its
        first cell's ``row`` and ``column``, ``label``, size ``group_cells``, data rows
        ``group_rows``, ``score``, the non-robust test points it may help as their likely
        winner's cell (``as_winner``) or a rival's (``as_rival``), and the ``test_value``
        they all have (missing when they differ).  Empty when nothing may help.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # certify's table
    >>> nbcert.clean(train, test, "y")[["row", "column", "label", "score"]].round(3)
       row column label  score
    0    3  color     b  0.405
    1    1   size     a  0.203
    """
    from . import cleaning

    reading, need = reading_options(train, **options), Need("cleaning advice")
    asked = ask(train, test, label, reading, need, alpha, candidates=candidates, repairs=repairs)
    if asked.repairs is not None:
        from .repairs import answers

        return answers.ranked(asked.repairs, asked.T, alpha, top)
    values = asked.test[list(asked.table.features)]
    groups = cleaning.advice(asked.table, asked.T, alpha, prior, top, values, asked.cand)
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
    repairs=None,
    **options: Unpack[ReadingOptions],
) -> cleaning.CleaningReport:
    """Find the fewest cells to clean, per test point and for all together, given the truth.

    Parameters
    ----------
    train, test, label, alpha, prior, **options
        As for ``clean``.
    truth : DataFrame or path
        ``train`` with every cell filled (binned at ``train``'s edges); only the missing
        cells' values are used (a DataWarning names the first other cell that differs).
    method : {"auto", "exact", "greedy"}, default "auto"
        For all test points together: ``exact`` proves what it can within the limits
        (every cleaning where few, else a HiGHS program: alpha = 0 only), ``greedy`` gives a
        proven lower bound, ``auto`` is ``exact`` where it applies (else ``why_not_optimal``).
    node_limit, time_limit : int and float, default 20000 and 60.0
        The exact program's branch-and-bound nodes and the exact search's seconds (a
        DataWarning names a limit that stops it).
    batch : int, default 1
        Cells of its chosen group the policy cleans per step along its path.
    target : float, default 1.0
        The share of the points some cleaning certifies (the rest, ``together.excluded``)
        that the cells and the path must certify; below 1, greedy's answer and a bound.
    budget : int, optional
        The most cells to clean together (greedy stops before passing it) and on the path.
    progress : callable, optional
        Called as ``progress(done, total, stage)`` per point, (0, None, stage) as the
        search together and the path begin, and (1, 1, stage) at the end.
    certificate : str or path, optional
        Also write a certificate there, as for ``certify``.
    candidates : DataFrame or path, optional
        Candidate repairs, as for ``certify`` (alpha 0 only); a cell's truth need not be one.
    repairs : DataFrame or path, optional
        Repaired rows, as for ``certify`` (alpha 0, target 1, no budget or certificate):
        the fewest *rows*, a cleaned row taking its true row, in a ``RowsReport``
        (``nbcert.repairs.answers``; ``batch`` counts rows; no ``prior`` or limits).

    Returns
    -------
    CleaningReport
        ``points``: per test point the fewest cells whose cleaning certifies it;
        ``together``: the fewest for all points some cleaning certifies; ``path``: the
        cells the ``clean`` policy cleans, in order, the truth revealed as it cleans.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, truth = example()  # certify's table, and the true values of its blanks
    >>> report = nbcert.clean_with_truth(train, truth, test, "y")
    >>> [p.cells for p in report.points]
    [((3, 'color'),), ()]
    >>> report.together.cells, report.together.optimal
    (((3, 'color'),), True)
    """
    reading = reading_options(train, **options)
    _with_truth_asks(alpha, target, budget, certificate, candidates, repairs)
    tables = {"train": train, "test": test, "truth": truth}
    written = _target(certificate, reading, label, True, candidates, **tables)
    asked = ask(
        label=label, reading=reading, alpha=alpha, candidates=candidates, repairs=repairs, **tables
    )
    if asked.repairs is not None:
        from .repairs import answers

        return answers.with_truth(asked.repairs, asked.T, batch)
    limits = (time_limit, batch, progress, target, budget)
    found = _with_truth(asked, prior, method, node_limit, limits)
    _limit_warnings(("clean_with_truth", "clean --truth"), found.together, time_limit, node_limit)
    _write(written, "clean", asked, found)
    return found


def _with_truth_asks(alpha, target, budget, certificate, candidates, repairs) -> None:
    """Refuse what ``clean_with_truth`` cannot answer together (a ParameterError)."""
    if certificate is not None and (target != 1 or budget is not None):
        raise ParameterError(
            "certificate: written for every row some cleaning certifies (target 1, no budget)"
        )
    _candidates_at_zero(candidates, alpha)
    if repairs is not None and (
        alpha != 0 or target != 1 or budget is not None or certificate is not None
    ):
        raise ParameterError(
            "repairs: the fewest rows with the truth are for alpha 0, target 1, no budget "
            "and no certificate"
        )


def _with_truth(asked: Asked, prior, method, node_limit, limits: tuple):
    """Answer ``clean_with_truth`` over the domains or the candidate repairs.

    ``limits``: its time limit, batch, progress, target and budget.  Over the domains, the
    claims are what the checker proves (it knows domains, not candidate sets).
    """
    from . import cleaning

    model = cleaning.cell_model(asked.table, asked.cand)
    try:
        found = cleaning.report(model, asked.T, asked.alpha, prior, method, node_limit, *limits)
    except cleaning.TooManyBranches as e:
        raise InputError(_too_many_branches(e, asked.table, asked.alpha, asked.reading)) from None
    return (
        found if asked.cand is not None else claims.clean(asked.table, asked.T, found, asked.alpha)
    )


def _candidates_at_zero(candidates, alpha) -> None:
    """Cleaning with candidate repairs is for alpha 0 (a ParameterError otherwise)."""
    if candidates is not None and alpha != 0:
        from .cleaning.candidates import NEEDS_ZERO_ALPHA

        raise ParameterError(f"candidates: {NEEDS_ZERO_ALPHA}")


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
    """Follow the certain test points and the accuracy along a cleaning order.

    The cleaning curve: certain test points, and Naive Bayes' accuracy, as the missing cells
    of ``train`` are cleaned in an order, up to every row some cleaning certifies.

    Parameters
    ----------
    train, truth, test, label, alpha, prior, batch, candidates, **options
        As for ``clean_with_truth`` (the truth is read for the missing cells only).
    labels : array-like, optional
        The test points' true labels: the curve then gives the accuracy of the Naive Bayes
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
        test points (certifiably robust, exact; with candidates over their worlds),
        ``share`` of the test points certain, and ``accuracy`` on ``labels`` (NaN without).
        ``attrs["cells"]``: the order's cells as (data row, column), in order.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, truth = example()  # certify's table, and the true values of its blanks
    >>> nbcert.cleaning_curve(train, truth, test, "y", labels=["a", "b"])
        order  cells  rows  certain  share  accuracy
    0  policy      0     0        1    0.5       1.0
    1  policy      1     1        2    1.0       1.0
    """
    from . import cleaning
    from .cleaning import curve

    _candidates_at_zero(candidates, alpha)
    reading = reading_options(train, **options)
    asked = ask(
        train, test, label, reading, alpha=alpha, candidates=candidates, truth=truth, fill=fill
    )
    tab, T, cand, codes = asked.table, asked.T, asked.cand, asked.fill
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
    """Code the test points' true labels.

    The test points' true labels as label codes (-1: a label the table does not have),
    compared as text.
    """
    values = list(labels)
    if len(values) != k:
        raise InputError(f"labels: {len(values)} labels for {k} test points")
    code = {str(l): c for c, l in enumerate(enc.labels)}
    return np.array([code.get(str(v), -1) for v in values], np.intp)


def _search_too_large(alpha, table, reading: Reading) -> str:
    """OP's refusal at alpha > 0, naming what made its search over whole values large."""
    from .poisoning.minimum import SEARCH_LIMIT

    return (
        f"poison: at alpha = {alpha} blanking every cell of a value moves its column's domain "
        f"size, and the exact search over such blankings would try more than "
        f"{SEARCH_LIMIT:,} sets of values; {hints.many_values(table, reading.binned())}"
    )


def _too_many_branches(e, tab, alpha, reading: Reading) -> str:
    """What stops the exact per-row minimum, and the ways on.

    Binning (where a column that branches holds numbers), alpha 0, or leaving those
    columns out.
    """
    from . import cleaning

    columns = cleaning.branching_columns(tab)
    named = [f"{c!r} ({n})" if n else f"{c!r} (one observed value)" for c, n, _ in columns[:3]]
    more = f" and {len(columns) - 3} more" if len(columns) > 3 else ""
    enc = tab.enc
    numbers = [
        not hints.numeric_split(enc.categories[enc.features.index(c)])[1] for c, _, _ in columns
    ]
    ways = [] if reading.binned() or not any(numbers) else ["bin them (--bins N; bins=N in Python)"]
    if alpha != 0:
        ways.append("use alpha 0, where only one-value columns and unseen test values branch")
    api, cli = hints.drop_advice([c for c, _, _ in columns])
    ways.append(f"leave them out ({cli}; {api} in Python)")
    way = "; or ".join(ways)
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
