"""Each parameter's rule, declared once, for the API, the estimator and the command line.

In the spirit of scikit-learn's ``_parameter_constraints``: ``RULES`` maps a parameter's
name to its rule (``method``, whose options differ by function, to one rule per function),
and ``validate(where, **values)`` checks values against them before any data is read,
raising a ``ParameterError`` (a ValueError and a TypeError) that names the parameter:
``n_worlds must be a positive integer, got 0``.  The algorithms trust what they are given.

The command line takes its choices (``options``) and its argument parsers (``Rule.parse``:
the value from its text, or a ParameterError whose ``expected`` message the CLI shows) from
the same rules, so a flag and its keyword cannot disagree.

Alpha has its own exact reading (:func:`as_alpha`: 0.1 means 1/10); its rule
is that reading, which accepts a finite number >= 0 (a float's range) given as a number, a
Fraction or a string such as ``"1/3"``.

This module imports no numpy, pandas or scikit-learn until a check needs them, so the
command line can build its parser without them.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from fractions import Fraction

from .errors import ParameterError, listed, unknown_option


class Rule:
    """What values one parameter takes.

    ``what`` completes "must be ..." in the API's message and "expected ..." in the command
    line's (``text_what``, when that differs: the command line reads text).
    """

    what = "a valid value"
    text_what: str | None = None

    def check(self, value, name: str):
        """The value (as the algorithms take it), or a ParameterError naming ``name``."""
        raise NotImplementedError

    def read(self, text: str):
        """The value a command-line text stands for (before ``check``)."""
        return text

    def parse(self, text: str, name: str = "value"):
        """The checked value of a command-line text (a ParameterError if it breaks the rule)."""
        try:
            value = self.read(text)
        except (ValueError, TypeError, ArithmeticError):
            raise self.fail(name, text) from None
        return self.check(value, name)

    def expected(self, text: str) -> str:
        """The command line's message for a text that breaks the rule."""
        return f"expected {self.text_what or self.what}, got {text!r}"

    def fail(self, name: str, value) -> ParameterError:
        return ParameterError(f"{name} must be {self.what}, got {value!r}")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class Int(Rule):
    """An integer (not a bool) of at least ``low`` (and at most ``high``, when given)."""

    def __init__(self, low: int, what: str | None = None, high: int | None = None):
        self.low, self.high = low, high
        self.what = what or {0: "a non-negative integer", 1: "a positive integer"}.get(
            low, f"an integer >= {low}"
        )

    def check(self, value, name):
        if not _is_int(value) or value < self.low or self.high is not None and value > self.high:
            raise self.fail(name, value)
        return int(value)

    def read(self, text):
        return int(text)


class Real(Rule):
    """A finite real number strictly between ``low`` and ``high`` (``high`` may be inf; with
    ``closed``, ``high`` itself too)."""

    def __init__(self, low: float, high: float, what: str, closed: bool = False):
        self.low, self.high, self.what, self.closed = low, high, what, closed

    def check(self, value, name):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self.fail(name, value)
        x = float(value)
        below = x <= self.high if self.closed else x < self.high
        if not (math.isfinite(x) and self.low < x and below):
            raise self.fail(name, value)
        return x

    def read(self, text):
        return float(text)


class Options(Rule):
    """One of the given strings; ``noun`` names what they are in the message."""

    def __init__(self, *options: str, noun: str = "method"):
        self.options, self.noun = tuple(options), noun
        self.what = "one of " + ", ".join(options)

    def check(self, value, name):
        if not isinstance(value, str) or value not in self.options:
            raise unknown_option(self.noun, value, self.options)
        return value

    def listed(self) -> str:
        """The options as a phrase: "a, b or c"."""
        return listed(self.options)


class Seed(Rule):
    """None, a non-negative integer, or a numpy Generator, BitGenerator or SeedSequence
    (on the command line: a non-negative integer)."""

    what = "None, a non-negative integer or a numpy random Generator"
    text_what = "a non-negative integer"

    def check(self, value, name):
        if value is None or _is_int(value) and value >= 0:
            return value
        if type(value).__module__.startswith("numpy"):
            import numpy as np

            if isinstance(
                value, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
            ):
                return value
        raise self.fail(name, value)

    def read(self, text):
        return int(text)


