"""What every pipeline stage reads and writes, checked.

Result tables have a JSON schema each (``workflow/schemas/<name>.schema.yaml``, one row record:
columns, types, ranges, which may be empty), the format Snakemake itself validates
configs and sample sheets with.  :func:`read_table` checks a file against its schema and
against what the caller knows (how many rows, which data set, repetition, ...);
:func:`write_table` checks a table before publishing it.  Data tables (the discretized
data set, its splits and perturbations) are read with nbcert's one CSV reader
(:func:`nbcert.read_csv`) by :func:`read_data`, which checks their shape.

Every failure is a :class:`TableError` whose message is one line naming the file, and,
where it applies, the data row and column: a damaged file is never gathered, plotted or
reported.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from common.errors import TableError
from common.outputs import write_csv

from nbcert import InputError, read_csv

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"  # workflow/schemas


def schema_path(name: str) -> Path:
    return SCHEMAS / f"{name}.schema.yaml"


@cache
def schema(name: str) -> dict:
    return yaml.safe_load(schema_path(name).read_text())


def _string_columns(name: str) -> dict:
    props = schema(name)["properties"]
    return {c: str for c, p in props.items() if p.get("type") == "string" or "enum" in p}


def check(df: pd.DataFrame, name: str, where: str) -> None:
    """Raise TableError unless every row of ``df`` fits schema ``name`` (Snakemake's
    ``validate``, row by row; an empty cell is an absent key): one line naming the row and
    column."""
    import jsonschema
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    try:
        validate(df, str(schema_path(name)), set_default=False)
    except WorkflowError as e:
        error = e.__context__  # the row's or the config's jsonschema error
        if not isinstance(error, jsonschema.ValidationError):
            raise
        row = int(re.search(r"row (\d+)", str(e.args[0]))[1])
        if error.validator == "additionalProperties":
            col = re.findall(r"'([^']+)'", error.message)[0]
            raise TableError(f"{where}: unexpected column {col!r} (not a {name} table)") from None
        if error.validator == "required":
            col, what = error.message.split("'")[1], "is empty"
        else:
            col = error.path[0] if error.path else None
            what = (
                f"holds {error.instance!r}, which is invalid ({error.message.splitlines()[0][:80]})"
            )
        raise TableError(f"{where}: data row {row}, column {col!r} {what}") from None


def read_table(
    path, name: str, *, rows: int | None = None, equal: dict | None = None
) -> pd.DataFrame:
    """Read a result table and check it: schema ``name``, exactly ``rows`` rows if given,
    and every row's columns equal to ``equal`` (e.g. the data set and repetition the file
    name promises)."""
    where = str(path)
    try:
        df = pd.read_csv(path, dtype=_string_columns(name), keep_default_na=False, na_values=[""])
    except FileNotFoundError:
        raise TableError(f"{where}: no such file") from None
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        raise TableError(
            f"{where}: not a readable CSV table ({str(e).strip().splitlines()[-1][:120]})"
        ) from None
    check(df, name, where)
    if rows is not None and len(df) != rows:
        raise TableError(
            f"{where}: has {len(df)} data rows, expected {rows} (a damaged file: delete it and run "
            f"again)"
        )
    for col, value in (equal or {}).items():
        bad = (
            df[col] != value
            if not isinstance(value, float)
            else ~np.isclose(df[col].astype(float), value)
        )
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            found = df[col].iloc[i]
            found = found.item() if hasattr(found, "item") else found
            raise TableError(f"{where}: data row {i} has {col} {found!r}, expected {value!r}")
    return df


def read_tables(paths, name: str) -> pd.DataFrame:
    """Several tables of one schema, each checked, concatenated."""
    frames = [read_table(p, name) for p in paths]
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=list(schema(name)["properties"]))
    )


def write_table(df: pd.DataFrame, path, name: str) -> None:
    """Check ``df`` against schema ``name``, then publish it atomically."""
    check(df, name, f"{path} (being written)")
    write_csv(df, path)


def read_data(
    path,
    label: str,
    *,
    columns=None,
    rows: int | None = None,
    complete: bool = False,
    **text,
) -> pd.DataFrame:
    """A data table (values as written, empty = missing) with its shape checked: the
    label column present and filled, the given ``columns`` in order, ``rows`` rows, and
    with ``complete`` no missing cell at all.  ``text``: how a raw file is read (checked
    ``sep``, ``encoding`` and ``decimal``, as ``common.settings.reading`` gives them)."""
    where = str(path)
    try:
        df = read_csv(path, name=where, **text)
    except InputError as e:
        raise TableError(str(e)) from None
    if label not in df.columns:
        raise TableError(f"{where}: no label column {label!r}")
    if columns is not None and list(df.columns) != list(columns):
        raise TableError(
            f"{where}: columns {list(df.columns)} differ from the expected {list(columns)}"
        )
    if rows is not None and len(df) != rows:
        raise TableError(f"{where}: has {len(df)} data rows, expected {rows}")
    blank = df[label].isna() if not complete else df.isna().any(axis=1)
    if blank.any():
        i = int(np.flatnonzero(blank.to_numpy())[0])
        raise TableError(
            f"{where}: data row {i} has a missing " + ("label" if not complete else "cell")
        )
    return df
