"""The front ends' inputs: how the tables are read (one record, built once at the edge) and
the tables made ready for a question.

``Reading`` holds the reading options every API function takes (missing tokens, sep, bins,
binning, categorical, stream, batch rows, the tables' names, the test id column), checked
by their rules (``nbcert.params``) when it is built, before any data is read.  ``prepare``
turns the tables into what a question needs: the training table's statistics (``Stats``)
or, for a method that needs its rows, an ``EncodedTable``, and the test rows as codes,
with the DataWarnings they call for.  The test id column (``id=``, ``--id``) is split off
and checked here, for the API and the command line alike (``split_id``, ``check_id``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TypedDict, Unpack

import numpy as np
import pandas as pd

from .errors import InputError, ParameterError
from .params import RULES, validate
from .reading import hints
from .reading.columns import same_values
from .reading.encoding import (
    EncodedTable,
    as_missing,
    check_frame,
    code_labels,
    encode,
    no_observed_value,
)
from .stats import Stats, as_stats, frame_stats

TRAIN, TEST, TRUTH = "training table", "test table", "truth table"


class ReadingOptions(TypedDict, total=False):
    """The reading options every API function takes as keywords (documented at
    ``nbcert.certify``)."""

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
    """How the API reads its tables, checked (build it with :meth:`of`).

    ``missing``: the tokens that also mean missing; ``sep``, ``encoding``: a CSV path's
    separator (None: a comma) and text encoding (None: UTF-8); ``decimal``: the decimal
    mark of numbers written as text (None: a point); ``bins``, ``binning``, ``categorical``: the binning of numeric
    columns; ``stream``, ``batch_rows``: how a path is read; ``names``: the tables' names
    in messages (keys train, test, truth); ``test_missing``: a blank test cell left out
    (``leave_out``) or refused (``error``); ``id``: the test table's id column; ``drop``: the
    columns left out of every table (``drop_columns``).
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

    @classmethod
    def of(cls, train, **options: Unpack[ReadingOptions]) -> Reading:
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
        return cls(names=table_names(train, options.get("names")), **rest, **checked)

    def binned(self) -> bool:
        """Whether numeric columns are binned."""
        return self.bins is not None


def is_dask(obj) -> bool:
    """Whether ``obj`` is a Dask DataFrame."""
    return type(obj).__module__.split(".")[0] == "dask" and hasattr(obj, "to_delayed")


def is_path(obj) -> bool:
    """Whether ``obj`` names a file: a path or a TableSource."""
    from .reading.files import TableSource

    return isinstance(obj, (str, os.PathLike, TableSource))


def table_names(train, names: Mapping[str, str] | None) -> dict:
    """The names of the tables in messages: those given, a path's own name, else the defaults."""
    from .reading.files import TableSource

    given = dict(names or {})
    unknown = sorted(set(given) - {"train", "test", "truth", "candidates"})
    if unknown:
        raise ParameterError(
            f"names: unknown table {unknown[0]!r} (use train, test, truth or candidates)"
        )
    if isinstance(train, TableSource):
        given["train"] = train.name
    elif isinstance(train, (str, os.PathLike)):
        given.setdefault("train", str(train))
    return {"train": TRAIN, "test": TEST, "truth": TRUTH, **given}


# ---------------------------------------------------------------------------------------
# the test id column


@dataclass(frozen=True)
class RowIds:
    """The test table's id column: its name and its value for each test row."""

    name: str
    values: list


def drop_columns(train, tables: list, label, reading: Reading) -> tuple:
    """(train, tables) without the columns ``reading.drop`` names (an identifier, a date):
    a path's are never read (``TableSource.without``), a DataFrame's (pandas or Dask) are
    dropped; the other tables lose those they have.  A name that is not a column of
    ``train``, or is its label, is an InputError."""
    drop, name = list(reading.drop), reading.names["train"]
    if not drop:
        return train, tables
    if label in drop:
        raise InputError(f"{name}: drop names the label column {label!r}")
    if isinstance(train, EncodedTable):
        raise ParameterError("drop: the training table is already coded (from_codes)")
    if is_path(train):
        from .reading.files import TableSource

        if not isinstance(train, TableSource):
            train = TableSource(train, reading.missing, name, **_text(reading))
        train = train.without(drop)
    elif hasattr(train, "drop") and hasattr(train, "columns"):  # pandas or Dask
        absent = [c for c in drop if c not in train.columns]
        if absent:
            raise InputError(f"{name}: drop names {absent[0]!r}, which is not one of its columns")
        train = train.drop(columns=drop)
    out = [
        t.drop(columns=[c for c in drop if c in t.columns]) if isinstance(t, pd.DataFrame) else t
        for t in tables
    ]
    return train, out


