"""Deciding certifiable robustness (paper section 3): Iterate, Iterate+Index and AD.

Worlds factor by label: label l's support depends only on how label l's own missing
cells are filled.  So the set of support vectors over all worlds is a product of
per-label ranges, and a test point is robust iff some label's smallest support beats
every other label's largest support strictly (a tie in any world is non-robust).

With candidate repairs (``nbcert.stats.candidates``) a missing cell takes one of its
candidates: label l's count of t_j ranges over E + F .. E + A (F: l's missing cells whose
only candidate is t_j, A: those with t_j among their candidates), every value in between,
and the same product argument holds.

The extremes differ from the paper's formulas (1)-(2) in two cases:

* a test value never seen in training: no missing cell can take it, so the count is
  the observed count in both extremes;
* a feature whose domain has one value: every missing cell must take it, so the
  smallest count already includes all missing cells.

Iterate runs Algorithm 1 for each point: one pass over the table counts, per label, the
cells agreeing with the point (E) and the missing cells (M), as its lines 1-5 do for
every point; Iterate+Index counts every (label, code) once and reads E and M from it.

The same product structure says which labels a point's prediction can still become
(``possible_index``): label l is the unique prediction of some world iff its largest
support beats every other label's smallest, smax(l) > max_{l' != l} smin(l') (put l's
cells at their best, the others' at their worst).  It can reach the top (win or tie)
iff no other label's smallest support exceeds smax(l); a label that reaches the top but
cannot win proves a tied world (l at its largest, the others at their smallest).  A
non-robust point with at most one possible label has a tied world too.  Otherwise two
labels may still tie strictly inside their ranges: each label's count c_lj takes every
integer from its smallest to its largest, independently, so where every label that can
reach the top has at most TIE_VECTORS count vectors, their exact supports are listed and
a tie is a value v two labels share with v >= every other label's smallest support.
Beyond that the tie is left undecided (counting's support distributions decide it).
AD, the paper's sampling baseline, lives in ``nbcert.approximate``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .kernel import exact_support, greater, log_support, log_tolerance
from .stats import Stats, as_stats
from .stats.domains import EncodedTable


@dataclass(frozen=True)
class Certification:
    """Per test point: robust or not, and the label every world predicts (-1 if not)."""

    robust: np.ndarray  # (k,) bool
    label: np.ndarray  # (k,) label code, -1 where not robust


def extremes(E: np.ndarray, M: np.ndarray, delta: np.ndarray, seen: np.ndarray):
    """Smallest and largest agreeing counts (..., m, d) over all worlds.

    E: observed agreeing counts, M: missing counts, seen: (..., d) test value in domain.
    """
    seen = seen[..., None, :]
    lo = E + np.where(seen & (delta == 1), M, 0)
    hi = E + np.where(seen, M, 0)
    return lo, hi


def certify_ranges(
    lo: np.ndarray, hi: np.ndarray, N: np.ndarray, delta: np.ndarray, alpha
) -> Certification:
    """Robustness from per-point extreme counts lo, hi of shape (k, m, d)."""
    k, m, d = lo.shape
    if m == 1:
        return Certification(np.ones(k, bool), np.zeros(k, np.intp))
    smin = log_support(lo, N, delta, alpha)  # (k, m)
    smax = log_support(hi, N, delta, alpha)
    tol = log_tolerance(d, int(N.sum()), alpha)
    # a label need not beat itself: the diagonal is true, never re-decided exactly
    winner = _pairwise(smin, smax, lo, hi, N, delta, alpha, tol, np.inf).all(
        axis=2
    )  # at most one label per point
    robust = winner.any(axis=1)
    return Certification(robust, np.where(robust, winner.argmax(axis=1), -1))


TIE_NO, TIE_YES, TIE_UNKNOWN = 0, 1, -1


@dataclass(frozen=True)
class Possible:
    """Per test point: the labels some world predicts (uniquely), and whether a world ties."""

    labels: np.ndarray  # (k, m) bool: label l is the unique prediction of some world
    tie: np.ndarray  # (k,) int8: TIE_YES proven, TIE_NO proven impossible, TIE_UNKNOWN undecided


def _pairwise(
    la: np.ndarray,
    lb: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    N,
    delta,
    alpha,
    tol,
    diagonal: float,
):
    """(k, m, m) exact la[p, l] > lb[p, l2] for log supports of counts a, b (k, m, d);
    the diagonal l == l2 is set to ``diagonal`` (+inf: true, -inf: false) and never re-decided."""
    k, m = la.shape

    def exact(ix):
        p, l, l2 = ix
        return exact_support(a[p, l], N[l], delta, alpha) > exact_support(
            b[p, l2], N[l2], delta, alpha
        )

    left = np.broadcast_to(la[:, :, None], (k, m, m)).copy()
    left[:, np.arange(m), np.arange(m)] = diagonal
    return greater(left, np.broadcast_to(lb[:, None, :], (k, m, m)), tol, exact)


def possible_counts(
    lo: np.ndarray, hi: np.ndarray, N: np.ndarray, delta: np.ndarray, alpha
) -> Possible:
    """The labels some world predicts, from per-point extreme counts lo, hi (k, m, d):
    l wins somewhere iff smax(l) > smin(l') for every l' != l (exact)."""
    k, m, d = lo.shape
    if m == 1:
        return Possible(np.ones((k, 1), bool), np.full(k, TIE_NO, np.int8))
    smin = log_support(lo, N, delta, alpha)  # (k, m)
    smax = log_support(hi, N, delta, alpha)
    tol = log_tolerance(d, int(N.sum()), alpha)
    wins = _pairwise(smax, smin, hi, lo, N, delta, alpha, tol, np.inf).all(axis=2)  # (k, m)
    above = _pairwise(
        smin, smax, lo, hi, N, delta, alpha, tol, -np.inf
    )  # smin(l) > smax(l2), l != l2
    robust = (above | np.eye(m, dtype=bool)).all(axis=2).any(axis=1)
    reach = ~above.any(axis=1)  # no label's smallest support above l2's largest
    boundary = (~wins & reach).any(axis=1)  # l2 reaches the top but cannot win: a tied world
    tie = np.where(
        robust, TIE_NO, np.where(boundary | (wins.sum(axis=1) <= 1), TIE_YES, TIE_UNKNOWN)
    )
    open_ = np.flatnonzero(tie == TIE_UNKNOWN)
    tie[open_] = _ties_listed(lo[open_], hi[open_], reach[open_], N, delta, alpha, tol)
    return Possible(wins, tie.astype(np.int8))


TIE_VECTORS = 256  # count vectors of one label listed to decide a tie inside the ranges


def _supports(lo: np.ndarray, hi: np.ndarray, N_l: int, delta: np.ndarray, alpha) -> set | None:
    """Every exact support one label takes (counts from lo to hi, (d,)), None if more than TIE_VECTORS vectors."""
    if math.prod((hi - lo + 1).tolist()) > TIE_VECTORS:
        return None
    ranges = [range(a, b + 1) for a, b in zip(lo.tolist(), hi.tolist())]
    return {
        exact_support(np.array(c, np.int64), N_l, delta, alpha) for c in itertools.product(*ranges)
    }


TIE_CHECKS = 16  # near-equal supports of one point checked exactly before listing them all
TIE_CHUNK = 1 << 22  # count vector cells listed at once


def _ties_listed(lo, hi, reach, N, delta, alpha, tol: float) -> np.ndarray:
    """TIE_YES, TIE_NO or TIE_UNKNOWN for points (lo, hi (P, m, d)) whose top labels
    (``reach``) have at most TIE_VECTORS count vectors each: their log supports are listed
    in floats, and only two labels' supports equal within rounding (``tol``) are compared
    exactly, a few per point, else by listing that point's exact supports."""
    out = np.full(len(lo), TIE_UNKNOWN, np.int8)
    spans = np.where(reach[..., None], hi - lo + 1, 1)
    size = np.prod(spans.astype(float), axis=2)  # (P, m): count vectors of each top label
    most = size.max(axis=1)
    for V, ix in _by_size(np.flatnonzero(most <= TIE_VECTORS), most, lo.shape[1] * lo.shape[2]):
        vectors = _vectors(lo[ix], spans[ix], V)  # (P, m, V, d)
        logs = log_support(vectors.transpose(0, 2, 1, 3), N, delta, alpha).transpose(0, 2, 1)
        logs[(np.arange(V) >= size[ix][..., None]) | ~reach[ix][..., None]] = np.nan
        floor = log_support(lo[ix], N, delta, alpha)
        yes, near = _near_ties(logs, floor, tol)
        out[ix] = np.where(yes, TIE_YES, TIE_NO)
        for q in np.flatnonzero(near & ~yes):  # rare: supports of two labels equal within rounding
            p = ix[q]
            pairs = _pairs_of_point(logs[q], floor[q], tol)
            out[p] = _check_near(pairs, vectors[q], lo[p], hi[p], reach[p], N, delta, alpha)
    return out


def _by_size(points: np.ndarray, most: np.ndarray, width: int):
    """(V, points) chunks of ``points`` whose largest vector counts ``most`` are at most
    V, a power of two, each chunk listing at most about TIE_CHUNK count vector cells."""
    bucket = 2 ** np.ceil(np.log2(np.maximum(most[points], 1))).astype(int)
    for V in np.unique(bucket).tolist():
        same = points[bucket == V]
        step = max(1, TIE_CHUNK // (width * V))
        for a in range(0, len(same), step):
            yield V, same[a : a + step]


def _vectors(lo: np.ndarray, spans: np.ndarray, V: int) -> np.ndarray:
    """(P, m, V, d): the i-th count vector of each label, lo + the mixed-radix digits of i."""
    stride = np.cumprod(
        np.concatenate([np.ones_like(spans[..., :1]), spans[..., :-1]], axis=-1), axis=-1
    )
    i = np.arange(V)[None, None, :, None]
    return lo[:, :, None, :] + (i // stride[:, :, None, :]) % spans[:, :, None, :]


def _near_ties(logs: np.ndarray, floor: np.ndarray, tol: float) -> tuple:
    """From listed log supports (P, m, V) (nan: no vector) and the smallest (P, m): the
    points with a sure tie (two labels' supports 0, every other label's smallest 0) and
    the points where two labels have supports within ``tol`` at the top.  Two such
    supports a <= b make every gap between neighbours in the sorted supports from a to b
    at most tol, and one of those neighbours is a pair of the two labels: so sorting each
    point's supports of the two labels finds them without comparing every pair."""
    P, m, V = logs.shape
    yes, near = np.zeros(P, bool), np.zeros(P, bool)
    tag = np.repeat([0, 1], V)
    for l, l2 in itertools.combinations(range(m), 2):
        rest = np.delete(floor, [l, l2], axis=1).max(axis=1, initial=-np.inf)[:, None]
        both = logs[:, [l, l2]].reshape(P, 2 * V)
        yes |= (
            (logs[:, l] == -np.inf).any(axis=1)
            & (logs[:, l2] == -np.inf).any(axis=1)
            & (rest[:, 0] == -np.inf)
        )
        with np.errstate(invalid="ignore"):
            both = np.where(np.isfinite(both) & (both >= rest - tol), both, np.nan)
        order = np.argsort(both, axis=1)  # nan last
        values, tags = np.take_along_axis(both, order, axis=1), tag[order]
        with np.errstate(invalid="ignore"):
            near |= ((np.diff(values, axis=1) <= tol) & (tags[:, 1:] != tags[:, :-1])).any(axis=1)
    return yes, near


def _pairs_of_point(logs: np.ndarray, floor: np.ndarray, tol: float) -> np.ndarray:
    """Rows (l, l2, i, j) of one point's two labels' supports (logs (m, V)) within tol at the top."""
    out = [np.zeros((0, 4), np.intp)]
    for l, l2 in itertools.combinations(range(len(floor)), 2):
        rest = np.delete(floor, [l, l2]).max(initial=-np.inf)
        a, b = logs[l][:, None], logs[l2][None, :]
        with np.errstate(invalid="ignore"):
            i, j = np.nonzero((np.abs(a - b) <= tol) & (a >= rest - tol))
        out.append(np.stack([np.full_like(i, l), np.full_like(i, l2), i, j], axis=1))
    return np.concatenate(out)


def _check_near(pairs: np.ndarray, vectors, lo, hi, reach, N, delta, alpha) -> int:
    """One point's tie from its candidate pairs (l, l2, i, j): exactly, or by listing its
    supports when there are more than TIE_CHECKS."""
    if len(pairs) > TIE_CHECKS:
        return _tie_inside(lo, hi, reach, N, delta, alpha)
    m = len(N)
    floor = [exact_support(lo[x], N[x], delta, alpha) for x in range(m)]
    for l, l2, i, j in pairs.tolist():
        v = exact_support(vectors[l, i], N[l], delta, alpha)
        rest = max((floor[x] for x in range(m) if x not in (l, l2)), default=0)
        if v >= rest and v == exact_support(vectors[l2, j], N[l2], delta, alpha):
            return TIE_YES
    return TIE_NO


def _tie_inside(lo: np.ndarray, hi: np.ndarray, reach: np.ndarray, N, delta, alpha) -> int:
    """Whether some world of one point (lo, hi (m, d)) ties at the top, deciding it by listing
    the supports of the labels that reach the top (``reach``); TIE_UNKNOWN when too many."""
    m = len(N)
    floor = [exact_support(lo[l], N[l], delta, alpha) for l in range(m)]
    values = {
        l: _supports(lo[l], hi[l], N[l], delta, alpha) for l in np.flatnonzero(reach).tolist()
    }
    if any(v is None for v in values.values()):
        return TIE_UNKNOWN
    for l, l2 in itertools.combinations(values, 2):
        rest = max((floor[x] for x in range(m) if x not in (l, l2)), default=0)
        if any(v >= rest for v in values[l] & values[l2]):
            return TIE_YES
    return TIE_NO


def _seen(T: np.ndarray) -> np.ndarray:
    return T >= 0


def point_counts(stats: Stats, T: np.ndarray):
    """Per test point the observed agreeing counts E (k, m, d), and the missing counts M (m, d)."""
    G = stats.global_codes(T)  # (k, d)
    E = np.where(_seen(T)[:, None, :], stats.counts[:, G].transpose(1, 0, 2), 0)
    return E, stats.counts[:, stats.missing_codes]


def index_extremes(stats: Stats, T: np.ndarray, cand=None) -> tuple:
    """The smallest and largest agreeing counts (k, m, d) of each point, from the index;
    with candidate repairs (``nbcert.stats.candidates``) the missing cells that must take
    t_j (F) and those that may (A) bound them: E + F .. E + A."""
    E, M = point_counts(stats, T)
    if cand is None:
        return extremes(E, M, stats.delta, _seen(T))
    A, F = cand.agree(T)
    return E + F, E + A


def certify_index(source: Stats | EncodedTable, T: np.ndarray, alpha=0, cand=None) -> Certification:
    """Iterate+Index: the index (the table's Stats; built by one counting pass from an
    EncodedTable) answers each point in O(md); ``cand``: the tables' candidate repairs."""
    stats = as_stats(source)
    lo, hi = index_extremes(stats, T, cand)
    return certify_ranges(lo, hi, stats.label_sizes, stats.delta, alpha)


def possible_index(source: Stats | EncodedTable, T: np.ndarray, alpha=0, cand=None) -> Possible:
    """The labels some world predicts for each point, from the index (see possible_counts)."""
    stats = as_stats(source)
    lo, hi = index_extremes(stats, T, cand)
    return possible_counts(lo, hi, stats.label_sizes, stats.delta, alpha)


ROWS_PER_SCAN = 1 << 14  # rows of the table one step of Iterate's scan holds (transposed)


def scan_counts(enc: EncodedTable, g: np.ndarray, seen: np.ndarray):
    """Algorithm 1's lines 1-5 for one point (global codes g, (d,) seen): per label the
    cells agreeing with it, E (m, d), and the missing cells, M (m, d), counted in one pass
    over the table, a bounded block of rows at a time (transposed, so that each feature's
    cells are counted contiguously)."""
    g = g.astype(enc.X.dtype)[:, None]  # unseen values map to the missing slot; zeroed below
    miss = enc.missing_codes.astype(enc.X.dtype)[:, None]
    E = np.zeros((enc.m, enc.d), np.int64)
    M = np.zeros((enc.m, enc.d), np.int64)
    for l in range(enc.m):
        for a in range(enc.label_bounds[l], enc.label_bounds[l + 1], ROWS_PER_SCAN):
            block = np.ascontiguousarray(
                enc.X[a : min(a + ROWS_PER_SCAN, enc.label_bounds[l + 1])].T
            )
            E[l] += np.count_nonzero(block == g, axis=1)
            M[l] += np.count_nonzero(block == miss, axis=1)
    E[:, ~seen] = 0
    return E, M


def certify_iterate(enc: EncodedTable, T: np.ndarray, alpha=0) -> Certification:
    """Iterate (Algorithm 1 per point): every point rescans the whole table for its
    agreeing and missing counts, O(nd) each."""
    robust = np.empty(len(T), bool)
    label = np.empty(len(T), np.intp)
    G = enc.global_codes(T)
    for p in range(len(T)):
        seen = _seen(T[p])
        E, M = scan_counts(enc, G[p], seen)
        lo, hi = extremes(E[None], M, enc.delta, seen[None])
        dec = certify_ranges(lo, hi, enc.label_sizes, enc.delta, alpha)
        robust[p], label[p] = dec.robust[0], dec.label[0]
    return Certification(robust, label)
