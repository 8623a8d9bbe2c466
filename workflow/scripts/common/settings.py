"""The pipeline's configuration: validated once, its defaults from the schema, read as attributes.

``load`` checks the config Snakemake assembled (config.yaml, then ``--configfile`` files and
``--config`` values on top) with Snakemake's own ``validate(..., set_default=True)`` against
``workflow/schemas/config.schema.yaml``, which is the one place a default lives: it fills
in every key the config leaves out.  A mistake is one line naming the key at fault.  Three
rules beyond the schema:

* a ``datasets:`` block given on the command line *replaces* config.yaml's instead of
  being merged into it, so a user's own config runs only the data sets it names;
* ``only: [names]`` keeps a subset of the configured data sets;
* combinations the schema cannot express (a dropped label, a subsample too small for the
  test points, a study drawing more test points than are drawn) are refused up front.

The result is a :class:`Section`: the validated config's keys as attributes, lists as
tuples, nothing restated.  Every stage receives its block as canonical JSON
(:func:`canonical`, sorted keys), so Snakemake's params check does not see a change when the
config's keys are reordered, and reads it back with :meth:`Section.from_json`.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from types import SimpleNamespace

import yaml
from common.errors import ConfigError

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "config.schema.yaml"


class Section(SimpleNamespace):
    """A block of the validated config, its keys as attributes (lists as tuples)."""

    @classmethod
    def from_json(cls, text: str) -> Section:
        """The block a stage received as :func:`canonical` JSON."""
        return section(json.loads(text))

    def replace(self, **changes) -> Section:
        """A copy with ``changes`` (for the tests)."""
        return Section(**{**vars(self), **changes})


def section(data):
    """``data`` with every mapping a :class:`Section` (``datasets`` stays a dict by name)
    and every list a tuple."""
    if isinstance(data, dict):
        return Section(
            **{
                k: ({n: section(v) for n, v in d.items()} if k == "datasets" else section(d))
                for k, d in data.items()
            }
        )
    return tuple(section(v) for v in data) if isinstance(data, list) else data


def canonical(obj) -> str:
    """JSON with sorted keys: equal settings give equal strings whatever the key order."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=vars)


def mirror_folder(configured: str | None) -> Path | None:
    """The folder the data sets are copied from (``data_mirror``), or None: the environment
    variable NBCERT_DATA_MIRROR wins over the config."""
    value = os.environ.get("NBCERT_DATA_MIRROR") or configured
    return Path(value) if value else None


def reading(ds: Section) -> dict:
    """How a data set's raw file is read (``nbcert.read_csv``'s sep, encoding and decimal),
    each checked by the rule nbcert's API applies; a bad value names the key."""
    from nbcert import ParameterError
    from nbcert.methods import check_parameters

    checked = {}
    for key in ("sep", "encoding", "decimal"):
        try:
            checked.update(check_parameters(**{key: getattr(ds, key)}))
        except ParameterError as e:
            raise ConfigError(f"datasets.{ds.name}.{key}: {e}") from None
    return checked


# ---------------------------------------------------------------- validating


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _short(value, limit=60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


WORDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "greater than",
    "exclusiveMaximum": "less than",
}


def _schema_message(error) -> str:
    """One line for a jsonschema error, naming the key (never the whole schema)."""
    where, v, value = _key(error.absolute_path), error.validator, error.validator_value
    if v == "required":
        return f"{where}: missing key {error.message.split(chr(39))[1]!r}"
    if v == "additionalProperties":
        extra = re.findall(r"'([^']+)'", error.message)
        known = sorted(error.schema.get("properties", {}))
        return f"{where}: unknown key {extra[0]!r}" + (
            f" (known: {', '.join(known)})" if known else ""
        )
    if v == "anyOf" and "kaggle" in json.dumps(value):
        return f"{where}: needs 'kaggle: owner/name' or 'local: /path/file.csv'"
    if v == "propertyNames":
        return f"{where}: data set name {_short(error.instance)} may only hold letters, digits, '_', '-' and '.'"
    if v == "enum":
        return f"{where}: {_short(error.instance)} is not one of {', '.join(map(str, value))}"
    if v in WORDS:
        return f"{where}: {_short(error.instance)} must be {WORDS[v]} {value}"
    if v == "type":
        return f"{where}: {_short(error.instance)} is not {' or '.join(map(str, value if isinstance(value, list) else [value]))}"
    return f"{where}: {_short(error.instance)} is invalid ({error.message.splitlines()[0][:120]})"


