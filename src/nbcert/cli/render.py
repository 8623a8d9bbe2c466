"""The command line's output: each command's result object as an aligned text table or as
JSON (``{"results": [...]}``), the two rendered separately from the same object.

JSON keeps exact counts as decimal strings (they may have thousands of digits) and cells as
``{"row": r, "column": c}``; text shows them as ``r:column`` (a long list: its first cells
and how many more) and an absent value by one symbol per meaning (``tables``).  How counts
and shares are shown is ``counts``.  A status other than "poisoned" is shown in words; only
a proof says "impossible".  Every per-test-row output leads with ``test_index`` (and, with
``--id``, the row's id).
"""

from __future__ import annotations

import json

from ..reading.binning import is_interval_name
from .commands import Advice, Certified, Cleaned, Counted, Poisoned, PoisonedTogether
from .counts import count_json, count_text, percent, scientific  # noqa: F401 (re-exported)
from .tables import ALL_TIE, cells_json, cells_text, dash, keyed, keys_json, plain, table

# ---------------------------------------------------------------------------------------
# shared pieces


def _n_cells(n: int) -> str:
    return f"{n} cell{'s' * (n != 1)}"


# what the text table shows instead of cells; only a proof says "impossible"
_SHOWN_STATUS = {
    "already_nonrobust": "(already not robust)",
    "impossible": "(impossible: no blanking makes it non-robust)",
    "none_found": "(none found by the heuristic search; not a proof)",
}


def _shown(p) -> str:
    return cells_text(p.cells) if p.status == "poisoned" else _SHOWN_STATUS[p.status]


# ---------------------------------------------------------------------------------------
# certify


_TIE = {True: "yes", False: "no", None: "?"}


def _certified(res: Certified):
    """(robust, label or None, possible labels, tie_possible) per test point."""
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


def _sampled(res: Certified):
    """(whether no sampled world disagreed, label or None, sampled labels, sampled tie,
    worlds) per test point (AD)."""
    t = res.table
    for agreed, lab, seen, tie, worlds in zip(
        t["robust"], t["label"], t["sampled_labels"], t["sampled_tie"], t["worlds_sampled"]
    ):
        agreed = bool(agreed)
        yield (
            agreed,
            None if not agreed else str(lab),
            [str(x) for x in seen],
            bool(tie),
            int(worlds),
        )


def _is_ad(res: Certified) -> bool:
    return "sampled_labels" in res.table.columns


def ad_answer(agreed: bool, seen: list, tie: bool, worlds: int) -> str:
    """What AD's sampled worlds showed, in words: never "robust", which only a proof says;
    a world that disagrees (another label, or a tie) proves the row not robust."""
    sampled = f"{worlds} sampled world{'s' * (worlds != 1)}"
    if agreed:
        return f"no other label in {sampled}"
    return f"not robust: {'a tie' if tie and len(seen) < 2 else f'{len(seen)} labels'} in {sampled}"


def _ad_json(res: Certified) -> dict:
    keys = ("label", "sampled_labels", "sampled_tie", "worlds_sampled")
    return {
        "results": [
            {
                **keys_json(res, p, i),
                "method": "ad",
                "answer": ad_answer(agreed, seen, tie, worlds),
                "not_robust": not agreed,
                **dict(zip(keys, (lab, seen, tie, worlds))),
            }
            for p, (i, (agreed, lab, seen, tie, worlds)) in enumerate(zip(res.index, _sampled(res)))
        ]
    }


def _ad_text(res: Certified) -> str:
    rows = [
        [ad_answer(agreed, seen, tie, worlds), dash(lab), ", ".join(seen) or ALL_TIE, _TIE[tie]]
        for agreed, lab, seen, tie, worlds in _sampled(res)
    ]
    header = ["answer (--method ad)", "label", "sampled_labels", "sampled_tie"]
    return keyed(res, header, rows) + (
        "\n(--method ad samples worlds: a world that disagrees proves a test point not robust; "
        '"no other label" is only what the sampled worlds showed, not a proof. '
        "sampled_labels: the labels they predicted. Without --method ad the answers are exact)"
    )


