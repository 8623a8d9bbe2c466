"""Pipeline stages 2-3 as functions: discretization, test-point draws and perturbation."""

import re

import numpy as np
import pandas as pd
import pytest
from certify import ad_prefixes, certify_runs
from common.draws import blank_mask, perturbed, split
from discretize import discretize

from nbcert import approximate
from nbcert.errors import InputError
from nbcert.reading.encoding import encode


def table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "num": rng.normal(size=n),
            "cat": rng.choice(["u", "v"], n),
            "const": np.ones(n),
            "y": rng.choice(["a", "b"], n),
        }
    )


def test_discretize_bins_numeric_columns_with_kbins():
    out = discretize(table(), "y", n_bins=5)
    assert set(out["num"]) <= {f"bin{i}" for i in range(5)} and out["num"].nunique() == 5
    assert set(out["cat"]) == {"u", "v"} and out["const"].nunique() == 1
    assert list(out["y"]) == list(table()["y"])


def test_discretize_names_a_missing_column():
    with pytest.raises(InputError, match="'nope'"):
        discretize(table(), "y", drop=["nope"])


@pytest.mark.parametrize("perturbation", ["uniform", "feature"])
@pytest.mark.parametrize("rate", [0.2, 0.4, 0.6, 0.8])
def test_blank_mask_hits_the_rate_exactly(perturbation, rate):
    mask = blank_mask(50, 10, rate, perturbation, np.random.default_rng(1))
    cols = np.flatnonzero(mask.any(axis=0))
    considered = 50 * (10 if perturbation == "uniform" else 2)
    assert mask.sum() == round(rate * considered)
    if perturbation == "feature":
        assert len(cols) <= 2


def test_draws_are_deterministic_and_disjoint():
    df = discretize(table(), "y")
    tr1, te1 = split(df, 8, seed=3, name="t", rep=0)
    tr2, te2 = split(df, 8, seed=3, name="t", rep=0)
    pd.testing.assert_frame_equal(te1, te2)
    assert len(tr1) + len(te1) == len(df) and len(te1) == 8
    _, te3 = split(df, 8, seed=3, name="t", rep=1)
    assert not te1.equals(te3)
    p1 = perturbed(tr1, "y", "uniform", 0.4, 3, "t", 0, 0.2)
    p2 = perturbed(tr1, "y", "uniform", 0.4, 3, "t", 0, 0.2)
    pd.testing.assert_frame_equal(p1, p2)
    assert p1["y"].notna().all() and p1.drop(columns="y").isna().to_numpy().mean() == pytest.approx(
        0.4, abs=0.01
    )


def test_ad_once_answers_every_prefix_as_a_call_on_it():
    """AD timed once on 16 points gives, for every k, what a call on the first k points
    with the same seed gives (a point's worlds do not depend on the points after it), and
    a time for each k that grows with k."""
    df = discretize(table(400, seed=4), "y")
    train, test = split(df, 16, seed=5, name="t", rep=0)
    dirty = perturbed(train, "y", "uniform", 0.5, 5, "t", 0, 0.2)
    enc = encode(dirty, "y")
    T = enc.encode_test(test)
    ks = [1, 2, 4, 8, 16]
    robust, marks = ad_prefixes(enc, T, ks, 30, 11)
    for k in ks:
        alone = approximate.certify_ad(enc, T[:k], n_worlds=30, seed=11)
        assert np.array_equal(robust[:k], alone.robust)
    assert sorted(marks) == ks
    walls = [marks[k][0] for k in ks]
    assert walls == sorted(walls) and walls[0] > 0
    rows = certify_runs(
        train,
        dirty,
        test,
        "y",
        ks,
        ad_worlds=30,
        seed=5,
        name="t",
        rep=0,
        perturbation="uniform",
        rate=0.5,
        progress=lambda _: None,
    )
    ad = rows[rows.method == "AD"].set_index("points")
    exact = rows[rows.method == "Iterate+Index"].set_index("points")
    assert list(ad.index) == ks and (ad.robust >= exact.robust).all()
    assert list(ad.seconds) == sorted(ad.seconds)


# ---------------------------------------------------------------- users' data with blank cells


def _blank_table():
    df = table().astype({"num": object, "const": object})
    df = df.astype(str)
    df.loc[::5, "cat"] = np.nan
    df.loc[2::7, "num"] = np.nan
    return df


