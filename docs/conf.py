"""Sphinx configuration of nbcert's documentation: ``sphinx-build -W -b html docs docs/_build``."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # the checkout's library, whatever is installed

project = "nbcert"
author = "the nbcert team"
copyright = "2026, the nbcert team"
extensions = [
    "myst_parser",  # the markdown pages (the design notes, the benchmarks, the guides)
    "numpydoc",  # the docstrings' Parameters, Returns, Examples sections
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
templates_path = ["_templates"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
autosummary_generate = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
html_theme = "pydata_sphinx_theme"
html_title = "nbcert"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
