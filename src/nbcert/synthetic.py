"""Synthetic categorical tables with planted Naive Bayes structure.

Labels are drawn from a random prior and each feature from a label-specific
categorical distribution (Dirichlet with small concentration, so labels differ), which
is exactly the Naive Bayes generative model: predictions on such data are meaningful.

``planted_model`` draws the model once; ``PlantedNB.sample`` then draws any number of
rows from it, so a training table and test points can come from the same model
(``synthetic_table``), and tables of different sizes share one model.
``synthetic_codes`` draws model and rows from one seed in one call (the model then depends
on n; the benchmark's table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "PlantedNB",
    "planted_model",
    "synthetic_codes",
    "synthetic_table",
    "model_and_tests",
    "test_frame",
    "write_table",
    "local_dtype",
]


def _fill_column(out: np.ndarray, cdf: np.ndarray, bounds: np.ndarray, u: np.ndarray) -> None:
    """out[i] = the value of row i: the number of cdf[y_i] entries below u_i (clipped to
    the last value).

    Rows are grouped by label (``bounds``), so each label's block is compared with its own
    cdf: for a small domain one comparison per entry (what searchsorted does, without its
    per-element search), else one searchsorted; no (n, domain) temporary.
    """
    for l in range(len(bounds) - 1):
        a, b = bounds[l], bounds[l + 1]
        if b <= a:
            continue
        if cdf.shape[1] > 16:
            out[a:b] = np.searchsorted(cdf[l], u[a:b], side="left")
            continue
        part = out[a:b]
        part[:] = 0
        for c in cdf[l]:
            part += u[a:b] > c
    np.minimum(out, cdf.shape[1] - 1, out=out)


def _bounds(y: np.ndarray, labels: int) -> np.ndarray:
    bounds = np.zeros(labels + 1, np.intp)
    np.cumsum(np.bincount(y, minlength=labels), out=bounds[1:])
    return bounds


def synthetic_codes(
    n: int, d: int, domain: int = 5, labels: int = 3, seed=0, concentration: float = 0.5
):
    """Return (X (n, d) intp local codes, y (n,) label codes).

    Every label and every value occurs (the first rows are set so).  The model is drawn
    from the same stream as the rows, so it depends on n; use ``planted_model`` for a
    model shared across sizes and with test points.
    """
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(labels, 5.0))
    y = np.sort(rng.choice(labels, size=n, p=prior))
    y[:labels] = np.arange(labels)  # every label occurs
    y.sort()
    bounds = _bounds(y, labels)
    X = np.empty((n, d), np.intp)
    col = np.empty(n, np.intp)
    for j in range(d):
        cdf = np.cumsum(rng.dirichlet(np.full(domain, concentration), size=labels), axis=1)
        _fill_column(col, cdf, bounds, rng.random(n))
        X[:, j] = col
        X[:domain, j] = np.arange(domain)  # every value occurs
    return X, y


def local_dtype(domain: int) -> np.dtype:
    """The smallest signed integer type holding local codes -1 .. domain (one past the
    last value: what a search against a cumulative distribution may return before clipping)."""
    return np.dtype(np.int8 if domain < 1 << 7 else np.int16 if domain < 1 << 15 else np.int32)


@dataclass(frozen=True)
class PlantedNB:
    """A Naive Bayes generative model: label prior and per-label value distributions."""

    prior: np.ndarray  # (labels,)
    cdf: np.ndarray  # (d, labels, domain) cumulative value probabilities per feature and label

    @property
    def d(self) -> int:
        return self.cdf.shape[0]

    @property
    def labels(self) -> int:
        return self.cdf.shape[1]

    @property
    def domain(self) -> int:
        return self.cdf.shape[2]

    def sample(self, n: int, seed=None, *, cover: bool = True):
        """n rows (X (n, d) local codes in the smallest signed type that also holds -1,
        y (n,) intp), rows sorted by label.

        With ``cover`` the first max(labels, domain) rows are set so that every label
        and every value of every feature occurs (needs n >= max(labels, domain)).
        """
        m, v = self.labels, self.domain
        if cover and n < max(m, v):
            raise ValueError(f"cover needs n >= max(labels, domain) = {max(m, v)}, got n={n}")
        rng = np.random.default_rng(seed)
        y = np.sort(rng.choice(m, size=n, p=self.prior))
        if cover:
            y[:m] = np.arange(m)
            y.sort()
        bounds = _bounds(y, m)
        X = np.empty((n, self.d), local_dtype(v))
        col = np.empty(n, X.dtype)
        for j in range(self.d):
            _fill_column(col, self.cdf[j], bounds, rng.random(n))
            X[:, j] = col
            if cover:
                X[:v, j] = np.arange(v)
        return X, y

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The Bayes-optimal label of each row under the planted model."""
        prob = np.diff(self.cdf, axis=2, prepend=0.0)  # (d, labels, domain)
        with np.errstate(divide="ignore"):
            logp = np.log(self.prior)[None, :] + sum(
                np.log(prob[j][:, X[:, j]]).T for j in range(self.d)
            )
        return logp.argmax(axis=1)


