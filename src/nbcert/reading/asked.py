"""The one way in: what a question was asked, read once, in one direction.

``ask`` takes a question's tables through their steps, each once: read and normalise
(``nbcert.reading.tables``: paths read, the id column split off, decimal marks, bins, the
truth compared and coded), then code (the training table becomes the statistics,
``Stats``, an ``EncodedTable`` for a method that needs its rows, or with the truth a
``CleaningTable``; the candidate repairs and the test points are coded in its domains),
then check (the id and test columns, then the DataWarnings the data calls for).  The result,
``Asked``, is the typed record of what was asked: the questions answer from it, the front
ends present its answers with its ids, and the certificate is written from it.

The reading options (``Reading``, ``ReadingOptions``, ``reading_options``) are
``nbcert.reading.options``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError
from ..stats import Stats, as_stats
from ..stats.domains import EncodedTable
from . import hints
from .counts import frame_stats
from .encoding import as_missing, encode
from .options import Reading, RowIds, is_dask, is_path
from .tables import Tables, read_tables

# ---------------------------------------------------------------------------------------
# the test id column


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
    fitted; ``fill``: a repaired copy's codes (``cleaning_curve``), or None; ``repairs``:
    the repaired rows coded (``nbcert.repairs.RowRepairs``; ``table`` is then their
    EncodedTable), or None.
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
    repairs: object = None

    @property
    def test_indices(self) -> list:
        """The test points' row labels in the test table."""
        return list(self.test.index)

    def present(self, out: pd.DataFrame) -> pd.DataFrame:
        """An answer table with the id column as its first column (when there is one)."""
        return with_id(out, self.ids)


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
    repairs=None,
) -> Asked:
    """Read, normalise, code and check a question's tables, once each (the module's steps).

    Parameters
    ----------
    train, test, label, reading, candidates, truth, fill
        As for ``nbcert.reading.tables.read_tables``; with ``truth`` the training table
        is coded in the truth's domains as a ``CleaningTable``.
    need : Need
        What the question needs of the training table (ignored with ``truth``).
    alpha : Fraction
        The smoothing (the DataWarnings depend on it).
    repairs : DataFrame or path, optional
        Repaired rows (``nbcert.reading.repairs``): the table is then coded with them.

    Returns
    -------
    Asked
    """
    tables = read_tables(
        train, test, label, reading, candidates=candidates, truth=truth, fill=fill, repairs=repairs
    )
    if tables.repairs is not None:
        return _ask_rows(tables, label, alpha)
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


def _ask_rows(tables: Tables, label: str, alpha) -> Asked:
    """``ask``'s steps with repaired rows: the training table (or with the truth, the
    truth's) coded with every repair value in its domains, then the test points."""
    from ..repairs import code
    from .candidates import narrow

    reading = tables.reading
    enc, missing = tables.enc, tables.missing
    if enc is None:
        enc = _train_table(tables.train, label, reading, Need("repairs"))
    long = tables.repairs.assign(value=narrow(tables.repairs, tables.repairs_wide))
    names = reading.names
    enc, rr = code(enc, long, names["repairs"], names["train"], missing)
    check_id(tables.ids, enc.features, names)
    check_columns_of_test(tables.test, enc.features, label, reading)
    T = coded_test(enc, tables.test, reading)
    warn(reading, enc, T, alpha)
    test, ids, bins = tables.test, tables.ids, tuple(tables.bins)
    return Asked(label, alpha, reading, enc, T, test, ids, bins=bins, repairs=rr)


def _code(tables: Tables, label: str, need: Need) -> tuple:
    """Step 3: (the training table as the question needs it, its Candidates or None, the
    EncodedTable or Stats whose domains code the test points)."""
    reading = tables.reading
    if tables.enc is not None:
        from ..cleaning import CleaningTable

        enc, miss = tables.enc, tables.missing
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
        from . import streamed

        return streamed.train_from_path(
            train,
            label,
            rows_for=need.rows_for,
            second_pass=need.second_pass,
            stream=reading.stream,
            batch_rows=reading.batch_rows,
        )
    if is_dask(train):
        from . import cluster

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
    from ..stats import candidates
    from . import candidates as read

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
    from ..stats.domains import positions

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


def require_complete(table: Stats | EncodedTable, reading: Reading) -> None:
    """Poisoning needs a complete training table: an InputError naming its first missing cell."""
    first = as_stats(table).first_missing
    if first is not None:
        raise InputError(
            f"{reading.names['train']}: poisoning needs a complete table, but data "
            f"row {first[0]} is missing column {first[1]!r}"
        )


__all__ = [
    "Need",
    "Asked",
    "ask",
    "check_id",
    "with_id",
    "warn",
    "coded_test",
    "require_complete",
    "check_columns_of_test",
    "not_a_column",
]
