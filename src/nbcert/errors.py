"""The errors a user of nbcert can cause, in one place.

Every one is an ``InputError``: a ValueError whose message is one line meant for the user,
naming the file, column, row or parameter at fault (the command line prints it as
``nbcert: error: <message>``).  This module imports nothing from nbcert, so any module
may import it.

* ``RowError``: about one data row of a part of a table (the row is renumbered when the
  part is merged into the whole table).
* ``ParameterError``: a parameter value that breaks its rule (``nbcert.params``).  Like
  scikit-learn's ``InvalidParameterError`` it is both a ValueError and a TypeError, so a
  mistake gives one error type however it was made (a seed of the wrong type, an alpha out
  of range) and wherever (the API, the estimator, the command line).

Beside them, the one warning a user's data can raise, ``DataWarning`` (a hint, the answer
stands), and ``caller_level``, which points a warning at the user's line.
"""

from __future__ import annotations


class InputError(ValueError):
    """A user mistake in the input; the message is one line meant for the user.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> try:
    ...     nbcert.certify(train, test, "label")
    ... except nbcert.InputError as error:
    ...     print(error)
    training table: no label column 'label' (columns: 'color', 'size', 'y')
    """


class RowError(InputError):
    """An InputError about one data row of a part of a table.

    ``shifted(k)`` is the same error for the part starting k rows further on (the row
    counted over the whole table).
    """

    def __init__(self, template: str, row: int):
        super().__init__(template.format(row=row))
        self.template, self.row = template, row

    def shifted(self, k: int) -> RowError:
        """The same error for the part starting ``k`` rows further on."""
        return RowError(self.template, self.row + k)

    def __reduce__(self):
        """Pickle by template and row (sent from a Dask worker to the client)."""
        return RowError, (self.template, self.row)


class ParameterError(InputError, TypeError):
    """A parameter value of the wrong type or out of range; the message names the parameter.

    Examples
    --------
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> try:
    ...     nbcert.certify(train, test, "y", alpha=-1)
    ... except nbcert.ParameterError as error:
    ...     print(error)
    alpha must be a finite number >= 0, got -1
    >>> issubclass(nbcert.ParameterError, ValueError), issubclass(nbcert.ParameterError, TypeError)
    (True, True)
    """


def listed(options) -> str:
    """Options as a phrase: "a, b or c"."""
    *first, last = options
    return f"{', '.join(first)} or {last}" if first else last


def unknown_option(noun: str, value, options) -> ParameterError:
    """Make the error for a value that is none of ``options``.

    The error for a value that is none of ``options`` (``noun``: what they are, e.g.
    "counting method"): the one message of ``nbcert.params.Options`` and of the algorithms
    that choose by a method's name.
    """
    return ParameterError(f"unknown {noun} {value!r} (use {listed(options)})")


__all__ = ["InputError", "RowError", "ParameterError", "listed", "unknown_option"]


class DataWarning(UserWarning):
    """A hint about the data; ``cli`` is its command-line wording.

    Examples
    --------
    >>> import pandas as pd
    >>> import nbcert
    >>> from nbcert.synthetic import example
    >>> train, test, _ = example()  # 7 rows (color, size, y), 2 missing cells
    >>> import warnings
    >>> unseen = pd.DataFrame({"color": ["green"], "size": ["S"]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     answer = nbcert.certify(train, unseen, "y")
    >>> print(caught[0].message)
    1 test value (in 1 of 1 test points; column 'color') never occurs in training: at alpha = 0 every label's support of such a point is 0
    """

    def __init__(self, message: str, cli: str | None = None):
        super().__init__(message)
        self.cli = cli or message


def caller_level() -> int:
    """The ``stacklevel`` pointing a warning at the user's line that called nbcert.

    That is the first frame outside nbcert, seen from the function issuing the warning.
    """
    import sys

    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("nbcert."):
        frame, level = frame.f_back, level + 1
    return level
