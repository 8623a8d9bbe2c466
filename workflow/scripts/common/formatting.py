"""How the report writes numbers: one dash for a missing value, one way for each kind.

Every report section formats through these, so a value that is absent (None, NaN, pd.NA
or infinite: a ratio over a zero time, a method that did not run) reads the same
everywhere: ``DASH``.
"""

from __future__ import annotations

import math
import numbers

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
