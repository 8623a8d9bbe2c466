"""How nbcert's modules may import each other layers that point one way, values
parsed only at the edge, no reaching into another package's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import nbcert

ROOT = Path(nbcert.__file__).parent

# stats -> kernel -> questions -> reading -> front ends; a module may import its own layer or
# a lower one.  errors, params and memory import nothing of nbcert but errors.  The
# statistics' types know no reader, and the questions read nothing: reading is the one way
# in, coding the tables into the statistics' types (and, for a question that needs it, its
# own: a cleaning table, repaired rows).
LAYERS = [
    {
        "nbcert.errors",
        "nbcert.params",
        "nbcert.memory",
        "nbcert.synthetic",
        "nbcert.verify",
    },  # verify: stdlib only
    {"nbcert.stats", "nbcert.blanks"},  # blanks: projections of the statistics
    {"nbcert.kernel"},
    {
        "nbcert.milp",
        "nbcert.certification",
        "nbcert.approximate",
        "nbcert.count",
        "nbcert.poisoning",
        "nbcert.cleaning",
        "nbcert.repairs",
    },
    {"nbcert.reading"},
    {
        "nbcert",
        "nbcert.api",
        "nbcert.estimator",
        "nbcert.binner",
        "nbcert.cli",
        "nbcert.methods",
        "nbcert.certificate",
    },
]
FRONT_ENDS = LAYERS[-1] | {"nbcert.params"}
PARSERS = {"nbcert.reading.options"}  # the reading options, parsed where they are read


def _modules() -> dict:
    modules = {}
    for p in ROOT.rglob("*.py"):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if package else parts)] = (p, package)
    return modules


def _imports() -> list:
    """(importer, imported module, imported name or None) for every import in nbcert, at
    module level or inside functions."""
    modules, out = _modules(), []
    for m, (p, package) in modules.items():
        base = (m if package else m.rsplit(".", 1)[0]).split(".")
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                full = (
                    ".".join(base[: len(base) - node.level + 1] + [node.module or ""])
                    if node.level
                    else node.module or ""
                )
                full = full.rstrip(".")
                for a in node.names:
                    sub = f"{full}.{a.name}"
                    out.append((m, sub, None) if sub in modules else (m, full, a.name))
            elif isinstance(node, ast.Import):
                out.extend((m, a.name, None) for a in node.names)
    return [(m, t, name) for m, t, name in out if t == "nbcert" or t.startswith("nbcert.")]


def _unit(module: str) -> str:
    """The package (or top-level module) of nbcert that a module belongs to."""
    return ".".join(module.split(".")[:2])


def _layer(module: str) -> int:
    return next(i for i, units in enumerate(LAYERS) if _unit(module) in units)


def test_every_module_has_a_layer():
    assert all(any(_unit(m) in units for units in LAYERS) for m in _modules())


def test_layers_point_one_way():
    """stats -> kernel -> questions -> reading -> front ends: no import goes up a layer."""
    up = [(m, t) for m, t, _ in _imports() if _layer(t) > _layer(m)]
    assert not up, up


def test_only_front_ends_parse_parameters():
    """Only the front ends (and params itself, and the reading options) import params or
    call as_alpha or validate; the algorithms take typed values."""
    bad = [
        (m, t, name)
        for m, t, name in _imports()
        if _unit(m) not in FRONT_ENDS
        and m not in PARSERS
        and (t == "nbcert.params" or name in ("params", "as_alpha", "validate"))
    ]
    assert not bad, bad
    for m, (p, _) in _modules().items():
        if _unit(m) in FRONT_ENDS or m in PARSERS:
            continue
        calls = {
            n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", None)
            for n in ast.walk(ast.parse(p.read_text()))
            if isinstance(n, ast.Call)
        }
        assert not calls & {"as_alpha", "validate"}, m


def test_no_private_name_of_another_package_is_imported():
    bad = [
        (m, t, name)
        for m, t, name in _imports()
        if (name or t.rpartition(".")[2]).startswith("_")
        and not (name or "").startswith("__")
        and _unit(t) != _unit(m)
    ]
    assert not bad, bad


def test_method_names_of_the_algorithms_are_those_of_the_rules():
    """The dispatch of count, poison and poison_together refuses the names its rule refuses."""
    from nbcert import params
    from nbcert.count import METHODS as COUNT
    from nbcert.poisoning.single import METHODS as POISON
    from nbcert.poisoning.together import METHODS as TOGETHER

    assert params.options("method", "count_worlds") == COUNT
    assert params.options("method", "poison") == POISON
    assert params.options("method", "poison_together") == TOGETHER


def test_import_nbcert_imports_no_plotting_or_pipeline():
    import subprocess
    import sys

    code = (
        "import sys, nbcert, nbcert.api, nbcert.cli.commands; "
        "print([m for m in ('matplotlib', 'kagglehub', 'snakemake') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
