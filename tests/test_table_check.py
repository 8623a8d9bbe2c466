"""The tables' check a column at a time (common.tables.fits) says valid exactly where
Snakemake's validate, row by row, finds every row valid: on random tables of every value type
the stages write (numbers, integral floats, booleans, strings, mixed object columns, empty
cells) against random schemas of the keywords the workflow's schemas use, and on the shipped
schemas with tables the stages write."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from common.tables import SCHEMAS, fits, schema
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

CELLS = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.5, float("inf"), float("nan")]),
    st.booleans(),
    st.sampled_from(["a", "b", "", "ab", "x_1/y-2"]),
)
VALUE_SCHEMAS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(
            st.sampled_from(["integer", "number", "string", "boolean"]),
            st.lists(
                st.sampled_from(["integer", "number", "string", "boolean", "null"]),
                min_size=1,
                max_size=3,
                unique=True,
            ),
        ),
        "enum": st.lists(
            st.sampled_from([0, 1, 2, 0.5, True, False, "a", "b", None]), min_size=1, max_size=4
        ),
        "const": st.sampled_from([True, False, 1, "a"]),
        "minimum": st.sampled_from([0, 1, 0.5]),
        "maximum": st.sampled_from([1, 2]),
        "exclusiveMinimum": st.sampled_from([0, -1]),
        "exclusiveMaximum": st.sampled_from([1, 3]),
        "minLength": st.sampled_from([1, 2]),
        "pattern": st.sampled_from(["^[a-z]+$", "_"]),
    },
)


@st.composite
def tables(draw):
    """(a table, a row schema): columns of one dtype or of mixed Python values, and a schema
    naming some of them, with required columns and a rule."""
    rows = draw(st.integers(1, 6))
    frame = {}
    for i in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["int", "float", "bool", "str", "object"]))
        if kind == "int":
            values = draw(st.lists(st.integers(-3, 3), min_size=rows, max_size=rows))
        elif kind == "float":
            values = draw(
                st.lists(
                    CELLS.filter(lambda v: isinstance(v, float)) | st.none(),
                    min_size=rows,
                    max_size=rows,
                )
            )
            values = [np.nan if v is None else v for v in values]
        elif kind == "bool":
            values = draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
        elif kind == "str":
            values = draw(
                st.lists(st.sampled_from(["a", "b", "ab", None]), min_size=rows, max_size=rows)
            )
        else:
            values = draw(st.lists(CELLS, min_size=rows, max_size=rows))
        frame[f"c{i}"] = pd.Series(values, dtype="str" if kind == "str" else None)
    df = pd.DataFrame(frame)
    names = list(df.columns) + ["absent"]
    props = {c: draw(VALUE_SCHEMAS) for c in draw(st.lists(st.sampled_from(names), unique=True))}
    sch = {
        "type": "object",
        "properties": props,
        "required": draw(st.lists(st.sampled_from(names), unique=True)),
    }
    if draw(st.booleans()):
        sch["additionalProperties"] = False
    if props and draw(st.booleans()):
        c = draw(st.sampled_from(sorted(props)))
        sch["if"] = {"properties": {c: draw(VALUE_SCHEMAS)}}
        sch["then"] = {"required": draw(st.lists(st.sampled_from(names), unique=True))}
    return df, sch


def _row_by_row(df: pd.DataFrame, sch: dict, tmp: Path) -> bool:
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    path = tmp / "row.schema.yaml"
    path.write_text(
        yaml.safe_dump({"$schema": "https://json-schema.org/draft/2020-12/schema", **sch})
    )
    try:
        validate(df, str(path), set_default=False)
    except WorkflowError:
        return False
    return True


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=tables())
@example(case=(pd.DataFrame({"c0": [1.0, 2.0]}), {"properties": {"c0": {"type": "integer"}}}))
@example(case=(pd.DataFrame({"c0": [True]}), {"properties": {"c0": {"enum": [1]}}}))
@example(case=(pd.DataFrame({"c0": [1]}), {"properties": {"c0": {"const": True}}}))
@example(case=(pd.DataFrame({"c0": ["b"]}), {"properties": {"c0": {"const": True, "enum": ["b"]}}}))
@example(case=(pd.DataFrame({"c0": [float("inf")]}), {"properties": {"c0": {"type": "integer"}}}))
@example(
    case=(
        pd.DataFrame({"c0": [None, "a"]}),
        {"properties": {"c0": {"minLength": 1}}, "required": ["c0"]},
    )
)
def test_a_column_at_a_time_says_what_row_by_row_says(case, tmp_path):
    df, sch = case
    assert fits(df, sch) == _row_by_row(df, sch, tmp_path)


def test_a_keyword_it_does_not_know_leaves_the_table_to_the_row_by_row_check():
    df = pd.DataFrame({"c0": [1, 2]})
    assert not fits(df, {"properties": {"c0": {"multipleOf": 2}}})
    assert not fits(df, {"properties": {"c0": {}}, "anyOf": [{"required": ["c0"]}]})


@pytest.mark.parametrize(
    "name",
    sorted(
        p.name.split(".")[0]
        for p in SCHEMAS.glob("*.schema.yaml")
        if p.name != "config.schema.yaml"
    ),
)
def test_every_table_schema_is_checked_a_column_at_a_time(name):
    """The workflow's table schemas use only keywords ``fits`` decides, so a valid table is
    never validated row by row (an empty table of the schema's columns is valid)."""
    columns = list(schema(name)["properties"])
    assert fits(pd.DataFrame(columns=columns).iloc[:0], schema(name))