def planted_model(
    d: int, domain: int = 5, labels: int = 3, seed=0, concentration: float = 0.5
) -> PlantedNB:
    """Draw a Naive Bayes model: a Dirichlet(5) prior and Dirichlet(concentration) features."""
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.full(labels, 5.0))
    cdf = np.cumsum(rng.dirichlet(np.full(domain, concentration), size=(d, labels)), axis=2)
    return PlantedNB(prior=prior, cdf=cdf)


def synthetic_table(
    n: int,
    d: int,
    domain: int = 5,
    labels: int = 3,
    seed=0,
    points: int = 0,
    concentration: float = 0.5,
):
    """A training table and ``points`` test points from one planted model.

    Returns (model, X (n, d), y (n,), T (points, d), t_labels (points,)).  The model and the
    test points depend only on the seed (not on n), so tables of different sizes share both.
    """
    model, T, t_labels, train_seed = model_and_tests(d, domain, labels, seed, points, concentration)
    X, y = model.sample(n, np.random.SeedSequence([*train_seed.generate_state(4), n]))
    return model, X, y, T, t_labels


def model_and_tests(
    d: int,
    domain: int = 5,
    labels: int = 3,
    seed=0,
    points: int = 0,
    concentration: float = 0.5,
):
    """The model and ``points`` test points of ``synthetic_table`` (they depend on the seed
    only), and the seed of its training rows: (model, T, t_labels, train_seed)."""
    model_seed, test_seed, train_seed = np.random.SeedSequence(_entropy(seed)).spawn(3)
    model = planted_model(d, domain, labels, model_seed, concentration)
    T, t_labels = (
        model.sample(points, test_seed, cover=False)
        if points
        else (np.empty((0, d), np.intp), np.empty(0, np.intp))
    )
    if points:  # sample() sorts by label; shuffle the test points back into drawing order
        order = np.random.default_rng(test_seed.spawn(1)[0]).permutation(points)
        T, t_labels = T[order], t_labels[order]
    return model, T, t_labels, train_seed


def _entropy(seed):
    """Seed material for SeedSequence from an int, a sequence of ints or a SeedSequence."""
    if isinstance(seed, np.random.SeedSequence):
        return seed.generate_state(4)
    return seed


# ---------------------------------------------------------------- files on disk

VALUE_TEXT = "v{}"  # feature values are written as v0, v1, ...; labels as l0, l1, ...
LABEL_TEXT = "l{}"


def _csv_bytes(X: np.ndarray, y: np.ndarray, blank: np.ndarray) -> bytes:
    """CSV lines of coded rows (values below 10: each cell two characters or empty)."""
    n, d = X.shape
    cells = np.empty((n, d + 1, 3), np.uint8)
    cells[:, :d, 0], cells[:, d, 0] = ord("v"), ord("l")
    cells[:, :d, 1], cells[:, d, 1] = ord("0") + X, ord("0") + y
    cells[:, :, 2] = ord(",")
    cells[:, d, 2] = ord("\n")
    keep = np.ones(cells.shape, bool)
    np.logical_not(blank, out=keep[:, :d, 0])
    keep[:, :d, 1] = keep[:, :d, 0]
    return cells.reshape(-1)[keep.reshape(-1)].tobytes()  # a boolean index: ~1.5x np.compress here


def _arrow_chunk(
    X: np.ndarray, y: np.ndarray, blank: np.ndarray, names: list, domain: int, labels: int
):
    import pyarrow as pa

    values = pa.array([VALUE_TEXT.format(v) for v in range(domain)])
    cols = [
        pa.DictionaryArray.from_arrays(
            pa.array(X[:, j].astype(np.int32), mask=blank[:, j]), values
        ).dictionary_decode()
        for j in range(X.shape[1])
    ]
    cols.append(
        pa.DictionaryArray.from_arrays(
            pa.array(y.astype(np.int32)), pa.array([LABEL_TEXT.format(v) for v in range(labels)])
        ).dictionary_decode()
    )
    return pa.table(cols, names=names)


