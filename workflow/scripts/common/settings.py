"""The pipeline's configuration as typed, validated settings.

``load`` turns the config Snakemake assembled (config.yaml, then ``--configfile`` files and
``--config`` values on top) into a :class:`Settings`, or exits with one line naming the key
at fault.  Three rules beyond the JSON schema (workflow/schemas/config.schema.yaml):

* a ``datasets:`` block given on the command line *replaces* config.yaml's instead of
  being merged into it, so a user's own config runs only the data sets it names;
* ``only: [names]`` keeps a subset of the configured data sets;
* combinations the schema cannot express (a dropped label, a subsample too small for the
  test points, a study drawing more test points than are drawn) are refused up front.

Every stage receives its settings as canonical JSON (:func:`canonical`, sorted keys), so
Snakemake's params check does not see a change when the config's keys are reordered.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import yaml
from common.errors import ConfigError


def canonical(obj) -> str:
    """JSON with sorted keys: equal settings give equal strings whatever the key order."""
    if hasattr(obj, "__dataclass_fields__"):
        obj = asdict(obj)
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def mirror_folder(configured: str | None) -> Path | None:
    """The folder the data sets are copied from (``data_mirror``), or None: the environment
    variable NBCERT_DATA_MIRROR wins over the config."""
    value = os.environ.get("NBCERT_DATA_MIRROR") or configured
    return Path(value) if value else None


def _build(cls, data: dict):
    """A dataclass from a dict, lists turned into tuples (settings are immutable)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names})


class _FromJson:
    @classmethod
    def from_json(cls, text: str):
        """The settings a stage received as :func:`canonical` JSON."""
        return _build(cls, json.loads(text))


@dataclass(frozen=True)
class DatasetSettings(_FromJson):
    """One data set: where its raw file comes from and how it is prepared."""

    name: str
    file: str
    label: str
    kaggle: str | None = None
    version: int | None = None
    local: str | None = None
    sha256: str | None = None
    drop: tuple = ()
    n_bins: int = 5
    strategy: str = "uniform"
    sep: str | None = None  # the raw CSV's field separator (None: a comma; "tab" for a tab)
    encoding: str | None = None  # its text encoding (None: UTF-8)
    decimal: str | None = None  # the decimal mark of its numbers (None: a point; "," for 0,93)

    def reading(self) -> dict:
        """How the raw file is read (``nbcert.read_csv``'s sep, encoding and decimal), each
        checked by its rule; a bad value is a ConfigError naming the key."""
        from nbcert import ParameterError
        from nbcert.methods import check_parameters

        checked = {}
        for key in ("sep", "encoding", "decimal"):
            try:
                checked.update(check_parameters(**{key: getattr(self, key)}))
            except ParameterError as e:
                raise ConfigError(f"datasets.{self.name}.{key}: {e}") from None
        return checked

    def source(self) -> dict:
        """What identifies the raw file: only these re-trigger a fetch."""
        return {k: getattr(self, k) for k in ("file", "kaggle", "version", "local", "sha256")}


@dataclass(frozen=True)
class PoisonManySettings(_FromJson):
    k_values: tuple
    time_limit: float = 60.0


@dataclass(frozen=True)
class CountingSettings(_FromJson):
    subsample: int
    missing_rates: tuple
    points: int
    samples: int
    confidence: float
    max_states: int
    batch_rows: int | None = None
    alpha: float = 0
    full_points: int = 0  # test points counted on every row of the data set (bounds, Monte-Carlo)
    width: float = 0.001  # the width proven intervals are refined to (a share of the worlds)
    time_limit: float = 2.0  # seconds a test point that they are refined for


