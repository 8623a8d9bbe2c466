"""A question's tables read and normalised, once each, in one direction (``read_tables``).

1. **read**: a path becomes a ``TableSource`` (the training table, left to be read in
   record batches where it may be streamed) or a DataFrame (the other tables); the test
   id column is split off; the candidate repairs are read against the training table and
   the truth compared with it, both as read (``nbcert.reading.truth``);
2. **normalise**: numbers written with a decimal mark other than a point are rewritten,
   and with ``bins`` every table's numeric columns binned at the training table's edges.
With the truth, the training table is then coded in the truth's domains (``Tables.truth``
an ``EncodedTable``, ``Tables.missing`` the training table's missing cells).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..errors import InputError, ParameterError
from ..stats.domains import EncodedTable
from .encoding import as_missing
from .options import Reading, RowIds, is_dask, is_path, named_by_paths, split_id
from .truth import prepare_truth, truth_for_missing


@dataclass
class Tables:
    """A question's tables, read and normalised (``read_tables``; None: not asked).

    ``train``: a DataFrame, a TableSource (to be read in record batches), a Dask DataFrame
    or an EncodedTable; ``test``: the test points without their id column (``ids``);
    ``truth``, ``fill``: DataFrames; ``listed``: the candidate repairs, one line per value,
    and ``wide``, their values as a table of the training columns (binned with them);
    ``bins``: the ColumnBins fitted; with the truth, ``enc`` codes the training table in its
    domains and ``missing`` is the training table's missing cells in ``enc``'s row order;
    ``repairs``: repaired rows, one line per (row, repair, missing cell), and
    ``repairs_wide`` their values as a table of the training columns (binned with them).
    """

    train: object
    test: pd.DataFrame
    reading: Reading
    ids: RowIds | None = None
    truth: pd.DataFrame | None = None
    fill: pd.DataFrame | None = None
    listed: pd.DataFrame | None = None
    wide: pd.DataFrame | None = None
    bins: list = field(default_factory=list)
    enc: EncodedTable | None = None
    missing: np.ndarray | None = None
    repairs: pd.DataFrame | None = None
    repairs_wide: pd.DataFrame | None = None


def read_tables(
    train,
    test,
    label: str,
    reading: Reading,
    *,
    candidates=None,
    truth=None,
    fill=None,
    repairs=None,
) -> Tables:
    """Read and normalise a question's tables, once each (the module's steps).

    Parameters
    ----------
    train, test, label
        As for ``nbcert.certify``.
    reading : Reading
        The reading options.
    candidates, truth, fill : DataFrame or path, optional
        Candidate repairs, the truth (the training table with every cell filled) and a
        repaired copy of the training table.
    repairs : DataFrame or path, optional
        Repaired rows (``nbcert.reading.repairs``).

    Returns
    -------
    Tables
    """
    if candidates is not None and repairs is not None:
        raise ParameterError(
            "candidates and repairs are two world models (cells on their own, or whole "
            "rows): give one"
        )
    tables = _read(train, test, label, reading, candidates, truth, fill, repairs)
    _normalise(tables, label)
    if truth is not None:
        r = tables.reading
        tables.enc, tables.missing = prepare_truth(
            tables.train, tables.truth, label, r.missing, r.names
        )
    return tables


def _read(train, test, label, reading: Reading, candidates, truth, fill, repairs) -> Tables:
    """Step 1: every path read once (the training table kept as a source where it may be
    streamed), the id column split off the test table, the candidate repairs read against
    the training table and the truth compared with it, both as read."""
    reading = named_by_paths(reading, test=test, truth=truth, fill=fill)
    test, ids = split_id(reading.frame(test, "test"), reading.id, reading.names)
    listed = candidates is not None or repairs is not None
    in_memory = listed or truth is not None or reading.binned()
    train = _training(train, label, reading, listed, in_memory)
    tables = Tables(train, _without(test, reading), reading, ids)
    if candidates is not None:
        tables.listed, tables.wide = _read_long(tables, candidates, label, "candidates")
    if repairs is not None:
        tables.repairs, tables.repairs_wide = _read_long(tables, repairs, label, "repairs")
    if truth is not None:
        truth = _without(reading.frame(truth, "truth"), reading)
        tables.truth = truth_for_missing(tables.train, truth, label, reading)
    if fill is not None:
        tables.fill = _without(tables.reading.frame(fill, "fill"), reading)
    return tables


def _training(train, label: str, reading: Reading, candidates: bool, in_memory: bool):
    """The training table as read, without the columns ``drop`` names: a path as a
    TableSource (a DataFrame when it must be held in memory: binned, with candidates or
    the truth); anything else as it is."""
    _refuse_streaming(train, reading, candidates)
    if is_path(train):
        train = reading.source(train, "train")
    train = _dropped(train, label, reading)
    return train.to_pandas() if in_memory and is_path(train) else train


def _dropped(train, label: str, reading: Reading):
    """The training table without the columns ``reading.drop`` names (an identifier, a
    date): a path's are never read (``TableSource.without``), a DataFrame's (pandas or
    Dask) are dropped.  A name that is not one of its columns, or is its label, is an
    error."""
    drop, name = list(reading.drop), reading.names["train"]
    if not drop:
        return train
    if label in drop:
        raise InputError(f"{name}: drop names the label column {label!r}")
    if isinstance(train, EncodedTable):
        raise ParameterError("drop: the training table is already coded (from_codes)")
    if is_path(train):
        return train.without(drop)
    absent = [c for c in drop if c not in getattr(train, "columns", drop)]
    if absent:
        raise InputError(f"{name}: drop names {absent[0]!r}, which is not one of its columns")
    return train.drop(columns=drop) if hasattr(train, "drop") else train


def _without(table, reading: Reading):
    """A test, truth or repaired table without those of ``reading.drop``'s columns it has."""
    if not reading.drop or not isinstance(table, pd.DataFrame):
        return table
    return table.drop(columns=[c for c in reading.drop if c in table.columns])


