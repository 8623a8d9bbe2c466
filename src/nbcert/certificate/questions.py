"""Each question's answers as a certificate's ``results``: the objects ``--json`` prints
(their claims: not how they were found), each with its ``evidence``.

* certify: per test point, the witness worlds of its possible labels (and of a tie), and
  a bound for every label that cannot win (``evidence.certify_evidence``);
* poison: the blanked cells, worlds that show the point is not robust once they are
  blank, and the lower bound the checker proves on the fewest (``bounds``): the answer is
  claimed the fewest where it meets them;
* poison together: the same for every point on the one blanked table, and the point whose
  own bound is the largest (every blanking for all points needs at least its cells);
* clean with the truth: per point the cells cleaned, the bounds that certify it on the
  table with those cells set to their true values, and the checker's lower bound; the
  same for all points together (its bound the largest of the kept points') and for the
  policy's path, but the points set aside (``excluded``: those no cleaning certifies,
  each said so in its own result).
"""

from __future__ import annotations

import numpy as np

from . import bounds, states
from . import evidence as ev

# What all points together claims (``TogetherCleaning.record`` also says how it was found:
# its method and the limits that stopped a search, which are no claims about the data).
TOGETHER_CLAIMS = ("num_cells", "num_rows", "cells", "excluded", "target_rows",
                   "certified_rows", "optimal", "lower_bound")  # fmt: skip


def _keys(pos: int, index, ids) -> dict:
    keys = {"test_index": int(index[pos])}
    if ids is not None:
        value = ids.values[pos]
        keys["id"] = None if value is None or value != value else str(value)
    return keys


def _test_key(pos: int, index, ids):
    """A test point as ``--json`` names it: its test_index, with its id when there are ids."""
    keys = _keys(pos, index, ids)
    return keys if "id" in keys else keys["test_index"]


def _cells(cells) -> list:
    return [{"row": int(r), "column": str(c)} for r, c in cells]


def _point(table, counts, t, alpha) -> ev.Point:
    return ev.point(counts, table.offsets, table.categories, table.features, table.labels, t, alpha)


# ---------------------------------------------------------------------------------------
# certify


def certify(table, T: np.ndarray, answer, alpha, index, ids=None) -> list:
    """certify's results with their evidence.

    Parameters
    ----------
    table : Stats or EncodedTable
        The training table as coded.
    T : ndarray of shape (k, d)
        The test points as its local codes.
    answer : DataFrame
        ``nbcert.certify``'s answer for them (robust, label, possible_labels,
        tie_possible), in T's order.
    alpha : Fraction
    index : sequence
        Each test point's data row in the test file.
    ids : RowIds, optional

    Returns
    -------
    list of dict
    """
    counts = states.as_read(table)
    out = []
    rows = zip(answer["robust"], answer["label"], answer["possible_labels"], answer["tie_possible"])
    for pos, (robust, label, labels, tie) in enumerate(rows):
        robust = bool(robust)
        P = _point(table, counts, T[pos], alpha)
        tie = None if tie is None else bool(tie)
        out.append(
            {
                **_keys(pos, index, ids),
                "robust": robust,
                "label": str(label) if robust and label is not None else None,
                "possible_labels": [str(x) for x in labels],
                "tie_possible": tie,
                "evidence": ev.certify_evidence(P, robust, label, list(labels), tie),
            }
        )
    return out


# ---------------------------------------------------------------------------------------
# poison


def poison(enc, T: np.ndarray, answers: list, method: str, alpha, index, ids=None) -> list:
    """poison's results (one point at a time) with their evidence.

    Parameters
    ----------
    enc : EncodedTable
        The complete training table.
    T : ndarray of shape (k, d)
    answers : list of Poisoning
        ``nbcert.poison``'s answers, in T's order.
    method : str
        The method that found them (the bound claimed is the checker's, whatever found
        them).
    alpha : Fraction
    index, ids
        As for :func:`certify`.

    Returns
    -------
    list of dict
        Each as ``--json`` prints it, but for "impossible" where the checker cannot show
        it (then "none_found", with the bound it shows).
    """
    counts, state = states.as_read(enc), bounds.blanking_state(enc)
    out = []
    for pos, p in enumerate(answers):
        evidence: dict = {}
        status = p.status
        if status in ("poisoned", "already_nonrobust"):
            after = states.blanked(enc, counts, p.cells)
            evidence["after"] = ev.nonrobust_evidence(_point(enc, after, T[pos], alpha))
        if status != "already_nonrobust":
            t = bounds.point(state, T[pos])
            low = bounds.blanking_bound(state, t, alpha, p.num_cells)
            status = "none_found" if status == "impossible" and low is not None else status
            evidence["lower_bound"] = low
        out.append(
            {
                **_keys(pos, index, ids),
                "num_cells": p.num_cells,
                "cells": _cells(p.cells),
                "status": status,
                "evidence": evidence,
            }
        )
    return out


def poison_together(enc, T: np.ndarray, answer, index, ids=None) -> list:
    """poison --together's result (one object, as ``--json`` prints it) with its evidence:
    worlds per test point on the blanked table, and the point whose own bound (the
    checker's, ``bounds.blanking_bound``) is the largest: the bound claimed, "optimal"
    where it meets the cells, "impossible" where that point's shows no blanking works.

    Parameters
    ----------
    enc : EncodedTable
    T : ndarray of shape (k, d)
    answer : TogetherPoisoning
    index, ids
        As for :func:`certify` (``ids`` all points' ids).

    Returns
    -------
    list of one dict
    """
    counts, state = states.as_read(enc), bounds.blanking_state(enc)
    evidence: dict = {}
    if answer.possible:
        after = states.blanked(enc, counts, answer.cells)
        evidence["after"] = [
            {
                "test_index": int(index[pos]),
                "worlds": ev.nonrobust_evidence(_point(enc, after, t, 0)),
            }
            for pos, t in enumerate(T)
        ]
    status, low, source = together_bound(enc, T, answer, state)
    if source is not None:
        evidence["lower_bound"] = {"test_index": int(index[source])}
    out = {"test_indices": [int(i) for i in index]}
    if ids is not None:
        out["ids"] = [None if v is None or v != v else str(v) for v in ids.values]
    out.update(
        {
            "num_cells": answer.num_cells,
            "cells": _cells(answer.cells if answer.possible else ()),
            "status": status,
            "optimal": status == "impossible" or (low is not None and low == answer.num_cells),
            "lower_bound": low,
            "evidence": evidence,
        }
    )
    return [out]


