"""The one way in: what a question was asked, read once, in one direction.

``Reading`` holds the reading options every API function takes (missing tokens, sep,
encoding, decimal, bins, binning, categorical, stream, batch rows, the tables' names, the
test id column), checked by their rules (``nbcert.params``) when it is built, before any
data is read.  ``ask`` then takes a question's tables through four steps, each once:

1. **read**: a path becomes a ``TableSource`` (the training table, read in record batches
   where the question needs only its statistics) or a DataFrame (the other tables); the
   test id column is split off, the truth compared with the training table as read;
2. **normalise**: numbers written with a decimal mark other than a point are rewritten,
   numeric columns binned at the training table's edges (every table alike);
3. **code**: the training table becomes the statistics (``Stats``), an ``EncodedTable``
   (a method that needs its rows) or, with the truth, a ``CleaningTable``; candidate
   repairs are coded in its domains, the test points in its codes;
4. **check**: the id and test columns, then the DataWarnings the data calls for.

The result, ``Asked``, is the typed record of what was asked: the questions answer from
it, the front ends present its answers with its ids, and the certificate is written from it.
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


@dataclass(frozen=True)
class Reading:
    """How the API reads its tables, checked (build it with :meth:`of`).

    ``missing``: the tokens that also mean missing; ``sep``, ``encoding``: a CSV path's
    separator (None: a comma) and text encoding (None: UTF-8); ``decimal``: the decimal
    mark of numbers written as text (None: a point); ``bins``, ``binning``,
    ``categorical``: the binning of numeric columns; ``stream``, ``batch_rows``: how a
    path is read; ``names``: the tables' names in messages (keys train, test, truth,
    candidates); ``test_missing``: a blank test cell left out (``leave_out``) or refused
    (``error``); ``id``: the test table's id column.
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

    def text(self) -> dict:
        """How a CSV path's text is read: its separator, encoding and decimal mark."""
        return {"sep": self.sep, "encoding": self.encoding, "decimal": self.decimal}

    def source(self, path, role: str = "train", text: bool = False):
        """The file ``path`` of the table ``role`` as a TableSource read with these options
        (``text``: every value as its text), named as ``names`` names it; a TableSource
        stays as it is.  The one place where a path becomes a table."""
        from .reading.files import TableSource

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
    from .reading.files import TableSource

    return isinstance(obj, (str, os.PathLike, TableSource))


def table_names(train, names: Mapping[str, str] | None) -> dict:
    """The names of the tables in messages: those given, a path's own name, else the defaults."""
    from .reading.files import TableSource

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


def _named_by_paths(reading: Reading, **tables) -> Reading:
    """``reading`` with each table given as a path named by it, unless ``names`` names it."""
    names = dict(reading.names)
    for role, table in tables.items():
        default = table_names(None, None).get(role)
        if is_path(table) and names.get(role) == default:
            names[role] = getattr(table, "name", None) or str(table)
    return replace(reading, names=names)


# ---------------------------------------------------------------------------------------
# the test id column


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
# what was asked


@dataclass(frozen=True)
class Need:
    """What a question needs of the training table: its statistics (``rows_for`` None) or
    its rows, for the method that ``rows_for`` names in messages; with ``second_pass``, a
    streamed file gives statistics that can read it again (OP)."""

    rows_for: str | None = None
    second_pass: bool = False


@dataclass(frozen=True)
class Asked:
    """What a question was asked, read and checked once (``ask``).

    ``table``: the training table as the question needs it (``Stats``, ``EncodedTable``,
    or with the truth a ``CleaningTable``); ``T``: the test points' codes (k, d) in its
    domains; ``test``: the test table as binned, without its id column; ``ids``: that
    column; ``cand``: the candidate repairs coded, or None; ``bins``: the ColumnBins
    fitted; ``fill``: a repaired copy's codes (``cleaning_curve``), or None.
    """

    label: str
    alpha: object
    reading: Reading
    table: object
    T: np.ndarray
    test: pd.DataFrame
    ids: RowIds | None = None
    cand: object = None
    bins: tuple = ()
    fill: np.ndarray | None = None

    @property
    def test_indices(self) -> list:
        """The test points' row labels in the test table."""
        return list(self.test.index)

    def present(self, out: pd.DataFrame) -> pd.DataFrame:
        """An answer table with the id column as its first column (when there is one)."""
        return with_id(out, self.ids)


