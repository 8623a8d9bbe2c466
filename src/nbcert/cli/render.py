"""The command line's output: each command's result object as an aligned text table or as
JSON (``{"results": [...]}``), the two rendered separately from the same object.

JSON keeps exact counts as decimal strings (they may have thousands of digits) and cells as
``{"row": r, "column": c}``; text shows them as ``r:column`` and a missing value as ``-``.
Text shows a count of a million or more in scientific notation with three significant
digits, rounded from the exact integer (``1.02e+7003``; no float is involved, so nothing
overflows), and each count's share of the worlds as a percentage rounded to a tenth, with
two significant digits below 0.1% (``0.042%``, ``6.6e-04%`` below 0.01%), so a share that
is neither 0 nor all is never shown as 0% or 100% (``>99.9%``); Monte-Carlo's estimates and
interval ends alike.  JSON's ``total`` is the exact number of worlds as a decimal string.
A status other than "poisoned" is shown in words; only a proof says "impossible".
Every per-test-row output leads with ``test_index`` (and, with ``--id``, the row's id).
"""

from __future__ import annotations

import json
import math
import time
from fractions import Fraction

from ..reading.binning import is_interval_name
from .commands import Advice, Certified, Cleaned, Counted, Poisoned, PoisonedTogether


class Progress:
    """A progress line for a terminal's stderr, redrawn in place (at most every 0.2 s)
    and erased when the work is done."""

    def __init__(self, stream):
        self.stream, self.last = stream, -math.inf

    def __call__(self, done: int, total: int, method: str) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        line = (
            "" if done >= total else f"nbcert: counting test row {done + 1} of {total} ({method})"
        )
        self.stream.write("\r\033[K" + line)
        self.stream.flush()


# ---------------------------------------------------------------------------------------
# shared pieces


def _table(header: list, rows: list, right: set = frozenset()) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        out = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ]
        return "  ".join(out).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


def _keys_json(res, pos: int, i) -> dict:
    """test_index (and the --id value) of the test row at position ``pos``."""
    keys = {"test_index": int(i)}
    if res.ids is not None:
        keys["id"] = _id(res.ids.values[pos])
    return keys


def _id(value) -> str | None:
    """A value as text, None for a missing one (NaN != NaN: an empty cell)."""
    return None if value is None or value != value else str(value)


def _keyed(res, header: list, rows: list, right: set = frozenset()) -> str:
    """A table with one row per test row, led by test_index (and the --id column)."""
    lead = ["test_index"] + ([res.ids.name] if res.ids is not None else [])
    keys = [
        [str(int(i))] + ([_or(_id(res.ids.values[p]), NO_ID)] if res.ids is not None else [])
        for p, i in enumerate(res.index)
    ]
    return _table(
        lead + header, [k + r for k, r in zip(keys, rows)], {0} | {c + len(lead) for c in right}
    )


def _cells_json(cells) -> list:
    return [{"row": int(r), "column": str(c)} for r, c in cells]


#: cells a text table lists before it says how many more there are (JSON lists them all)
SHOWN_CELLS = 12


def _cells_text(cells) -> str:
    """``row:column, ...``, the first SHOWN_CELLS of a long list and how many more."""
    cells = list(cells)
    shown = ", ".join(f"{int(r)}:{c}" for r, c in cells[:SHOWN_CELLS])
    rest = len(cells) - SHOWN_CELLS
    return shown if rest <= 0 else f"{shown}, ... and {rest} more (all in --json)"


# What the text tables show where there is no value, one symbol per meaning ("-" alone
# would say "not robust", "every world ties" and "no id" alike).
NONE = "-"  # no label: not robust, no cells found, and the like (null in JSON)
ALL_TIE = "(all tie)"  # no possible label: every world ties
NO_ID = "(no id)"  # a blank cell in the --id column


def _or(value, shown: str) -> str:
    return shown if value is None else str(value)


def _dash(value) -> str:
    return _or(value, NONE)


def _n_cells(n: int) -> str:
    return f"{n} cell{'s' * (n != 1)}"


# what the text table shows instead of cells; only a proof says "impossible"
_SHOWN_STATUS = {
    "already_nonrobust": "(already not robust)",
    "impossible": "(impossible: no blanking makes it non-robust)",
    "none_found": "(none found by the heuristic search; not a proof)",
}


