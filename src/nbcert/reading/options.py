"""How the API reads its tables: the reading options, checked once (``Reading``), and the
test table's id column (``RowIds``).

``Reading`` is built by the API's functions from their keyword options (``ReadingOptions``),
checked by their rules before any data is read (``reading_options``: the reading options
are parsed here, where they are read); it is the one place where a path becomes a table
(``Reading.source``, ``Reading.frame``), and travels down as one value.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TypedDict, Unpack

import pandas as pd

from ..errors import InputError, ParameterError
from ..params import RULES, validate

TRAIN, TEST, TRUTH = "training table", "test table", "truth table"


class ReadingOptions(TypedDict, total=False):
    r"""The reading options every function of the API takes as keywords.

    The same for every question (``certify``, ``count_worlds``, ``poison``, ...): how the
    tables are read, binned and named.  Each is checked by its rule before any data is read.

    Parameters
    ----------
    missing : iterable of values, optional
        Values that also mean missing, in both tables.
    stream : bool, optional
        True refuses to hold a path's table in memory (``iterate`` and ``ad`` then fail);
        the default streams a file larger than the memory available allows.
    batch_rows : int, optional
        Rows per record batch when reading a path (default: about 64 MB of file each).
    names : mapping, optional
        Names of the tables in error messages, keys ``"train"``, ``"test"``, ``"truth"``
        and ``"candidates"`` (default "training table", "test table", ...; a path is named
        by itself).
    bins : int, optional
        Cut each numeric feature column (every observed value a number, or text of one)
        into this many bins fitted on ``train``'s observed values; test values take the bin
        of the training edges they fall in (beyond them: an end bin), named by its interval,
        e.g. ``[10.9, 14.5)``.  Default: no binning (each value is a category).  A path is
        then read into memory (``stream=True`` is refused).
    binning : {"quantile", "uniform", "kmeans"}, default "quantile"
        KBinsDiscretizer's strategy: quantile bins hold about equal numbers of training
        values, so no bin is empty and skewed columns are cut where the values are.
    categorical : column name or list of them, optional
        Numeric columns that are categories (integer codes): never binned, never warned of.
    sep : str, optional
        The field separator of a CSV path (default ","; "tab" or "\t" for a tab).
    encoding : str, optional
        The text encoding of a CSV path (default UTF-8), e.g. ``"latin-1"``; a path ending
        in ``.gz``, ``.bz2``, ``.zst``, ``.lz4`` or ``.br`` is decompressed, ``"-"`` is
        standard input.
    test_missing : {"leave_out", "error"}, default "leave_out"
        A blank test cell: left out of the row's product (its factor is 1, in every
        question and front end), or an InputError naming its row and column.
    id : str, optional
        A column of ``test`` that names its test points (not a feature); ``certify``
        carries it to its result as the first column.
    drop : column name or list of them, optional
        Columns left out of every table, as if they were not there (a path's are never
        read): an identifier or a date, whose distinct values say nothing of the label (a
        DataWarning names such columns).  No certificate is written with them.
    decimal : str, optional
        The decimal mark of numbers written as text (default a point): ``","`` reads
        ``0,93`` as ``0.93``, in a CSV path and in a DataFrame's text alike.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> train = pd.DataFrame({"size": ["1,5", "1,6", "8,0", "9,0", "?"],
    ...                       "y": ["a", "a", "b", "b", "b"]})
    >>> test = pd.DataFrame({"size": ["1,7"], "case": ["p1"]})
    >>> nbcert.certify(train, test, "y", decimal=",", missing=["?"], bins=2, id="case")
      case  robust label possible_labels  tie_possible
    0   p1    True     a             [a]         False
    """

    missing: Iterable | None
    sep: str | None
    encoding: str | None
    decimal: str | None
    test_missing: str
    bins: int | None
    binning: str
    categorical: str | Iterable[str] | None
    stream: bool | None
    batch_rows: int | None
    names: Mapping[str, str] | None
    id: str | None
    drop: str | Iterable[str] | None


@dataclass(frozen=True)
class Reading:
    """How the API reads its tables, checked (``reading_options`` builds it).

    ``missing``: the tokens that also mean missing; ``sep``, ``encoding``: a CSV path's
    separator (None: a comma) and text encoding (None: UTF-8); ``decimal``: the decimal
    mark of numbers written as text (None: a point); ``bins``, ``binning``,
    ``categorical``: the binning of numeric columns; ``stream``, ``batch_rows``: how a
    path is read; ``names``: the tables' names in messages (keys train, test, truth,
    candidates); ``test_missing``: a blank test cell left out (``leave_out``) or refused
    (``error``); ``id``: the test table's id column; ``drop``: the columns left out of
    every table.
    """

    missing: Iterable | None = None
    sep: str | None = None
    encoding: str | None = None
    decimal: str | None = None
    test_missing: str = "leave_out"
    bins: int | None = None
    binning: str = "quantile"
    categorical: tuple = ()
    stream: bool | None = None
    batch_rows: int | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    id: str | None = None
    drop: tuple = ()

    def binned(self) -> bool:
        """Whether numeric columns are binned."""
        return self.bins is not None

    def text(self) -> dict:
        """How a CSV path's text is read: its separator, encoding and decimal mark."""
        return {"sep": self.sep, "encoding": self.encoding, "decimal": self.decimal}

    def source(self, path, role: str = "train", text: bool = False):
        """The file ``path`` of the table ``role`` as a TableSource read with these options
        (``text``: every value as its text), named as ``names`` names it; a TableSource
        stays as it is.  The one place where a path becomes a table."""
        from .files import TableSource

        if isinstance(path, TableSource):
            return path
        name = self.names.get(role, f"{role} table")
        return TableSource(path, self.missing, name, text=text, **self.text())

    def frame(self, table, role: str):
        """The table ``role`` as a DataFrame: a path read whole (every value its text),
        a DataFrame as it is, anything else an InputError naming it."""
        if is_path(table):
            return self.source(table, role, text=role != "train").to_pandas()
        if not isinstance(table, pd.DataFrame):
            raise InputError(
                f"{self.names.get(role, role)}: expected a pandas DataFrame, got "
                f"{type(table).__name__}"
            )
        return table