def test_discretize_keeps_blank_cells_missing_and_bins_the_rest():
    df = _blank_table()
    out = discretize(df, "y", n_bins=3, name="mine")
    assert out["num"].isna().equals(df["num"].isna()) and out["cat"].isna().equals(df["cat"].isna())
    assert set(out["num"].dropna()) == {"bin0", "bin1", "bin2"}


def test_discretize_names_the_data_set_and_column():
    df = _blank_table()
    df.loc[4, "y"] = np.nan
    with pytest.raises(InputError, match=r"mine: data row 4 has no value in label column 'y'"):
        discretize(df, "y", name="mine")
    with pytest.raises(InputError, match="mine: drop lists the label column 'y'"):
        discretize(_blank_table(), "y", drop=["y"], name="mine")
    empty = _blank_table().assign(cat=np.nan)
    with pytest.raises(InputError, match="mine: column 'cat' has no observed value"):
        discretize(empty, "y", name="mine")


def test_test_points_come_from_complete_rows():
    df = _blank_table()
    train, test = split(df, 30, seed=1, name="mine", rep=0)
    assert test.notna().all().all() and len(train) + len(test) == len(df)
    with pytest.raises(InputError, match="only .* rows have every feature"):
        split(df, len(df), seed=1, name="mine", rep=0)


def test_perturbation_counts_cells_already_missing():
    df = _blank_table()
    features = df.drop(columns="y")
    out = perturbed(df, "y", "uniform", 0.4, 3, "mine", 0, 0.2)
    assert out.drop(columns="y").isna().to_numpy().sum() == round(0.4 * features.size)
    assert (
        out.drop(columns="y").isna().to_numpy()[features.isna().to_numpy()].all()
    )  # old blanks stay


def test_no_column_is_blanked_entirely():
    mask = blank_mask(5, 3, 1.0, "uniform", np.random.default_rng(0))
    assert not mask.all(axis=0).any() and mask.sum() == 12


# ---------------------------------------------------------------- checked tables


def test_tables_are_checked_with_one_line_naming_file_row_and_column(tmp_path):
    from common.errors import TableError
    from common.tables import read_table, write_table

    row = {
        "dataset": "d",
        "rep": 0,
        "method": "OP",
        "seconds": 0.1,
        "cpu_seconds": 0.1,
        "train_rows": 10,
        "possible": True,
        "cells": 3,
        "poisoning_rate": 0.01,
        "host": "h",
        "started": 1.0,
        "finished": 2.0,
    }
    good = pd.DataFrame([row, {**row, "method": "SR"}, {**row, "method": "RP"}])
    path = tmp_path / "rep0.csv"
    write_table(good, path, "poisoning_run")
    assert len(read_table(path, "poisoning_run", rows=3, equal={"dataset": "d", "rep": 0})) == 3
    with pytest.raises(TableError, match=r"rep0.csv: has 3 data rows, expected 4"):
        read_table(path, "poisoning_run", rows=4)
    with pytest.raises(TableError, match=r"rep0.csv: data row 0 has rep 0, expected 1"):
        read_table(path, "poisoning_run", equal={"rep": 1})
    path.write_text(path.read_text().splitlines()[0] + "\nd,0,OP,0.1\n")
    with pytest.raises(TableError, match=r"rep0.csv: data row 0, column '\w+' is empty") as e:
        read_table(path, "poisoning_run")
    assert "\n" not in str(e.value)
    with pytest.raises(TableError, match="column 'method' holds 'XX'"):
        write_table(good.assign(method="XX"), tmp_path / "bad.csv", "poisoning_run")
    assert not (tmp_path / "bad.csv").exists()


# ---------------------------------------------------------------- settings


def _config():
    from pathlib import Path

    import yaml

    return yaml.safe_load((Path(__file__).parents[1] / "config.yaml").read_text())


def _load(config, cli=None):
    from common import settings

    return settings.load(config, cli=cli)


def test_settings_are_attributes_and_canonical():
    from common.settings import Section, canonical

    s = _load(_config())
    assert s.beyond.counting.worlds == 20000 and s.datasets["mushrooms"].label == "class"
    assert s.beyond.cleaning.node_limit == 2000  # config.yaml's
    assert s.beyond.cpclean.repairs_points == 10  # the schema's default, filled in
    reordered = dict(reversed(list(_config().items())))
    assert canonical(_load(reordered).beyond.counting) == canonical(s.beyond.counting)
    assert Section.from_json(canonical(s.beyond.counting)) == s.beyond.counting
    assert canonical({"b": 1, "a": 2}) == canonical({"a": 2, "b": 1})


