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

import math
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from common.errors import TableError
from common.outputs import write_csv

from nbcert import InputError, read_csv

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"  # workflow/schemas


@cache
def schema(name: str) -> dict:
    return yaml.safe_load((SCHEMAS / f"{name}.schema.yaml").read_text())


@cache
def _validator(name: str):
    import jsonschema

    return jsonschema.Draft7Validator(schema(name))


@cache
def _fast_validator(name: str):
    """The schema compiled to Python by fastjsonschema (tens of times faster per record
    than jsonschema): a first pass that finds the records jsonschema then judges."""
    import fastjsonschema

    return fastjsonschema.compile(schema(name))


def _suspects(records: list, name: str):
    """(position, record) of the records the compiled schema rejects, in order."""
    from fastjsonschema import JsonSchemaValueException

    fast = _fast_validator(name)
    for i, rec in enumerate(records):
        try:
            fast(rec)
        except JsonSchemaValueException:
            yield i, rec


def _string_columns(name: str) -> dict:
    props = schema(name)["properties"]
    return {c: str for c, p in props.items() if p.get("type") == "string" or "enum" in p}


def _records(df: pd.DataFrame):
    """Row records of Python values without the empty cells (an empty cell is an absent
    key: None, NaN and pandas' NA), built from each column's list (as ``to_dict("records")``,
    without its per-cell boxing)."""
    names = list(df.columns)
    for row in zip(*(df[c].tolist() for c in names)):
        yield {
            k: v
            for k, v in zip(names, row)
            if not (v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)))
        }


def check(df: pd.DataFrame, name: str, where: str) -> None:
    """Raise TableError unless every row of ``df`` fits schema ``name``."""
    props = schema(name)["properties"]
    if not schema(name).get("additionalProperties", True):
        extra = [c for c in df.columns if c not in props]
        if extra:
            raise TableError(f"{where}: unexpected column {extra[0]!r} (not a {name} table)")
    missing = [c for c in schema(name).get("required", []) if c not in df.columns]
    if missing:
        raise TableError(f"{where}: no column {missing[0]!r} (not a {name} table)")
    validator = _validator(name)
    for i, rec in _suspects(list(_records(df)), name):  # jsonschema decides, and words the message
        error = next(iter(validator.iter_errors(rec)), None)
        if error is not None:
            col = error.path[0] if error.path else None
            if error.validator == "required":
                col = error.message.split("'")[1]
                what = "is empty"
            else:
                what = f"holds {rec.get(col)!r}, which is invalid ({error.message.splitlines()[0][:80]})"
            raise TableError(f"{where}: data row {i}, column {col!r} {what}")


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
    ``sep``, ``encoding`` and ``decimal``, as ``DatasetSettings.reading`` gives them)."""
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