def _certify_json(res: Certified) -> dict:
    if _is_ad(res):
        return _ad_json(res)
    return {
        "results": [
            {
                **keys_json(res, p, i),
                "robust": robust,
                "label": lab,
                "possible_labels": possible,
                "tie_possible": tie,
            }
            for p, (i, (robust, lab, possible, tie)) in enumerate(zip(res.index, _certified(res)))
        ]
    }


def _certify_text(res: Certified) -> str:
    if _is_ad(res):
        return _ad_text(res)
    rows = [
        ["yes" if robust else "no", dash(lab), ", ".join(possible) or ALL_TIE, _TIE[tie]]
        for robust, lab, possible, tie in _certified(res)
    ]
    text = keyed(res, ["robust", "label", "possible_labels", "tie"], rows)
    if any(r[3] == "?" for r in rows):
        text += (
            "\n(tie ?: not decided whether a world ties; the possible labels are exact. "
            "nbcert count counts the tied worlds)"
        )
    return text


# ---------------------------------------------------------------------------------------
# count


def _poison_json(res: Poisoned) -> dict:
    return {
        "results": [
            {
                **keys_json(res, pos, i),
                "num_cells": p.num_cells,
                "cells": cells_json(p.cells),
                "status": p.status,
                "minimal": p.minimal,
                "lower_bound": p.lower_bound,
            }
            for pos, (i, p) in enumerate(zip(res.index, res.poisonings))
        ]
    }


def _fewest(p) -> str:
    """Whether an answer's cells are proven the fewest: "yes", or the bound proven."""
    if p.num_cells == 0:
        return "-"
    return "yes" if p.minimal else f"≥ {dash(p.lower_bound)}"


def _poison_text(res: Poisoned) -> str:
    rows = [[dash(p.num_cells), _fewest(p), _shown(p)] for p in res.poisonings]
    head = ["num_cells", "fewest", "cells (row:column)"]
    return keyed(res, head, rows, right={0})


def _together_json(res: PoisonedTogether) -> dict:
    p = res.poisoning
    ids = {} if res.ids is None else {"ids": [plain(v) for v in res.ids.values]}
    return {
        "results": [
            {
                "test_indices": [int(i) for i in res.index],
                **ids,
                "num_cells": p.num_cells,
                "cells": cells_json(p.cells if p.possible else ()),
                "status": p.status,
                "method": p.method,
                "optimal": bool(p.optimal),
                "lower_bound": p.lower_bound,
                "time_limited": bool(p.time_limited),
                "search_bound": p.search_bound,
            }
        ]
    }


def _together_text(res: PoisonedTogether) -> str:
    p = res.poisoning
    row = [
        str(len(res.index)),
        dash(p.num_cells),
        "yes" if p.optimal else f"no ({p.why_not_optimal})",
        dash(p.lower_bound),
        _shown(p),
    ]
    text = table(
        ["test_points", "num_cells", "optimal", "lower_bound", "cells (row:column)"],
        [row],
        right={0, 1, 3},
    )
    if res.ids is not None:
        text += f"\ntest points ({res.ids.name}): " + ", ".join(
            dash(plain(v)) for v in res.ids.values
        )
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
            f"test point{'s' * (g['as_winner'] != 1)} that {g['label']} likely wins"
        )
    if g["as_rival"]:
        parts.append(
            f"may hold another value than{value or ' the test value'}: lowers rival {g['label']}'s "
            f"count for {g['as_rival']} test point{'s' * (g['as_rival'] != 1)}"
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
            "test_value": plain(r["test_value"]),
        }
        cells = [(int(row), g["column"]) for row in r["group_rows"]]
        out.append({**g, "why": _why(g), "cells": cells_json(cells)})
    return out


def _advice_json(res: Advice) -> dict:
    return {"results": _groups(res)}


def _advice_text(res: Advice) -> str:
    groups = _groups(res)
    if not groups:
        return "(nothing to clean: every test point is robust, or no cleaning is expected to help)"
    head = ["rank", "row", "column", "label", "group_cells", "score", "why"]
    rows = [
        [str(g["rank"]), str(g["row"]), g["column"], g["label"], str(g["group_cells"])]
        + [f"{g['score']:.4g}", g["why"]]
        for g in groups
    ]
    if res.cells:  # --cells: every cell of each group
        head.append("cells (row:column)")
        for row, g in zip(rows, groups):
            row.append(cells_text((c["row"], c["column"]) for c in g["cells"]))
    return table(head, rows, right={0, 1, 4, 5})