@dataclass
class _Tables:
    """The tables of a question on their way through ``ask`` (None: not asked)."""

    train: object
    test: pd.DataFrame
    reading: Reading
    ids: RowIds | None = None
    truth: pd.DataFrame | None = None
    fill: pd.DataFrame | None = None
    listed: pd.DataFrame | None = None  # candidate repairs, one line per value
    wide: pd.DataFrame | None = None  # their values as a table of the training columns
    bins: list = field(default_factory=list)


def ask(
    train,
    test,
    label: str,
    reading: Reading,
    need: Need = Need(),
    alpha=0,
    *,
    candidates=None,
    truth=None,
    fill=None,
) -> Asked:
    """Read, normalise, code and check a question's tables, once each (the module's steps).

    Parameters
    ----------
    train, test, label
        As for ``nbcert.certify``.
    reading : Reading
        The reading options.
    need : Need
        What the question needs of the training table (ignored with ``truth``).
    alpha : Fraction
        The smoothing (the DataWarnings depend on it).
    candidates : DataFrame or path, optional
        Candidate repairs (``nbcert.reading.candidates``).
    truth : DataFrame or path, optional
        The training table with every cell filled: the training table is then coded in the
        truth's domains as a ``CleaningTable``.
    fill : DataFrame or path, optional
        A repaired copy of the training table (with ``truth``), coded in its domains.

    Returns
    -------
    Asked
    """
    tables = _read(train, test, label, reading, candidates, truth, fill)
    _normalise(tables, label)
    table, cand, enc = _code(tables, label, need)
    reading = tables.reading
    check_id(tables.ids, enc.features, reading.names)
    check_columns_of_test(tables.test, enc.features, label, reading)
    T = coded_test(enc, tables.test, reading)
    if truth is None:
        warn(reading, table, T, alpha)
    else:
        warn(reading, enc, table.dirty_codes(T, cand), alpha, truth=T)
    codes = None if tables.fill is None else _fill_codes(enc, tables.fill)
    return Asked(
        label, alpha, reading, table, T, tables.test, tables.ids, cand, tuple(tables.bins), codes
    )


def _read(train, test, label, reading: Reading, candidates, truth, fill) -> _Tables:
    """Step 1: every path read once (the training table kept as a source where it may be
    streamed), the id column split off the test table, the candidate repairs read against
    the training table and the truth compared with it, both as read."""
    reading = _named_by_paths(reading, test=test, truth=truth, fill=fill)
    test, ids = split_id(reading.frame(test, "test"), reading.id, reading.names)
    in_memory = candidates is not None or truth is not None or reading.binned()
    train = _training(train, reading, candidates is not None, in_memory)
    tables = _Tables(train, test, reading, ids)
    if candidates is not None:
        _read_candidates(tables, candidates, label)
    if truth is not None:
        tables.truth = truth_for_missing(
            tables.train, reading.frame(truth, "truth"), label, reading
        )
    if fill is not None:
        tables.fill = tables.reading.frame(fill, "fill")
    return tables


def _training(train, reading: Reading, candidates: bool, in_memory: bool):
    """The training table as read: a path as a TableSource (a DataFrame when it must be
    held in memory: binned, with candidates or the truth); anything else as it is."""
    _refuse_streaming(train, reading, candidates)
    if not is_path(train):
        return train
    source = reading.source(train, "train")
    return source.to_pandas() if in_memory else source


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


def _read_candidates(tables: _Tables, candidates, label: str) -> None:
    """The candidate table, read against the training table as read, and named."""
    from .reading import candidates as read

    reading = tables.reading
    if not isinstance(tables.train, pd.DataFrame):
        raise InputError(
            f"{reading.names['train']}: candidate repairs need the training table in memory "
            "(a pandas DataFrame or a path)"
        )
    name = reading.names.get("candidates")
    train = as_missing(tables.train, reading.missing)
    listed, name = read.read(candidates, train, label, name, **reading.text())
    features = [c for c in tables.train.columns if c != label]
    tables.listed, tables.wide = listed, read.wide(listed, features)
    tables.reading = replace(reading, names={**reading.names, "candidates": name})