def _refuse_streaming(train, reading: Reading, candidates: bool) -> None:
    """Candidate repairs and bins need the training table in memory: an error naming the
    option that asks for another way (a coded table cannot be binned again)."""
    if candidates and (reading.stream or is_dask(train)):
        raise ParameterError(
            "candidate repairs need the training table's rows in memory: drop stream=True "
            "(--stream) and the Dask scheduler"
        )
    if not reading.binned():
        return
    if isinstance(train, EncodedTable):
        raise ParameterError("bins: the training table is already coded (from_codes): drop bins")
    if reading.stream:
        raise ParameterError(
            "bins needs the training table in memory (the bins are fitted on all "
            "of a column's values): drop stream=True (--stream)"
        )
    if is_dask(train):
        raise InputError(
            f"{reading.names['train']}: bins needs the table in memory; bin a Dask "
            "DataFrame first (nbcert.Binner) or call .compute()"
        )


def _read_long(tables: Tables, source, label: str, key: str) -> tuple:
    """The candidate table (``key`` "candidates") or the repaired rows ("repairs"), read
    against the training table as read and named: (the long table, its ``wide`` form)."""
    from . import candidates, repairs

    reading, what = tables.reading, {"candidates": "candidate repairs", "repairs": "repairs"}
    if not isinstance(tables.train, pd.DataFrame):
        raise InputError(
            f"{reading.names['train']}: {what[key]} need the training table in memory (a "
            "pandas DataFrame or a path)"
        )
    read = candidates.read if key == "candidates" else repairs.read
    train = as_missing(tables.train, reading.missing)
    long, name = read(source, train, label, reading.names.get(key), **reading.text())
    tables.reading = replace(reading, names={**reading.names, key: name})
    return long, candidates.wide(long, [c for c in tables.train.columns if c != label])


def _normalise(tables: Tables, label: str) -> None:
    """Step 2: numbers written with ``decimal`` rewritten with a point (a path's reader
    does it as it reads), then with ``bins`` every table's numeric columns binned at the
    training table's edges (their ColumnBins kept in ``tables.bins``)."""
    from . import decimals

    reading = tables.reading
    others = ("test", "truth", "fill", "wide", "repairs_wide")
    if reading.decimal is not None:
        if is_dask(tables.train):
            raise InputError(
                f"{reading.names['train']}: decimal applies to CSV paths and pandas "
                "DataFrames; rewrite a Dask DataFrame's numbers first, or call .compute()"
            )
        for key in ("train", *others):
            setattr(tables, key, decimals.frame(getattr(tables, key), reading.decimal))
    if not reading.binned() or not isinstance(tables.train, pd.DataFrame):
        return  # a table of another type is named by _train_table
    from .binning import bin_tables

    names = {
        **reading.names,
        "wide": reading.names.get("candidates", "candidate table"),
        "repairs_wide": reading.names.get("repairs", "repairs table"),
    }
    given = [k for k in others if getattr(tables, k) is not None]
    binned = bin_tables(
        as_missing(tables.train, reading.missing),
        [(as_missing(getattr(tables, k), reading.missing), names[k]) for k in given],
        label,
        reading.bins,
        reading.binning,
        reading.categorical,
        reading.names["train"],
        tables.bins,
    )
    tables.train = binned[0]
    for key, table in zip(given, binned[1:]):
        setattr(tables, key, table)


__all__ = ["Tables", "read_tables"]