def _defaults(schema, path=()):
    """(key path, default) of every key of the config schema that has a default."""
    for key, sub in schema.get("properties", {}).items():
        if "default" in sub:
            yield (*path, key), sub["default"]
        yield from _defaults(sub, (*path, key))
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _defaults(schema["additionalProperties"], (*path, "*"))


def _given(config, path):
    """The values ``config`` sets at ``path`` ("*": every data set)."""
    if not path:
        yield config
        return
    head, rest = path[0], path[1:]
    for key in config if head == "*" else [head]:
        if isinstance(config, dict) and key in config:
            yield from _given(config[key], rest)


def test_every_default_lives_in_the_schema_alone():
    """A default is written once, in the schema: no config file restates it, and the code
    takes what validation filled in (the dataset's $ref is resolved by hand here)."""
    from pathlib import Path

    import yaml

    root = Path(__file__).parents[1]
    schema = yaml.safe_load((root / "workflow/schemas/config.schema.yaml").read_text())
    schema["properties"]["datasets"]["additionalProperties"] = schema["$defs"]["dataset"]
    defaults = list(_defaults(schema))
    assert len(defaults) >= 25
    for config in ("config.yaml", "config/test.yaml"):
        given = yaml.safe_load((root / config).read_text())
        restated = [(p, d) for p, d in defaults for v in _given(given, p) if v == d]
        assert not restated, (config, restated)


def test_a_study_block_takes_the_schemas_defaults():
    """Outside the workflow (tests, benchmarks) a study's block is built from the schema:
    given keys win, every other key has the schema's default, unknown keys are refused."""
    from common.errors import ConfigError
    from common.settings import study

    cfg = study("cleaning", repetitions=1, perturbations=["uniform"], missing_rates=[0.5], points=3)
    assert cfg.perturbations == ("uniform",) and cfg.points == 3
    assert (cfg.worlds, cfg.prior, cfg.node_limit, cfg.subsample) == (128, "observed", 20000, None)
    with pytest.raises(ConfigError, match="unknown key 'nodes'"):
        study(
            "cleaning",
            repetitions=1,
            perturbations=["uniform"],
            missing_rates=[0.5],
            points=3,
            nodes=1,
        )


@pytest.mark.parametrize(
    "where, key",
    [
        ("", "k_values"),
        ("beyond", "poison_many"),
        ("beyond.scaling", "k"),
        ("beyond.cleaning", "samples"),
    ],
)
def test_a_key_of_no_release_is_an_unknown_key(where, key):
    """Names the config never released under (k for points, many for together, samples
    for worlds) are unknown keys: one line naming the block and the key."""
    from common.errors import ConfigError

    config = _config()
    block = config
    for part in filter(None, where.split(".")):
        block = block[part]
    block[key] = 1
    with pytest.raises(
        ConfigError, match=rf"^{re.escape(where or '(top level)')}: unknown key '{key}'"
    ):
        _load(config)


def test_command_line_datasets_replace_and_only_selects():
    mine = {"mine": {"local": "/x.csv", "file": "x.csv", "label": "y"}}
    assert list(
        _load(
            {**_config(), "datasets": {**_config()["datasets"], **mine}}, cli={"datasets": mine}
        ).datasets
    ) == ["mine"]
    assert list(_load({**_config(), "only": ["mushrooms"]}).datasets) == ["mushrooms"]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"missing_rates": [0.2, 1.0]}, "missing_rates.1: 1.0 must be less than 1"),
        ({"only": ["nope"]}, "only: 'nope' is not a configured data set"),
        ({"subsample": 20}, "subsample: 20 rows leave fewer than 2 training rows"),
        ({"points_for_rates": 3}, "points_for_rates: 3 is not one of points"),
        ({"extra": 1}, "(top level): unknown key 'extra'"),
    ],
)
def test_settings_errors_are_one_line_naming_the_key(change, message):
    from common.errors import ConfigError

    with pytest.raises(ConfigError) as e:
        _load({**_config(), **change})
    assert str(e.value).startswith(message) and "\n" not in str(e.value) and len(str(e.value)) < 300


