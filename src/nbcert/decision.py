"""Deciding certifiable robustness (paper section 3): Iterate, Iterate+Index and AD.

Worlds factor by label: label l's support depends only on how label l's own missing
cells are filled.  So the set of support vectors over all worlds is a product of
per-label ranges, and a test point is robust iff some label's smallest support beats
every other label's largest support strictly (a tie in any world is non-robust).

The extremes differ from the paper's formulas (1)-(2) in two cases:

* a test value never seen in training: no missing cell can take it, so the count is
  the observed count in both extremes;
* a feature whose domain has one value: every missing cell must take it, so the
  smallest count already includes all missing cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encoding import EncodedTable
from .stats import Stats, as_stats, count_index
from .support import as_alpha, exact_support, greater, log_support, log_tolerance


@dataclass(frozen=True)
class Decision:
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


def decide_counts(lo: np.ndarray, hi: np.ndarray, N: np.ndarray, delta: np.ndarray, alpha) -> Decision:
    """Robustness from per-point extreme counts lo, hi of shape (k, m, d)."""
    alpha = as_alpha(alpha)
    k, m, d = lo.shape
    if m == 1:
        return Decision(np.ones(k, bool), np.zeros(k, np.intp))
    smin = log_support(lo, N, delta, alpha)  # (k, m)
    smax = log_support(hi, N, delta, alpha)
    tol = log_tolerance(d, int(N.sum()), alpha)

    def exact(ix):
        p, l, l2 = ix
        return exact_support(lo[p, l], N[l], delta, alpha) > exact_support(hi[p, l2], N[l2], delta, alpha)

    rival = np.where(np.eye(m, dtype=bool), -np.inf, smax[:, None, :])  # no exact check of a label against itself
    beats = greater(smin[:, :, None], rival, tol, exact)  # (k, m, m)
    beats[:, np.arange(m), np.arange(m)] = True
    winner = beats.all(axis=2)  # at most one label per point
    robust = winner.any(axis=1)
    return Decision(robust, np.where(robust, winner.argmax(axis=1), -1))


def _seen(T: np.ndarray) -> np.ndarray:
    return T >= 0


def point_counts(stats: Stats, T: np.ndarray):
    """Per test point the observed agreeing counts E (k, m, d), and the missing counts M (m, d)."""
    G = stats.global_codes(T)  # (k, d)
    E = np.where(_seen(T)[:, None, :], stats.counts[:, G].transpose(1, 0, 2), 0)
    return E, stats.counts[:, stats.missing_codes]


def certify_index(source: Stats | EncodedTable, T: np.ndarray, alpha=0) -> Decision:
    """Iterate+Index: the index (the table's Stats; built by one counting pass from an
    EncodedTable) answers each point in O(md)."""
    stats = as_stats(source)
    E, M = point_counts(stats, T)
    lo, hi = extremes(E, M, stats.delta, _seen(T))
    return decide_counts(lo, hi, stats.label_sizes, stats.delta, alpha)


def block_sums(mask: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Per-label column sums of a (n, d) boolean mask whose rows are grouped by label."""
    return np.stack([mask[bounds[l]:bounds[l + 1]].sum(axis=0) for l in range(len(bounds) - 1)])


def certify_iterate(enc: EncodedTable, T: np.ndarray, alpha=0) -> Decision:
    """Iterate (Algorithm 1 per point): every point rescans the whole table, O(nd) each."""
    robust = np.empty(len(T), bool)
    label = np.empty(len(T), np.intp)
    G = enc.global_codes(T)
    for p in range(len(T)):
        seen = _seen(T[p])
        E = block_sums((enc.X == G[p]) & seen, enc.label_bounds)
        M = block_sums(enc.X == enc.missing_codes, enc.label_bounds)
        lo, hi = extremes(E[None], M, enc.delta, seen[None])
        dec = decide_counts(lo, hi, enc.label_sizes, enc.delta, alpha)
        robust[p], label[p] = dec.robust[0], dec.label[0]
    return Decision(robust, label)


def certify_ad(enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None) -> Decision:
    """AD baseline: train on n_worlds uniformly sampled worlds per point; robust if all agree.

    Sound only one way: it may call a non-robust point robust, never the reverse, since
    a disagreement or a tie it sees is a real world's.  Each world is trained in full:
    the observed cells are counted once, each world's filled cells are counted anew.
    """
    rng = np.random.default_rng(seed)
    miss = enc.is_missing()
    rows_m, cols_m = np.nonzero(miss)
    y = np.repeat(np.arange(enc.m), enc.label_sizes)
    base = count_index(enc)
    base[:, enc.missing_codes] = 0
    cell_label = y[rows_m] * enc.n_codes + enc.offsets[cols_m]
    dom = enc.delta[cols_m]
    G = enc.global_codes(T)
    seen = _seen(T)
    robust = np.ones(len(T), bool)
    label = np.full(len(T), -1, np.intp)
    for p in range(len(T)):
        first = None
        for _ in range(n_worlds):
            filled = cell_label + rng.integers(0, dom)
            counts = base + np.bincount(filled, minlength=base.size).reshape(base.shape)
            C = np.where(seen[p], counts[:, G[p]], 0)[None]
            dec = decide_counts(C, C, enc.label_sizes, enc.delta, alpha)
            if not dec.robust[0] or (first is not None and dec.label[0] != first):
                robust[p] = False
                break
            first = dec.label[0]
        if robust[p]:
            label[p] = first
    return Decision(robust, label)
