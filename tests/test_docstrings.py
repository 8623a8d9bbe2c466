"""The public names' docstrings: each has an Examples section, and every example runs and
prints what it shows (the doctests of ``nbcert.__all__``, the estimator's and the binner's
methods), so the API reference cannot drift from the code."""

import doctest
import inspect
import re
import warnings

import pandas as pd
import pytest

import nbcert

# the public names beyond nbcert.__all__ whose docstrings are held to the same rule
MORE = ("nbcert.methods.tally",)
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
EXAMPLES = re.compile(r"\n\s*Examples\n\s*--------\n(.*)", re.S)


def _public():
    """(name, object) of every name of nbcert.__all__ and of MORE."""
    from importlib import import_module

    named = [(f"nbcert.{name}", getattr(nbcert, name)) for name in nbcert.__all__]
    for dotted in MORE:
        module, name = dotted.rsplit(".", 1)
        named.append((dotted, getattr(import_module(module), name)))
    return named


def _doctests() -> list:
    """Every docstring with examples of the public names, their methods included."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = {}
    for name, obj in _public():
        module = inspect.getmodule(obj)
        for test in finder.find(obj, name, module=module, globs={}):
            if test.examples:
                found[test.name] = test
    return [found[name] for name in sorted(found)]


DOCTESTS = _doctests()


def test_every_public_name_has_an_examples_section_that_runs_code():
    lacking = []
    for name, obj in _public():
        shown = EXAMPLES.search(inspect.getdoc(obj) or "")
        if shown is None or ">>>" not in shown.group(1):
            lacking.append(name)
    assert not lacking, f"no Examples section with >>> lines: {lacking}"


def test_the_docstrings_hold_many_examples():
    """At least 25 docstrings with examples, among them the estimator's methods."""
    names = {test.name for test in DOCTESTS}
    assert len(names) >= 25, sorted(names)
    for method in ("fit", "predict", "certify", "certified_predict", "possible_labels"):
        assert f"nbcert.CertifiedNB.{method}" in names


@pytest.mark.parametrize("test", DOCTESTS, ids=[test.name for test in DOCTESTS])
def test_the_docstring_example_prints_what_it_shows(test, tmp_path, monkeypatch):
    """Run in an empty folder (an example may write a file), with pandas' default display
    width, and its warnings kept out of the output."""
    monkeypatch.chdir(tmp_path)
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    test.globs = {}
    with (
        warnings.catch_warnings(),
        pd.option_context("display.width", 80, "display.max_columns", 20),
    ):
        warnings.simplefilter("ignore", nbcert.DataWarning)
        result = runner.run(test, out=out.append, clear_globs=True)
    assert result.failed == 0, "".join(out)


def test_a_wrong_example_fails():
    """The runner above would catch a docstring whose output differs (the test can fail)."""
    parser = doctest.DocTestParser()
    wrong = parser.get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    out: list[str] = []
    assert doctest.DocTestRunner(optionflags=FLAGS).run(wrong, out=out.append).failed == 1