def validated(config: dict, schema=SCHEMA) -> dict:
    """A copy of ``config`` checked against ``schema`` with every default filled in
    (Snakemake's ``validate``); a mistake is a ConfigError naming the key."""
    import jsonschema
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    config = copy.deepcopy(config)
    try:
        validate(config, str(schema), set_default=True)
    except WorkflowError as e:
        error = e.__context__  # the row's or the config's jsonschema error
        if not isinstance(error, jsonschema.ValidationError):
            raise
        raise ConfigError(_schema_message(error)) from None
    return config


def study(name: str, **given) -> Section:
    """The block ``beyond.<name>`` holding ``given`` and the schema's defaults for the rest
    (for a study run outside the workflow: the tests, the benchmarks)."""
    import tempfile

    schema = yaml.safe_load(SCHEMA.read_text())
    block = schema["properties"]["beyond"]["properties"][name]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        yaml.safe_dump({"$schema": schema["$schema"], "$defs": schema["$defs"], **block}, f)
        return section(validated(given, f.name))


def _datasets(config: dict) -> dict:
    """The data sets to run: ``only`` selects."""
    blocks, only = config["datasets"], config.get("only")
    unknown = [n for n in only or () if n not in blocks]
    if unknown:
        raise ConfigError(
            f"only: {unknown[0]!r} is not a configured data set (configured: {', '.join(blocks)})"
        )
    return {n: {**b, "name": n} for n, b in blocks.items() if only is None or n in only}


def _check_combinations(s: Section) -> None:
    """What the schema cannot say: settings that would fail minutes into the run."""
    for ds in s.datasets.values():
        if ds.label in ds.drop:
            raise ConfigError(f"datasets.{ds.name}.drop: lists the label column {ds.label!r}")
        reading(ds)
    most, beyond = max(s.points), s.beyond
    if s.points_for_rates not in s.points:
        raise ConfigError(
            f"points_for_rates: {s.points_for_rates} is not one of points {list(s.points)}"
        )
    if s.rate_for_points not in s.missing_rates:
        raise ConfigError(
            f"rate_for_points: {s.rate_for_points} is not one of missing_rates {list(s.missing_rates)}"
        )
    if max(beyond.poison_together.points) > most:
        raise ConfigError(
            f"beyond.poison_together.points: {max(beyond.poison_together.points)} exceeds the {most} "
            f"test points drawn per repetition (the largest of points)"
        )
    counting = beyond.counting
    if counting.full_points > counting.points:
        raise ConfigError(
            f"beyond.counting.full_points: {counting.full_points} exceeds the {counting.points} "
            f"test points drawn (beyond.counting.points)"
        )
    need = [
        (
            most + 2,
            f"leave fewer than 2 training rows after drawing {most} test points (the largest of points)",
        ),
        (
            beyond.cleaning.points + 2,
            f"leave fewer than 2 training rows after drawing the cleaning study's "
            f"{beyond.cleaning.points} test points (beyond.cleaning.points)",
        ),
        (
            counting.subsample + counting.points,
            f"cannot hold the counting study's {counting.subsample} "
            f"training rows and {counting.points} test points (beyond.counting.subsample + points)",
        ),
    ]
    for rows, why in need:
        if s.subsample is not None and s.subsample < rows:
            raise ConfigError(f"subsample: {s.subsample} rows {why}")


def load(config: dict, *, cli: dict | None = None, sources=(), schema=SCHEMA) -> Section:
    """Validate the assembled config and return it as a :class:`Section` (raises ConfigError).

    ``cli`` is what ``--configfile``/``--config`` gave (its ``datasets`` block replaces the
    workflow's); ``sources`` names the config files and command-line values, for the report.
    """
    mine = (cli or {}).get("datasets")
    config = validated({**config, "datasets": mine} if isinstance(mine, dict) else config, schema)
    s = section({**config, "datasets": _datasets(config), "sources": list(map(str, sources))})
    _check_combinations(s)
    return s