# ---------------------------------------------------------------- figures and report prose


def test_a_single_data_sets_figure_keeps_its_title(tmp_path):
    from types import SimpleNamespace

    from common import figures

    fig, axes = figures.panels(
        ["one"], "Certification - time vs missing rate (uniform perturbation, 32 test points)"
    )
    fig.tight_layout()
    fig.canvas.draw()
    title = fig._suptitle.get_window_extent()
    assert title.x0 >= 0 and title.x1 <= fig.bbox.x1
    figures.save_figure(fig, SimpleNamespace(pdf=tmp_path / "f.pdf", png=tmp_path / "f.png"))


def test_savings_sentence_claims_only_what_was_saved():
    from studies.poisoning_together.report import _savings_sentence

    assert "saved no cells" in _savings_sentence([0.0, 0.0])
    assert "in 1 of 3 cases" in _savings_sentence([0.0, 0.0, 0.25]) and "25%" in _savings_sentence(
        [0.25]
    )


# ---------------------------------------------------------------- errors and imports


def test_reproduction_errors_live_in_one_module():
    """run_job catches the reproduction's errors from common.errors, which imports
    nothing; the stages that raise them re-export the same classes."""
    import inspect

    import fetch
    from common import errors, job, settings, tables

    assert "import" not in inspect.getsource(errors).split('"""')[-1].replace(
        "from __future__ import annotations", ""
    )
    assert fetch.FetchError is errors.FetchError and settings.ConfigError is errors.ConfigError
    assert tables.TableError is errors.TableError
    assert set(errors.USER_ERRORS) == {errors.ConfigError, errors.FetchError, errors.TableError}
    assert "from .fetch" not in inspect.getsource(job) and "from .tables" not in inspect.getsource(
        job
    )


def test_no_import_circle_in_nbcert():
    """Every `from .x import` / `from . import x` / `import nbcert.x` edge between nbcert's
    modules, at module level or inside functions, points one way (no strongly connected
    component of more than one module)."""
    import ast
    from pathlib import Path

    import nbcert

    root = Path(nbcert.__file__).parent
    modules = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if package else parts)] = (p, package)
    graph = {m: set() for m in modules}
    for m, (p, package) in modules.items():
        base = m if package else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                full = (
                    ".".join(
                        base.split(".")[: len(base.split(".")) - node.level + 1]
                        + [node.module or ""]
                    )
                    if node.level
                    else node.module or ""
                )
                full = full.rstrip(".")
                targets = [
                    f"{full}.{a.name}" if f"{full}.{a.name}" in modules else full
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != m:
                    graph[m].add(target)
    circles = _circles(graph)
    assert not circles, circles
    packages = {".".join(m.split(".")[:2]): set() for m in graph}  # of nbcert.stats.x: nbcert.stats
    for m, targets in graph.items():
        packages[".".join(m.split(".")[:2])] |= {".".join(t.split(".")[:2]) for t in targets}
    circles = _circles({u: targets - {u} for u, targets in packages.items()})
    assert not circles, f"packages import each other: {circles}"


def _circles(graph: dict) -> list:
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_a_table_is_checked_in_full(monkeypatch, tmp_path):
    """A bad row far down a long table is found (Snakemake's validate, row by row), and
    named as jsonschema words it, on one line."""
    import common.tables as tables
    import yaml
    from common.errors import TableError

    tiny = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"dataset": {"type": "string"}, "k": {"type": "integer", "minimum": 0}},
        "required": ["dataset", "k"],
        "additionalProperties": False,
    }
    (tmp_path / "tiny.schema.yaml").write_text(yaml.safe_dump(tiny))
    monkeypatch.setattr(tables, "SCHEMAS", tmp_path)
    df = pd.DataFrame({"dataset": ["d"] * 5000, "k": list(range(5000))})
    tables.check(df, "tiny", "t")
    df.loc[4321, "k"] = -1
    with pytest.raises(
        TableError, match=r"^t: data row 4321, column 'k' holds -1, which is invalid \(-1 is less"
    ):
        tables.check(df, "tiny", "t")
    with pytest.raises(TableError, match=r"^t: unexpected column 'x' \(not a tiny table\)$"):
        tables.check(df.assign(k=0, x=1), "tiny", "t")