def split_id(test, id: str | None, names: Mapping[str, str]) -> tuple:
    """(the test rows without the id column, its RowIds), or (test, None) without ``id``."""
    if id is None or not isinstance(test, pd.DataFrame):
        return test, None
    if id not in test.columns:
        raise InputError(f"{names['test']}: no id column {id!r}")
    return test.drop(columns=[id]), RowIds(id, test[id].tolist())


def check_id(ids: RowIds | None, columns, names: Mapping[str, str]) -> None:
    """The id column must not be one of the training table's ``columns`` (it would be a
    feature)."""
    if ids is not None and ids.name in columns:
        raise InputError(f"{names['train']}: the id column {ids.name!r} is a feature column of it")


def with_id(out: pd.DataFrame, ids: RowIds | None) -> pd.DataFrame:
    """The result with the id column as its first column."""
    if ids is None:
        return out
    column = pd.Series(ids.values, index=out.index, dtype=object, name=ids.name)
    return pd.concat([column.to_frame(), out], axis=1)


# ---------------------------------------------------------------------------------------
# the tables made ready


@dataclass(frozen=True)
class Need:
    """What a question needs of the training table: its statistics (``rows_for`` None) or
    its rows, for the method that ``rows_for`` names in messages; with ``second_pass``, a
    streamed file gives statistics that can read it again (OP)."""

    rows_for: str | None = None
    second_pass: bool = False


def _train_table(train, label, reading: Reading, need: Need) -> Stats | EncodedTable:
    """The training table as Stats or, when ``need`` asks for rows, as an EncodedTable."""
    missing, name = reading.missing, reading.names["train"]
    if isinstance(train, EncodedTable):  # from_codes: already coded (``label`` is not used)
        return train
    if isinstance(train, pd.DataFrame):
        if need.rows_for:
            return encode(train, label, missing=missing, name=name)
        return frame_stats(train, label, missing=missing, name=name)
    if is_path(train):
        from .reading.files import TableSource
        from .stats import streamed

        source = train if isinstance(train, TableSource) else TableSource(train, missing, name)
        return streamed.train_from_path(
            source,
            label,
            missing,
            rows_for=need.rows_for,
            second_pass=need.second_pass,
            stream=reading.stream,
            batch_rows=reading.batch_rows,
        )
    if is_dask(train):
        from .stats import cluster

        if need.rows_for:
            raise InputError(
                f"{name}: {need.rows_for} needs the table in memory; a Dask DataFrame "
                f"gives its statistics only (certify with method='index', "
                f"count_worlds), "
                f"or call .compute()"
            )
        return cluster.dask_stats(train, label, missing=missing, name=name)
    raise InputError(
        f"{name}: expected a pandas DataFrame, a CSV or Parquet path, a Dask DataFrame or "
        f"a table from nbcert.from_codes, got {type(train).__name__}"
    )


def coded_test(table: Stats | EncodedTable, test, reading: Reading):
    """The test rows as codes of the training table's domains."""
    name = reading.names["test"]
    if not isinstance(test, pd.DataFrame):
        raise InputError(f"{name}: expected a pandas DataFrame, got {type(test).__name__}")
    return table.encode_test(as_missing(test, reading.missing), name, reading.test_missing)


def _bin_refusal(train, reading: Reading) -> None:
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


def _text(reading: Reading) -> dict:
    """How a CSV path's text is read: its separator, encoding and decimal mark."""
    return {"sep": reading.sep, "encoding": reading.encoding, "decimal": reading.decimal}


def read_paths(test, truth, reading: Reading) -> tuple:
    """(test, truth, reading): a test or truth table given as a path read into a DataFrame
    as the command line reads it (every value the text written, ``sep``, ``encoding``,
    ``decimal``), and named by its path in messages unless ``names`` names it."""
    from .reading.files import TableSource

    names, out = dict(reading.names), []
    for table, key, default in ((test, "test", TEST), (truth, "truth", TRUTH)):
        if is_path(table):
            if not isinstance(table, TableSource):
                name = str(table) if names[key] == default else names[key]
                table = TableSource(table, reading.missing, name, text=True, **_text(reading))
            names[key] = table.name
            table = table.to_pandas()
        out.append(table)
    return (*out, replace(reading, names=names))


