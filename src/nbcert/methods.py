"""nbcert's methods on integer-coded tables: the names the reproduction and the benchmarks call.

The command line and :mod:`nbcert`'s API read a file, encode it and answer.  A study that
times a method, or draws its own tables, works one level lower, on an
:class:`EncodedTable` (every feature value and label an integer code), and calls the
methods below directly.  This module is that level's one documented seam: the workflow
under ``workflow/`` and ``benchmarks/`` import nothing else of nbcert beyond
:mod:`nbcert` itself and :mod:`nbcert.synthetic` (``tests/test_packaging.py`` holds them to it).

The paper's names, and where they are here:

==========================  ==================================================================
paper                       here
==========================  ==================================================================
the index (Section 4.2)     :func:`tally`: per (label, feature, value) observed counts,
                            missing cells per (label, feature) and label sizes
Iterate+Index (Alg. 1)      :func:`certify_index`: every test point decided from the index
Iterate                     :func:`certify_iterate`: each point's extreme counts scanned from
                            the table
AD (Section 6)              :func:`iter_ad` (trains on each sampled world, as the paper
                            describes; :func:`iter_ad_sampled` says what it saw, and stops
                            at a deadline), :func:`iter_ad_counts` (the same worlds from
                            counts, a cheaper equivalent); :func:`certify_ad`,
                            :func:`certify_ad_counts` decide a whole batch
counting (Alg. 2)           :func:`count_encoded` with ``method="batch"`` (the paper's joint
                            enumeration), ``"exact"``, ``"montecarlo"`` or ``"bounds"``;
                            :func:`total_worlds`
RP, SR, OP (Section 5.1)    :func:`poison_encoded` with ``"rp"``, ``"sr"`` or ``"op"`` (OP
                            proven minimal at any alpha); :func:`pure_strategies` and
                            :func:`authors_code` are the paper's own OP answers
points together (5.2)       :func:`poison_together_encoded`, :func:`greedy`, :func:`all_nonrobust`
binning (Section 6.1)       :func:`numeric_values`, :func:`discretize_column`
==========================  ==================================================================

CPClean's worlds (each dirty row one of its repaired rows whole, ``nbcert.repairs``):
:func:`repairs_curve` gives every test point's status before cleaning (certain, not
certain, or undecided with the bounds that stopped it) and the certain points along an
order of cleaned rows (the policy's, a random one, or rows given, such as CPClean's).

Beyond the paper: :func:`certify_encoded` writes Iterate+Index's answers with their evidence as
a certificate that :mod:`nbcert.verify` checks; the cleaning searches (:class:`CleaningTable` and the functions after it,
:func:`entropy_chooser` a CPClean-style rival to nbcert's policy); :func:`as_alpha` (the
smoothing as an exact fraction) and :func:`check_parameters`, the rules the API applies to a
parameter (``sep=";"``, ...); and :func:`mem_available` for a study that plans its memory.
"""

from __future__ import annotations

from .approximate import (
    Sampled,
    certify_ad,
    certify_ad_counts,
    iter_ad,
    iter_ad_counts,
    iter_ad_sampled,
)
from .certificate import certify_encoded
from .certification import Certification, certify_index, certify_iterate
from .cleaning import (
    CleaningTable,
    advice,
    clean_together,
    cleanable,
    entropy_chooser,
    follow,
    next_group,
    report,
    state_certification,
)
from .count import TooLarge, count_encoded, total_worlds
from .memory import mem_available
from .params import as_alpha
from .params import validate as check_parameters
from .poisoning import (
    Cells,
    PoisonedCounts,
    Poisoning,
    all_nonrobust,
    greedy,
    poison_encoded,
    poison_together_encoded,
)
from .poisoning.paper import authors_code, pure_strategies
from .reading.binning import discretize_column, numeric_values
from .reading.encoding import encode, from_codes
from .stats import Stats, tally
from .stats.domains import EncodedTable, code_dtype


def repairs_curve(
    train, truth, test, label: str, repairs, *, order="policy", seed=None, points=50, **options
):
    """Follow the certain test points over repaired rows as rows are cleaned (alpha 0).

    Each test point's status before cleaning, and the certain points as rows are cleaned
    to their truth in ``order``.

    Parameters
    ----------
    train, truth, test, label
        As for ``nbcert.clean_with_truth``.
    repairs : DataFrame or path
        Repaired rows (``nbcert.reading.repairs``: CPClean's ``X_train_repairs/``).
    order : "policy", "random" or list of int
        The policy's path (the truth revealed as it cleans, on the points the true table
        certifies), every dirty row at random (``seed``), or the training table's data rows
        in the order given (e.g. the rows CPClean cleaned).
    points : int, default 50
        About how many states of the order are certified.
    **options
        The reading options (``bins``, ...), as for ``nbcert.certify``.

    Returns
    -------
    (DataFrame, DataFrame)
        Per point ``status`` ("certain", "not certain", "undecided"), ``label``,
        ``undecided``; and per state ``rows`` cleaned, ``certain``, ``undecided``,
        ``share`` (``attrs["rows"]``: the order as data rows).
    """
    from .reading.asked import ask
    from .reading.options import reading_options
    from .repairs import answers

    reading = reading_options(train, **options)
    asked = ask(train, test, label, reading, truth=truth, repairs=repairs)
    rr, T = asked.repairs, asked.T
    return answers.status(rr, T), answers.curve_table(rr, T, order, seed, points)


def repairs_margins(train, test, label: str, repairs, *, alpha=0, **options):
    """Measure how far each test point is from certain, over repaired rows and per cell.

    Parameters
    ----------
    train, test, label, alpha, **options
        As for ``nbcert.certify``.
    repairs : DataFrame or path
        Repaired rows (``nbcert.reading.repairs``: CPClean's ``X_train_repairs/``).

    Returns
    -------
    DataFrame
        Per point ``rows`` and ``cells``: the log margin of its best label, max over w of
        min over l != w of log(smallest S_w / largest S_l), over repaired rows and over
        the same repairs cell by cell (positive iff certain; floats, for reading).
    """
    from .params import as_alpha
    from .reading.asked import ask
    from .reading.options import reading_options
    from .repairs import answers

    alpha = as_alpha(alpha)
    asked = ask(train, test, label, reading_options(train, **options), repairs=repairs)
    return answers.margins(asked.repairs, asked.T, alpha)


__all__ = [
    # tables of integer codes
    "EncodedTable",
    "encode",
    "from_codes",
    "code_dtype",
    "numeric_values",
    "discretize_column",
    # the index and the decision methods
    "Stats",
    "tally",
    "Certification",
    "certify_index",
    "certify_iterate",
    "iter_ad",
    "iter_ad_counts",
    "iter_ad_sampled",
    "Sampled",
    "certify_ad",
    "certify_ad_counts",
    # counting
    "count_encoded",
    "total_worlds",
    "TooLarge",
    # poisoning
    "Poisoning",
    "Cells",
    "PoisonedCounts",
    "poison_encoded",
    "pure_strategies",
    "authors_code",
    "poison_together_encoded",
    "greedy",
    "all_nonrobust",
    # cleaning
    "CleaningTable",
    "state_certification",
    "cleanable",
    "clean_together",
    "next_group",
    "follow",
    "entropy_chooser",
    "report",
    "advice",
    # repaired rows (CPClean's worlds)
    "repairs_curve",
    "repairs_margins",
    # certificates (checked by nbcert.verify)
    "certify_encoded",
    # the API's parameter rules
    "as_alpha",
    "check_parameters",
    # resources
    "mem_available",
]
