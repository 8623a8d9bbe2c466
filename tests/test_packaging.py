"""The rules' conda environment (workflow/envs/pipeline.yaml) lists exactly pyproject's dependencies (base + pipeline extra); the wheel holds the library alone."""

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
    env = yaml.safe_load((ROOT / "workflow/envs/pipeline.yaml").read_text())["dependencies"]
    conda = dict(_split(s) for s in env if isinstance(s, str) and _name(s) not in ("python", "pip"))
    assert conda == wanted


def test_import_nbcert_pulls_no_pipeline_dependency():
    """The library a user imports needs none of the [pipeline] extra."""
    import subprocess
    import sys

    code = (
        "import sys, nbcert, nbcert.cli, nbcert.api; "
        "bad = [m for m in ('matplotlib', 'kagglehub', 'snakemake', 'nbcert.repro') if m in sys.modules]; "
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


def test_readme_lists_every_data_set_key():
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    keys = schema["$defs"]["dataset"]["properties"]
    section = (ROOT / "README.md").read_text().split("**Adding a data set**")[1].split("**")[0]
    assert [k for k in keys if f"| `{k}` |" not in section] == []