def train_frame(train, reading: Reading):
    """The training table as a DataFrame where a method needs its rows as one: a path (or
    TableSource) read whole; anything else as it is."""
    from .reading.files import TableSource

    if is_path(train):
        if not isinstance(train, TableSource):
            train = TableSource(train, reading.missing, reading.names["train"], **_text(reading))
        return train.to_pandas()
    return train


def binned(train, test, label, reading: Reading, truth=None, fitted: list | None = None) -> tuple:
    """(train, test, truth) after ``sep``, ``decimal`` and ``bins``: a path becomes a
    TableSource read with ``sep``, ``encoding`` and ``decimal``, a DataFrame's numbers
    written with ``decimal`` are rewritten with a point; with ``bins`` the tables become
    DataFrames with the training table's numeric columns binned (their ColumnBins appended
    to ``fitted``, when given)."""
    train, (test, truth) = binned_with(train, [test, truth], label, reading, fitted=fitted)
    return train, test, truth


def binned_with(
    train, tables: list, label, reading: Reading, keys=("test", "truth"), fitted=None
) -> tuple:
    """(train, [tables]) after ``sep``, ``decimal`` and ``bins`` (``binned``), for any
    number of other tables (None: no table); each named in messages by its key in
    ``keys`` (one per table), as ``reading.names`` names it; ``fitted``: see ``binned``."""
    from .reading import decimals
    from .reading.files import TableSource

    missing, names = reading.missing, reading.names
    text = _text(reading)
    if is_path(train) and not isinstance(train, TableSource) and any(text.values()):
        train = TableSource(train, missing, names["train"], **text)
    if reading.decimal is not None:
        if is_dask(train):
            raise InputError(
                f"{names['train']}: decimal applies to CSV paths and pandas DataFrames; "
                "rewrite a Dask DataFrame's numbers first, or call .compute()"
            )
        train = decimals.frame(train, reading.decimal)
        tables = [decimals.frame(t, reading.decimal) for t in tables]
    if not reading.binned():
        return train, tables
    _bin_refusal(train, reading)
    train = train_frame(train, reading)
    if not isinstance(train, pd.DataFrame):
        return train, tables  # _train_table names the type it does not take
    from .reading.binning import bin_tables

    frames = [(i, t) for i, t in enumerate(tables) if isinstance(t, pd.DataFrame)]
    train, *done = bin_tables(
        as_missing(train, missing),
        [(as_missing(t, missing), names.get(keys[i], f"{keys[i]} table")) for i, t in frames],
        label,
        reading.bins,
        reading.binning,
        reading.categorical,
        names["train"],
        fitted,
    )
    out = list(tables)
    for (i, _), t in zip(frames, done):
        out[i] = t
    return train, out


def candidate_table(train, candidates, label, reading: Reading) -> tuple:
    """(the training table in memory, its candidate table (DataFrame ``row, column, value``),
    ``reading`` naming it): candidates need the training table's rows."""
    from .reading import candidates as read

    name = reading.names.get("candidates")
    if reading.stream or is_dask(train):
        raise ParameterError(
            "candidate repairs need the training table's rows in memory: drop stream=True "
            "(--stream) and the Dask scheduler"
        )
    train = train_frame(train, reading)
    if not isinstance(train, pd.DataFrame):
        raise InputError(
            f"{reading.names['train']}: candidate repairs need the training table in memory "
            "(a pandas DataFrame or a path)"
        )
    table, name = read.read(
        candidates, as_missing(train, reading.missing), label, name, **_text(reading)
    )
    return train, table, replace(reading, names={**reading.names, "candidates": name})


def coded_candidates(table, listed, binned, reading: Reading, missing=None) -> tuple:
    """(the training table extended by the candidate values, its Candidates), from the
    candidate table ``listed`` and its ``wide`` form as binned (``missing``: the training
    table's missing cells, when ``table`` is its truth)."""
    from .reading import candidates as read
    from .stats import candidates

    values = read.narrow(listed, binned)
    entries = candidates.Listed(
        listed["row"].to_numpy(object),
        listed["column"].to_numpy(object),
        values,
        reading.names["candidates"],
    )
    return candidates.code(table, entries, reading.names["train"], missing)