def _shown(p) -> str:
    return _cells_text(p.cells) if p.status == "poisoned" else _SHOWN_STATUS[p.status]


# ---------------------------------------------------------------------------------------
# certify


_TIE = {True: "yes", False: "no", None: "?"}


def _certified(res: Certified):
    """(robust, label or None, possible labels, tie_possible) per test row."""
    t = res.table
    for robust, lab, possible, tie in zip(
        t["robust"], t["label"], t["possible_labels"], t["tie_possible"]
    ):
        robust = bool(robust)
        yield (
            robust,
            None if not robust or lab is None else str(lab),
            [str(x) for x in possible],
            None if tie is None else bool(tie),
        )


def _certify_json(res: Certified) -> dict:
    return {
        "results": [
            {
                **_keys_json(res, p, i),
                "robust": robust,
                "label": lab,
                "possible_labels": possible,
                "tie_possible": tie,
            }
            for p, (i, (robust, lab, possible, tie)) in enumerate(zip(res.index, _certified(res)))
        ]
    }


def _certify_text(res: Certified) -> str:
    rows = [
        ["yes" if robust else "no", _dash(lab), ", ".join(possible) or ALL_TIE, _TIE[tie]]
        for robust, lab, possible, tie in _certified(res)
    ]
    text = _keyed(res, ["robust", "label", "possible_labels", "tie"], rows)
    if any(r[3] == "?" for r in rows):
        text += (
            "\n(tie ?: not decided whether a world ties; the possible labels are exact. "
            "nbcert count counts the tied worlds)"
        )
    return text


# ---------------------------------------------------------------------------------------
# count


def _labels(res: Counted) -> list:
    """Every training label (the first result lists them all)."""
    return list((res.counts[0].counts or res.counts[0].fractions) if res.counts else [])


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


def _count_record(wc, labels) -> dict:
    if wc.counts is not None:
        counts, ties = _exact(wc, labels)
        return {"counts": counts, "ties": ties, "total": _total(wc), "method": str(wc.method)}
    fractions, intervals, tie = _estimates(wc, labels)
    return {
        "counts": None,
        "ties": None,
        "total": _total(wc),
        "log10_total": round(wc.log10_total, 6),
        "method": str(wc.method),
        "fractions": fractions,
        "tie_fraction": tie,
        "intervals": intervals,
        "samples": None if wc.samples is None else int(wc.samples),
    }


def _count_json(res: Counted) -> dict:
    labels = _labels(res)
    return {
        "results": [
            {**_keys_json(res, p, i), **_count_record(wc, labels)}
            for p, (i, wc) in enumerate(zip(res.index, res.counts))
        ]
    }


SCIENTIFIC_FROM = 10**6  # counts from here on are shown as 1.23e+45


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


def _two_digits(part: int, whole: int) -> tuple:
    """(m, k) with 100 * part / whole ~ m/10 * 10^k: two significant digits rounded half up,
    10 <= m <= 99, exactly (part/whole may be 10^-7000)."""
    num, den = 100 * part, whole

    def at_least(k: int) -> bool:  # num / den >= 10^k
        return num * 10 ** max(0, -k) >= den * 10 ** max(0, k)

    k = int((num.bit_length() - den.bit_length()) * 0.30102999566398)  # floor(log10) +- 1
    while not at_least(k):
        k -= 1
    while at_least(k + 1):
        k += 1
    top, bottom = num * 10 ** max(0, 1 - k), den * 10 ** max(0, k - 1)  # value / 10^(k-1)
    m = (2 * top + bottom) // (2 * bottom)
    return (10, k + 1) if m == 100 else (m, k)


def percent(part: int, whole: int) -> str:
    """part / whole as a percentage, exactly: rounded half up to a tenth from 0.1% on;
    below it two significant digits (``0.042%``, and from 0.01% down in scientific
    notation, ``6.6e-04%``), so a share that is not 0 never shows as 0; ``100%`` only when
    it is all (``>99.9%`` otherwise)."""
    part, whole = int(part), int(whole)
    if part in (0, whole):
        return "0%" if part == 0 else "100%"
    if 1000 * part < whole:  # below 0.1%
        m, k = _two_digits(part, whole)
        if k == -2:
            return f"0.0{m}%"
        if k >= -1:  # rounded up to 0.10%
            return "0.10%"
        return f"{m // 10}.{m % 10}e-{-k:02d}%"
    tenths = (2000 * part + whole) // (2 * whole)
    return ">99.9%" if tenths >= 1000 else f"{tenths // 10}.{tenths % 10}%"