def _cleaned_json(res: Cleaned) -> dict:
    rep, tg = res.report, res.report.together
    results = [
        {
            **keys_json(res, pos, i),
            "num_cells": pt.num_cells,
            "cells": cells_json(pt.cells),
            "label": None if not pt.possible else str(pt.label),
            "minimal": pt.minimal,
            "lower_bound": pt.lower_bound,
        }
        for pos, (i, pt) in enumerate(zip(res.index, rep.points))
    ]
    together = tg.record(lambda p: _test_key(res, p))
    path = {
        "num_cells": len(rep.path),
        "cells": cells_json(rep.path),
        "certifies_all": bool(rep.path_certifies),
    }
    return {"results": results, "together": together, "path": path}


def _test_key(res, p: int):
    """Test row p (a position) as the output names it: its test_index (and id)."""
    key = keys_json(res, p, res.index[p])
    return key if "id" in key else key["test_index"]


def _cleaned_together_text(res: Cleaned) -> list:
    """The lines about all points together: the cells and their rows, the claim, the points set
    aside and the target."""
    tg = res.report.together
    claim = _claim(tg)
    rows = f" in {tg.num_rows} row{'s' * (tg.num_rows != 1)}" if tg.cells else ""
    if tg.possible:
        head = f"{_n_cells(tg.num_cells)}{rows} ({claim}): {cells_text(tg.cells) or '-'}"
    elif tg.budget_limited:
        head = (
            f"stopped at the budget: {_n_cells(len(tg.cells))}{rows} certify {tg.certified} of "
            f"the {tg.target} points asked for (lower bound {tg.lower_bound}): "
            f"{cells_text(tg.cells) or '-'}"
        )
    else:
        head = "impossible" if tg.optimal else "none found"
    lines = ["all points together: " + head]
    able = len(res.index) - len(tg.excluded)
    if tg.target is not None and tg.target < able:
        lines.append(f"target: {tg.target} of the {able} points some cleaning certifies")
    if tg.excluded:
        named = ", ".join(str(_test_key(res, p)) for p in tg.excluded[:12])
        more = f" and {len(tg.excluded) - 12} more" if len(tg.excluded) > 12 else ""
        lines.append(
            f"set aside: {len(tg.excluded)} point{'s' * (len(tg.excluded) != 1)} that no "
            f"cleaning certifies (proven): {named}{more}"
        )
    return lines


def _claim(tg) -> str:
    """What is proven about the cells for all points together, and by which search."""
    if not tg.optimal:
        own = "" if tg.search_bound in (None, tg.lower_bound) else f"; its own {tg.search_bound}"
        return (
            f"{tg.method}; not proven optimal: {tg.why_not_optimal}; "
            f"at least {dash(tg.lower_bound)} needed, proven{own}"
        )
    if not tg.num_cells:
        return "optimal: the points asked for are robust without cleaning"
    return f"optimal: at least {tg.num_cells} needed, proven; found by {tg.method}"


def _point_shown(pt) -> str:
    if not pt.possible and pt.lower_bound is not None:
        return f"(none found; at least {pt.lower_bound} cells needed, proven)"
    if not pt.possible:
        return "(impossible: no cleaning makes it robust)"
    return cells_text(pt.cells) if pt.cells else "(already robust)"


def _cleaned_text(res: Cleaned) -> str:
    rep = res.report
    rows = [
        [
            dash(pt.num_cells),
            _fewest(pt) if pt.possible else "-",
            "-" if not pt.possible else str(pt.label),
            _point_shown(pt),
        ]
        for pt in rep.points
    ]
    path = (
        f"policy path: {_n_cells(len(rep.path))}, "
        + ("certifies the points asked for" if rep.path_certifies else "does not certify them all")
        + (f": {cells_text(rep.path)}" if rep.path else "")
    )
    return "\n".join(
        [
            keyed(res, ["num_cells", "fewest", "label", "cells (row:column)"], rows, right={0}),
            "",
            *_cleaned_together_text(res),
            path,
        ]
    )


# ---------------------------------------------------------------------------------------

_RENDER = {
    Certified: (_certify_json, _certify_text),
    Counted: (count_json, count_text),
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
