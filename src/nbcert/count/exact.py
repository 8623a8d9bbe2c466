"""Exact world counts: Algorithm 2 (``batch``) and the per-label method (``exact``).

A world's support for label l depends only on the beta_lj (see ``nbcert.count.points``),
so each label's supports and their numbers of ways can be built on their own, feature by
feature.  Supports are compared on a common denominator: label l's numerator
prod_j (q c_lj + p) is scaled by N_l times the other labels' denominators
prod_j (q N_l' + p delta_j).

* ``batch`` (Algorithm 2): every beta matrix of all labels jointly; each label's beta
  combinations are ranked exactly, and every joint matrix gets its winner from the ranks
  and its weight from the labels' ways.
* ``exact``: each label's distinct supports (features merged one at a time, equal
  supports merged), then worlds where l wins = sum over l's supports s of
  ways(s) * prod_{l' != l} W_l'(< s), the other labels' ways below s, by sorting.

Both work on arrays of prime-exponent keys (``nbcert.count.keys``) with ways as Python
integers in object arrays; where there is no basis (a factor too large to factorise)
both fall back to the same computations in Python integers (``_*_python``), which the
tests hold the array versions against.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left

import numpy as np

from ..kernel import factor_denominator, factor_numerator
from . import memory
from .keys import Basis, ranks
from .points import Point, TooLarge, fillings, option_counts, point_options, winner
from .states import support_counts


def _denominators(N, delta, alpha):
    return [math.prod(factor_denominator(N[l], dj, alpha) for dj in delta) for l in range(len(N))]


def _scales(N, delta, alpha):
    """Per label a factor putting every label's numerator on one common denominator."""
    dens = _denominators(N, delta, alpha)
    full = math.prod(dens)
    return [int(N[l]) * (full // dens[l]) for l in range(len(N))]


def _scale_keys(basis: Basis, N, delta, alpha) -> list:
    """Per label the key of _scales' factor: N_l times the other labels' denominators."""
    return [
        basis.key(int(N[l]))
        + sum(
            basis.key(factor_denominator(N[k], dj, alpha))
            for k in range(len(N))
            if k != l
            for dj in delta
        )
        for l in range(len(N))
    ]


def _merge(keys: np.ndarray, ways: np.ndarray):
    """Equal keys merged, their ways added (sorted by key)."""
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], np.add.reduceat(ways[order], starts)


def _combine(basis, keys, ways, opt, distinct: bool, chunk: int = 1 << 20):
    """Every (support, option) product of one more feature: keys add, ways multiply;
    merged by key when ``distinct``, about ``chunk`` products at a time, each part merged
    into the supports found so far (so at most those and one part are held)."""
    okeys = np.array([basis.key(v) for v, _ in opt], dtype=np.int64)
    oways = np.array([w for _, w in opt], dtype=object)
    step = max(1, chunk // len(opt))
    parts, held = [], None
    for a in range(0, len(keys), step):
        k = basis.add(keys[a : a + step, None], okeys[None, :]).ravel()
        w = np.multiply.outer(ways[a : a + step], oways).ravel()
        if not distinct:
            parts.append((k, w))
            continue
        k, w = _merge(k, w)
        held = (k, w) if held is None else _merge(*map(np.concatenate, zip(held, (k, w))))
    if distinct:
        return held
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _label_arrays(
    pt: Point, delta: np.ndarray, l: int, alpha, basis: Basis, max_states, distinct=True
):
    """Label l's supports (keys of their numerators) and ways, features merged one at a
    time, fewest options first: the distinct supports (TooLarge past max_states), or
    every beta combination in mixed-radix order of the features (``distinct`` False)."""
    keys, ways = np.zeros(1, np.int64), np.array([1], dtype=object)
    chunk = memory.chunk_rows(memory.label_bits(pt, delta)[l])
    order = (
        np.argsort(option_counts(pt, delta)[l], kind="stable").tolist()
        if distinct
        else range(len(delta))
    )
    for j in order:
        opt = [(factor_numerator(c, alpha), w) for c, w in point_options(pt, delta, l, j)]
        keys, ways = _combine(basis, keys, ways, opt, distinct, chunk)
        if distinct and len(keys) > max_states:
            raise TooLarge(f"more than {max_states} distinct supports for one label")
    return keys, ways


def _label_dict(pt: Point, delta: np.ndarray, l: int, alpha, max_states) -> dict:
    """label_distribution without a basis: {numerator: ways} in Python integers."""
    const, scale = 1, 1  # one-option features (they come first) scale every support alike
    dist = {1: 1}
    order = np.argsort(option_counts(pt, delta)[l], kind="stable").tolist()
    for i, j in enumerate(order):
        opt = [(factor_numerator(c, alpha), w) for c, w in point_options(pt, delta, l, j)]
        if len(opt) == 1:
            const, scale = const * opt[0][0], scale * opt[0][1]
            continue
        if const == 0:  # alpha = 0 and a count that is 0 in every world: every support is 0
            return {0: scale * math.prod(fillings(pt, delta, l, r) for r in order[i:])}
        new: dict = {}
        for P, w in dist.items():
            for f, ways in opt:
                key = P * f
                new[key] = new.get(key, 0) + w * ways
            if len(new) > max_states:
                raise TooLarge(f"more than {max_states} distinct supports for one label")
        dist = new
    return {P * const: w * scale for P, w in dist.items()}


def label_distribution(
    pt: Point, delta: np.ndarray, l: int, alpha, max_states, basis: Basis | None = None
):
    """Label l's distinct supports and their numbers of ways.

    Features are merged one at a time, fewest options first.  The number of distinct
    supports never shrinks as a feature is merged, so the merge stops as soon as it
    passes max_states, before the options of the remaining features are even built.

    Parameters
    ----------
    pt, delta, l, alpha
        As for :func:`nbcert.count.states.distinct_lower_bound`.
    max_states : int
        Raise TooLarge past this many distinct supports.
    basis : Basis, optional
        The point's key basis.

    Returns
    -------
    (ndarray, ndarray) or dict
        With a basis, the arrays (keys, ways); without, {numerator: ways} in Python
        integers (numerators unscaled).
    """
    if basis is not None:
        return _label_arrays(pt, delta, l, alpha, basis, max_states)
    return _label_dict(pt, delta, l, alpha, max_states)


def _ranked(basis: Basis, per: list, N, delta, alpha) -> list:
    """Per label the exact ranks (over all labels) of its scaled supports."""
    keys = [
        basis.add(k, np.int64(s)) for (k, _), s in zip(per, _scale_keys(basis, N, delta, alpha))
    ]
    return np.split(ranks(basis, np.concatenate(keys)), np.cumsum([len(k) for k in keys])[:-1])


def count_batch(pt: Point, N, delta, alpha, max_states: int):
    """Algorithm 2: every beta matrix of all labels at once, its winner decided by the
    exact ranks of the labels' supports, its weight the product of theirs.

    Parameters
    ----------
    pt : Point
        The test point's counts.
    N, delta : ndarray
        Rows per label (m,) and domain sizes (d,).
    alpha : Fraction
        The smoothing parameter.
    max_states : int
        Raise TooLarge when there are more beta matrices than this.

    Returns
    -------
    (list of int, int)
        Worlds each label wins, and worlds with a tie for the largest support.
    """
    size = math.prod(option_counts(pt, delta).ravel().tolist())
    if size > max_states:
        raise TooLarge(f"{size} batches")
    bits = memory.label_bits(pt, delta)
    memory.check(memory.batch_bytes(size, len(N), bits), f"{size:,} beta matrices")
    basis = Basis.build(pt, N, delta, alpha)
    if basis is None:
        return _count_batch_python(pt, N, delta, alpha)
    m = len(N)
    per = [_label_arrays(pt, delta, l, alpha, basis, max_states, distinct=False) for l in range(m)]
    rank = _ranked(basis, per, N, delta, alpha)
    idx = np.indices([len(r) for r in rank]).reshape(m, -1)  # every joint state
    R = np.stack([r[i] for r, i in zip(rank, idx)])
    top = R.max(axis=0)
    win = np.where((R == top).sum(axis=0) == 1, R.argmax(axis=0), -1)
    weight = per[0][1][idx[0]]
    for (_, w), i in zip(per[1:], idx[1:]):
        weight = weight * w[i]
    return [int(weight[win == l].sum()) for l in range(m)], int(weight[win < 0].sum())


def _count_batch_python(pt: Point, N, delta, alpha):
    """:func:`count_batch` with Python integers, one beta matrix at a time (factor values
    too large to factorise); same parameters (no limit) and return value."""
    m, d = len(N), len(delta)
    flat = [
        [(factor_numerator(c, alpha), w) for c, w in point_options(pt, delta, l, j)]
        for l in range(m)
        for j in range(d)
    ]
    scale = _scales(N, delta, alpha)
    counts, ties = [0] * m, 0
    for combo in itertools.product(*flat):
        vals, weight = [], 1
        for l in range(m):
            num = scale[l]
            for f, w in combo[l * d : (l + 1) * d]:
                num *= f
                weight *= w
            vals.append(num)
        win = winner(vals)
        if win < 0:
            ties += weight
        else:
            counts[win] += weight
    return counts, ties


def count_exact(pt: Point, N, delta, alpha, max_states: int) -> list:
    """The per-label method: each label's distinct supports; worlds where l wins = sum
    over l's supports s of ways(s) * prod over the other labels of their ways below s
    (exact ranks).

    Parameters
    ----------
    pt, N, delta, alpha
        As for :func:`count_batch`.
    max_states : int
        Raise TooLarge when a label has (or is proven to have) more distinct supports.

    Returns
    -------
    list of int
        Worlds each label wins (the rest of the worlds are ties).
    """
    _sized(pt, delta, alpha, max_states)
    basis = Basis.build(pt, N, delta, alpha)
    if basis is None:
        return _count_exact_python(pt, N, delta, alpha, max_states)
    m = len(N)
    per = [label_distribution(pt, delta, l, alpha, max_states, basis) for l in range(m)]
    rank = _ranked(basis, per, N, delta, alpha)
    below = []  # per label: sorted ranks and the ways of its supports ranked below each position
    for r, (_, w) in zip(rank, per):
        order = np.argsort(r, kind="stable")
        below.append((r[order], np.concatenate(([0], np.cumsum(w[order]))).astype(object)))
    counts = []
    for l in range(m):
        total = per[l][1].copy()
        for l2 in range(m):
            if l2 != l:
                sr, cum = below[l2]
                total = total * cum[np.searchsorted(sr, rank[l], side="left")]
        counts.append(int(total.sum()))
    return counts


def _sized(pt: Point, delta, alpha, max_states: int) -> None:
    """Refuse (TooLarge) a point whose labels have more than ``max_states`` distinct
    supports (proven), or whose supports and their ways would pass
    ``memory.MEMORY_BYTES`` (estimated from the counts), before anything is built."""
    states = support_counts(pt, delta, alpha, max_states)
    if max(states) > max_states:
        raise TooLarge(f"more than {max_states} distinct supports for one label")
    bits = memory.label_bits(pt, delta)
    if memory.exact_bytes(states, bits) > memory.MEMORY_BYTES:  # the upper bounds: tighten
        states = support_counts(pt, delta, alpha, max_states, tight=True)
        if max(states) > max_states:
            raise TooLarge(f"more than {max_states} distinct supports for one label")
    most = int(np.argmax(states))
    memory.check(
        memory.exact_bytes(states, bits),
        f"{states[most]:,} distinct supports of one label, each with a number of ways of "
        f"up to {int(bits[most]):,} bits",
    )


def _count_exact_python(pt: Point, N, delta, alpha, max_states: int) -> list:
    """:func:`count_exact` with Python integers and dictionaries (factor values too large
    to factorise); same parameters and return value."""
    m = len(N)
    scale = _scales(N, delta, alpha)
    per_label = []
    for l in range(m):
        dist = label_distribution(pt, delta, l, alpha, max_states)
        items = sorted((P * scale[l], w) for P, w in dist.items())
        vals = [v for v, _ in items]
        cum = list(itertools.accumulate((w for _, w in items), initial=0))
        per_label.append((items, vals, cum))
    counts = []
    for l in range(m):
        total = 0
        for v, w in per_label[l][0]:
            prod = w
            for l2 in range(m):
                if l2 != l:
                    _, vals2, cum2 = per_label[l2]
                    prod *= cum2[bisect_left(vals2, v)]
                    if not prod:
                        break
            total += prod
        counts.append(total)
    return counts
