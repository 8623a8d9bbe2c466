"""The command line's output: each command's result object as an aligned text table or as
JSON (``{"results": [...]}``), the two rendered separately from the same object.

JSON keeps exact counts as decimal strings (they may have thousands of digits) and cells as
``{"row": r, "column": c}``; text shows them as ``r:column`` and a missing value as ``-``.
A status other than "poisoned" is shown in words; only a proof says "impossible".
"""

from __future__ import annotations

import json
import math
import time

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
        line = "" if done >= total else f"nbcert: counting test row {done + 1} of {total} ({method})"
        self.stream.write("\r\033[K" + line)
        self.stream.flush()


# ---------------------------------------------------------------------------------------
# shared pieces


def _table(header: list, rows: list, right: set = frozenset()) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


def _cells_json(cells) -> list:
    return [{"row": int(r), "column": str(c)} for r, c in cells]


def _cells_text(cells) -> str:
    return ", ".join(f"{int(r)}:{c}" for r, c in cells)


def _dash(value) -> str:
    return "-" if value is None else str(value)


def _n_cells(n: int) -> str:
    return f"{n} cell{'s' * (n != 1)}"


# what the text table shows instead of cells; only a proof says "impossible"
_SHOWN_STATUS = {"already_nonrobust": "(already not robust)",
                 "impossible": "(impossible: no blanking makes it non-robust)",
                 "none_found": "(none found by the heuristic search; not a proof)"}


def _shown(p) -> str:
    return _cells_text(p.cells) if p.status == "poisoned" else _SHOWN_STATUS[p.status]


# ---------------------------------------------------------------------------------------
# certify


def _certified(res: Certified):
    """(test index, robust, label or None) per test row."""
    for i, robust, lab in zip(res.index, res.table["robust"], res.table["label"]):
        robust = bool(robust)
        yield int(i), robust, None if not robust or lab is None else str(lab)


def _certify_json(res: Certified) -> dict:
    return {"results": [{"test_index": i, "robust": robust, "label": lab} for i, robust, lab in _certified(res)]}


def _certify_text(res: Certified) -> str:
    rows = [[str(i), "yes" if robust else "no", _dash(lab)] for i, robust, lab in _certified(res)]
    return _table(["test_index", "robust", "label"], rows, right={0})


# ---------------------------------------------------------------------------------------
# count


def _labels(res: Counted) -> list:
    """Every training label (the first result lists them all)."""
    return list((res.counts[0].counts or res.counts[0].fractions) if res.counts else [])


def _exact(wc, labels) -> tuple:
    """Counts per label and ties as decimal strings."""
    return {str(k): str(int(wc.counts[k])) for k in labels}, str(int(wc.ties or 0))


def _total(wc) -> str | None:
    """The number of worlds in full (None where it has too many digits to compute)."""
    if wc.counts is not None:
        return str(int(wc.total))
    return None if wc.total is None else str(wc.total)


def _estimates(wc, labels) -> tuple:
    """Estimated fractions per label, their intervals and the tie fraction."""
    fr, iv = wc.fractions or {}, wc.intervals or {}
    return ({str(k): float(fr.get(k, 0.0)) for k in labels},
            {str(k): [float(v) for v in iv[k]] for k in labels if k in iv},
            None if wc.tie_fraction is None else float(wc.tie_fraction))


def _count_record(i, wc, labels) -> dict:
    if wc.counts is not None:
        counts, ties = _exact(wc, labels)
        return {"test_index": int(i), "counts": counts, "ties": ties, "total": _total(wc), "method": str(wc.method)}
    fractions, intervals, tie = _estimates(wc, labels)
    return {"test_index": int(i), "counts": None, "ties": None, "total": _total(wc),
            "log10_total": round(wc.log10_total, 6), "method": str(wc.method), "fractions": fractions,
            "tie_fraction": tie, "intervals": intervals, "samples": None if wc.samples is None else int(wc.samples)}


def _count_json(res: Counted) -> dict:
    labels = _labels(res)
    return {"results": [_count_record(i, wc, labels) for i, wc in zip(res.index, res.counts)]}


def _fraction(f: float) -> str:
    return f"{f:.4f}"


def _count_cells(wc, labels) -> list:
    """The label and tie columns of one text row."""
    if wc.counts is not None:
        counts, ties = _exact(wc, labels)
        return [counts[str(k)] for k in labels] + [ties]
    fractions, intervals, tie = _estimates(wc, labels)
    cells = []
    for k in map(str, labels):
        lo_hi = f" [{_fraction(intervals[k][0])}, {_fraction(intervals[k][1])}]" if k in intervals else ""
        cells.append("~" + _fraction(fractions[k]) + lo_hi)
    return cells + ["-" if tie is None else "~" + _fraction(tie)]


def _count_text(res: Counted) -> str:
    labels = _labels(res)
    rows = []
    for i, wc in zip(res.index, res.counts):
        total = _total(wc)
        rows.append([str(int(i))] + _count_cells(wc, labels) + [total or f"~10^{wc.log10_total:.1f}", str(wc.method)])
    header = ["test_index"] + [str(k) for k in labels] + ["ties", "total", "method"]
    text = _table(header, rows, right=set(range(len(header) - 1)))
    if any(wc.counts is None for wc in res.counts):
        text += (f"\n(~: montecarlo estimate of the fraction of worlds, with its "
                 f"{res.confidence:g} confidence interval)")
    return text


# ---------------------------------------------------------------------------------------
# poison