def prepare(
    train, test, label, reading: Reading, need: Need = Need(), alpha=0, listed=None, fitted=None
) -> tuple:
    """(training table as Stats or EncodedTable, test codes, test table as binned, its
    Candidates or None), after ``binned``, with the DataWarnings they call for (at the
    smoothing ``alpha``); ``listed``: a candidate table (``candidate_table``); ``fitted``:
    see ``binned``."""
    from .reading import candidates as read

    extra = []
    if listed is not None:
        features = [c for c in train.columns if c != label]
        extra = [read.wide(listed, features)]
        need = need if need.rows_for else Need("candidate repairs")
    train, (test, *extra) = binned_with(
        train, [test, *extra], label, reading, ("test", "candidates"), fitted
    )
    table = _train_table(train, label, reading, need)
    cand = None
    if listed is not None:
        table, cand = coded_candidates(table, listed, extra[0], reading)
    T = coded_test(table, test, reading)
    warn(reading, table, T, alpha)
    return table, T, test, cand


def warn(reading: Reading, dom, T, alpha=0, truth=None) -> None:
    """The DataWarnings for the domains ``dom`` and test codes ``T`` read with ``reading``
    (``truth``: the test codes in the truth table's domains, when cleaning with it)."""
    hints.warn(
        dom,
        T,
        binned=reading.binned(),
        categorical=reading.categorical,
        missing=reading.missing,
        decimal=reading.decimal,
        alpha=alpha,
        truth=truth,
    )


def ask(train, test, label, reading: Reading, need: Need = Need(), alpha=0, fitted=None) -> tuple:
    """``prepare`` with the test id column read and checked (not a training column): (training
    table, test codes, test table as binned, RowIds or None).  A test path is read first;
    ``fitted``: see ``binned``."""
    return ask_with(train, test, label, reading, need, alpha, fitted=fitted)[:4]


def ask_with(
    train,
    test,
    label,
    reading: Reading,
    need: Need = Need(),
    alpha=0,
    candidates=None,
    fitted=None,
) -> tuple:
    """``ask`` with candidate repairs: (training table, test codes, test table as binned,
    RowIds or None, Candidates or None); ``candidates``: a candidate table, a path of one,
    or CPClean's repairs folder (``nbcert.reading.candidates``)."""
    test, _, reading = read_paths(test, None, reading)
    _, ids = split_id(test, reading.id, reading.names)  # test keeps it: encode_test leaves it out
    train, (test,) = drop_columns(train, [test], label, reading)
    listed = None
    if candidates is not None:
        train, listed, reading = candidate_table(train, candidates, label, reading)
    table, T, test, cand = prepare(train, test, label, reading, need, alpha, listed, fitted)
    check_id(ids, table.features, reading.names)
    check_columns_of_test(test, table.features, label, reading)
    return table, T, test, ids, cand


def check_columns_of_test(test, features, label, reading: Reading) -> None:
    """A test column that is not a training column (a feature, the label or the id column)
    is an InputError, as the command line says it: a misspelt column would otherwise be
    dropped without a word."""
    known = {*features, label, reading.id}
    extra = [c for c in test.columns if c not in known]
    if extra:
        raise not_a_column(
            reading.names["test"], extra[0], reading.names["train"], reading.id, f"id={extra[0]!r}"
        )


def not_a_column(test: str, column, train: str, id: str | None, flag: str) -> InputError:
    """The error for a test column that the training table does not have; without an id
    column it says how to name one (``flag``: ``--id COL`` or ``id='COL'``)."""
    hint = "" if id is not None else f" (if it names the test rows, pass {flag})"
    return InputError(f"{test}: column {column!r} is not a column of {train}{hint}")


# ---------------------------------------------------------------------------------------
# the truth table (clean_with_truth)


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
    for table, role in ((train, "train"), (truth, "truth")):
        if not isinstance(table, pd.DataFrame):
            raise InputError(
                f"{names[role]}: expected a pandas DataFrame, got {type(table).__name__}"
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


def require_complete(table: Stats | EncodedTable, reading: Reading) -> None:
    """Poisoning needs a complete training table: an InputError naming its first missing cell."""
    first = as_stats(table).first_missing
    if first is not None:
        raise InputError(
            f"{reading.names['train']}: poisoning needs a complete table, but data "
            f"row {first[0]} is missing column {first[1]!r}"
        )


__all__ = [
    "Reading",
    "Need",
    "RowIds",
    "TRAIN",
    "TEST",
    "TRUTH",
    "table_names",
    "split_id",
    "check_id",
    "with_id",
    "drop_columns",
    "binned",
    "binned_with",
    "candidate_table",
    "coded_candidates",
    "prepare",
    "warn",
    "ask",
    "ask_with",
    "ReadingOptions",
    "coded_test",
    "require_complete",
    "check_columns_of_test",
    "prepare_truth",
    "truth_for_missing",
    "is_dask",
    "is_path",
    "read_paths",
    "train_frame",
    "not_a_column",
]
