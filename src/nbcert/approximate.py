"""AD, the paper's approximate decision: train Naive Bayes on sampled possible worlds.

AD (paper section 6.2.1) "samples 100 possible worlds uniformly at random, and returns
certifiably robust if the NBC prediction for the test point agree for every sampled
possible world that NBC is trained on".  A uniformly random possible world fills every
missing cell with a value drawn uniformly from its feature's domain, independently.  AD
is sound only one way: it may call a non-robust point robust, never the reverse, since a
disagreement or a tie it sees is a real world's.  A tie in a world (two labels share the
top support) counts as a disagreement, as for the exact methods.

Two implementations with the same meaning of the seed and of the answer:

* ``iter_ad`` / ``certify_ad`` -- **the paper's AD**.  Per test point, up to ``n_worlds``
  worlds, each a complete table: every missing cell gets its drawn value and Naive Bayes
  is trained on the whole world, every cell counted (per label, one bincount over the
  filled codes, as ``CategoricalNB.fit`` counts), then predicts the point.  The work of
  one world is O(n d): it grows with the rows.  This is what the reproduction times.
* ``iter_ad_counts`` / ``certify_ad_counts`` -- **"AD, counts only"**, an extra beyond
  the paper.  The observed cells are counted once per call; a world then needs only how
  many of each (feature, label)'s missing cells took each value (``draw_counts``), and
  its prediction reads the counts at the test point's values: O(m d) per world plus the
  draws.  Same answers in distribution, far less work; never timed under the paper's name.

Both draw a point's worlds in batches of 1, 2, 4, ... and stop at the first world that
disagrees (or ties), as the authors' code does, so a non-robust point does not pay for
all ``n_worlds``; a point's worlds do not depend on the points after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .certification import Certification, certify_ranges
from .stats import CHUNK_CELLS, tally
from .stats.domains import EncodedTable


def _check_worlds(n_worlds: int):
    if n_worlds < 1:
        raise ValueError(f"n_worlds must be at least 1, got {n_worlds}")


def _agree(labels: np.ndarray) -> int:
    """The label every world of a batch predicts uniquely, -1 if some world ties or disagrees
    (``labels``: each world's unique prediction, -1 for a tie)."""
    return int(labels[0]) if (labels >= 0).all() and (labels == labels[0]).all() else -1


@dataclass(frozen=True)
class Sampled:
    """What AD saw for one point: ``robust`` and ``label`` (-1 when not robust) as it
    decides them, the labels its sampled worlds predicted as their unique winner
    (``labels``, label codes in increasing order), whether one of those worlds tied
    (``tie``) and how many worlds it sampled (``worlds``: fewer than asked when one
    disagreed, or when a deadline passed first: ``stopped``, and the point is not decided).
    Every label and tie it saw is a real world's; a robust answer is only that no sampled
    world disagreed."""

    robust: bool
    label: int
    labels: tuple
    tie: bool
    worlds: int
    stopped: bool = False


def _batches(n_worlds: int, world_labels) -> Sampled:
    """Ask ``world_labels(w)`` for batches of 1, 2, 4, ... worlds until n_worlds are seen or
    one disagrees: what AD saw of the point.  ``world_labels`` gives fewer than ``w`` labels
    once a deadline has passed: the point is then ``stopped``, whatever the worlds it did
    sample showed, since AD checks a whole batch and the cut batch is not the one AD samples
    (a disagreement seen in it is real, but the ties and the world count are not AD's)."""
    first, done, batch, seen, short = None, 0, 1, [np.zeros(0, np.intp)], False
    while done < n_worlds and not short:
        w = min(batch, n_worlds - done)
        labels = world_labels(w)
        seen.append(labels)
        first = labels[0] if first is None and len(labels) else first
        done, batch, short = done + len(labels), 2 * batch, len(labels) < w
        if len(labels) and _agree(np.r_[first, labels]) < 0:
            break
    every = np.concatenate(seen)
    robust = first is not None and bool(_agree(np.r_[first, every]) >= 0)
    won = tuple(int(l) for l in np.unique(every[every >= 0]))
    stopped = short
    label = int(first) if robust and not stopped else -1
    return Sampled(robust and not stopped, label, won, bool((every < 0).any()), done, stopped)


# ---------------------------------------------------------------- the paper's AD


@dataclass(frozen=True)
class _Filling:
    """Where a label block's missing cells are and how each is drawn: their flat positions
    in the block (rows a .. b of X, raveled), grouped by domain size, with the global code
    of each cell's first domain value."""

    a: int
    b: int
    pos: (
        np.ndarray
    )  # (M,) flat positions of the missing cells in X[a:b] (int32: a block holds < 2^31 cells)
    base: np.ndarray  # (M,) offsets[j] of each cell's feature (code_dtype)
    groups: tuple  # ((domain size, start, end) in pos), one per domain size


def _fillings(enc: EncodedTable, rows: int) -> list:
    """The missing cells of X in blocks of at most ``rows`` rows within one label: 4 bytes
    for its position and one (or the code's size) for its feature's first code per
    missing cell, so a point's worlds do not search X for them again."""
    out = []
    for l in range(enc.m):
        for a in range(int(enc.label_bounds[l]), int(enc.label_bounds[l + 1]), rows):
            b = min(a + rows, int(enc.label_bounds[l + 1]))
            r, j = np.nonzero(enc.X[a:b] == enc.missing_codes.astype(enc.X.dtype))
            size = enc.delta[j]
            order = np.argsort(size, kind="stable")
            r, j, size = r[order], j[order], size[order]
            cuts = (
                np.flatnonzero(np.r_[True, size[1:] != size[:-1], True])
                if len(size)
                else np.zeros(1, int)
            )
            groups = tuple((int(size[s]), int(s), int(e)) for s, e in zip(cuts[:-1], cuts[1:]))
            pos = (r * enc.d + j).astype(np.int32)
            out.append((l, _Filling(a, b, pos, enc.offsets[j].astype(enc.X.dtype), groups)))
    return out


def _world_index(rng, enc: EncodedTable, fillings: list) -> np.ndarray:
    """Naive Bayes trained on one sampled world: every missing cell of X takes a value drawn
    uniformly from its feature's domain, and every cell of the filled table is counted per
    label (m, n_codes), a block of rows at a time."""
    counts = np.zeros((enc.m, enc.n_codes), np.int64)
    for l, f in fillings:
        cells = enc.X[f.a : f.b].reshape(-1).copy()
        for v, s, e in f.groups:
            where = f.pos[s:e].astype(np.intp)  # numpy scatters through intp: cast once
            cells[where] = f.base[s:e] + rng.integers(0, v, e - s, dtype=cells.dtype)
        counts[l] += np.bincount(cells, minlength=enc.n_codes)
    return counts


def _predict(
    counts: np.ndarray, g: np.ndarray, seen: np.ndarray, enc: EncodedTable, alpha
) -> np.ndarray:
    """Each world's unique prediction for a point (-1: a tie) from its trained counts
    (w, m, n_codes), at the point's global codes g; an unseen value counts 0."""
    C = np.where(seen, counts[:, :, g], 0)
    return certify_ranges(C, C, enc.label_sizes, enc.delta, alpha).label


def iter_ad(enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None):
    """The paper's AD point by point: yields (robust, label) for each test point in order
    (see certify_ad)."""
    for seen in iter_ad_sampled(enc, T, alpha, n_worlds, seed):
        yield seen.robust, seen.label


def iter_ad_sampled(
    enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None, stop=None
):
    """The paper's AD point by point: yields what it saw (``Sampled``) for each test point
    in order.  ``stop``, a function of no arguments, is asked before every world: once it
    says True no world is sampled any more, the point it reached is yielded ``stopped``
    (undecided, even where its cut batch showed a disagreement) and the iteration ends there:
    every point yielded not stopped is exactly what AD without a stop yields."""
    _check_worlds(n_worlds)
    rng = np.random.default_rng(seed)
    fillings = _fillings(enc, max(1, CHUNK_CELLS // max(1, enc.d)))
    G = enc.global_codes(T)
    for p in range(len(T)):
        seen = T[p] >= 0

        def world_labels(w):
            worlds = []
            while len(worlds) < w and not (stop is not None and stop()):
                worlds.append(_world_index(rng, enc, fillings))
            if not worlds:
                return np.zeros(0, np.intp)
            return _predict(np.stack(worlds), G[p], seen, enc, alpha)

        out = _batches(n_worlds, world_labels)
        yield out
        if out.stopped:
            return


def certify_ad(
    enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None
) -> Certification:
    """The paper's AD: per point, Naive Bayes trained on up to n_worlds sampled complete
    worlds (every cell counted); robust iff every world predicts the same label.

    Parameters
    ----------
    enc : EncodedTable
        The training table.
    T : ndarray, shape (k, d)
        Test points as local codes (-1: unseen in training).
    alpha : Fraction, int or str, default 0
        Laplace smoothing.
    n_worlds : int, default 100
        Worlds sampled per point (the paper's 100).
    seed : None, int or numpy Generator
        The sampling's seed.

    Returns
    -------
    Certification
        Sound one way: a point called non-robust is non-robust; one called robust may not be.
    """
    return _certification(list(iter_ad(enc, T, alpha, n_worlds, seed)))


def sample_ad(
    enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None
) -> list[Sampled]:
    """The paper's AD (``certify_ad``, the same worlds for the same seed), with what it saw
    of each point: the labels its sampled worlds predicted, whether one tied, how many it
    sampled (``Sampled``)."""
    return list(iter_ad_sampled(enc, T, alpha, n_worlds, seed))


def _certification(out: list) -> Certification:
    robust = np.array([r for r, _ in out], bool)
    return Certification(robust, np.array([l for _, l in out], np.intp).reshape(len(out)))


# ---------------------------------------------------------------- AD, counts only (beyond the paper)

CELLS_PER_DRAW = 1 << 22  # sampled cells held at once, over all worlds of a batch


@dataclass(frozen=True)
class _Segment:
    """The missing cells of some features, grouped by (feature, label): all drawn from
    range(delta), since these features share that domain size."""

    delta: int
    cols: np.ndarray  # (S,) feature of each segment
    labs: np.ndarray  # (S,) label of each segment
    sizes: np.ndarray  # (S,) missing cells of that feature and label


def _segments(M: np.ndarray, delta: np.ndarray) -> list:
    """The missing cells (counts M (m, d)) grouped by domain size, then (feature, label)."""
    out = []
    for v in np.unique(delta):
        cols = np.repeat(np.flatnonzero(delta == v), M.shape[0])
        labs = np.tile(np.arange(M.shape[0]), len(cols) // M.shape[0])
        out.append(_Segment(int(v), cols, labs, M[labs, cols]))
    return out


def draw_counts(
    rng: np.random.Generator, seg: _Segment, worlds: int, chunk: int | None = None
) -> np.ndarray:
    """(worlds, S, delta): in each world, how many of each segment's cells took each value,
    every cell drawn uniformly from range(delta), at most ``chunk`` cells at a time over
    all worlds (default CELLS_PER_DRAW).

    A domain of up to 8 values is drawn from the generator's raw bytes: a byte b below
    q * delta (q = 256 // delta) is value b // q, each value from q bytes, so counting the
    bytes below q, 2q, ... counts the values; a byte above is rejected and its cell drawn
    again (by ``Generator.integers``).  Larger domains are drawn by ``integers`` and
    counted by one bincount over (world, segment, value) keys.  A one-value domain has a
    single world: every cell takes its value."""
    S, v = len(seg.sizes), seg.delta
    out = np.zeros((worlds, S, v), np.int64)
    if v == 1:
        out[:, :, 0] = seg.sizes
        return out
    ends = np.cumsum(seg.sizes)
    starts = ends - seg.sizes
    total = int(ends[-1]) if S else 0
    step = max(1, (chunk or CELLS_PER_DRAW) // worlds)
    if 0 < total <= step:  # one chunk holds every cell
        filled = np.flatnonzero(seg.sizes)
        out[:, filled] = _counts(rng, worlds, total, starts[filled], v)
        return out
    for a in range(0, total, step):
        b = min(a + step, total)
        idx = np.flatnonzero(
            (ends > a) & (starts < b) & (seg.sizes > 0)
        )  # segments with cells in [a, b)
        out[:, idx] += _counts(rng, worlds, b - a, np.maximum(starts[idx], a) - a, v)
    return out


def _counts(rng, worlds: int, width: int, at: np.ndarray, v: int) -> np.ndarray:
    """(worlds, ranges, v) counts of uniform values in range(v) over ``width`` cells per
    world, split into ranges starting at ``at`` (see draw_counts)."""
    if v > 8:
        return _bincounts(rng.integers(0, v, (worlds, width), dtype=np.min_scalar_type(v)), at, v)
    B = _random_bytes(rng, worlds * width).reshape(worlds, width)
    q = 256 // v
    sizes = np.diff(np.r_[at, width])
    below = np.empty((worlds, len(at), v), np.int64)  # bytes below q, 2q, ..., q * v
    for u in range(v - 1):
        below[:, :, u] = _range_counts(B < q * (u + 1), at)
    below[:, :, -1] = sizes if q * v == 256 else _range_counts(B < q * v, at)
    cnt = below.copy()
    cnt[:, :, 1:] -= below[:, :, :-1]
    rejected = sizes - below[:, :, -1]
    if rejected.any():  # bytes from q * v up: those cells are drawn again
        keys = np.repeat(np.arange(rejected.size), rejected.ravel()) * v + rng.integers(
            0, v, int(rejected.sum())
        )
        cnt += np.bincount(keys, minlength=cnt.size).reshape(cnt.shape)
    return cnt


_BITS_64 = (
    np.random.PCG64,
    np.random.PCG64DXSM,
    np.random.Philox,
    np.random.SFC64,
)  # 64 random bits a word


def _random_bytes(rng: np.random.Generator, k: int) -> np.ndarray:
    """k uniformly random bytes: the bit generator's raw words where each holds 64 random
    bits (MT19937's hold 32), else ``Generator.integers``."""
    if isinstance(rng.bit_generator, _BITS_64):
        return rng.bit_generator.random_raw(-(-k // 8)).view(np.uint8)[:k]
    return rng.integers(0, 256, k, dtype=np.uint8)


def _range_counts(mask: np.ndarray, at: np.ndarray) -> np.ndarray:
    """(worlds, ranges) true cells of a (worlds, width) mask in column ranges starting at ``at``."""
    worlds, width = mask.shape
    mask = mask.view(np.uint8)
    if width < 4096 * len(at):
        return np.add.reduceat(mask, at, axis=1, dtype=np.int32)
    ends = np.r_[at[1:], width].tolist()  # long ranges: count each world's range at once
    return np.array(
        [
            [np.count_nonzero(mask[w, a:b]) for a, b in zip(at.tolist(), ends)]
            for w in range(worlds)
        ],
        np.int64,
    ).reshape(worlds, len(at))


def _bincounts(D: np.ndarray, at: np.ndarray, v: int) -> np.ndarray:
    """(worlds, ranges, v) counts of D's values (worlds, width) in column ranges starting at ``at``."""
    worlds, width = D.shape
    seg = np.repeat(np.arange(len(at)), np.diff(np.r_[at, width]))
    keys = (np.arange(worlds)[:, None] * len(at) + seg) * v + D
    return np.bincount(keys.ravel(), minlength=worlds * len(at) * v).reshape(worlds, len(at), v)


def _world_counts(
    rng, base_t: np.ndarray, local_t: np.ndarray, seen: np.ndarray, segments: list, worlds: int
) -> np.ndarray:
    """(worlds, m, d) agreeing counts of the test point in freshly sampled worlds: the
    observed counts base_t plus, per world, the filled cells that took t's value."""
    C = np.repeat(base_t[None], worlds, axis=0)
    for seg in segments:
        H = draw_counts(rng, seg, worlds)  # the world's filled cells, counted per value
        t = np.where(seen[seg.cols], local_t[seg.cols], 0)
        C[:, seg.labs, seg.cols] += H[:, np.arange(len(seg.sizes)), t]
    C[:, :, ~seen] = 0
    return C


def iter_ad_counts(enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None):
    """AD, counts only, point by point: yields (robust, label) for each test point in order
    (see certify_ad_counts)."""
    _check_worlds(n_worlds)
    rng = np.random.default_rng(seed)
    base = tally(enc)
    M = base[:, enc.missing_codes]
    base[:, enc.missing_codes] = 0  # observed cells only
    segments = _segments(M, enc.delta)
    G = enc.global_codes(T)
    for p in range(len(T)):
        seen = T[p] >= 0
        base_t = base[:, G[p]]

        def world_labels(w):
            C = _world_counts(rng, base_t, T[p], seen, segments, w)
            return certify_ranges(C, C, enc.label_sizes, enc.delta, alpha).label

        got = _batches(n_worlds, world_labels)
        yield got.robust, got.label


def certify_ad_counts(
    enc: EncodedTable, T: np.ndarray, alpha=0, n_worlds: int = 100, seed=None
) -> Certification:
    """AD, counts only (beyond the paper): the answers of ``certify_ad`` in distribution,
    from the observed counts (counted once) and, per world, the drawn counts of each
    (feature, label)'s missing cells; a world's prediction reads the counts at the test
    point's values.  Parameters as ``certify_ad``."""
    return _certification(list(iter_ad_counts(enc, T, alpha, n_worlds, seed)))