def _poison_json(res: Poisoned) -> dict:
    return {"results": [{"test_index": int(i), "num_cells": p.num_cells, "cells": _cells_json(p.cells),
                         "status": p.status} for i, p in zip(res.index, res.poisonings)]}


def _poison_text(res: Poisoned) -> str:
    rows = [[str(int(i)), _dash(p.num_cells), _shown(p)] for i, p in zip(res.index, res.poisonings)]
    return _table(["test_index", "num_cells", "cells (row:column)"], rows, right={0, 1})


def _together_json(res: PoisonedTogether) -> dict:
    p = res.poisoning
    return {"results": [{"test_indices": [int(i) for i in res.index], "num_cells": p.num_cells,
                         "cells": _cells_json(p.cells if p.possible else ()), "status": p.status,
                         "method": p.method, "optimal": bool(p.optimal), "lower_bound": p.lower_bound}]}


def _together_text(res: PoisonedTogether) -> str:
    p = res.poisoning
    row = [str(len(res.index)), _dash(p.num_cells), "yes" if p.optimal else "no", _dash(p.lower_bound), _shown(p)]
    return _table(["test_rows", "num_cells", "optimal", "lower_bound", "cells (row:column)"], [row], right={0, 1, 3})


# ---------------------------------------------------------------------------------------
# clean


def _why(g: dict) -> str:
    parts = []
    if g["as_winner"]:
        parts.append(f"may hold the test value: raises {g['label']}'s count for {g['as_winner']} "
                     f"test row{'s' * (g['as_winner'] != 1)} that {g['label']} likely wins")
    if g["as_rival"]:
        parts.append(f"may hold another value: lowers rival {g['label']}'s count for {g['as_rival']} "
                     f"test row{'s' * (g['as_rival'] != 1)}")
    return "; ".join(parts)


def _groups(res: Advice) -> list:
    """The ranked groups with plain values and the reason each may help."""
    out = []
    for rank, r in enumerate(res.table.to_dict("records"), 1):
        g = {"rank": rank, "row": int(r["row"]), "column": str(r["column"]), "label": str(r["label"]),
             "group_cells": int(r["group_cells"]), "score": round(float(r["score"]), 6),
             "as_winner": int(r["as_winner"]), "as_rival": int(r["as_rival"])}
        out.append({**g, "why": _why(g)})
    return out


def _advice_json(res: Advice) -> dict:
    return {"results": _groups(res)}


def _advice_text(res: Advice) -> str:
    groups = _groups(res)
    if not groups:
        return "(nothing to clean: every test row is robust, or no cleaning is expected to help)"
    rows = [[str(g["rank"]), str(g["row"]), g["column"], g["label"], str(g["group_cells"]), f"{g['score']:.4g}",
             g["why"]] for g in groups]
    return _table(["rank", "row", "column", "label", "group_cells", "score", "why"], rows, right={0, 1, 4, 5})


def _cleaned_json(res: Cleaned) -> dict:
    rep, tg = res.report, res.report.together
    results = [{"test_index": int(i), "num_cells": pt.num_cells, "cells": _cells_json(pt.cells),
                "label": None if not pt.possible else str(pt.label)} for i, pt in zip(res.index, rep.points)]
    together = {"num_cells": tg.num_cells, "cells": _cells_json(tg.cells), "method": tg.method,
                "optimal": bool(tg.optimal), "lower_bound": tg.lower_bound}
    path = {"num_cells": len(rep.path), "cells": _cells_json(rep.path), "certifies_all": bool(rep.path_certifies)}
    return {"results": results, "together": together, "path": path}


def _point_shown(pt) -> str:
    if not pt.possible:
        return "(impossible: no cleaning makes it robust)"
    return _cells_text(pt.cells) if pt.cells else "(already robust)"


def _cleaned_text(res: Cleaned) -> str:
    rep, tg = res.report, res.report.together
    rows = [[str(int(i)), _dash(pt.num_cells), "-" if not pt.possible else str(pt.label), _point_shown(pt)]
            for i, pt in zip(res.index, rep.points)]
    claim = ("optimal" if tg.optimal else f"not proven optimal, lower bound {tg.lower_bound}") + f", {tg.method}"
    together = (f"{_n_cells(tg.num_cells)} ({claim}): {_cells_text(tg.cells) or '-'}" if tg.possible else
                "impossible" if tg.optimal else "none found")
    path = (f"policy path: {_n_cells(len(rep.path))}, "
            + ("certifies every row" if rep.path_certifies else "does not certify every row")
            + (f": {_cells_text(rep.path)}" if rep.path else ""))
    return "\n".join([_table(["test_index", "num_cells", "label", "cells (row:column)"], rows, right={0, 1}), "",
                      "all rows together: " + together, path])


# ---------------------------------------------------------------------------------------

_RENDER = {Certified: (_certify_json, _certify_text), Counted: (_count_json, _count_text),
           Poisoned: (_poison_json, _poison_text), PoisonedTogether: (_together_json, _together_text),
           Advice: (_advice_json, _advice_text), Cleaned: (_cleaned_json, _cleaned_text)}


def as_json(result) -> str:
    """The result as a JSON document (with a final newline)."""
    return json.dumps(_RENDER[type(result)][0](result), indent=2, allow_nan=False) + "\n"


def as_text(result) -> str:
    """The result as text tables (with a final newline)."""
    return _RENDER[type(result)][1](result) + "\n"