def as_alpha(alpha) -> Fraction:
    """Validate the smoothing parameter and return it as an exact fraction.

    A float is read as the decimal it prints as (0.1 means 1/10), which is what a
    user typing it means.

    Parameters
    ----------
    alpha : int, float, Fraction or str
        A number >= 0, or a string of one ("1/3").

    Returns
    -------
    Fraction

    Raises
    ------
    TypeError
        For a value that is not a number (or a string of one).
    ValueError
        For a negative one, or one that is not a finite float (nan, inf, 1e400).
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (numbers.Real, str, Fraction)):
        raise TypeError(f"alpha must be a number, got {alpha!r}")
    try:
        a = Fraction(str(alpha)) if isinstance(alpha, float) else Fraction(alpha)
        float(a)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ValueError(f"alpha must be a finite number, got {alpha!r}") from None
    if a < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    return a


class Alpha(Rule):
    """The smoothing parameter, read exactly (:func:`as_alpha`); ``check`` returns it as a
    Fraction."""

    what = "a finite number >= 0"
    text_what = "a finite number >= 0 (e.g. 1, 0.5 or 1/3)"

    def check(self, value, name):
        try:
            return as_alpha(value)
        except (TypeError, ValueError):
            raise self.fail(name, value) from None


class OrNone(Rule):
    """None (the default) or a value of ``rule``."""

    def __init__(self, rule: Rule):
        self.rule = rule
        self.what, self.text_what = f"{rule.what} or None", rule.text_what or rule.what

    def check(self, value, name):
        return None if value is None else self.rule.check(value, name)

    def read(self, text):
        return self.rule.read(text)


class Columns(Rule):
    """None or column names: one name (a string) or an iterable of them (returned as a
    tuple); on the command line one name per flag."""

    what = "None, a column name or a list of column names"
    text_what = "a column name"

    def check(self, value, name):
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        try:
            names = tuple(value)
        except TypeError:
            raise self.fail(name, value) from None
        if not all(isinstance(c, str) for c in names):
            raise self.fail(name, value)
        return names


class Sep(Rule):
    """None (a comma) or the one character between a CSV's fields; ``tab`` and ``\\t``
    stand for a tab."""

    what = "None or one character (tab: '\\t' or 'tab')"
    text_what = "one character, or tab"
    _NAMES = {"tab": "\t", "\\t": "\t"}

    def check(self, value, name):
        if value is None:
            return None
        value = self._NAMES.get(value, value) if isinstance(value, str) else value
        if not isinstance(value, str) or len(value) != 1 or value in '\r\n"':
            raise self.fail(name, value)
        return value


class Decimal(Rule):
    """None (a point) or the one character that marks the decimals of numbers (``,``), as
    pandas' ``decimal``: not a digit, a letter, a sign, a quote or a line end."""

    what = "None or one character such as ','"
    text_what = "one character such as ,"

    def check(self, value, name):
        if value is None:
            return None
        if (
            not isinstance(value, str)
            or len(value) != 1
            or value.isalnum()
            or value in '+-"\r\n'
            or value.isspace()
        ):
            raise self.fail(name, value)
        return value


class Encoding(Rule):
    """None (UTF-8) or the name of a text encoding Python knows (``latin-1``, ``cp1252``)."""

    what = "None or a text encoding such as 'latin-1' or 'cp1252'"
    text_what = "a text encoding such as latin-1 or cp1252"

    def check(self, value, name):
        import codecs

        if value is None:
            return None
        try:
            return codecs.lookup(value).name
        except (LookupError, TypeError):
            raise self.fail(name, value) from None


_ROWS = ("auto", "exact", "greedy")

MAX_BINS = 10_000
"""The most bins per numeric column.  Naive Bayes learns one count per bin and label, so a
bin needs many training values; past 10,000 nearly every value has a bin of its own (no
binning at all), and KBinsDiscretizer's memory and time grow with the bins asked for, not
with the values there are, so a larger N is refused before any work."""

BINS = Int(
    2,
    f"an integer from 2 to {MAX_BINS:,} (more bins than that give nearly every value a bin "
    "of its own)",
    high=MAX_BINS,
)
"""Bins per numeric column: ``bins`` of the API and the command line, ``Binner``'s ``n_bins``."""