@dataclass(frozen=True)
class CleaningSettings(_FromJson):
    repetitions: int = 3
    perturbations: tuple = ("uniform", "feature")
    missing_rates: tuple = (0.2, 0.4, 0.6, 0.8)
    points: int = 32
    feature_share: float = 0.2
    batch_share: float = 0.005  # cells cleaned per decision, as a share of the missing cells
    samples: int = 128  # Monte-Carlo worlds per point and decision of the CPClean-style rival
    prior: str = "observed"
    alpha: float = 0
    node_limit: int = 20_000
    time_limit: float = 60.0
    subsample: int | None = None


@dataclass(frozen=True)
class ScalingSettings(_FromJson):
    n_values: tuple
    d: int
    domain: int
    labels: int
    missing_rate: float
    k: int
    ad_worlds: int
    stream_n_values: tuple = ()  # sizes generated as a CSV on disk and streamed (beyond memory)
    method_budget_s: float | None = None  # Iterate and AD start no new test point after this long

    @property
    def sizes(self) -> tuple:
        return tuple(self.n_values) + tuple(self.stream_n_values)

    @staticmethod
    def run_file(n: int, streamed: bool = False) -> str:
        """The table one scaling job writes (a size may run both in memory and streamed)."""
        return f"results/runs/scaling/{'streamed_' if streamed else ''}n{n}.csv"

    @property
    def run_files(self) -> tuple:
        """Every scaling job's table: the sizes in memory, then the streamed ones."""
        return tuple(self.run_file(n) for n in self.n_values) + tuple(
            self.run_file(n, True) for n in self.stream_n_values
        )


@dataclass(frozen=True)
class Settings:
    """Everything the pipeline is configured with."""

    seed: int
    repetitions: int
    perturbations: tuple
    feature_share: float
    missing_rates: tuple
    k_values: tuple
    k_for_rates: int
    rate_for_k: float
    ad_worlds: int
    datasets: dict  # name -> DatasetSettings, only the selected ones
    poison_many: PoisonManySettings
    counting: CountingSettings
    scaling: ScalingSettings
    cleaning: CleaningSettings
    subsample: int | None = None
    data_mirror: str | None = None
    on_unavailable: str = "skip"
    sources: tuple = field(default=())  # config files and command-line values, in order

    @property
    def k_max(self) -> int:
        return max(self.k_values)

    def ks_for(self, rate) -> list:
        """All k at the rate of Figures 8/9, only the k of Figures 6/7 elsewhere."""
        return (
            sorted(self.k_values) if float(rate) == float(self.rate_for_k) else [self.k_for_rates]
        )


# ---------------------------------------------------------------- loading


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _short(value, limit=60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _schema_message(error) -> str:
    """One line for a jsonschema error, naming the key (never the whole schema)."""
    where = _key(error.absolute_path)
    v = error.validator
    if v == "required":
        return f"{where}: missing key {error.message.split(chr(39))[1]!r}"
    if v == "additionalProperties":
        extra = re.findall(r"'([^']+)'", error.message)
        allowed = sorted(error.schema.get("properties", {}))
        return f"{where}: unknown key {extra[0]!r}" + (
            f" (known: {', '.join(allowed)})" if allowed else ""
        )
    if v == "anyOf" and error.schema_path and "kaggle" in json.dumps(error.validator_value):
        return f"{where}: needs 'kaggle: owner/name' or 'local: /path/file.csv'"
    if v == "propertyNames":
        return f"{where}: data set name {_short(error.instance)} may only hold letters, digits, '_', '-' and '.'"
    if v == "enum":
        return f"{where}: {_short(error.instance)} is not one of {', '.join(map(str, error.validator_value))}"
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "greater than",
            "exclusiveMaximum": "less than",
        }
        return f"{where}: {_short(error.instance)} must be {words[v]} {error.validator_value}"
    if v == "type":
        kinds = (
            error.validator_value
            if isinstance(error.validator_value, list)
            else [error.validator_value]
        )
        return f"{where}: {_short(error.instance)} is not {' or '.join(map(str, kinds))}"
    return f"{where}: {_short(error.instance)} is invalid ({error.message.splitlines()[0][:120]})"