def is_dask(obj) -> bool:
    """Whether ``obj`` is a Dask DataFrame."""
    return type(obj).__module__.split(".")[0] == "dask" and hasattr(obj, "to_delayed")


def is_path(obj) -> bool:
    """Whether ``obj`` names a file: a path or a TableSource."""
    from .files import TableSource

    return isinstance(obj, (str, os.PathLike, TableSource))


def table_names(train, names: Mapping[str, str] | None) -> dict:
    """The names of the tables in messages: those given, a path's own name, else the defaults."""
    from .files import TableSource

    given = dict(names or {})
    unknown = sorted(set(given) - {"train", "test", "truth", "candidates", "fill"})
    if unknown:
        raise ParameterError(
            f"names: unknown table {unknown[0]!r} (use train, test, truth or candidates)"
        )
    if isinstance(train, TableSource):
        given["train"] = train.name
    elif isinstance(train, (str, os.PathLike)):
        given.setdefault("train", str(train))
    return {"train": TRAIN, "test": TEST, "truth": TRUTH, "fill": "fill table", **given}


def named_by_paths(reading: Reading, **tables) -> Reading:
    """``reading`` with each table given as a path named by it, unless ``names`` names it."""
    names = dict(reading.names)
    for role, table in tables.items():
        default = table_names(None, None).get(role)
        if is_path(table) and names.get(role) == default:
            names[role] = getattr(table, "name", None) or str(table)
    return replace(reading, names=names)


@dataclass(frozen=True)
class RowIds:
    """The test table's id column: its name and its value for each test point."""

    name: str
    values: list


def split_id(test, id: str | None, names: Mapping[str, str]) -> tuple:
    """(the test points without the id column, its RowIds), or (test, None) without ``id``."""
    if id is None or not isinstance(test, pd.DataFrame):
        return test, None
    if id not in test.columns:
        raise InputError(f"{names['test']}: no id column {id!r}")
    return test.drop(columns=[id]), RowIds(id, test[id].tolist())


def reading_options(train, **options: Unpack[ReadingOptions]) -> Reading:
    """The record of the reading options, after their rules.

    Parameters
    ----------
    train : DataFrame, path, TableSource or Dask DataFrame
        The training table (a path names it in messages).
    **options
        The reading options (``ReadingOptions``), as for ``nbcert.certify``.

    Returns
    -------
    Reading

    Raises
    ------
    ParameterError
        For an unknown option, a value that breaks its rule, or an unknown table in
        ``names``.
    """
    unknown = sorted(set(options) - set(ReadingOptions.__annotations__))
    if unknown:
        raise ParameterError(
            f"unknown option {unknown[0]!r} (the reading options are "
            f"{', '.join(ReadingOptions.__annotations__)})"
        )
    checked = validate(**{k: v for k, v in options.items() if k in RULES})
    rest = {k: v for k, v in options.items() if k not in RULES and k != "names"}
    return Reading(names=table_names(train, options.get("names")), **rest, **checked)


__all__ = [
    "TRAIN",
    "TEST",
    "TRUTH",
    "ReadingOptions",
    "Reading",
    "RowIds",
    "split_id",
    "table_names",
    "is_path",
    "is_dask",
    "named_by_paths",
    "reading_options",
]