RULES: dict = {
    "alpha": Alpha(),
    "method": {
        "certify": Options("index", "iterate", "ad", noun="certify method"),
        "count_worlds": Options(
            "auto", "exact", "batch", "montecarlo", "bounds", noun="counting method"
        ),
        "poison": Options("op", "sr", "rp", noun="poison method"),
        "poison_together": Options(*_ROWS),
        "clean_with_truth": Options(*_ROWS),
    },
    "prior": Options("observed", "worlds", noun="prior"),
    "n_worlds": Int(1),
    "max_states": Int(1),
    "confidence": Real(0, 1, "a number between 0 and 1"),
    "width": Real(0, 1, "a share between 0 and 1 (0.001 is 0.1 percentage point)"),
    "seed": Seed(),
    "time_limit": Real(0, math.inf, "a positive number of seconds"),
    "node_limit": Int(1),
    "target": Real(0, 1, "a share above 0 and at most 1 (0.9: 90 % of the rows)", closed=True),
    "order": Options("policy", "random", noun="cleaning order"),
    "unit": Options("cells", "rows", noun="cleaning unit"),
    "points": Int(1),
    "budget": OrNone(Int(0)),
    "top": Int(1),
    "batch": Int(1),
    "batch_rows": OrNone(Int(1)),
    "bins": OrNone(BINS),
    "binning": Options("uniform", "quantile", "kmeans", noun="binning"),
    "categorical": Columns(),
    "drop": Columns(),
    "sep": Sep(),
    "encoding": Encoding(),
    "decimal": Decimal(),
    "test_missing": Options("leave_out", "error", noun="test_missing"),
}


def rule(name: str, where: str | None = None) -> Rule:
    """The rule of parameter ``name`` (of function ``where`` for a per-function rule)."""
    r = RULES[name]
    if not isinstance(r, dict):
        return r
    if where not in r:
        raise KeyError(f"{name} has one rule per function ({', '.join(r)}), not one for {where!r}")
    return r[where]


def options(name: str, where: str | None = None) -> tuple:
    """The strings a parameter takes (argparse's ``choices``)."""
    return rule(name, where).options


def _exact_needs_zero_alpha(checked: dict) -> None:
    if checked.get("method") == "exact" and checked.get("alpha", 0) != 0:
        raise ParameterError(
            "method 'exact' (the many-point program) needs alpha = 0; use 'greedy' or 'auto'"
        )


def _baselines_need_zero_alpha(checked: dict) -> None:
    if checked.get("method") in ("sr", "rp") and checked.get("alpha", 0) != 0:
        raise ParameterError(
            f"poison method {checked['method']!r} is the paper's alpha = 0 baseline; "
            "use 'op' for alpha > 0"
        )


ACROSS: dict = {
    "clean_with_truth": (_exact_needs_zero_alpha,),
    "poison": (_baselines_need_zero_alpha,),
}
"""The rules across parameters, per function: each takes the checked values."""


def validate(where: str | None = None, /, **values) -> dict:
    """Check each ``name=value`` against its rule (``where``: the function, for rules that
    differ by function), then the function's rules across parameters (``ACROSS``), and
    return the checked values, in order; a ParameterError names the first parameter that
    breaks its rule."""
    checked = {name: rule(name, where).check(value, name) for name, value in values.items()}
    for together in ACROSS.get(where, ()):
        together(checked)
    return checked


def validated(function):
    """Decorator: the function's keyword-only parameters that have a rule are checked by
    ``validate`` (``where``: the function's name) before it runs, and it receives the
    checked values (alpha as a Fraction), as scikit-learn's ``validate_params`` does."""
    signature = inspect.signature(function)
    ruled = [
        name
        for name, p in signature.parameters.items()
        if p.kind is p.KEYWORD_ONLY and name in RULES
    ]

    @functools.wraps(function)
    def run(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = {name: bound.arguments[name] for name in ruled}
        bound.arguments.update(validate(function.__name__, **values))
        return function(*bound.args, **bound.kwargs)

    return run


__all__ = [
    "validated",
    "RULES",
    "Rule",
    "Int",
    "BINS",
    "MAX_BINS",
    "Real",
    "Options",
    "Seed",
    "Alpha",
    "OrNone",
    "Columns",
    "Sep",
    "Encoding",
    "Decimal",
    "rule",
    "options",
    "validate",
    "as_alpha",
    "ParameterError",
]