def together_bound(enc, T, answer, state) -> tuple:
    """(status, bound, the position of its point) for all points together: each point's own
    bound, up to its own fewest blanks (OP's), the largest of them; a point the checker
    shows no blanking makes not robust proves "impossible"."""
    from ..poisoning import poison_encoded

    status = answer.status
    if status == "already_nonrobust":
        return status, None, None
    best, source = -1, None
    for pos, t in enumerate(T):
        single = poison_encoded(enc, t, "op")
        if single.status == "already_nonrobust":
            continue  # it bounds nothing
        low = bounds.blanking_bound(state, bounds.point(state, t), 0, single.num_cells)
        if low is None:
            return "impossible", None, pos
        if low > best:
            best, source = low, pos
    if source is None:
        return ("none_found" if status == "impossible" else status), None, None
    if answer.num_cells is not None:
        best = min(best, answer.num_cells)
    return ("none_found" if status == "impossible" else status), best, source


# ---------------------------------------------------------------------------------------
# clean with the truth


def _robust(tab, counts, t, alpha) -> dict:
    P = _point(tab.enc, counts, t, alpha)
    label, bounds = ev.robust_evidence(P)
    if label is None:
        raise AssertionError("certificate: a cleaning that does not certify its row")
    return {"label": label, "bounds": bounds}


def _point_results(tab, T: np.ndarray, report, alpha, index, ids) -> tuple:
    """(each point's result with its evidence, each point's checker bound by position): the
    bound ``claims.clean`` proved with the checker's ``bounds.cleaning_bound`` (the report
    carries it; a point it left None is one the checker shows no cleaning certifies)."""
    results, lows = [], {}
    for pos, pt in enumerate(report.points):
        evidence: dict = {}
        if pt.possible:
            evidence["after"] = _robust(tab, states.cleaned(tab, pt.cells), T[pos], alpha)
        if pt.num_cells != 0:
            lows[pos] = evidence["lower_bound"] = pt.lower_bound
        results.append(
            {
                **_keys(pos, index, ids),
                "num_cells": pt.num_cells,
                "cells": _cells(pt.cells),
                "label": None if not pt.possible else str(pt.label),
                "evidence": evidence,
            }
        )
    return results, lows


def clean(tab, T: np.ndarray, report, alpha, index, ids=None) -> dict:
    """clean --truth's results, ``together`` and ``path``, with their evidence.

    Each point's bound is the checker's (``bounds.cleaning_bound``); all points together
    claim the largest of the kept points' (each needs its own), "optimal" where it meets
    their cells.

    Parameters
    ----------
    tab : nbcert.cleaning.CleaningTable
        The dirty table with its truth.
    T : ndarray of shape (k, d)
        The test points as the truth's local codes.
    report : nbcert.cleaning.CleaningReport
    alpha : Fraction
    index, ids
        As for :func:`certify`.

    Returns
    -------
    dict
        ``results``, ``together`` and ``path``, as ``--json`` prints them.
    """
    results, lows = _point_results(tab, T, report, alpha, index, ids)
    tg = report.together
    kept = [pos for pos in range(len(T)) if pos not in set(tg.excluded)]
    after = []
    if tg.possible:
        counts = states.cleaned(tab, tg.cells)
        after = [
            {"test_index": int(index[pos]), **_robust(tab, counts, T[pos], alpha)} for pos in kept
        ]
    record = tg.record(lambda pos: _test_key(pos, index, ids))
    together = {k: record[k] for k in TOGETHER_CLAIMS} | {"evidence": {"after": after}}
    source = max(kept, key=lambda pos: lows.get(pos, 0), default=None)
    low = None if source is None else lows.get(source, 0)
    if low:  # the largest of the points' own bounds, which every point together needs
        low = low if tg.num_cells is None else min(low, tg.num_cells)
        together["evidence"]["lower_bound"] = {"test_index": int(index[source])}
    together.update(lower_bound=low or None, optimal=bool(low) and low == tg.num_cells)
    path = {
        "num_cells": len(report.path),
        "cells": _cells(report.path),
        "certifies_all": bool(report.path_certifies),
        "evidence": {"after": _path_evidence(tab, T, kept, report, alpha, index)},
    }
    return {"results": results, "together": together, "path": path}


def _path_evidence(tab, T, kept: list, report, alpha, index) -> list:
    """Every row ``kept`` (not set aside) certified on the table the path cleans, or one of
    them shown not robust."""
    counts = states.cleaned(tab, report.path)
    if report.path_certifies:
        return [
            {"test_index": int(index[pos]), **_robust(tab, counts, T[pos], alpha)} for pos in kept
        ]
    for pos in kept:
        P = _point(tab.enc, counts, T[pos], alpha)
        if ev.robust_evidence(P)[0] is None:
            return [{"test_index": int(index[pos]), "worlds": ev.nonrobust_evidence(P)}]
    raise AssertionError("certificate: the policy's path certifies every row")


__all__ = ["certify", "poison", "poison_together", "clean"]
