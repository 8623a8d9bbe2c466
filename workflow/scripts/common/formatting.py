"""How the report writes numbers, tables and the phrases every section uses (k of n, a
median and its range): one dash for a missing value, one way for each kind.

Every report section formats through these, so a value that is absent (None, NaN, pd.NA
or infinite: a ratio over a zero time, a method that did not run) reads the same
everywhere: ``DASH``.
"""

import math
import numbers

import numpy as np
import pandas as pd

DASH = "—"


def missing(x) -> bool:
    """None, NaN, pd.NA or an infinite number."""
    if x is None or x is pd.NA:
        return True
    return isinstance(x, numbers.Real) and not math.isfinite(x)


def number(x, spec: str = ".3g") -> str:
    """``format(x, spec)``, or DASH."""
    return DASH if missing(x) else format(x, spec)


def count(x) -> str:
    """A whole number, or DASH."""
    return DASH if missing(x) else str(int(x))


def seconds(x) -> str:
    """Seconds with a unit: "1.23 s", or milliseconds below 0.1 s ("12.3 ms"); or DASH."""
    if missing(x):
        return DASH
    return f"{x:.3g} s" if x >= 0.1 else f"{x * 1e3:.3g} ms"


def megabytes(x) -> str:
    """Decimal megabytes with a fitting unit: "1.50 GB", "12.3 MB", "120 kB"; or DASH."""
    if missing(x):
        return DASH
    return f"{x / 1000:.2f} GB" if x >= 1000 else f"{x:.1f} MB" if x >= 1 else f"{x * 1000:.0f} kB"


def rows(n) -> str:
    """A row count: "10^6" for a power of ten, else with thousands separators."""
    n = int(n)
    e = round(math.log10(n)) if n > 0 else 0
    return f"10^{e}" if n == 10**e else f"{n:,}"


def table(data, header: str | None = None, formats: dict | None = None) -> list:
    """The lines of a markdown table of a DataFrame or of rows (tuples or dicts), under
    ``header`` (the table's markdown header line, one name per column in order; default:
    the columns' names).  A column in ``formats`` is written by :func:`number` with the
    spec given, or by the function given; every missing value reads DASH."""
    names = [name.strip() for name in header.strip(" |").split("|")] if header else None
    df = data.copy() if isinstance(data, pd.DataFrame) else pd.DataFrame(data, columns=names)
    for column, how in (formats or {}).items():
        df[column] = df[column].map(how if callable(how) else lambda x, spec=how: number(x, spec))
    df = df.set_axis(names or df.columns, axis=1).astype(object)
    df = df.map(lambda x: DASH if missing(x) else x)
    return df.to_markdown(index=False, tablefmt="github", disable_numparse=True).splitlines()


def flags(df: pd.DataFrame, column: str) -> pd.Series:
    """A column of flags as booleans, a missing flag (or a missing column) False."""
    if column not in df:
        return pd.Series(False, index=df.index)
    return df[column].fillna(False).astype(bool)


def of(held) -> str:
    """How many of the known values ``held`` are true, as "k of n"."""
    held = pd.Series(held).dropna().astype(bool)
    return f"{int(held.sum())} of {len(held)}"


def listing(values, spec: str = "g") -> str:
    """The values in one format, joined: "0.2, 0.6"."""
    return ", ".join(format(v, spec) for v in values)


def spread(values, spec: str = ".3g", unit: str = "") -> str:
    """The finite values' median and range, "1.2x (range 0.5x to 3x)" with ``unit`` "x"; or DASH."""
    v = pd.Series(values, dtype=float).replace([np.inf, -np.inf], np.nan).dropna()
    if v.empty:
        return DASH
    return f"{v.median():{spec}}{unit} (range {v.min():{spec}}{unit} to {v.max():{spec}}{unit})"
