"""The errors a user of the reproduction can cause, in one place.

Each is a one-line message for the user; :func:`common.job.run_job` prints it as
``nbcert: error: <message>`` (beside nbcert's own ``InputError``) and exits with status 1.
This module imports nothing, so every stage, and ``job`` itself, may import it without a
circle.

* ``ConfigError``: a configuration mistake, naming the key (``common.settings``).
* ``FetchError``: a data set that could not be obtained or failed its checksum
  (``common.fetch``).
* ``TableError``: a table that is not what its stage wrote, naming the file and, where it
  applies, the data row and column (``common.tables``).
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration mistake; the message is one line naming the key."""


class FetchError(Exception):
    """The data set could not be obtained or failed its checksum (one-line message)."""


class TableError(ValueError):
    """A table that is not what its stage wrote; the message is one line naming the file."""


USER_ERRORS = (ConfigError, FetchError, TableError)  # beside nbcert.errors.InputError

__all__ = ["ConfigError", "FetchError", "TableError", "USER_ERRORS"]
