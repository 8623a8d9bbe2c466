"""A table's statistics counted as it is read: in one pass, by record batch or by partition.

``partial_counts`` counts one part of a table (a DataFrame, an Arrow table or record
batch, a Dask partition) under its own local domains, coding its columns as it goes;
``Merger`` adds the parts in table order and gives the ``nbcert.stats.Stats`` of their
union; ``frame_stats`` is a whole table as one part.

Merging keeps every path's answers identical: domain values are appended in order of
first appearance (batches are merged in file order), labels are sorted at the end where
they can be (as ``encode`` does), and values that no cell holds (a batch's dictionary can
list more than occur) are dropped from the domain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError
from ..stats import Stats
from ..stats.domains import merge_numbers
from .arrow import as_text, dictionary_codes, int_codes, ints_as_text, is_int
from .columns import code_labels, sort_labels
from .encoding import check_frame, code_frame, column_names, no_observed_value
from .parallel import map_columns

CHUNK_ROWS = 1 << 16  # rows of a part's columns counted at a time (two 512 KB buffers, reused)


JOINT_SLOTS = (
    1 << 15
)  # slots of one bincount over several columns' joint key (256 KB: stays in cache)


@dataclass
class Partial:
    """Counts of one part of a table (a batch, a partition) under its own local domains."""

    labels: tuple  # local labels; counts' rows follow them
    values: list  # per feature: pandas Index of its local values
    counts: list  # per feature: (m_local, k_j + 1) counts, the last column missing cells
    rows: int
    first_missing: tuple | None = None  # (row within the part, feature index)


def _column_counts(y: np.ndarray, m: int, columns: list) -> list:
    """Per column, the (m, k + 1) counts of its codes by label: one bincount of
    ``label * (k + 1) + code`` (intp keys; the scaled labels computed once per width)."""
    y = y.astype(np.intp, copy=False)
    scaled = {k1: y * k1 for k1 in {len(col.values) + 1 for col in columns}}

    def count(col):
        k1 = len(col.values) + 1
        return np.bincount(scaled[k1] + col.codes, minlength=m * k1).reshape(m, k1)

    return map_columns(count, columns, len(y))


def _first_missing(columns: list, counts: list) -> tuple | None:
    """(row, feature index) of the first missing cell, searched in windows from the top
    and only in columns that have one."""
    best = None
    for j, (c, cnt) in enumerate(zip(columns, counts)):
        if not cnt[:, -1].any():
            continue
        k, stop = len(c.values), len(c.codes) if best is None else best[0]
        for a in range(0, stop, 4096):
            hit = np.flatnonzero(c.codes[a : min(a + 4096, stop)] == k)
            if hit.size:
                best = (a + int(hit[0]), j)
                break
    return best


def partial_counts(
    frame,
    label: str,
    *,
    missing=None,
    name: str = "training table",
    start: int = 0,
    features: tuple | None = None,
    find_missing: bool = True,
) -> Partial:
    """The counts of one table part under its own domains.

    Parameters
    ----------
    frame : pandas DataFrame, or Arrow table or record batch
        The part, label column included.
    label : str
        The label column.
    missing : iterable, optional
        Values that mean a missing cell, beside empty ones.
    name : str, default "training table"
        The table's name in messages.
    start : int, default 0
        The data row of the part's first row (for messages).
    features : tuple of str, optional
        The whole table's feature names, which the part must have in that order.
    find_missing : bool, default True
        Locate the part's first missing cell (needed until one part has one).

    Returns
    -------
    Partial

    Raises
    ------
    InputError
        A missing label, a feature column differing from ``features``, and the like,
        naming the table, column and data row.
    """
    fused = _dictionary_partial(frame, label, missing, name, start, features, find_missing)
    if fused is not None:
        return fused
    frame = ints_as_text(frame)
    y, labels, feats, columns = code_frame(
        frame, label, missing=missing, name=name, start=start, exact=False, compact=False
    )
    _same_features(feats, features, name)
    m = len(labels)
    counts = _column_counts(y, m, columns)
    return Partial(
        labels=labels,
        values=[c.values for c in columns],
        counts=counts,
        rows=len(y),
        first_missing=_first_missing(columns, counts) if find_missing else None,
    )


def _same_features(feats: tuple, features: tuple | None, name: str) -> None:
    if features is not None and feats != features:
        raise InputError(
            f"{name}: columns {list(feats)} differ from the first part's {list(features)}"
        )


def _joint_counts(group: list, y: np.ndarray, m: int) -> list:
    """Per column of ``group``, its (m, K) counts by label, from one bincount of the joint
    key label * prod(K) + ... + code over the group's columns, over pieces of CHUNK_ROWS
    rows in two reused buffers (fresh arrays the size of a column cost more in page faults
    than the arithmetic); each column's counts are the joint counts summed over the other
    columns.  Offsets are taken in intp, modulo 2^64: exact, as they are below K."""
    n, sizes = len(y), [c.K for c in group]
    slots = m * int(np.prod(sizes))
    out = np.zeros(slots, np.int64)
    step = max(CHUNK_ROWS, 8 * slots)
    key, off = np.empty(min(step, n), np.intp), np.empty(min(step, n), np.intp)
    for a in range(0, n, step):
        k, r = key[: n - a], off[: n - a]  # the last piece may be shorter
        k[:] = y[a : a + step]
        for c in group:
            np.subtract(c.codes[a : a + step], c.shift, out=r, dtype=np.intp, casting="unsafe")
            if c.valid is not None:  # K - 1 + valid * (offset - K + 1): a null to the last slot
                r -= c.K - 1
                r *= c.valid[a : a + step]
                r += c.K - 1
            k *= c.K
            k += r
        out += np.bincount(k, minlength=slots)
    joint = out.reshape(m, *sizes)
    axes = range(1, len(sizes) + 1)
    return [joint.sum(axis=tuple(x for x in axes if x != j)) for j in axes]


def _groups(sizes: list, m: int) -> list:
    """Consecutive column positions packed so that each group's joint key has at most
    JOINT_SLOTS slots (a column wider than that alone)."""
    groups, slots = [], None
    for j, K in enumerate(sizes):
        if slots is None or slots * K > JOINT_SLOTS:
            groups.append([])
            slots = m
        groups[-1].append(j)
        slots *= K
    return groups


def _fused_counts(cols: list, y: np.ndarray, m: int, want_first: bool) -> tuple:
    """(per column (values, (m, k + 1) counts), first missing cell (row, column) or None)
    of dictionary-encoded or integer Arrow columns: their codes read in place, counted
    jointly in groups, the groups side by side; the first missing cell (``want_first``)
    read from the validity the coding unpacked."""
    coded = map_columns(lambda c: int_codes(c) if is_int(c) else dictionary_codes(c), cols, len(y))
    groups = _groups([c.K for c in coded], m)
    counted = map_columns(lambda g: _joint_counts([coded[j] for j in g], y, m), groups, len(y))
    counts = [c for part in counted for c in part]
    firsts = [
        (int(np.argmin(c.valid)), j)
        for j, c in enumerate(coded)
        if want_first and c.valid is not None
    ]
    return [c.finish(n) for c, n in zip(coded, counts)], min(firsts, default=None)


def _dictionary_partial(frame, label, missing, name, start, features, find_missing):
    """``partial_counts`` of an Arrow record batch whose feature columns are all
    dictionary-encoded or integers, without coding them first; None for any other part
    (or when a dictionary holds a ``missing`` token, or with tokens and an integer
    column), which takes the general path."""
    import pyarrow as pa

    if not isinstance(frame, pa.RecordBatch):
        return None
    feats = check_frame(frame, label, name)
    cols = [frame.column(f) for f in feats]
    tokens = list(missing or [])
    if not all(pa.types.is_dictionary(c.type) or (is_int(c) and not tokens) for c in cols):
        return None
    if tokens and any(pd.Index(c.dictionary.to_pylist()).isin(tokens).any() for c in cols):
        return None
    y, labels = code_labels(as_text(frame.column(label)), name, label, start, tokens)
    _same_features(feats, features, name)
    y = y.astype(np.intp, copy=False)
    m = len(labels)
    got, first = _fused_counts(cols, y, m, find_missing)
    return Partial(
        labels=labels,
        values=[v for v, _ in got],
        counts=[c for _, c in got],
        rows=len(y),
        first_missing=first,
    )


def _extend(index: pd.Index, new: pd.Index):
    """(index with new's unseen values appended in their order, position of each of new's values)."""
    pos = index.get_indexer(new)
    if (pos < 0).any():
        fresh = new[pos < 0]
        index = fresh if len(index) == 0 else index.append(fresh)
        pos = index.get_indexer(new)
    return index, pos


def _grow(a: np.ndarray, m: int, k: int) -> np.ndarray:
    """A (m, k + 1) copy of a (m0, k0 + 1) count array, the missing column kept last."""
    if a.shape == (m, k + 1):
        return a
    out = np.zeros((m, k + 1), np.int64)
    out[: a.shape[0], : a.shape[1] - 1] = a[:, :-1]
    out[: a.shape[0], -1] = a[:, -1]
    return out


@dataclass
class Merger:
    """Adds Partials in table order; ``finish`` gives the Stats of their union."""

    features: tuple
    name: str = "training table"
    label: object = None  # the label column's name, for messages
    labels: pd.Index = field(default_factory=lambda: pd.Index([], dtype=object))
    values: list = field(default_factory=list)
    counts: list = field(default_factory=list)
    rows: int = 0
    first_missing: tuple | None = None

    def __post_init__(self):
        d = len(self.features)
        self.values = [pd.Index([], dtype=object) for _ in range(d)]
        self.counts = [np.zeros((0, 1), np.int64) for _ in range(d)]

    def add(self, part: Partial) -> None:
        """Merge the next part: its unseen labels and values appended to the domains.

        Parameters
        ----------
        part : Partial
            The part that follows the ones added so far in the table.
        """
        if self.rows == 0 and not len(
            self.labels
        ):  # the first part: its domains are the merged ones
            self.labels = pd.Index(list(part.labels), dtype=object)
            self.values, self.counts = (
                list(part.values),
                [np.asarray(c, np.int64) for c in part.counts],
            )
            self.first_missing = (
                None
                if part.first_missing is None
                else (part.first_missing[0], self.features[part.first_missing[1]])
            )
            self.rows = part.rows
            return
        self.labels, lab = _extend(self.labels, pd.Index(list(part.labels), dtype=object))
        m = len(self.labels)
        for j, (vals, cnt) in enumerate(zip(part.values, part.counts)):
            self.values[j], pos = _extend(self.values[j], vals)
            k = len(self.values[j])
            self.counts[j] = _grow(self.counts[j], m, k)
            self.counts[j][np.ix_(lab, np.append(pos, k))] += cnt
        if self.first_missing is None and part.first_missing is not None:
            r, j = part.first_missing
            self.first_missing = (self.rows + r, self.features[j])
        self.rows += part.rows

    def finish(self) -> Stats:
        """The merged statistics: labels compared by value and sorted where they can be
        (``sort_labels``), unheld values dropped.

        Returns
        -------
        Stats

        Raises
        ------
        InputError
            For a table without data rows, or a feature without an observed value.
        """
        if self.rows == 0:
            raise InputError(f"{self.name}: the table has no data rows")
        ranks, labels = sort_labels(self.labels, True, self.name, self.label)
        cats, blocks = [], []
        for f, vals, cnt in zip(self.features, self.values, self.counts):
            held = cnt[:, :-1].sum(axis=0) > 0
            if not held.any():
                raise no_observed_value(self.name, f)
            sorted_cnt = np.zeros((len(labels), cnt.shape[1]), cnt.dtype)
            np.add.at(sorted_cnt, ranks, cnt)  # the spellings of one number: one label
            where, domain = merge_numbers(vals[held])
            block = sorted_cnt[:, :-1][:, held]
            if where is not None:  # two spellings of one number: their counts added
                block = _added(block, where, len(domain))
            cats.append(domain)
            blocks.append(np.concatenate([block, sorted_cnt[:, -1:]], axis=1))
        delta = np.array([len(c) for c in cats], dtype=np.intp)
        offsets = np.zeros(len(delta) + 1, dtype=np.intp)
        np.cumsum(delta + 1, out=offsets[1:])
        return Stats(
            offsets=offsets,
            delta=delta,
            features=self.features,
            categories=tuple(cats),
            labels=labels,
            counts=np.concatenate(blocks, axis=1),
            missing_at=self.first_missing,
        )


def _added(block: np.ndarray, where: np.ndarray, k: int) -> np.ndarray:
    """(m, k) counts: the columns of ``block`` added into column ``where[i]``."""
    out = np.zeros((block.shape[0], k), block.dtype)
    np.add.at(out.T, where, block.T)
    return out


def frame_stats(frame, label: str, *, missing=None, name: str = "training table") -> Stats:
    """The statistics of a whole table in one pass.

    Parameters
    ----------
    frame, label, missing, name
        As for :func:`partial_counts`, the whole table being one part.

    Returns
    -------
    Stats
    """
    part = partial_counts(frame, label, missing=missing, name=name)
    features = tuple(c for c in column_names(frame) if c != label)
    merger = Merger(features=features, name=name, label=label)
    merger.add(part)
    return merger.finish()
