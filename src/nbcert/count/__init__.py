"""Counting the possible worlds that predict each label (paper section 4).

A world's support for label l depends only on beta_lj, how many of label l's missing
cells in feature j take the test value t_j; by Lemma 4.4 there are
C(M, beta) (delta - 1)^(M - beta) ways to fill those cells.  When t_j is not in the
domain no cell can take it (beta = 0, delta^M ways); when delta = 1 every cell must
(the formula gives weight 0 to every beta < M, as 0^k = 0).  ``points`` holds a test
point's counts and these options.

* ``batch``: Algorithm 2, enumerating every beta matrix of all labels jointly (``exact``).
* ``exact``: each label's support distribution is built on its own (features merged
  one at a time, equal supports merged) and the labels are combined by sorting:
  worlds where l wins = sum over l's supports s of weight(s) * prod_{l' != l} W_l'(< s)
  (``exact``).  Both compare supports exactly, by the exponents of their primes
  (``keys``).
* ``montecarlo``: beta_lj ~ Binomial(M_lj, 1/delta_j) is exactly the law of a uniform
  random world, so sampling counts estimates the fractions without filling cells
  (``montecarlo``).
* ``bounds``: each label's share of the worlds it wins, and of the ties, as a proven
  interval at any size: the support distributions are built over log-support buckets of
  width eps, refined until every interval is at most ``width`` wide or the time limit
  per row is reached (``bounds``, ``refine``; the proof is in docs/design.md).
* ``auto``: exact unless a label has more than ``min(max_states, AUTO_STATES)`` distinct
  supports, which is decided before any distribution is built (``states``); then proven
  bounds, if they reach ``width`` within ``time_limit`` seconds; then Monte-Carlo, and a
  DataWarning says for how many rows (exact counting costs about 8 microseconds per
  support and Monte-Carlo's 20,000 samples about 15 ms a row, so past some 20,000
  supports exactness costs tens of times more, and proving that a label has millions of
  supports costs seconds a row).  ``exact`` counts
  up to ``max_states`` and refuses past it with the same proof instead of building a
  distribution it would have to discard.

``total`` is the number of worlds as an int (None past MAX_TOTAL_DIGITS digits: Python
turns such an int into text in quadratic time); ``total_text`` is always its exact
decimal string, computed in decimal arithmetic when first read (``total.Worlds``:
milliseconds for a million digits, seconds for tens of millions, and nothing for a count
whose output does not show it in full).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from .. import blanks
from ..certification import possible_index
from ..errors import InputError, unknown_option
from ..stats import Stats, as_stats
from ..stats.domains import EncodedTable
from .exact import count_batch, count_exact
from .montecarlo import count_montecarlo, wilson
from .points import Point, TooLarge, point_stats
from .refine import TIME_LIMIT, prove, proven_counts, share_down, share_up
from .states import choose_method
from .total import Worlds

METHODS = (
    "auto",
    "exact",
    "batch",
    "montecarlo",
    "bounds",
)  # params.RULES["method"]["count_worlds"]


@dataclass(frozen=True)
class WorldCounts:
    """Worlds per predicted label for one test point.

    Exact methods fill ``counts`` (label value -> int), ``ties`` and ``total``; they sum
    up.  ``montecarlo`` fills ``fractions``, ``tie_fraction`` and ``intervals`` (label ->
    (low, high), simultaneous over labels and ties at the requested confidence) and leaves
    ``counts``/``ties`` None.  ``bounds`` fills ``proven`` (label -> (low, high), proven
    counts of worlds as ints), ``proven_ties``, the same as shares of the worlds in
    ``proven_shares`` / ``proven_tie_shares`` (floats rounded outward) and ``eps``, the
    finest grid width it built.  ``total`` is the exact number of worlds, except that it is
    None when that number has more than MAX_TOTAL_DIGITS digits (a 10^6-row table can have
    10^(10^7) worlds); ``total_text``, its exact decimal string (written from ``worlds``
    when first read), and ``log10_total`` are always given by ``count_encoded``.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> first = nbcert.count_worlds(train, test, "y")[0]
    >>> first.method, first.counts, first.ties, first.total
    ('exact', {'a': 3, 'b': 1}, 0, 4)
    """

    method: str
    total: int | None
    log10_total: float
    counts: dict | None = None
    ties: int | None = None
    fractions: dict | None = None
    tie_fraction: float | None = None
    intervals: dict | None = None
    tie_interval: tuple | None = None
    n_worlds: int | None = None
    worlds: Worlds | None = None
    proven: dict | None = None
    proven_ties: tuple | None = None
    proven_shares: dict | None = None
    proven_tie_shares: tuple | None = None
    eps: float | None = None

    @property
    def total_text(self) -> str | None:
        """The exact number of worlds as a decimal string (``worlds.text``: written the
        first time it is read, once for all rows of a count), None where not known."""
        return None if self.worlds is None else self.worlds.text


MAX_TOTAL_DIGITS = 100_000
# auto counts exactly only where every label has at most this many distinct supports (and
# at most max_states): about 0.15 s a row, against about 15 ms for Monte-Carlo's default
AUTO_STATES = 20_000


def total_worlds(source: Stats | EncodedTable, log10: bool = False, cand=None):
    """The number of possible worlds, prod_j delta_j^M_j (with candidate repairs, the
    product of every missing cell's number of candidates).

    Parameters
    ----------
    source : Stats or EncodedTable
        The training table's statistics.
    log10 : bool, default False
        Return its log10 instead (the number itself can have millions of digits).
    cand : Candidates, optional
        The table's candidate repairs.

    Returns
    -------
    int or float
    """
    if cand is not None:
        return cand.log10_total() if log10 else cand.total()
    stats = as_stats(source)
    missing = stats.missing_per_feature
    if log10:
        return float(np.dot(missing, np.log10(stats.delta)))
    return math.prod(int(dj) ** int(mj) for dj, mj in zip(stats.delta, missing))


def total_text(source: Stats | EncodedTable) -> str:
    """The number of possible worlds as an exact decimal string, at any size.

    Computed in decimal arithmetic (:class:`nbcert.count.total.Worlds`), whose numbers are
    decimal digits already: turning a Python int of a million digits into text takes
    minutes; this takes milliseconds, and seconds for tens of millions of digits.

    Parameters
    ----------
    source : Stats or EncodedTable
        The training table's statistics.

    Returns
    -------
    str
    """
    return worlds_of(source).text


def worlds_of(source: Stats | EncodedTable, cand=None) -> Worlds:
    """The number of possible worlds, its digits written only when read (``Worlds``)."""
    if cand is not None:
        return Worlds.of_counts(*cand.world_factors())
    stats = as_stats(source)
    return Worlds.of_counts(stats.delta, stats.missing_per_feature)


def _exact_counts(
    pt: Point, enc: Stats, alpha, method, max_states, total, log10_total
) -> WorldCounts:
    """WorldCounts of one point by ``exact`` or ``batch``; TooLarge past max_states."""
    N, delta = enc.label_sizes, enc.delta
    if method == "batch":
        counts, ties = count_batch(pt, N, delta, alpha, max_states)
    else:
        counts = count_exact(pt, N, delta, alpha, max_states)
        ties = total - sum(counts)
    return WorldCounts(method, total, log10_total, dict(zip(enc.labels, counts)), ties)


def _estimated_note(rows: int, of: int, budget: int, settings) -> None:
    """Say that auto estimated ``rows`` of ``of`` test points, and how to count them exactly."""
    from ..errors import DataWarning, caller_level

    some = f"{rows} of {of} test points" if rows < of else f"all {of} test points"
    why = (
        f"exact counting would build more than {budget:,} distinct supports per label there "
        f"and proven bounds did not reach width {float(settings.width):g} within "
        f"{settings.time_limit:g} s"
    )
    warnings.warn(
        DataWarning(
            f"{some} estimated by method 'montecarlo': {why} (method='bounds' proves "
            f"intervals with a larger time_limit or width; method='exact' counts exactly, "
            f"up to max_states, more slowly)",
            f"count: {some} estimated by montecarlo: {why} (--method bounds proves "
            f"intervals with a larger --time-limit or --width)",
        ),
        stacklevel=caller_level(),
    )


def _montecarlo_counts(pt: Point, enc: Stats, settings, total, log10_total) -> WorldCounts:
    """WorldCounts of one point by sampling, with simultaneous Wilson intervals."""
    n_worlds = settings.n_worlds
    wins = count_montecarlo(pt, enc.label_sizes, enc.delta, settings.alpha, n_worlds, settings.rng)
    z = NormalDist().inv_cdf(1 - (1 - settings.confidence) / (2 * (enc.m + 1)))
    fr = wins / n_worlds
    labels = enc.labels
    return WorldCounts(
        "montecarlo",
        total,
        log10_total,
        fractions=dict(zip(labels, fr[1:].tolist())),
        tie_fraction=float(fr[0]),
        intervals={lab: wilson(int(w), n_worlds, z) for lab, w in zip(labels, wins[1:])},
        tie_interval=wilson(int(wins[0]), n_worlds, z),
        n_worlds=n_worlds,
    )


def _bounds_counts(proven, enc: Stats, whole: int, possible, tie, total, log10) -> WorldCounts:
    """WorldCounts of proven share bounds: counts of worlds (of ``whole`` worlds) and
    shares rounded outward."""
    per, ties = proven_counts(proven, whole, possible, tie)

    def shares(lo, hi):
        return share_down(lo, whole), share_up(hi, whole)

    return WorldCounts(
        "bounds",
        total,
        log10,
        proven=dict(zip(enc.labels, per)),
        proven_ties=ties,
        proven_shares={lab: shares(*lh) for lab, lh in zip(enc.labels, per)},
        proven_tie_shares=shares(*ties),
        eps=proven.eps,
    )


@dataclass(frozen=True)
class _Settings:
    """How ``count_encoded`` counts (its parameters, checked)."""

    alpha: object  # a Fraction (or an int)
    method: str
    n_worlds: int
    confidence: float
    rng: np.random.Generator
    budget: int
    width: Fraction
    time_limit: float


def _settings(alpha, method, n_worlds, confidence, seed, max_states, width, time_limit):
    """``count_encoded``'s parameters as one checked ``_Settings``; ``auto`` builds at most
    ``AUTO_STATES`` states."""
    if method not in METHODS:
        raise unknown_option("counting method", method, METHODS)
    budget = min(max_states, AUTO_STATES) if method == "auto" else max_states
    rng = np.random.default_rng(seed)
    return _Settings(
        alpha, method, n_worlds, confidence, rng, budget, Fraction(width), float(time_limit)
    )


def count_encoded(
    source: Stats | EncodedTable,
    T: np.ndarray,
    alpha=0,
    *,
    method="auto",
    n_worlds=20_000,
    confidence=0.95,
    seed=None,
    max_states=2_000_000,
    width=0.001,
    time_limit=TIME_LIMIT,
    progress=None,
    cand=None,
) -> list[WorldCounts]:
    """World counts per test point from the table's statistics (see the module docstring
    for the methods); ``cand``: the table's candidate repairs, whose worlds are counted
    (``nbcert.stats.candidates``).

    Parameters
    ----------
    source, T
        As for :func:`nbcert.count.points.point_stats`: the table's statistics (or an
        EncodedTable) and the test points' codes; a blank test cell (``blanks.BLANK``)
        leaves its feature out (each group of points with the same blanks is counted on
        the table's projection, ``nbcert.blanks``).
    alpha, method, n_worlds, confidence, seed, max_states, width, time_limit, progress
        As for :func:`nbcert.count_worlds`; ``auto`` builds at most ``min(max_states,
        AUTO_STATES)`` states and uses bounds only where they reach ``width``.

    Returns
    -------
    list of WorldCounts
        One per test point.

    Raises
    ------
    ParameterError
        For an unknown ``method``.
    InputError
        ``exact`` or ``batch`` past ``max_states`` (its ``__context__`` the TooLarge).
    """
    settings = _settings(alpha, method, n_worlds, confidence, seed, max_states, width, time_limit)
    enc, budget, done, estimated = as_stats(source), settings.budget, 0, 0
    whole = {"log10_total": total_worlds(enc, True, cand), "worlds": worlds_of(enc, cand)}

    def answer(sub, codes, rows, keep):  # a group of rows with the same blank test cells
        nonlocal done, estimated
        shim = None if progress is None else (lambda i, _, m: progress(done + i, len(T), m))
        own = None if cand is None else cand.project(keep)
        counts, n = _count_points(sub, codes, settings, shim, own)
        done, estimated = done + len(rows), estimated + n
        free = blanks.free_worlds(enc, keep) if cand is None else _free(cand, enc.d, keep)
        return [_whole(wc, free, whole) for wc in counts]

    out = blanks.per_group(enc, T, answer)
    if estimated:
        _estimated_note(estimated, len(T), budget, settings)
    return out


def _free(cand, d: int, keep) -> int:
    """The fillings of the left-out features' missing cells, with candidate repairs."""
    out = np.setdiff1d(np.arange(d), keep)
    return cand.total(out) if len(out) else 1


def _whole(wc: WorldCounts, free: int, whole: dict) -> WorldCounts:
    """A projection's world counts (``nbcert.blanks``) as counts of the whole table: each
    count times the ``free`` fillings of the left-out columns' missing cells, the totals the
    whole table's: one ``Worlds`` for every row, so its digits are written at most once
    (estimated fractions and proven shares unchanged)."""
    if free == 1:
        return dataclasses.replace(wc, worlds=whole["worlds"])
    scaled = dict(whole, total=None if wc.total is None else wc.total * free)
    if wc.counts is not None:
        scaled.update(counts={l: c * free for l, c in wc.counts.items()}, ties=wc.ties * free)
    if wc.proven is not None:
        lo, hi = wc.proven_ties
        scaled.update(
            proven={l: (a * free, b * free) for l, (a, b) in wc.proven.items()},
            proven_ties=(lo * free, hi * free),
        )
    return dataclasses.replace(wc, **scaled)


def _count_points(enc, T, settings: _Settings, progress, cand=None) -> tuple:
    """(WorldCounts per test point, how many ``auto`` estimated) on complete test codes."""
    log10_total = total_worlds(enc, True, cand)
    total = total_worlds(enc, False, cand) if log10_total < MAX_TOTAL_DIGITS else None
    points, out, used, estimated = point_stats(enc, T, cand), [], settings.method, 0
    possible = []  # the exact possible labels and ties of every point, once needed
    for i, pt in enumerate(points):
        used = choose_method(pt, enc.delta, settings.alpha, settings.method, settings.budget)
        if settings.method == "auto" and used == "montecarlo":
            used = "bounds"
        if progress is not None:
            progress(i, len(points), used)
        wc = None
        if used in ("exact", "batch"):
            # the exact total only now: where it has very many digits it takes seconds
            total = total_worlds(enc, False, cand) if total is None else total
            wc = _exact_or_none(pt, enc, settings, used, total, log10_total)
            used = "bounds" if wc is None else used  # auto: the residues of the bound collided
        if used == "bounds":
            if not possible:
                with np.errstate(over="ignore"):  # a product of spans past a float: inf
                    possible.append(possible_index(enc, T, settings.alpha, cand))
            wc = _proven(pt, enc, settings, possible[0], i, total, log10_total, cand)
        if wc is None:
            wc = _montecarlo_counts(pt, enc, settings, total, log10_total)
            estimated += settings.method == "auto"
        out.append(wc)
    if progress is not None:
        progress(len(points), len(points), used)
    return out, estimated


def _exact_or_none(pt, enc, settings: _Settings, method, total, log10_total):
    """Exact WorldCounts of one point; past the state limit an InputError, or None under
    ``auto``."""
    try:
        return _exact_counts(pt, enc, settings.alpha, method, settings.budget, total, log10_total)
    except TooLarge as e:
        if settings.method != "auto":
            raise InputError(
                f"exact counting is too large here ({e}); use the bounds or montecarlo method"
            ) from None
        return None


def _proven(pt, enc, settings: _Settings, possible, i: int, total, log10_total, cand=None):
    """WorldCounts of one point by ``bounds``; under ``auto`` None where the bounds do not
    reach the width within the time limit."""
    auto = settings.method == "auto"
    tie = int(possible.tie[i])
    can = possible.labels[i].tolist()
    proven = prove(
        pt,
        enc.label_sizes,
        enc.delta,
        settings.alpha,
        settings.width,
        settings.time_limit,
        can,
        tie,
        must=not auto,
    )
    if proven is None or (auto and proven.width > settings.width):
        return None
    whole = total if total is not None else total_worlds(enc, False, cand)
    return _bounds_counts(proven, enc, whole, can, tie, total, log10_total)


__all__ = [
    "WorldCounts",
    "TooLarge",
    "MAX_TOTAL_DIGITS",
    "AUTO_STATES",
    "total_text",
    "worlds_of",
    "Worlds",
    "count_encoded",
    "total_worlds",
    "point_stats",
    "choose_method",
]