def _normalise(tables: _Tables, label: str) -> None:
    """Step 2: numbers written with ``decimal`` rewritten with a point (a path's reader
    does it as it reads), then with ``bins`` every table's numeric columns binned at the
    training table's edges (their ColumnBins kept in ``tables.bins``)."""
    from .reading import decimals

    reading = tables.reading
    others = ("test", "truth", "fill", "wide")
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
    from .reading.binning import bin_tables

    names = {**reading.names, "wide": reading.names.get("candidates", "candidate table")}
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


def _code(tables: _Tables, label: str, need: Need) -> tuple:
    """Step 3: (the training table as the question needs it, its Candidates or None, the
    EncodedTable or Stats whose domains code the test points)."""
    reading = tables.reading
    if tables.truth is not None:
        from .cleaning import CleaningTable

        enc, miss = prepare_truth(tables.train, tables.truth, label, reading.missing, reading.names)
        cand = None
        if tables.listed is not None:
            enc, cand = coded_candidates(enc, tables.listed, tables.wide, reading, miss)
        tab = CleaningTable.build(enc, miss)
        if cand is not None:
            cand = cand.with_unlisted(tab.dirty_domain(cand))
        return tab, cand, enc
    if tables.listed is not None:
        need = need if need.rows_for else Need("candidate repairs")
    table = _train_table(tables.train, label, reading, need)
    cand = None
    if tables.listed is not None:
        table, cand = coded_candidates(table, tables.listed, tables.wide, reading)
    return table, cand, table


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
        from .stats import streamed

        return streamed.train_from_path(
            train,
            label,
            rows_for=need.rows_for,
            second_pass=need.second_pass,
            stream=reading.stream,
            batch_rows=reading.batch_rows,
        )
    if is_dask(train):
        from .stats import cluster

        if need.rows_for:
            raise InputError(
                f"{name}: {need.rows_for} needs the table in memory; a Dask DataFrame gives "
                "its statistics only (certify with method='index', count_worlds), or call "
                ".compute()"
            )
        return cluster.dask_stats(train, label, missing=missing, name=name)
    raise InputError(
        f"{name}: expected a pandas DataFrame, a CSV or Parquet path, a Dask DataFrame or "
        f"a table from nbcert.from_codes, got {type(train).__name__}"
    )


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


def coded_test(table: Stats | EncodedTable, test, reading: Reading):
    """The test points as codes of the training table's domains."""
    return table.encode_test(
        as_missing(test, reading.missing), reading.names["test"], reading.test_missing
    )


def _fill_codes(enc: EncodedTable, fill: pd.DataFrame) -> np.ndarray:
    """(n, d) codes of a repaired copy of the table, rows in ``enc``'s order (-1: a value
    outside the domain, or blank)."""
    absent = [f for f in enc.features if f not in fill.columns]
    if absent or len(fill) != enc.n:
        raise InputError(
            f"fill table: it must have the training table's feature columns and its {enc.n} "
            f"rows ({'no column ' + repr(absent[0]) if absent else f'it has {len(fill)} rows'})"
        )
    from .reading.columns import positions

    codes = np.column_stack([positions(c, fill[f]) for f, c in zip(enc.features, enc.categories)])
    return codes[enc.rows]


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
    hint = "" if id is not None else f" (if it names the test points, pass {flag})"
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
    "ReadingOptions",
    "Need",
    "Asked",
    "ask",
    "RowIds",
    "TRAIN",
    "TEST",
    "TRUTH",
    "table_names",
    "split_id",
    "check_id",
    "with_id",
    "warn",
    "coded_test",
    "require_complete",
    "check_columns_of_test",
    "not_a_column",
    "prepare_truth",
    "truth_for_missing",
    "is_dask",
    "is_path",
]
