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
* ``auto``: exact unless a label has more than ``min(max_states, AUTO_STATES)`` distinct
  supports, which is decided before any distribution is built (``bounds``); then
  Monte-Carlo, and a DataWarning says for how many rows (issue 28: exact counting costs
  about 8 microseconds per support and Monte-Carlo's 20,000 samples about 15 ms a row, so
  past some 20,000 supports exactness costs tens of times more; proving a label had more
  than 2,000,000 took 0.5-2 s a row, 40 s on 25 rows that all ended in Monte-Carlo).
  ``exact`` counts up to ``max_states`` and refuses past it with the same proof instead
  of building a distribution it would have to discard.

``total`` is the number of worlds as an int (None past MAX_TOTAL_DIGITS digits: Python
turns such an int into text in quadratic time); ``total_text`` is always its exact
decimal string, computed in decimal arithmetic (libmpdec: milliseconds for a million
digits).
"""

from __future__ import annotations

import dataclasses
import decimal
import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .. import blanks
from ..errors import InputError, unknown_option
from ..reading.encoding import EncodedTable
from ..stats import Stats, as_stats
from .exact import count_batch, count_exact
from .montecarlo import count_montecarlo, wilson
from .points import Point, TooLarge, point_stats
from .states import choose_method

METHODS = ("auto", "exact", "batch", "montecarlo")  # params.RULES["method"]["count_worlds"]


@dataclass(frozen=True)
class WorldCounts:
    """Worlds per predicted label for one test point.

    Exact methods fill ``counts`` (label value -> int), ``ties`` and ``total``; they sum
    up.  ``montecarlo`` fills ``fractions``, ``tie_fraction`` and ``intervals`` (label ->
    (low, high), simultaneous over labels and ties at the requested confidence) and leaves
    ``counts``/``ties`` None.  ``total`` is the exact number of worlds, except that it is
    None when that number has more than MAX_TOTAL_DIGITS digits (a 10^6-row table can have
    10^(10^7) worlds); ``total_text``, its exact decimal string, and ``log10_total`` are
    always given by ``count_encoded``.
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
    samples: int | None = None
    total_text: str | None = None


MAX_TOTAL_DIGITS = 100_000
# auto counts exactly only where every label has at most this many distinct supports (and
# at most max_states): about 0.15 s a row, against about 15 ms for Monte-Carlo's default
AUTO_STATES = 20_000


def total_worlds(source: Stats | EncodedTable, log10: bool = False):
    """The number of possible worlds, prod_j delta_j^M_j.

    Parameters
    ----------
    source : Stats or EncodedTable
        The training table's statistics.
    log10 : bool, default False
        Return its log10 instead (the number itself can have millions of digits).

    Returns
    -------
    int or float
    """
    stats = as_stats(source)
    missing = stats.missing_per_feature
    if log10:
        return float(np.dot(missing, np.log10(stats.delta)))
    return math.prod(int(dj) ** int(mj) for dj, mj in zip(stats.delta, missing))


def total_text(source: Stats | EncodedTable) -> str:
    """The number of possible worlds as an exact decimal string, at any size.

    Computed in decimal arithmetic, whose numbers are decimal digits already (turning a
    Python int of a million digits into text takes minutes; this takes milliseconds).

    Parameters
    ----------
    source : Stats or EncodedTable
        The training table's statistics.

    Returns
    -------
    str
    """
    stats = as_stats(source)
    pairs = [(int(dj), int(mj)) for dj, mj in zip(stats.delta, stats.missing_per_feature) if mj]
    digits = sum(mj * math.log10(dj) for dj, mj in pairs if dj > 1)
    ctx = decimal.Context(
        prec=int(digits) + 30,
        Emax=decimal.MAX_EMAX,
        Emin=decimal.MIN_EMIN,
        traps=[decimal.Inexact, decimal.Overflow, decimal.InvalidOperation],
    )
    n = decimal.Decimal(1)
    for dj, mj in pairs:
        n = ctx.multiply(n, ctx.power(decimal.Decimal(dj), mj))
    return format(n, "f")


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


def _estimated_note(rows: int, of: int, budget: int) -> None:
    """Say that auto estimated ``rows`` of ``of`` test rows, and how to count them exactly."""
    from ..reading.hints import DataWarning

    some = f"{rows} of {of} test rows" if rows < of else f"all {of} test rows"
    why = f"exact counting would build more than {budget:,} distinct supports per label there"
    warnings.warn(
        DataWarning(
            f"{some} estimated by method 'montecarlo': {why} (method='exact' counts them "
            f"exactly, up to max_states, more slowly)",
            f"count: {some} estimated by montecarlo: {why} "
            f"(--method exact counts them exactly, more slowly)",
        ),
        stacklevel=3,
    )


