"""Each question's answers as a certificate's ``results``: the objects ``--json`` prints,
each with its ``evidence``.

* certify: per test row, the witness worlds of its possible labels (and of a tie), and a
  bound for every label that cannot win (``evidence.certify_evidence``);
* poison: the blanked cells, worlds that show the row is not robust once they are blank,
  and whether their number is proven minimal (OP: ``docs/design.md``, "One-point
  poisoning"; the checker re-derives the bound by its own search);
* poison together: the same for every row on the one blanked table, and where the lower
  bound comes from (a row's single-point minimum, or a search over every blanking);
* clean with the truth: per row the cells cleaned and the bounds that certify it on the
  table with those cells set to their true values; the same for all rows together and for
  the policy's path, but the rows set aside (``excluded``: those no cleaning certifies,
  each shown so in its own result).
"""

from __future__ import annotations

import numpy as np

from . import evidence as ev
from . import states


def _keys(pos: int, index, ids) -> dict:
    keys = {"test_index": int(index[pos])}
    if ids is not None:
        value = ids.values[pos]
        keys["id"] = None if value is None or value != value else str(value)
    return keys


def _test_key(pos: int, index, ids):
    """A test row as ``--json`` names it: its test_index, with its id when there are ids."""
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
        The test rows as its local codes.
    answer : DataFrame
        ``nbcert.certify``'s answer for them (robust, label, possible_labels,
        tie_possible), in T's order.
    alpha : Fraction
    index : sequence
        Each test row's data row in the test file.
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
    """poison's results (one row at a time) with their evidence.

    Parameters
    ----------
    enc : EncodedTable
        The complete training table.
    T : ndarray of shape (k, d)
    answers : list of Poisoning
        ``nbcert.poison``'s answers, in T's order.
    method : str
        The method that found them (only OP's minimum is proven).
    alpha : Fraction
    index, ids
        As for :func:`certify`.

    Returns
    -------
    list of dict
    """
    counts = states.as_read(enc)
    out = []
    for pos, p in enumerate(answers):
        evidence: dict = {}
        if p.status in ("poisoned", "already_nonrobust"):
            after = states.blanked(enc, counts, p.cells)
            evidence["after"] = ev.nonrobust_evidence(_point(enc, after, T[pos], alpha))
        if p.status in ("poisoned", "impossible"):
            evidence["minimal"] = _minimal(method, enc)
        out.append(
            {
                **_keys(pos, index, ids),
                "num_cells": p.num_cells,
                "cells": _cells(p.cells),
                "status": p.status,
                "evidence": evidence,
            }
        )
    return out


def _minimal(method: str, enc) -> dict:
    if enc.m == 1:
        return {"proven": True, "by": "one label: every world predicts it"}
    if method == "op":
        return {"proven": True, "by": "search over the blankings' configurations"}
    return {"proven": False, "by": f"{method}: a randomized search, not a proof"}


def poison_together(enc, T: np.ndarray, answer, index, ids=None) -> list:
    """poison --together's result (one object, as ``--json`` prints it) with its evidence:
    worlds per test row on the blanked table, and the source of the lower bound.

    Parameters
    ----------
    enc : EncodedTable
    T : ndarray of shape (k, d)
    answer : TogetherPoisoning
    index, ids
        As for :func:`certify` (``ids`` all rows' ids).

    Returns
    -------
    list of one dict
    """
    from ..poisoning import poison_encoded

    counts = states.as_read(enc)
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
    if answer.lower_bound is not None or answer.optimal:
        singles = [poison_encoded(enc, t, "op") for t in T]
        evidence["lower_bound"] = _bound(answer, singles, index)
    out = {"test_indices": [int(i) for i in index]}
    if ids is not None:
        out["ids"] = [None if v is None or v != v else str(v) for v in ids.values]
    out.update(
        {
            "num_cells": answer.num_cells,
            "cells": _cells(answer.cells if answer.possible else ()),
            "status": answer.status,
            "method": answer.method,
            "optimal": bool(answer.optimal),
            "lower_bound": answer.lower_bound,
            "time_limited": bool(answer.time_limited),
            "evidence": evidence,
        }
    )
    return [out]


def _bound(answer, singles: list, index) -> dict:
    """Where the lower bound comes from: a row whose own minimum (or impossibility) gives it,
    else a search over every blanking of the cells between that and the bound."""
    impossible = [pos for pos, p in enumerate(singles) if not p.possible]
    if not answer.possible and impossible:
        return {"from": "single", "test_index": int(index[impossible[0]]), "cells": None}
    sizes = [p.num_cells if p.possible else 0 for p in singles]
    best = int(np.argmax(sizes))
    floor = {"test_index": int(index[best]), "cells": int(sizes[best])}
    bound = answer.lower_bound if answer.possible else None
    if bound is not None and bound <= sizes[best]:
        return {"from": "single", **floor}
    return {"from": "search", "floor": floor}


# ---------------------------------------------------------------------------------------
# clean with the truth


def _robust(tab, counts, t, alpha) -> dict:
    P = _point(tab.enc, counts, t, alpha)
    label, bounds = ev.robust_evidence(P)
    if label is None:
        raise AssertionError("certificate: a cleaning that does not certify its row")
    return {"label": label, "bounds": bounds}


def clean(tab, T: np.ndarray, report, alpha, index, ids=None) -> dict:
    """clean --truth's results, ``together`` and ``path``, with their evidence.

    Parameters
    ----------
    tab : nbcert.cleaning.CleaningTable
        The dirty table with its truth.
    T : ndarray of shape (k, d)
        The test rows as the truth's local codes.
    report : nbcert.cleaning.CleaningReport
    alpha : Fraction
    index, ids
        As for :func:`certify`.

    Returns
    -------
    dict
        ``results``, ``together`` and ``path``, as ``--json`` prints them.
    """
    results = []
    for pos, pt in enumerate(report.points):
        evidence: dict = {"minimal": {"proven": True, "by": "exact search (nbcert.cleaning)"}}
        if pt.possible:
            evidence["after"] = _robust(tab, states.cleaned(tab, pt.cells), T[pos], alpha)
        results.append(
            {
                **_keys(pos, index, ids),
                "num_cells": pt.num_cells,
                "cells": _cells(pt.cells),
                "label": None if not pt.possible else str(pt.label),
                "evidence": evidence,
            }
        )
    tg = report.together
    kept = [pos for pos in range(len(T)) if pos not in set(tg.excluded)]
    after = []
    if tg.possible:
        counts = states.cleaned(tab, tg.cells)
        after = [
            {"test_index": int(index[pos]), **_robust(tab, counts, T[pos], alpha)} for pos in kept
        ]
    together = {**tg.record(lambda pos: _test_key(pos, index, ids)), "evidence": {"after": after}}
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
