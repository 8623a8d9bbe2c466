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
    column.  A table :func:`fits` column by column is not validated again row by row."""
    if fits(df, schema(name)):
        return
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


# ---------------------------------------------------------------- a whole column at a time

# the keywords ``fits`` decides; a schema with any other is validated row by row
_TOP = {"$schema", "description", "type", "properties", "required", "additionalProperties"}
_RULE = {"if", "then"}
_BOUNDS = {
    "minimum": np.greater_equal,
    "maximum": np.less_equal,
    "exclusiveMinimum": np.greater,
    "exclusiveMaximum": np.less,
}
_VALUE = {"type", "enum", "const", "minLength", "pattern", "description", "default", *_BOUNDS}


def fits(df: pd.DataFrame, sch: dict) -> bool:
    """Whether every row of ``df`` is valid under the row schema ``sch`` as Snakemake's
    ``validate`` reads a row (its present cells, as Python values), decided a column at a
    time.  False where it cannot tell: a keyword or a value type it does not know (the row
    by row validation then decides, and names the row)."""
    rules = [sch] + list(sch.get("allOf", []))
    if set(sch) - _TOP - _RULE - {"allOf"} or any(set(r) - _RULE for r in rules[1:]):
        return False
    props, present = sch.get("properties", {}), df.notna()
    for c in df.columns:
        if c not in props:
            if sch.get("additionalProperties", True) is False and present[c].any():
                return False
        elif not _satisfied(df[c], props[c]).all():
            return False
    if any(c not in df or not present[c].all() for c in sch.get("required", ())):
        return False
    return all(_rule_holds(df, present, r) for r in rules if "if" in r or "then" in r)


def _rule_holds(df: pd.DataFrame, present: pd.DataFrame, rule: dict) -> bool:
    """An ``if: {properties: ...}, then: {required: [...]}`` rule: every row the condition
    holds for (an absent cell satisfies it) has the required cells."""
    cond, then = rule.get("if", {}), rule.get("then", {})
    if set(cond) - {"properties"} or set(then) - {"required"}:
        return False
    holds = np.ones(len(df), bool)
    for c, sub in cond.get("properties", {}).items():
        if c in df:
            holds &= _satisfied(df[c], sub)
    need = then.get("required", ())
    return (
        all(c in df and present[c].to_numpy()[holds].all() for c in need) if holds.any() else True
    )


def _kinds(col: pd.Series) -> np.ndarray:
    """The JSON type of each cell as a row record holds it: "integer" (an integral number),
    "number", "boolean", "string", "other", or "" for an empty cell."""
    out = np.full(len(col), "", object)
    there = col.notna().to_numpy()
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype):
        out[there] = "boolean"
    elif pd.api.types.is_integer_dtype(dtype):
        out[there] = "integer"
    elif pd.api.types.is_float_dtype(dtype):
        x = col.to_numpy(float, na_value=np.nan)
        out[there] = np.where(np.isfinite(x) & (x == np.floor(x)), "integer", "number")[there]
    elif isinstance(dtype, pd.StringDtype):
        out[there] = "string"
    else:
        out[there] = [_kind(v) for v in col.to_numpy()[there]]
    return out


def _kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "boolean"
    if isinstance(v, (int, np.integer)):
        return "integer"
    if isinstance(v, (float, np.floating)):
        return "integer" if float(v).is_integer() else "number"
    return "string" if isinstance(v, str) else "other"


def _satisfied(col: pd.Series, sub: dict) -> np.ndarray:
    """Per cell, whether it is empty or valid under the column's schema ``sub`` (False
    everywhere for a keyword ``fits`` does not know)."""
    if set(sub) - _VALUE:
        return np.zeros(len(col), bool)
    kinds = _kinds(col)
    ok = kinds != "other"
    number = (kinds == "integer") | (kinds == "number")
    if "type" in sub:
        types = {sub["type"]} if isinstance(sub["type"], str) else set(sub["type"])
        ok &= (kinds == "") | np.isin(kinds, list(types)) | (number & ("number" in types))
    values = col.to_numpy(object)
    for key, members in (("enum", sub.get("enum")), ("const", [sub.get("const")])):
        if key in sub:
            ok &= (kinds == "") | _members(values, kinds, members)
    if number.any():
        x = np.zeros(len(col))
        x[number] = values[number].astype(float)
        for key, op in _BOUNDS.items():
            if key in sub:
                ok &= ~number | op(x, float(sub[key]))
    text = kinds == "string"
    if text.any() and ("minLength" in sub or "pattern" in sub):
        s = pd.Series(values[text], dtype=object)
        good = np.ones(len(s), bool)
        if "minLength" in sub:
            good &= s.str.len().to_numpy() >= sub["minLength"]
        if "pattern" in sub:
            good &= s.map(lambda v: re.search(sub["pattern"], v) is not None).to_numpy(bool)
        ok[text] &= good
    return ok


def _members(values: np.ndarray, kinds: np.ndarray, members: list) -> np.ndarray:
    """Per cell, whether it equals a member as JSON compares them (a boolean only a
    boolean, a number any equal number, a string the same string)."""
    out = np.zeros(len(values), bool)
    for kind, same in (
        ("boolean", lambda m: isinstance(m, bool)),
        ("string", lambda m: isinstance(m, str)),
    ):
        at = kinds == kind
        if at.any():
            allowed = [m for m in members if same(m)]
            out[at] = [v in allowed for v in values[at].tolist()] if allowed else False
    at = (kinds == "integer") | (kinds == "number")
    allowed = [float(m) for m in members if isinstance(m, (int, float)) and not isinstance(m, bool)]
    if at.any() and allowed:
        out[at] = np.isin(values[at].astype(float), allowed)
    return out


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