def _montecarlo_counts(
    pt: Point, enc: Stats, alpha, n_samples, confidence, rng, total, log10_total
) -> WorldCounts:
    """WorldCounts of one point by sampling, with simultaneous Wilson intervals."""
    wins = count_montecarlo(pt, enc.label_sizes, enc.delta, alpha, n_samples, rng)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / (2 * (enc.m + 1)))
    fr = wins / n_samples
    labels = enc.labels
    return WorldCounts(
        "montecarlo",
        total,
        log10_total,
        fractions=dict(zip(labels, fr[1:].tolist())),
        tie_fraction=float(fr[0]),
        intervals={lab: wilson(int(w), n_samples, z) for lab, w in zip(labels, wins[1:])},
        tie_interval=wilson(int(wins[0]), n_samples, z),
        samples=n_samples,
    )


def count_encoded(
    source: Stats | EncodedTable,
    T: np.ndarray,
    alpha=0,
    *,
    method="auto",
    n_samples=20_000,
    confidence=0.95,
    seed=None,
    max_states=2_000_000,
    progress=None,
) -> list[WorldCounts]:
    """World counts per test point from the table's statistics (see the module docstring
    for the methods).

    Parameters
    ----------
    source, T
        As for :func:`nbcert.count.points.point_stats`: the table's statistics (or an
        EncodedTable) and the test points' codes; a blank test cell (``blanks.BLANK``)
        leaves its feature out (each group of points with the same blanks is counted on
        the table's projection, ``nbcert.blanks``).
    alpha : number, Fraction or str, default 0
        The smoothing parameter, read exactly.
    method : {"auto", "exact", "batch", "montecarlo"}, default "auto"
    n_samples : int, default 20000
        Worlds sampled per point by Monte-Carlo.
    confidence : float, default 0.95
        Confidence of the simultaneous Monte-Carlo intervals.
    seed : None, int or numpy Generator
        Monte-Carlo's random source.
    max_states : int, default 2000000
        The most distinct supports per label (beta matrices for ``batch``) exact
        counting may build; ``auto`` builds at most ``min(max_states, AUTO_STATES)`` and
        estimates the other rows (with a DataWarning saying how many).
    progress : callable, optional
        Called as ``progress(done, total, method)`` before each point (with the method
        it is counted by) and once when all are done.

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
    if method not in METHODS:
        raise unknown_option("counting method", method, METHODS)
    enc, budget = as_stats(source), min(max_states, AUTO_STATES) if method == "auto" else max_states
    rng, done, estimated = np.random.default_rng(seed), 0, 0
    whole = {"log10_total": total_worlds(enc, log10=True), "total_text": total_text(enc)}

    def answer(sub, codes, rows, keep):  # a group of rows with the same blank test cells
        nonlocal done, estimated
        shim = None if progress is None else (lambda i, _, m: progress(done + i, len(T), m))
        counts, n = _count_points(
            sub, codes, alpha, method, n_samples, confidence, rng, budget, shim
        )
        done, estimated = done + len(rows), estimated + n
        return [_whole(wc, blanks.free_worlds(enc, keep), whole) for wc in counts]

    out = blanks.per_group(enc, T, answer)
    if estimated:
        _estimated_note(estimated, len(T), budget)
    return out


def _whole(wc: WorldCounts, free: int, whole: dict) -> WorldCounts:
    """A projection's world counts (``nbcert.blanks``) as counts of the whole table: each
    count times the ``free`` fillings of the left-out columns' missing cells, the totals the
    whole table's (estimated fractions unchanged)."""
    if free == 1:
        return wc
    scaled = dict(whole, total=None if wc.total is None else wc.total * free)
    if wc.counts is not None:
        scaled.update(counts={l: c * free for l, c in wc.counts.items()}, ties=wc.ties * free)
    return dataclasses.replace(wc, **scaled)


def _count_points(enc, T, alpha, method, n_samples, confidence, rng, budget, progress) -> tuple:
    """(WorldCounts per test point, how many ``auto`` estimated) on complete test codes."""
    log10_total = total_worlds(enc, log10=True)
    total = total_worlds(enc) if log10_total < MAX_TOTAL_DIGITS else None
    text = total_text(enc)
    points, out, used, estimated = point_stats(enc, T), [], method, 0
    for i, pt in enumerate(points):
        used = choose_method(pt, enc.delta, alpha, method, budget)
        if progress is not None:
            progress(i, len(points), used)
        if used != "montecarlo":
            try:
                # the exact total only now: where it has very many digits it takes seconds
                total = total_worlds(enc) if total is None else total
                wc = _exact_counts(pt, enc, alpha, used, budget, total, log10_total)
                out.append(dataclasses.replace(wc, total_text=text))
                continue
            except TooLarge as e:
                if method != "auto":
                    raise InputError(
                        f"exact counting is too large here ({e}); use the montecarlo method"
                    ) from None
                used = "montecarlo"  # the bound's residues collided: a too-large point got through
        wc = _montecarlo_counts(pt, enc, alpha, n_samples, confidence, rng, total, log10_total)
        out.append(dataclasses.replace(wc, total_text=text))
        estimated += method == "auto"
    if progress is not None:
        progress(len(points), len(points), used)
    return out, estimated


__all__ = [
    "WorldCounts",
    "TooLarge",
    "MAX_TOTAL_DIGITS",
    "AUTO_STATES",
    "total_text",
    "count_encoded",
    "total_worlds",
    "point_stats",
    "choose_method",
]
