"""Repaired rows as read: CPClean's ``X_train_repairs/`` folder, or a long table
``row, repair, column, value``.

A *repair* of a training row is one complete filling of its missing cells, the whole row at
once (CPClean's worlds: one imputer fills every cell of a row).  The long table has one line
per (row, repair, missing cell): ``row`` the 0-based data row of the training file,
``repair`` any name of the repair (unique within its row), ``column`` a feature column and
``value`` the value that repair gives the cell (a value never observed in the column is
allowed).  Every repair of a row must fill every missing cell of it (checked when coded,
``nbcert.repairs.table``).

CPClean's folder holds one repaired copy of the training table's feature columns per
imputer (``mean.csv``, ``mode.csv``, ``2_frequent.csv``, ...).  Each copy is a repair of
every row whose missing cells it fills; where a copy leaves one of a row's missing cells
blank (an imputer that failed there), it is not a repair of that row.  A copy's values at a
row's observed cells are not read: the training table's stand (CPClean's copies write
floats with other digits).

The values are read as the text written and binned with the training table's edges where
their column is binned (``wide`` and ``narrow`` of ``nbcert.reading.candidates``), as
every table is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .candidates import read_long, repaired_copies

COLUMNS = ("row", "repair", "column", "value")


def read(source, train: pd.DataFrame, label: str, name: str | None = None, **text) -> tuple:
    """(the repairs as a long table ``row, repair, column, value``, its name in messages).

    Parameters
    ----------
    source : DataFrame, path of a CSV file, or path of a folder of CSV files
        A long table with the columns ``row``, ``repair``, ``column`` and ``value`` (other
        columns are ignored), or CPClean's ``X_train_repairs/`` folder (``from_folder``).
    train : DataFrame
        The training table as read (its missing cells are blank).
    label : str
        Its label column.
    name : str, optional
        The repairs' name in messages (default: the path, or "repairs table").
    **text
        ``sep``, ``encoding``, ``decimal``: how a CSV path's text is read.

    Returns
    -------
    (DataFrame, str)
    """
    return read_long(source, train, label, name, "repairs", COLUMNS, from_folder, **text)


def from_folder(folder, train: pd.DataFrame, label: str, name: str, **text) -> pd.DataFrame:
    """CPClean's ``X_train_repairs/`` folder as a long table of repairs.

    Every ``*.csv`` file of the folder (in name order) is one repaired copy of the training
    table's feature columns, its header those columns in any order, one line per training
    row; its name without ``.csv`` names the repair.  A copy is a repair of each row whose
    missing cells it fills (none blank).

    Parameters
    ----------
    folder, train, label, name, **text
        As for :func:`nbcert.reading.candidates.from_folder`.

    Returns
    -------
    DataFrame
        Columns ``row``, ``repair``, ``column``, ``value``: per copy, per row it repairs,
        one line per missing cell.
    """
    parts = []
    for repair, r, j, values in repaired_copies(folder, train, label, name, **text):
        failed = np.zeros(len(train), bool)
        failed[r[pd.isna(values)]] = True  # a row this copy leaves blank: not its repair
        kept = ~failed[r]
        parts.append(
            pd.DataFrame({"row": r[kept], "repair": repair, "j": j[kept], "value": values[kept]})
        )
    out = pd.concat(parts, ignore_index=True)
    features = np.array([c for c in train.columns if c != label], dtype=object)
    column = features[out["j"].to_numpy()]
    return pd.DataFrame(
        {
            "row": out["row"].to_numpy(),
            "repair": out["repair"].to_numpy(object),
            "column": column,
            "value": out["value"].to_numpy(object),
        }
    )


__all__ = ["read", "from_folder", "COLUMNS"]
