"""The truth table of the cleaning questions: checked against the training table as read,
consulted for the missing cells only, and coding the training table in its domains."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from . import hints
from .columns import same_values
from .encoding import as_missing, check_frame, code_labels, encode, no_observed_value
from .options import TEST, TRAIN, TRUTH, Reading


def _the(name: str) -> str:
    """A table's name inside a sentence ("the training table", or a file's name)."""
    return f"the {name}" if name in (TRAIN, TEST, TRUTH) else name


def _check_dirty(dirty: pd.DataFrame, known, label, name: str) -> tuple:
    """The feature names of the dirty table after its own checks (those ``encode`` makes),
    without encoding it: its columns, its labels and a value in every feature column."""
    features = check_frame(dirty, label, name)
    code_labels(dirty[label], name, label)
    for j, f in enumerate(dirty.columns):
        if f != label and not known[:, j].any():
            raise no_observed_value(name, f)
    return features


def _check_truth(dirty: pd.DataFrame, truth: pd.DataFrame, known, names: dict) -> None:
    """The truth has the dirty table's header and rows and a value in every cell missing
    in the dirty table."""
    tn, dn = names["truth"], _the(names["train"])
    if list(truth.columns) != list(dirty.columns):
        raise InputError(
            f"{tn}: its header ({', '.join(map(str, truth.columns))}) differs from {dn}'s "
            f"({', '.join(map(str, dirty.columns))})"
        )
    if len(truth) != len(dirty):
        raise InputError(f"{tn}: it has {len(truth)} data rows, {dn} has {len(dirty)}")
    gaps = truth.isna().to_numpy() & ~known
    if gaps.any():
        r, c = map(int, next(zip(*gaps.nonzero())))
        raise InputError(
            f"{tn}: data row {r} has no value in column {truth.columns[c]!r}, a missing cell of "
            f"{dn} (the truth must fill every missing cell)"
        )


def truth_for_missing(train, truth, label, reading: Reading) -> pd.DataFrame:
    """The truth as the cleaning questions use it: its values of the training table's missing
    cells, and the training table's own values everywhere else.

    The truth is consulted for the missing cells only.  Where its observed cells differ
    from the training table's (CPClean's clean tables round floats to 8 digits: 19.21407939
    against 19.2140793918919, two different bins once binned), one DataWarning names how
    many and the first, with both raw values, and the training table's values stand.  Both
    tables are compared as read, before binning; the header, the rows and a value in every
    missing cell are required (InputError)."""
    names = reading.names
    if not isinstance(train, pd.DataFrame):
        raise InputError(
            f"{names['train']}: expected a pandas DataFrame, got {type(train).__name__}"
        )
    dirty, truth = as_missing(train, reading.missing), as_missing(truth, reading.missing)
    known = dirty.notna().to_numpy()
    _check_truth(dirty, truth, known, names)
    same = np.column_stack([same_values(dirty[c], truth[c]) for c in dirty.columns])
    differ = known & ~same  # numbers by value: 4.0 in the dirty table is the truth's 4
    if differ.any():
        hints.warn_differing(
            names["truth"], _the(names["train"]), int(differ.sum()), differ, truth, dirty
        )
    out = truth.copy()
    for j, c in enumerate(dirty.columns):
        if differ[:, j].any():
            out[c] = truth[c].astype(object).where(~known[:, j], dirty[c].astype(object))
    return out


def prepare_truth(train, truth, label, missing, names: dict):
    """The truth table's encoding and the dirty table's missing cells in its row order, after
    the dirty table's own checks (the truth: ``truth_for_missing``)."""
    dirty, truth = as_missing(train, missing), as_missing(truth, missing)
    known = dirty.notna().to_numpy()
    _check_dirty(dirty, known, label, names["train"])
    _check_truth(dirty, truth, known, names)
    enc = encode(truth, label, name=names["truth"])
    columns = [dirty.columns.get_loc(f) for f in enc.features]
    return enc, ~known[:, columns][enc.rows]


__all__ = ["truth_for_missing", "prepare_truth"]
