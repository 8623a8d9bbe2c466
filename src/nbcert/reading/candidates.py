"""Candidate repairs as read: a long table ``row, column, value``, or CPClean's repairs.

A candidate table lists the possible values of missing cells of the training table, one
per line: ``row`` the 0-based data row of the training file, ``column`` a feature column,
``value`` one value that cell may take (a value never observed in the column is allowed).
A cell not listed keeps its whole domain (``nbcert.stats.candidates``).  The values are
read as the text written, as every CSV is, and binned with the training table's edges
where its column is binned.

CPClean (Karlaš et al., VLDB 2021) ships its candidates as a folder, ``X_train_repairs/``:
one repaired copy of the training features per imputation method (``mean.csv``,
``mode.csv``, ``2_frequent.csv``, ...).  ``from_repairs`` turns such a folder into the long
table: each missing cell of the training table gets the distinct values the copies give
it (a copy's blank there is skipped: an imputer that failed).  Note that CPClean's own
worlds are the repaired *rows* (one method fills every cell of a row); the long table's
cells vary independently, so its worlds are a superset of CPClean's, and a prediction
certain over them is certain over CPClean's.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError

COLUMNS = ("row", "column", "value")


def read(source, train: pd.DataFrame, label: str, name: str | None = None, **text) -> tuple:
    """(the candidate table as a DataFrame ``row, column, value``, its name in messages).

    Parameters
    ----------
    source : DataFrame, path of a CSV file, or path of a folder of CSV files
        A long table with the columns ``row``, ``column`` and ``value`` (its other columns
        are ignored), or CPClean's ``X_train_repairs/`` folder (``from_repairs``).
    train : DataFrame
        The training table as read (its missing cells are blank).
    label : str
        Its label column.
    name : str, optional
        The table's name in messages (default: the path, or "candidate table").
    **text
        ``sep``, ``encoding``, ``decimal``: how a CSV path's text is read.

    Returns
    -------
    (DataFrame, str)
    """
    return read_long(source, train, label, name, "candidate", COLUMNS, from_repairs, **text)


def read_long(source, train, label: str, name, kind: str, columns: tuple, folder, **text):
    """(a long table of ``kind`` with ``columns``, its name in messages), read from a
    DataFrame, a CSV file, or a folder of repaired copies (``folder(path, train, label,
    name, **text)`` turns it into the long table)."""
    from .files import read_csv

    if isinstance(source, pd.DataFrame):
        table, name = source, name or f"{kind} table"
    elif isinstance(source, (str, os.PathLike)):
        name = name or str(source)
        if Path(source).is_dir():
            return folder(source, train, label, name, **text), name
        table = read_csv(source, name=name, **text)
    else:
        raise InputError(
            f"{'candidates' if kind == 'candidate' else kind}: expected a DataFrame or the path "
            f"of a CSV file or folder, got {type(source).__name__}"
        )
    absent = [c for c in columns if c not in table.columns]
    if absent:
        raise InputError(
            f"{name}: no column {absent[0]!r} (a {kind} table has the columns "
            f"{', '.join(columns[:-1])} and {columns[-1]}: {LINES[kind]})"
        )
    return table[list(columns)].reset_index(drop=True), name


LINES = {
    "candidate": "one line per possible value of a missing cell",
    "repairs": "one line per missing cell a repair of a row fills",
}


def repaired_copies(folder, train: pd.DataFrame, label: str, name: str, **text):
    """Each repaired copy in the folder (``*.csv``, in name order) at the training table's
    missing cells: yields (the copy's name, rows r, feature positions j, values; a blank
    value where the copy leaves the cell blank), its columns and rows checked."""
    from .files import read_csv

    files = sorted(p for p in Path(folder).iterdir() if p.name.endswith((".csv", ".csv.gz")))
    if not files:
        raise InputError(
            f"{name}: no CSV files in the folder (expected repaired copies of the training "
            "table, as CPClean's X_train_repairs/)"
        )
    features = [c for c in train.columns if c != label]
    r, j = np.nonzero(train[features].isna().to_numpy())
    for path in files:
        copy = read_csv(path, name=str(path), **text)
        absent = [c for c in features if c not in copy.columns]
        if absent:
            raise InputError(
                f"{path}: no column {absent[0]!r} (a repaired copy of the training table)"
            )
        if len(copy) != len(train):
            raise InputError(
                f"{path}: it has {len(copy)} data rows, the training table {len(train)}"
            )
        repair = path.name.removesuffix(".gz").removesuffix(".csv")
        yield repair, r, j, copy[features].to_numpy(object)[r, j]


def from_repairs(folder, train: pd.DataFrame, label: str, name: str, **text) -> pd.DataFrame:
    """CPClean's ``X_train_repairs/`` folder as a candidate table.

    Every ``*.csv`` file of the folder is one repaired copy of the training table's feature
    columns (its header those columns, in any order, one line per training row).  Each
    missing cell of ``train`` gets the distinct values the copies hold there; a copy's blank
    is skipped.

    Parameters
    ----------
    folder : path
        The folder.
    train : DataFrame
        The training table (blank cells missing) with its label column ``label``.
    label : str
        The label column (the copies do not have it).
    name : str
        The folder's name in messages.
    **text
        How the files' text is read (``sep``, ``encoding``, ``decimal``).

    Returns
    -------
    DataFrame
        Columns ``row``, ``column``, ``value``, one line per distinct value of a cell.
    """
    parts = []
    for _, r, j, values in repaired_copies(folder, train, label, name, **text):
        kept = ~pd.isna(values)
        parts.append(pd.DataFrame({"row": r[kept], "j": j[kept], "value": values[kept]}))
    out = pd.concat(parts, ignore_index=True).drop_duplicates(["row", "j", "value"])
    out = out.sort_values(["j", "row"], kind="stable")
    features = np.array([c for c in train.columns if c != label], dtype=object)
    return pd.DataFrame(
        {
            "row": out["row"].to_numpy(),
            "column": features[out["j"].to_numpy()],
            "value": out["value"].to_numpy(),
        }
    )


def read_repairs(folder, train, label: str, name: str | None = None, **text) -> pd.DataFrame:
    """CPClean's ``X_train_repairs/`` folder as a candidate table (``row, column, value``)
    for ``train`` (a DataFrame or the path of the training file, its label column
    ``label``): ``from_repairs`` after reading the training table as the command does.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> import os
    >>> train.to_csv("train.csv", index=False)
    >>> os.makedirs("repairs", exist_ok=True)
    >>> features = train.drop(columns="y")
    >>> features.fillna({"color": "red", "size": "S"}).to_csv("repairs/mode.csv", index=False)
    >>> features.fillna({"color": "blue", "size": "S"}).to_csv("repairs/knn.csv", index=False)
    >>> nbcert.read_repairs("repairs", "train.csv", "y")
       row column value
    0    3  color  blue
    1    3  color   red
    2    1   size     S
    >>> nbcert.certify("train.csv", test, "y", candidates="repairs")["robust"].tolist()
    [True, True]
    """
    from .files import read_csv

    if not isinstance(train, pd.DataFrame):
        train = read_csv(train, name=str(train), **text)
    return from_repairs(folder, train, label, name or str(folder), **text)


def wide(table: pd.DataFrame, features) -> pd.DataFrame:
    """The entries as a table of the training features (entry i's value in its column, the
    other cells blank), so that the training table's bins apply to it; a column that is not
    a feature is left out (its entries are refused when coded)."""
    present = set(pd.unique(table["column"]))
    columns = [c for c in features if c in present]
    out = pd.DataFrame(index=range(len(table)), columns=columns, dtype=object)
    for c in columns:
        at = np.flatnonzero((table["column"] == c).to_numpy())
        out.iloc[at, out.columns.get_loc(c)] = table["value"].to_numpy(object)[at]
    return out


def narrow(table: pd.DataFrame, binned: pd.DataFrame) -> np.ndarray:
    """Each entry's value read back from the ``wide`` table (as binned)."""
    values = table["value"].to_numpy(object).copy()
    for c in binned.columns:
        at = np.flatnonzero((table["column"] == c).to_numpy())
        values[at] = binned[c].to_numpy(object)[at]
    return values


__all__ = [
    "read",
    "read_long",
    "repaired_copies",
    "from_repairs",
    "read_repairs",
    "wide",
    "narrow",
    "COLUMNS",
]