def _validate_schema(config: dict, schema_path) -> None:
    import jsonschema

    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(
        validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.path)))
    )
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        raise ConfigError(_schema_message(error))


def _datasets(config: dict, cli: dict) -> dict:
    """The data sets to run: the command line's block replaces config.yaml's; `only` selects."""
    blocks = cli.get("datasets") if isinstance(cli.get("datasets"), dict) else config["datasets"]
    only = config.get("only")
    if only is not None:
        unknown = [n for n in only if n not in blocks]
        if unknown:
            raise ConfigError(
                f"only: {unknown[0]!r} is not a configured data set (configured: {', '.join(blocks)})"
            )
        blocks = {n: blocks[n] for n in only}
    return {name: _build(DatasetSettings, {**b, "name": name}) for name, b in blocks.items()}


def _check_combinations(s: Settings) -> None:
    """What the schema cannot say: settings that would fail minutes into the run."""
    for ds in s.datasets.values():
        if ds.label in ds.drop:
            raise ConfigError(f"datasets.{ds.name}.drop: lists the label column {ds.label!r}")
        ds.reading()
    if s.k_for_rates not in s.k_values:
        raise ConfigError(f"k_for_rates: {s.k_for_rates} is not one of k_values {list(s.k_values)}")
    if s.rate_for_k not in s.missing_rates:
        raise ConfigError(
            f"rate_for_k: {s.rate_for_k} is not one of missing_rates {list(s.missing_rates)}"
        )
    if max(s.poison_many.k_values) > s.k_max:
        raise ConfigError(
            f"beyond.poison_many.k_values: {max(s.poison_many.k_values)} exceeds the {s.k_max} "
            f"test points drawn per repetition (the largest of k_values)"
        )
    if s.counting.full_points > s.counting.points:
        raise ConfigError(
            f"beyond.counting.full_points: {s.counting.full_points} exceeds the "
            f"{s.counting.points} test points drawn (beyond.counting.points)"
        )
    if s.subsample is not None:
        if s.subsample < s.k_max + 2:
            raise ConfigError(
                f"subsample: {s.subsample} rows leave fewer than 2 training rows after drawing "
                f"{s.k_max} test points (the largest of k_values)"
            )
        if s.subsample < s.cleaning.points + 2:
            raise ConfigError(
                f"subsample: {s.subsample} rows leave fewer than 2 training rows after drawing the "
                f"cleaning study's {s.cleaning.points} test points (beyond.cleaning.points)"
            )
        need = s.counting.subsample + s.counting.points
        if s.subsample < need:
            raise ConfigError(
                f"subsample: {s.subsample} rows cannot hold the counting study's "
                f"{s.counting.subsample} training rows and {s.counting.points} test points "
                f"(beyond.counting.subsample + points = {need})"
            )


def load(config: dict, schema_path, *, cli: dict | None = None, sources=()) -> Settings:
    """Validate the assembled config and build the settings (raises ConfigError).

    ``cli`` is what ``--configfile``/``--config`` gave (its ``datasets`` block replaces the
    workflow's); ``sources`` names the config files and command-line values, for the report.
    """
    cli = cli or {}
    config = (
        {**config, "datasets": cli["datasets"]} if isinstance(cli.get("datasets"), dict) else config
    )
    _validate_schema(config, schema_path)
    beyond = config["beyond"]
    paper = {k: v for k, v in config.items() if k not in ("datasets", "beyond", "only")}
    s = _build(
        Settings,
        {
            **paper,
            "datasets": _datasets(config, cli),
            "poison_many": _build(PoisonManySettings, beyond["poison_many"]),
            "counting": _build(CountingSettings, beyond["counting"]),
            "scaling": _build(ScalingSettings, beyond["scaling"]),
            "cleaning": _build(CleaningSettings, beyond["cleaning"]),
            "sources": tuple(map(str, sources)),
        },
    )
    _check_combinations(s)
    return s
