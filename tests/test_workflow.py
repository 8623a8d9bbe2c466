"""The workflow's structure, without running it: every rule file depends only on
workflow/rules/common.smk (and itself), and the config schema and the typed settings
describe the same keys."""

import ast
import builtins
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import snakemake.api  # first: snakemake.workflow imported alone runs into a circle of Snakemake's own
import snakemake.ioflags
import snakemake.ioutils
import snakemake.workflow
import yaml
from common import settings
from snakemake.parser import parse
from snakemake.sourcecache import LocalSourceFile

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "workflow" / "rules"
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def _python(smk: Path) -> ast.Module:
    """The Python Snakemake makes of a rule file."""
    opener = SimpleNamespace(open=lambda source: open(source.get_path_or_uri(secret_free=True)))
    code, _ = parse(LocalSourceFile(str(smk)), SimpleNamespace(sourcecache=opener), {})
    return ast.parse(code)


def _snakemake_names() -> set:
    """The names Snakemake gives every Snakefile (expand, rules, config, ...)."""
    names = dict(vars(snakemake.workflow))
    snakemake.ioutils.register_in_globals(names)
    snakemake.ioflags.register_in_globals(names)
    return (
        set(names)
        | set(dir(builtins))
        | {
            "workflow",
            "rules",
            "checkpoints",
            "config",
            "scatter",
            "gather",
            "storage",
            "shell",
            "access",
            "from_queue",
            "github",
            "gitlab",
            "gitfile",
        }
    )


def _bound(tree) -> set:
    """Every name a file binds anywhere (assignments, definitions, parameters, imports)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _module_level(tree) -> set:
    """The names a file defines for the files included after it (not those local to a function)."""
    names = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif not isinstance(stmt, ast.Expr):  # decorated rules compile to functions named __rule_*
            names |= _bound(stmt)
    return names


def _free(tree) -> set:
    """The names a file uses but neither binds nor gets from Snakemake."""
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return used - _bound(tree) - _snakemake_names()


def test_common_smk_depends_on_no_rule_file():
    assert _free(_python(RULES / "common.smk")) == set()


@pytest.mark.parametrize(
    "smk", sorted(p.name for p in RULES.glob("*.smk") if p.name != "common.smk")
)
def test_a_rule_file_uses_only_names_from_common_smk_or_itself(smk):
    common = _module_level(_python(RULES / "common.smk"))
    assert _free(_python(RULES / smk)) - common == set()


def test_the_snakefile_uses_only_names_from_common_smk():
    common = _module_level(_python(RULES / "common.smk"))
    assert _free(_python(ROOT / "Snakefile")) - common == set()


@pytest.mark.parametrize("smk", sorted(p.name for p in RULES.glob("*.smk")))
def test_jobs_write_their_own_benchmark_files(smk):
    """No ``benchmark:`` directive (Snakemake's process would sample the job): a rule that
    runs a script names its benchmark file as a log, and the script writes it."""
    text = (RULES / smk).read_text()
    assert "    benchmark:" not in text
    for rule in re.split(r"\n(?:rule|checkpoint) ", text)[1:]:
        if "    script:" in rule and not rule.startswith("report"):
            assert 'benchmark="logs/benchmarks/' in rule, rule.split(":")[0]


@pytest.mark.parametrize("config", ["config.yaml", "config/test.yaml"])
def test_the_shipped_configs_are_valid(config):
    loaded = settings.load(yaml.safe_load((ROOT / config).read_text()))
    assert loaded.datasets and loaded.beyond.scaling.n_values
