"""How ``nbcert count`` shows world counts and shares.

A count of a million or more is shown in scientific notation with three significant digits,
rounded from the exact integer (``1.02e+7003``: no float is involved, so nothing
overflows), each share as a percentage rounded to a tenth, with two significant digits
below 0.1% (``0.042%``, ``6.6e-04%`` below 0.01%), so a share that is neither 0 nor all is
never shown as 0% or 100% (``>99.9%``); Monte-Carlo's estimates and interval ends alike.
JSON's ``total`` is the exact number of worlds as a decimal string.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .commands import Counted
from .tables import keyed, keys_json


def _labels(res: Counted) -> list:
    """Every training label (the first result lists them all)."""
    if not res.counts:
        return []
    first = res.counts[0]
    return list(first.counts or first.proven or first.fractions)


def _exact(wc, labels) -> tuple:
    """Counts per label and ties as decimal strings."""
    return {str(k): str(int(wc.counts[k])) for k in labels}, str(int(wc.ties or 0))


def _total(wc) -> str | None:
    """The number of worlds in full: ``total_text`` (count_encoded always gives it), else
    the int (None for a WorldCounts made without either)."""
    if getattr(wc, "total_text", None) is not None:
        return str(wc.total_text)
    return None if wc.total is None else str(int(wc.total))


def _estimates(wc, labels) -> tuple:
    """Estimated fractions per label, their intervals and the tie fraction."""
    fr, iv = wc.fractions or {}, wc.intervals or {}
    return (
        {str(k): float(fr.get(k, 0.0)) for k in labels},
        {str(k): [float(v) for v in iv[k]] for k in labels if k in iv},
        None if wc.tie_fraction is None else float(wc.tie_fraction),
    )


def _proven(wc, labels) -> dict:
    """The proven counts (decimal strings) and shares (floats rounded outward) per label
    and of the ties."""
    counts = {str(k): wc.proven[k] for k in labels} | {"ties": wc.proven_ties}
    shares = {str(k): wc.proven_shares[k] for k in labels} | {"ties": wc.proven_tie_shares}
    return {
        "proven": {
            k: {"low": str(int(lo)), "high": str(int(hi))} for k, (lo, hi) in counts.items()
        },
        "proven_shares": {
            k: {"low": float(lo), "high": float(hi)} for k, (lo, hi) in shares.items()
        },
        "eps": float(wc.eps),
    }


def _count_record(wc, labels) -> dict:
    if wc.counts is not None:
        counts, ties = _exact(wc, labels)
        return {"counts": counts, "ties": ties, "total": _total(wc), "method": str(wc.method)}
    head = {  # no exact counts: the total, and which method answered
        "counts": None,
        "ties": None,
        "total": _total(wc),
        "log10_total": round(wc.log10_total, 6),
        "method": str(wc.method),
    }
    if wc.proven is not None:
        return head | _proven(wc, labels)
    fractions, intervals, tie = _estimates(wc, labels)
    return head | {
        "fractions": fractions,
        "tie_fraction": tie,
        "intervals": intervals,
        "n_worlds": None if wc.n_worlds is None else int(wc.n_worlds),
    }


def count_json(res: Counted) -> dict:
    labels = _labels(res)
    return {
        "results": [
            {**keys_json(res, p, i), **_count_record(wc, labels)}
            for p, (i, wc) in enumerate(zip(res.index, res.counts))
        ]
    }


SCIENTIFIC_FROM = 10**6  # counts from here on are shown as 1.23e+45
TEXT_DIGITS = 10**6  # a total of more digits is shown from its log10 (~1.23e+4567890)


def scientific(n: int | str) -> str:
    """An exact non-negative integer (or its decimal string) in full below a million, else
    as m.mme+E: three significant digits rounded half up from the integer itself (no
    float: n may have millions of digits)."""
    if isinstance(n, str):
        if len(n) < 7:
            return str(int(n))
        mantissa, e = (int(n[:3]) + (n[3] >= "5")), len(n) - 1
        if mantissa == 1000:
            mantissa, e = 100, e + 1
        return f"{mantissa // 100}.{mantissa % 100:02d}e+{e}"
    n = int(n)
    if n < SCIENTIFIC_FROM:
        return str(n)
    e = int((n.bit_length() - 1) * 0.30102999566398)  # floor(log10 n), or one below it
    while 10 ** (e + 1) <= n:
        e += 1
    unit = 10 ** (e - 2)
    mantissa = (2 * n + unit) // (2 * unit)  # n / 10^(e-2) rounded half up: 100..1000
    if mantissa == 1000:
        mantissa, e = 100, e + 1
    return f"{mantissa // 100}.{mantissa % 100:02d}e+{e}"


def _divide(num: int, den: int, rounding: str) -> int:
    """num / den rounded to an integer: half up, down or up."""
    if rounding == "down":
        return num // den
    if rounding == "up":
        return -(-num // den)
    return (2 * num + den) // (2 * den)


def _two_digits(part: int, whole: int, rounding: str = "half") -> tuple:
    """(m, k) with 100 * part / whole ~ m/10 * 10^k: two significant digits rounded half
    up (or down, or up), 10 <= m <= 99, exactly (part/whole may be 10^-7000)."""
    num, den = 100 * part, whole

    def at_least(k: int) -> bool:  # num / den >= 10^k
        return num * 10 ** max(0, -k) >= den * 10 ** max(0, k)

    k = int((num.bit_length() - den.bit_length()) * 0.30102999566398)  # floor(log10) +- 1
    while not at_least(k):
        k -= 1
    while at_least(k + 1):
        k += 1
    top, bottom = num * 10 ** max(0, 1 - k), den * 10 ** max(0, k - 1)  # value / 10^(k-1)
    m = _divide(top, bottom, rounding)
    return (10, k + 1) if m == 100 else (m, k)


def percent(part: int, whole: int, rounding: str = "half", decimals: int = 1) -> str:
    """part / whole as a percentage, exactly: rounded half up to a tenth (``decimals``
    places) from 0.1% on; below it two significant digits (``0.042%``, and from 0.01% down
    in scientific notation, ``6.6e-04%``), so a share that is not 0 never shows as 0;
    ``100%`` only when it is all (``>99.9%`` otherwise).  ``rounding`` "down" or "up"
    rounds the digits that way instead (the ends of a proven interval, rounded outward;
    an upper end may then read ``100%``)."""
    part, whole = int(part), int(whole)
    if part in (0, whole):
        return "0%" if part == 0 else "100%"
    if 1000 * part < whole:  # below 0.1%
        m, k = _two_digits(part, whole, rounding)
        if k == -2:
            return f"0.0{m}%"
        if k >= -1:  # rounded up to 0.10%
            return "0.10%"
        return f"{m // 10}.{m % 10}e-{-k:02d}%"
    unit = 10**decimals
    steps = _divide(100 * unit * part, whole, rounding)
    if steps >= 100 * unit:
        return "100%" if rounding == "up" else f">{100 - 1 / unit:.{decimals}f}%"
    return f"{steps // unit}.{steps % unit:0{decimals}d}%"


def _estimated(f: float) -> str:
    """A montecarlo fraction (or an interval's end) as a percentage, shown as ``percent``
    shows exact shares (the float's exact value)."""
    return percent(*Fraction(float(f)).as_integer_ratio())


def _interval(low: int, high: int, total: int, decimals: int) -> str:
    """A proven interval of counts as shares of the worlds, rounded outward to the places
    of the requested width (one share where it is exact)."""
    if low == high:
        return percent(low, total)
    down, up = percent(low, total, "down", decimals), percent(high, total, "up", decimals)
    return f"[{down}, {up}]"


def _decimals(width: float) -> int:
    """Places of a percentage that show an interval of the requested width (a share):
    0.001 (0.1 percentage point) one, 0.00001 three."""
    return max(1, math.ceil(-math.log10(100 * width) - 1e-9))


def _count_cells(wc, labels, decimals: int = 1) -> list:
    """The label and tie columns of one text row."""
    if wc.counts is not None:
        total = int(wc.total)
        return [
            f"{scientific(c)} ({percent(c, total)})"
            for c in [*(wc.counts[k] for k in labels), wc.ties or 0]
        ]
    if wc.proven is not None:
        whole = _whole_worlds(wc)
        return [_interval(*wc.proven[k], whole, decimals) for k in labels] + [
            _interval(*wc.proven_ties, whole, decimals)
        ]
    fractions, intervals, tie = _estimates(wc, labels)
    cells = []
    for k in map(str, labels):
        lo_hi = (
            f" [{_estimated(intervals[k][0])}, {_estimated(intervals[k][1])}]"
            if k in intervals
            else ""
        )
        cells.append("~" + _estimated(fractions[k]) + lo_hi)
    return cells + ["-" if tie is None else "~" + _estimated(tie)]


def _whole_worlds(wc) -> int:
    """The number of worlds as an int (from its decimal string where the int was left out)."""
    return int(wc.total) if wc.total is not None else int(wc.total_text)


def _total_text(wc) -> str:
    """The number of worlds, exact where its digits are cheap to write (at most
    TEXT_DIGITS); else from its log10, marked ``~`` (three digits of a number with
    millions: writing them all takes seconds, and the table shows three)."""
    if wc.total is not None:
        return scientific(wc.total)
    worlds = getattr(wc, "worlds", None)
    if worlds is not None and worlds.digits <= TEXT_DIGITS:
        return scientific(worlds.text)
    e = math.floor(wc.log10_total)
    return f"~{10 ** (wc.log10_total - e):.2f}e+{e}"


def count_text(res: Counted) -> str:
    labels = _labels(res)
    places = _decimals(res.width)
    rows = [
        _count_cells(wc, labels, places) + [_total_text(wc), str(wc.method)] for wc in res.counts
    ]
    text = keyed(
        res,
        [str(k) for k in labels] + ["ties", "total", "method"],
        rows,
        right=set(range(len(labels) + 2)),
    )
    if any(wc.proven is not None for wc in res.counts):
        text += (
            "\n([low, high]: the share of worlds proven to lie in this interval (bounds), "
            "rounded outward)"
        )
    if any(wc.counts is None and wc.proven is None for wc in res.counts):
        text += (
            f"\n(~: montecarlo estimate of the share of worlds, with its "
            f"{res.confidence:g} confidence interval)"
        )
    return text


# ---------------------------------------------------------------------------------------
# poison
