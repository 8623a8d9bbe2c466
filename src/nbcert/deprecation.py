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


def renamed_classes(namespace: dict, renamed: dict, module: str, new_module: str | None = None):
    """Give a module's old class names as its new classes, each after a FutureWarning.

    Parameters
    ----------
    namespace : dict
        The module's ``globals()``, holding the new classes.
    renamed : dict
        Old class name -> new class name.
    module : str
        The module the old names are read from (``"nbcert.methods"``).
    new_module : str, optional
        Where the warning says the new names live (default: ``module``).

    Returns
    -------
    callable
        The module's ``__getattr__``: an old name is the new class itself, so ``isinstance``
        still holds; any other name an AttributeError.
    """

    def __getattr__(name):
        if name in renamed:
            new = renamed[name]
            warn(f"{module}.{name}", f"{new_module or module}.{new}")
            return namespace[new]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


__all__ = ["REMOVED_IN", "message", "warn", "renamed", "renamed_classes"]
