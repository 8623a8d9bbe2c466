"""The conda environment (environment.yml, every rule's) lists exactly pyproject's dependencies (base + pipeline extra); the wheel holds the library alone."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


CONDA_NAMES = {"python-fastjsonschema": "fastjsonschema"}  # conda-forge's name: PyPI's


def _split(spec: str) -> tuple:
    """(PyPI name, version bounds) of a requirement or a conda dependency."""
    spec = spec.replace(" ", "")
    name = re.split(r"[<>=!~\[]", spec, maxsplit=1)[0]
    return CONDA_NAMES.get(name.lower(), name.lower()), spec[len(name) :]


def _name(spec: str) -> str:
    return _split(spec)[0]


def test_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = dict(
        _split(s) for s in project["dependencies"] + project["optional-dependencies"]["pipeline"]
    )
    env = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    conda = dict(_split(s) for s in env if isinstance(s, str) and _name(s) not in ("python", "pip"))
    assert conda == wanted


def test_import_nbcert_pulls_no_pipeline_dependency():
    """The library a user imports needs none of the [pipeline] extra."""
    import subprocess
    import sys

    code = (
        "import sys, nbcert, nbcert.cli, nbcert.api, nbcert.methods, nbcert.synthetic; "
        "bad = [m for m in ('matplotlib', 'kagglehub', 'snakemake', 'common') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"import nbcert imported {out}"


def test_cli_import_loads_no_data_library():
    """`nbcert --help` and argument errors need neither pandas nor scikit-learn."""
    import subprocess
    import sys

    code = (
        "import sys, nbcert.cli; nbcert.cli.build_parser(); "
        "print(','.join(m for m in ('pandas', 'sklearn', 'pyarrow', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"import nbcert.cli imported {out}"


def test_console_script_entry_point_resolves():
    """pyproject's `nbcert = "nbcert.cli:main"` names a package that setuptools ships."""
    from importlib import import_module

    from setuptools import find_packages

    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["nbcert"]
    module, func = target.split(":")
    assert callable(getattr(import_module(module), func))
    assert {"nbcert", "nbcert.cli"} <= set(find_packages(str(ROOT / "src")))


def test_pipeline_extra_has_what_snakemake_report_needs():
    """`snakemake --report` imports pygments; the test extra must not be what provides it."""
    pipeline = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["pipeline"]
    assert "pygments" in {_name(s) for s in pipeline}


def test_the_reproductions_guide_lists_every_data_set_key():
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    keys = schema["$defs"]["dataset"]["properties"]
    guide = (ROOT / "docs/reproduction.md").read_text()
    section = guide.split("**Adding a data set**")[1].split("**")[0]
    assert [k for k in keys if f"| `{k}` |" not in section] == []


def test_the_wheel_is_the_library_alone(tmp_path):
    """``pip wheel`` ships nbcert's library: no reproduction, no benchmarks, and no module
    that imports snakemake, matplotlib or kagglehub."""
    import ast
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("nbcert-*.whl")
    with zipfile.ZipFile(wheel) as z:
        modules = {n: z.read(n).decode() for n in z.namelist() if n.endswith(".py")}
    assert modules and all(n.startswith("nbcert/") for n in modules), sorted(modules)
    assert not [n for n in modules if "repro" in n or "bench" in n]
    heavy = {"snakemake", "matplotlib", "kagglehub"}
    for name, text in modules.items():
        for node in ast.walk(ast.parse(text)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            assert not {n.split(".")[0] for n in names} & heavy, (name, names)


def _nbcert_imports(path: Path):
    """(module, name) of every ``from nbcert... import name`` in a file, and ("nbcert", attr)
    of every ``nbcert.attr`` where the file does ``import nbcert``."""
    import ast

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "nbcert":
            yield from ((node.module, a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                assert a.name == "nbcert" or not a.name.startswith("nbcert"), (path, a.name)
        elif isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "nbcert":
            if not node.attr.startswith("__"):  # __file__, __version__
                yield "nbcert", node.attr


def test_the_workflow_and_the_benchmarks_use_nbcerts_public_names_only():
    """The workflow and the benchmarks call nbcert through its documented seam: names that
    ``nbcert``, ``nbcert.methods``, ``nbcert.synthetic`` or ``nbcert.verify`` list in ``__all__``; nothing in
    them names the old ``nbcert.repro``."""
    from importlib import import_module

    seam = {
        m: set(import_module(m).__all__)
        for m in ("nbcert", "nbcert.methods", "nbcert.synthetic", "nbcert.verify")
    }
    files = [*(ROOT / "workflow").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]
    files += [*(ROOT / "workflow").rglob("*.smk"), ROOT / "Snakefile"]
    used = set()
    for path in files:
        assert "nbcert.repro" not in path.read_text(), path
        if path.suffix != ".py":
            continue
        for module, name in _nbcert_imports(path):
            assert module in seam and name in seam[module], (path.relative_to(ROOT), module, name)
            used.add((module, name))
    assert ("nbcert.methods", "certify_index") in used and len(used) > 20
    for module, names in seam.items():
        for name in names:
            assert getattr(import_module(module), name) is not None
            doc = getattr(import_module(module), name).__doc__
            assert module == "nbcert" or doc, (module, name)


def test_the_readme_is_short_and_the_site_has_the_rest():
    """The README holds the two commands, what nbcert answers, the worked example and
    today's figures (at most 300 lines); its other sections are pages of the docs site."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert readme.startswith("# nbcert") and "## Today's figures" in readme
    for page in ("getting-started", "guide/command-line", "guide/python", "reproduction"):
        assert (ROOT / "docs" / f"{page}.md").is_file(), page
