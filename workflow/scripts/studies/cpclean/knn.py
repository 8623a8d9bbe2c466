"""CPClean's own numbers on one of its benchmark spaces, from the tables it ships.

CPClean (Karlaš et al., "Nearest Neighbor Classifiers over Incomplete Information", VLDB
2021; ``chu-data-lab/CPClean`` at 12ac0a2a76de051cbc87daa2ff0927289ccafe53) asks nbcert's
cleaning question for a K-nearest-neighbour classifier (K = 3).  This module computes, as
its code does, from a space folder (``data/data-reproduce/<dataset>/<mv_type>``):

* ``certain_before``: the share of the validation rows (the first 1000, as its
  ``reproduce.py``) that are certainly predicted (its Q1, ``min_max``) over its candidate
  worlds, before any cleaning.  A world picks one repaired copy per training row (its
  ``X_train_repairs/``, one file per imputer); a row's similarity to a validation row
  ranges over its candidates', and a validation row is certain when the label each class
  gets in its best scenario (its own rows at their largest similarity, the others at
  their smallest) is the class itself for exactly one class (binary labels).
* ``rows_cleaned``: the training rows its shipped result ``X_train_CPClean/*.csv``
  cleaned: rows that differ there from its default repair (``mean.csv``), which is what it
  starts from and overwrites row by row with the candidate closest to the truth.  A row
  whose closest candidate is the mean repair itself cannot show; their number is given
  beside it (``rows_hidden``), so the count is in [rows_cleaned, rows_cleaned +
  rows_hidden].
* ``accuracy``: the KNN's validation and test accuracy trained on the truth's closest
  candidate (``X_train_gt``, its "ground truth"), on the default repair and on its
  result (with and without early termination).

Preprocessing is its ``training/preprocess.py``: numeric columns mean-imputed and
min-max scaled (fitted on the dirty training table), categorical ones one-hot encoded
(unknown values ignored).  One difference, forced by what is shipped: it fits the one-hot
encoder on ``X_full.csv``, which the space folders here leave out, so the encoder is fitted
on the tables that are shipped (the clean training table, the validation and the test
table: together the full table's rows).  Distances are its ``compute_distances``'
Euclidean distances between preprocessed rows, measured a column at a time
(:class:`Columns`: a one-hot block adds the number of places where two values differ), so
no row is expanded; over the repaired copies only the rows a copy changes are measured
again.  Similarity is 1 / (1 + distance); ties keep the training order (stable sort), as
its code.

Run as a script: ``python workflow/scripts/studies/cpclean/knn.py SPACE_DIR [SPACE_DIR ...]``
prints one JSON object per space.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

K = 3
VAL_ROWS = 1000


@dataclass(frozen=True)
class Space:
    """The tables of one space, as pandas reads them (CPClean's ``utils.load_space``)."""

    X_train_dirty: pd.DataFrame
    X_train_clean: pd.DataFrame
    y_train: pd.Series
    X_val: pd.DataFrame
    y_val: pd.Series
    X_test: pd.DataFrame
    y_test: pd.Series
    repairs: dict  # method name -> repaired copy of the training features
    results: dict  # name of a shipped CPClean result (X_train_CPClean/*.csv) -> table


def load_space(folder, val_rows: int = VAL_ROWS) -> Space:
    """A CPClean space folder, its validation table cut to its first ``val_rows`` rows."""
    folder = Path(folder)

    def table(name):
        return pd.read_csv(folder / f"{name}.csv")

    def label(name):
        return table(name).iloc[:, 0]

    def files(sub):
        return {p.stem: pd.read_csv(p) for p in sorted((folder / sub).glob("*.csv"))}

    return Space(
        table("X_train_dirty"),
        table("X_train_clean"),
        label("y_train"),
        table("X_val").iloc[:val_rows].reset_index(drop=True),
        label("y_val").iloc[:val_rows].reset_index(drop=True),
        table("X_test"),
        label("y_test"),
        files("X_train_repairs"),
        files("X_train_CPClean"),
    )


@dataclass(frozen=True)
class Columns:
    """Preprocessed rows, one column of the table at a time: the numeric columns min-max
    scaled (``num``, rows x numeric columns) and each categorical value's place among its
    one-hot encoder's categories (``cat``, rows x categorical columns; -1 for a value the
    encoder ignores, an all-zero one-hot block).  The one-hot vectors are never built: two
    values' blocks differ in 0 places (the same known value), 1 (one of them ignored) or 2."""

    num: np.ndarray
    cat: np.ndarray

    def __len__(self) -> int:
        return len(self.num)

    def take(self, rows) -> Columns:
        return Columns(self.num[rows], self.cat[rows])


class Preprocessor:
    """CPClean's ``Preprocessor``: mean imputation and min-max scaling of the numeric
    columns, one-hot encoding of the others (missing: the category "missing"), labels
    encoded."""

    def __init__(self, space: Space):
        from sklearn.impute import SimpleImputer
        from sklearn.preprocessing import LabelEncoder, MinMaxScaler, OneHotEncoder

        X = space.X_train_dirty
        self.num = list(X.select_dtypes(include="number").columns)
        self.cat = list(X.select_dtypes(exclude="number").columns)
        self.imputer = (
            SimpleImputer(strategy="mean").fit(X[self.num].to_numpy()) if self.num else None
        )
        if self.num:
            self.scaler = MinMaxScaler().fit(self.imputer.transform(X[self.num].to_numpy()))
        if self.cat:
            full = pd.concat([space.X_train_clean, space.X_val, space.X_test])[self.cat]
            self.onehot = OneHotEncoder(handle_unknown="ignore").fit(full.astype(str).to_numpy())
        self.labels = LabelEncoder().fit(space.y_train.to_numpy())

    def _categories(self, frame: pd.DataFrame) -> np.ndarray:
        """Each categorical cell as its encoder sees it (missing: "missing"), as text."""
        cat = frame[self.cat].astype(object).where(frame[self.cat].notna(), "missing")
        return cat.astype(str).to_numpy()

    def X(self, frame: pd.DataFrame) -> np.ndarray:
        """The rows as CPClean's model sees them: scaled numbers, then one-hot blocks."""
        parts = []
        if self.num:
            parts.append(self.scaler.transform(self.imputer.transform(frame[self.num].to_numpy())))
        if self.cat:
            parts.append(self.onehot.transform(self._categories(frame)).toarray())
        return np.hstack(parts)

    def columns(self, frame: pd.DataFrame) -> Columns:
        """The rows of ``X`` column by column (:class:`Columns`)."""
        num = np.zeros((len(frame), 0))
        if self.num:
            num = self.scaler.transform(self.imputer.transform(frame[self.num].to_numpy()))
        text = self._categories(frame) if self.cat else np.zeros((len(frame), 0), str)
        cat = np.full(text.shape, -1, np.intp)
        for j in range(text.shape[1]):
            known = self.onehot.categories_[j]
            at = np.searchsorted(known, text[:, j]).clip(max=len(known) - 1)
            cat[:, j] = np.where(known[at] == text[:, j], at, -1)
        return Columns(np.asarray(num, float), cat)

    def y(self, labels: pd.Series) -> np.ndarray:
        return self.labels.transform(labels.to_numpy())


def squared_distances(A: Columns, B: Columns) -> np.ndarray:
    """(len(A), len(B)) squared Euclidean distances of the preprocessed rows: the numeric
    columns' squared differences summed in column order, then the one-hot blocks' places
    that differ (a whole number, so exact)."""
    out, step = np.zeros((len(A), len(B))), np.empty((len(A), len(B)))
    for j in range(A.num.shape[1]):
        np.subtract.outer(A.num[:, j], B.num[:, j], out=step)
        out += np.square(step, out=step)
    if A.cat.shape[1]:
        ones = np.zeros((len(A), len(B)), np.intp)
        for j in range(A.cat.shape[1]):
            a, b = A.cat[:, j, None], B.cat[None, :, j]
            ones += (a >= 0).astype(np.intp) + (b >= 0) - 2 * ((a == b) & (a >= 0))
        out += ones
    return out


def rowwise_squared_distances(A: Columns, B: Columns) -> np.ndarray:
    """(len(A),) squared distance of each row of A to the same row of B (as
    ``squared_distances``)."""
    out = np.zeros(len(A))
    for j in range(A.num.shape[1]):
        out += np.square(A.num[:, j] - B.num[:, j])
    a, b = A.cat, B.cat
    ones = ((a >= 0).astype(np.intp) + (b >= 0) - 2 * ((a == b) & (a >= 0))).sum(axis=1)
    return out + ones


def similarity(d2: np.ndarray) -> np.ndarray:
    """CPClean's similarity 1 / (1 + distance) of squared distances."""
    return 1 / (1 + np.sqrt(d2))


def similarities(X_train: Columns, X_val: Columns) -> np.ndarray:
    """(val, train) similarities of the rows of two tables."""
    return similarity(squared_distances(X_val, X_train))


def similarity_ranges(copies: list, X_val: Columns, varies: np.ndarray) -> tuple:
    """(smallest, largest) similarity of every (validation row, training row) over the
    training table's repaired copies (``copies``: one :class:`Columns` each): a row that
    no copy changes (``varies`` False) is the same in every copy and is measured once."""
    d2 = squared_distances(X_val, copies[0])
    rows = np.flatnonzero(varies)
    lo, hi = d2[:, rows], d2[:, rows].copy()
    for copy in copies[1:]:
        part = squared_distances(X_val, copy.take(rows))
        np.minimum(lo, part, out=lo)
        np.maximum(hi, part, out=hi)
    far, near = d2, d2.copy()
    far[:, rows], near[:, rows] = hi, lo
    return similarity(far), similarity(near)


def nearest(sim: np.ndarray, k: int = K) -> np.ndarray:
    """(rows, k) the columns of the k largest similarities of each row, largest first and
    equal ones in column order: the first k of a stable sort by descending similarity,
    found without sorting the whole row."""
    k = min(k, sim.shape[1])
    kth = -np.partition(-sim, k - 1, axis=1)[:, k - 1 : k]  # each row's k-th largest value
    above = sim > kth
    tied = sim == kth
    take = above | (tied & (np.cumsum(tied, axis=1) <= k - above.sum(axis=1, keepdims=True)))
    cols = np.nonzero(take)[1].reshape(len(sim), k)  # column order within each row
    order = np.argsort(-np.take_along_axis(sim, cols, axis=1), kind="stable", axis=1)
    return np.take_along_axis(cols, order, axis=1)


def knn_predict(sim: np.ndarray, y_train: np.ndarray, k: int = K) -> np.ndarray:
    """CPClean's KNN: the K most similar training rows (stable order), majority vote
    (``Counter.most_common``: the first label met among equal counts)."""
    return np.array(
        [Counter(row.tolist()).most_common(1)[0][0] for row in y_train[nearest(sim, k)]]
    )


def certain(
    sim_min: np.ndarray, sim_max: np.ndarray, y_train: np.ndarray, k: int = K
) -> np.ndarray:
    """CPClean's Q1 (``min_max``) per validation row, binary labels: for each class c, its
    rows at their largest similarity and the others at their smallest; the row is certain
    when exactly one class's best scenario predicts that class."""
    wins = []
    for c in (0, 1):
        mine = y_train == c
        scenario = np.where(mine[None, :], sim_max, sim_min)
        top = y_train[nearest(scenario, k)]
        vote = np.array([np.argmax(np.bincount(row, minlength=2)) for row in top])
        wins.append(vote == c)
    return wins[0] ^ wins[1]


def closest_repairs(space: Space, copies: dict, clean: Columns) -> tuple:
    """(per training row the repaired row closest to the truth, preprocessed; the raw
    table of those rows): CPClean's ``X_train_gt``, the first of the sorted methods among
    equals.  ``copies``: each repaired copy preprocessed, by name."""
    names = sorted(copies)
    d2 = np.array([rowwise_squared_distances(copies[n], clean) for n in names])
    best = np.argmin(d2, axis=0)
    rows = np.arange(len(best))
    num = np.array([copies[n].num for n in names])[best, rows]
    cat = np.array([copies[n].cat for n in names])[best, rows]
    raw = pd.concat(
        [space.repairs[names[b]][best == b] for b in np.unique(best).tolist()]
    ).sort_index()
    return Columns(num, cat), raw.reset_index(drop=True)


def rows_changed(table: pd.DataFrame, base: pd.DataFrame) -> np.ndarray:
    """Per row, whether ``table`` holds another value than ``base`` in some column (numbers
    compared to a relative 1e-9)."""
    out = np.zeros(len(table), bool)
    for c in base.columns:
        a, b = table[c], base[c]
        if a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
            out |= ~np.isclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-9, atol=1e-12)
        else:
            out |= (a.astype(str) != b.astype(str)).to_numpy()
    return out