def _estimated(f: float) -> str:
    """A montecarlo fraction (or an interval's end) as a percentage, shown as ``percent``
    shows exact shares (the float's exact value)."""
    return percent(*Fraction(float(f)).as_integer_ratio())


def _count_cells(wc, labels) -> list:
    """The label and tie columns of one text row."""
    if wc.counts is not None:
        total = int(wc.total)
        return [
            f"{scientific(c)} ({percent(c, total)})"
            for c in [*(wc.counts[k] for k in labels), wc.ties or 0]
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


def _total_text(wc) -> str:
    """The number of worlds; from its log10 where neither its digits nor the int are known."""
    if getattr(wc, "total_text", None) is not None:
        return scientific(wc.total_text)
    if wc.total is not None:
        return scientific(wc.total)
    e = math.floor(wc.log10_total)
    return f"~{10 ** (wc.log10_total - e):.2f}e+{e}"


def _count_text(res: Counted) -> str:
    labels = _labels(res)
    rows = [_count_cells(wc, labels) + [_total_text(wc), str(wc.method)] for wc in res.counts]
    text = _keyed(
        res,
        [str(k) for k in labels] + ["ties", "total", "method"],
        rows,
        right=set(range(len(labels) + 2)),
    )
    if any(wc.counts is None for wc in res.counts):
        text += (
            f"\n(~: montecarlo estimate of the share of worlds, with its "
            f"{res.confidence:g} confidence interval)"
        )
    return text


# ---------------------------------------------------------------------------------------
# poison


def _poison_json(res: Poisoned) -> dict:
    return {
        "results": [
            {
                **_keys_json(res, pos, i),
                "num_cells": p.num_cells,
                "cells": _cells_json(p.cells),
                "status": p.status,
            }
            for pos, (i, p) in enumerate(zip(res.index, res.poisonings))
        ]
    }


def _poison_text(res: Poisoned) -> str:
    rows = [[_dash(p.num_cells), _shown(p)] for p in res.poisonings]
    return _keyed(res, ["num_cells", "cells (row:column)"], rows, right={0})


def _together_json(res: PoisonedTogether) -> dict:
    p = res.poisoning
    ids = {} if res.ids is None else {"ids": [_id(v) for v in res.ids.values]}
    return {
        "results": [
            {
                "test_indices": [int(i) for i in res.index],
                **ids,
                "num_cells": p.num_cells,
                "cells": _cells_json(p.cells if p.possible else ()),
                "status": p.status,
                "method": p.method,
                "optimal": bool(p.optimal),
                "lower_bound": p.lower_bound,
            }
        ]
    }


def _together_text(res: PoisonedTogether) -> str:
    p = res.poisoning
    row = [
        str(len(res.index)),
        _dash(p.num_cells),
        "yes" if p.optimal else "no",
        _dash(p.lower_bound),
        _shown(p),
    ]
    text = _table(
        ["test_rows", "num_cells", "optimal", "lower_bound", "cells (row:column)"],
        [row],
        right={0, 1, 3},
    )
    if res.ids is not None:
        text += f"\ntest rows ({res.ids.name}): " + ", ".join(_dash(_id(v)) for v in res.ids.values)
    return text


# ---------------------------------------------------------------------------------------
# clean


def _value_shown(column: str, value: str) -> str:
    """A test value with its column: ``mean radius ∈ [10.9, 14.5)`` for a bin, ``odor = n``
    for a category."""
    return f"{column} {'∈' if is_interval_name(value) else '='} {value}"


def _why(g: dict) -> str:
    parts = []
    value = "" if g["test_value"] is None else " " + _value_shown(g["column"], g["test_value"])
    if g["as_winner"]:
        parts.append(
            f"may hold the test value{value}: raises {g['label']}'s count for {g['as_winner']} "
            f"test row{'s' * (g['as_winner'] != 1)} that {g['label']} likely wins"
        )
    if g["as_rival"]:
        parts.append(
            f"may hold another value than{value or ' the test value'}: lowers rival {g['label']}'s "
            f"count for {g['as_rival']} test row{'s' * (g['as_rival'] != 1)}"
        )
    return "; ".join(parts)


def _groups(res: Advice) -> list:
    """The ranked groups with plain values and the reason each may help."""
    out = []
    for rank, r in enumerate(res.table.to_dict("records"), 1):
        g = {
            "rank": rank,
            "row": int(r["row"]),
            "column": str(r["column"]),
            "label": str(r["label"]),
            "group_cells": int(r["group_cells"]),
            "score": round(float(r["score"]), 6),
            "as_winner": int(r["as_winner"]),
            "as_rival": int(r["as_rival"]),
            "test_value": _id(r["test_value"]),
        }
        cells = [(int(row), g["column"]) for row in r["group_rows"]]
        out.append({**g, "why": _why(g), "cells": _cells_json(cells)})
    return out


def _advice_json(res: Advice) -> dict:
    return {"results": _groups(res)}


def _advice_text(res: Advice) -> str:
    groups = _groups(res)
    if not groups:
        return "(nothing to clean: every test row is robust, or no cleaning is expected to help)"
    head = ["rank", "row", "column", "label", "group_cells", "score", "why"]
    rows = [
        [str(g["rank"]), str(g["row"]), g["column"], g["label"], str(g["group_cells"])]
        + [f"{g['score']:.4g}", g["why"]]
        for g in groups
    ]
    if res.cells:  # --cells: every cell of each group
        head.append("cells (row:column)")
        for row, g in zip(rows, groups):
            row.append(_cells_text((c["row"], c["column"]) for c in g["cells"]))
    return _table(head, rows, right={0, 1, 4, 5})


def _cleaned_json(res: Cleaned) -> dict:
    rep, tg = res.report, res.report.together
    results = [
        {
            **_keys_json(res, pos, i),
            "num_cells": pt.num_cells,
            "cells": _cells_json(pt.cells),
            "label": None if not pt.possible else str(pt.label),
        }
        for pos, (i, pt) in enumerate(zip(res.index, rep.points))
    ]
    together = {
        "num_cells": tg.num_cells,
        "cells": _cells_json(tg.cells),
        "method": tg.method,
        "optimal": bool(tg.optimal),
        "lower_bound": tg.lower_bound,
    }
    path = {
        "num_cells": len(rep.path),
        "cells": _cells_json(rep.path),
        "certifies_all": bool(rep.path_certifies),
    }
    return {"results": results, "together": together, "path": path}


def _point_shown(pt) -> str:
    if not pt.possible:
        return "(impossible: no cleaning makes it robust)"
    return _cells_text(pt.cells) if pt.cells else "(already robust)"


def _cleaned_text(res: Cleaned) -> str:
    rep, tg = res.report, res.report.together
    rows = [
        [_dash(pt.num_cells), "-" if not pt.possible else str(pt.label), _point_shown(pt)]
        for pt in rep.points
    ]
    claim = (
        "optimal" if tg.optimal else f"not proven optimal, lower bound {tg.lower_bound}"
    ) + f", {tg.method}"
    together = (
        f"{_n_cells(tg.num_cells)} ({claim}): {_cells_text(tg.cells) or '-'}"
        if tg.possible
        else "impossible"
        if tg.optimal
        else "none found"
    )
    path = (
        f"policy path: {_n_cells(len(rep.path))}, "
        + ("certifies every row" if rep.path_certifies else "does not certify every row")
        + (f": {_cells_text(rep.path)}" if rep.path else "")
    )
    return "\n".join(
        [
            _keyed(res, ["num_cells", "label", "cells (row:column)"], rows, right={0}),
            "",
            "all rows together: " + together,
            path,
        ]
    )


# ---------------------------------------------------------------------------------------

_RENDER = {
    Certified: (_certify_json, _certify_text),
    Counted: (_count_json, _count_text),
    Poisoned: (_poison_json, _poison_text),
    PoisonedTogether: (_together_json, _together_text),
    Advice: (_advice_json, _advice_text),
    Cleaned: (_cleaned_json, _cleaned_text),
}


def as_json(result) -> str:
    """The result as a JSON document (with a final newline)."""
    return json.dumps(_RENDER[type(result)][0](result), indent=2, allow_nan=False) + "\n"


def as_text(result) -> str:
    """The result as text tables (with a final newline)."""
    return _RENDER[type(result)][1](result) + "\n"