def write_table(
    path,
    n: int,
    d: int = 20,
    domain: int = 5,
    labels: int = 3,
    missing: float = 0.4,
    seed=0,
    fmt: str = "csv",
    files: int = 1,
    chunk: int = 1_000_000,
    model: PlantedNB | None = None,
):
    """Write n rows of a planted Naive Bayes table (feature columns f0..f{d-1}, label column
    ``class``) with ``missing`` of the feature cells empty, chunk by chunk (memory bounded
    by the chunk): one CSV file, or Parquet split into ``files`` files of a folder (one
    file: ``path`` itself).  Values are v0..v{domain-1}, labels l0..l{labels-1} (both < 10).
    Returns the model (``model`` if given), for test points."""
    from pathlib import Path

    if domain > 10 or labels > 10:
        raise ValueError("write_table writes values and labels below 10")
    model = model or planted_model(d, domain, labels, seed)
    names = [f"f{j}" for j in range(d)] + ["class"]
    per_file = -(-n // files)
    rng = np.random.default_rng([_entropy(seed) if not isinstance(seed, int) else seed, 1])
    out = (
        _CsvFile(Path(path), names)
        if fmt == "csv"
        else _ParquetFiles(Path(path), names, files, per_file, domain, labels)
    )
    try:
        done = 0
        while done < n:
            rows = min(chunk, n - done, out.room(done, per_file))
            out.write(
                *_chunk(model, rng, rows, done == 0, missing, max(domain, labels)), done + rows
            )
            done += rows
    finally:
        out.close()
    return model


def _chunk(model: PlantedNB, rng, rows: int, first: bool, missing: float, cover: int) -> tuple:
    """(X, y, blank) of the next ``rows`` rows, shuffled; in the first chunk every value
    and label occurs in the first ``cover`` rows, which are never blanked."""
    X, y = model.sample(rows, rng.integers(1 << 62), cover=first and rows >= cover)
    order = rng.permutation(rows)
    X, y = np.take(X, order, axis=0), y[order]  # take: ~3x X[order] on a narrow int8 table
    blank = rng.random(X.shape) < missing
    if first:
        blank[:cover] = False  # every value occurs
    return X, y, blank


class _CsvFile:
    """write_table's one CSV file: the header, then each chunk's lines."""

    def __init__(self, path, names: list):
        self.out = open(path, "wb")
        self.out.write((",".join(names) + "\n").encode())

    def room(self, done: int, per_file: int) -> int:
        return per_file - done

    def write(self, X, y, blank, done: int) -> None:
        self.out.write(_csv_bytes(X, y, blank))

    def close(self) -> None:
        self.out.close()


class _ParquetFiles:
    """write_table's Parquet output: ``path`` itself, or ``files`` files of ``per_file``
    rows in the folder ``path``, one writer open at a time."""

    def __init__(self, path, names: list, files: int, per_file: int, domain: int, labels: int):
        self.path, self.names, self.files, self.per_file = path, names, files, per_file
        self.domain, self.labels = domain, labels
        self.writer, self.start = None, 0  # the open file's writer and its first row

    def room(self, done: int, per_file: int) -> int:
        return self.start + per_file - done

    def write(self, X, y, blank, done: int) -> None:
        """One chunk, the rows before ``done``; a file that is full is closed."""
        import pyarrow.parquet as pq

        table = _arrow_chunk(X, y, blank, self.names, self.domain, self.labels)
        if self.writer is None:
            target = (
                self.path
                if self.files == 1
                else self.path / f"part-{self.start // self.per_file:04d}.parquet"
            )
            if self.files > 1:
                self.path.mkdir(parents=True, exist_ok=True)
            self.writer = pq.ParquetWriter(target, table.schema)
        self.writer.write_table(table)
        if done - self.start == self.per_file:
            self.writer.close()
            self.writer, self.start = None, done

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def test_frame(model: PlantedNB, k: int, seed=0, T: np.ndarray | None = None):
    """k complete test points drawn from the model (or the coded points T), as text
    (columns f0.., no label)."""
    import pandas as pd

    if T is None:
        T, _ = model.sample(k, seed, cover=False)
        T = T[np.random.default_rng(seed).permutation(k)]
    return pd.DataFrame(
        {f"f{j}": [VALUE_TEXT.format(v) for v in T[:, j]] for j in range(T.shape[1])}
    )


def example() -> tuple:
    """The small table of the API's examples: (train, test, truth) as DataFrames.

    Seven training rows of two features, ``color`` and ``size``, labelled ``a`` or ``b``,
    with two missing cells (row 1's size, row 3's color); two test points; and the truth,
    the training table with its missing cells filled (blue, S).

    Examples
    --------
    >>> from nbcert.synthetic import example
    >>> train, test, truth = example()
    >>> train
      color size  y
    0   red    S  a
    1   red  NaN  a
    2  blue    L  a
    3   NaN    S  b
    4  blue    S  b
    5   red    L  b
    6  blue    L  b
    >>> test
      color size
    0   red    S
    1  blue    L
    """
    import pandas as pd

    train = pd.DataFrame(
        {
            "color": ["red", "red", "blue", None, "blue", "red", "blue"],
            "size": ["S", None, "L", "S", "S", "L", "L"],
            "y": ["a", "a", "a", "b", "b", "b", "b"],
        }
    )
    test = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})
    return train, test, train.fillna({"color": "blue", "size": "S"})
