"""Old public names, kept for one release after the glossary's renames.

Each old name still works and gives the same answer as its new one, with a
``FutureWarning`` naming the new name (scikit-learn's way: ``FutureWarning`` is shown to
end users by default, where ``DeprecationWarning`` is not).  The changelog lists them.
"""

from __future__ import annotations

import functools
import warnings

REMOVED_IN = "0.2"
"""The release that removes the old names."""


def message(old: str, new: str) -> str:
    """Say that ``old`` is deprecated, when it goes and what to use instead."""
    return f"{old} is deprecated and will be removed in nbcert {REMOVED_IN}; use {new} instead"


def warn(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated (a FutureWarning at the caller's line)."""
    warnings.warn(message(old, new), FutureWarning, stacklevel=stacklevel)


def renamed(function, old: str, new: str):
    """Give ``function`` under its old name: the same call, after a FutureWarning.

    Parameters
    ----------
    function : callable
        The function under its new name.
    old, new : str
        The old and the new name as the user writes them (``"nbcert.poison_many"``).

    Returns
    -------
    callable
        The alias, documented as deprecated.
    """

    @functools.wraps(function)
    def alias(*args, **kwargs):
        warn(old, new)
        return function(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old.rsplit(".", 1)[-1]
    alias.__doc__ = (
        f"Deprecated alias of ``{new}``, removed in nbcert {REMOVED_IN}.\n\n"
        f"Calls ``{new}`` with the same arguments after a FutureWarning."
    )
    return alias


__all__ = ["REMOVED_IN", "message", "warn", "renamed"]