@dataclass(frozen=True)
class Numbers:
    """CPClean's numbers on one space (see the module docstring)."""

    certain_before: float
    dirty_rows: int
    rows_cleaned: dict  # result name -> rows it cleaned (shown)
    rows_hidden: int  # dirty rows whose closest candidate is the mean repair itself
    val_accuracy: dict  # "truth's closest", "default repair", and each result
    test_accuracy: dict


def cpclean_numbers(space: Space, k: int = K) -> Numbers:
    """CPClean's certain share before cleaning, the rows its results cleaned and the KNN's
    accuracies, on one space."""
    pre = Preprocessor(space)
    y_train, X_val, X_test = (
        pre.y(space.y_train),
        pre.columns(space.X_val),
        pre.columns(space.X_test),
    )
    y_val, y_test = pre.y(space.y_val), pre.y(space.y_test)
    copies = {name: pre.columns(t) for name, t in sorted(space.repairs.items())}
    first = next(iter(copies.values()))
    varies = np.zeros(len(first), bool)
    for c in copies.values():
        varies |= (c.num != first.num).any(axis=1) | (c.cat != first.cat).any(axis=1)
    lo, hi = similarity_ranges(list(copies.values()), X_val, varies)
    gt, gt_raw = closest_repairs(space, copies, pre.columns(space.X_train_clean))
    dirty = space.X_train_dirty.isna().any(axis=1).to_numpy()
    mean = space.repairs["mean"]
    tables = {"truth's closest": gt, "default repair": copies["mean"]}
    tables.update({name: pre.columns(t) for name, t in space.results.items()})
    val, test = {}, {}
    for name, X in tables.items():
        val[name] = float(np.mean(knn_predict(similarities(X, X_val), y_train, k) == y_val))
        test[name] = float(np.mean(knn_predict(similarities(X, X_test), y_train, k) == y_test))
    return Numbers(
        float(certain(lo, hi, y_train, k).mean()),
        int(dirty.sum()),
        {name: int((rows_changed(t, mean) & dirty).sum()) for name, t in space.results.items()},
        int((~rows_changed(gt_raw, mean) & dirty).sum()),
        val,
        test,
    )


def main(argv: list) -> int:
    for folder in argv:
        print(json.dumps({"space": folder, **asdict(cpclean_numbers(load_space(folder)))}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
