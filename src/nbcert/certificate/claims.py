"""The claims an answer may make: only those its certificate proves.

nbcert's searches are exact, but "the fewest", "optimal", "impossible" and "no cleaning
makes it robust" reach the user only where ``nbcert.verify`` can check them in time
polynomial in the table (``bounds``: the checker's own relaxations).  The API runs these
functions on every answer of ``poison``, ``poison_together`` and ``clean_with_truth``
before it is shown, so the text, ``--json``, the API's objects and a certificate say the
same: where the checker's bound meets the cells found, they are the fewest (``minimal``,
``optimal``); elsewhere the answer gives the cells found and the bound proven
(``lower_bound``), and a search's own proof that the checker cannot check is kept apart
(``search_bound``, ``search_optimal``).
"""

from __future__ import annotations

from dataclasses import replace

from . import bounds, questions


def poison(enc, T, answers: list, alpha) -> list:
    """One-point poisonings with the claims the checker proves.

    Each gets ``lower_bound``, the checker's bound on its fewest blanks (``minimal`` where
    it meets the cells found); "impossible" stays only where the checker shows that no
    blanking works.
    """
    state = bounds.blanking_state(enc)
    out = []
    for t, p in zip(T, answers):
        if p.status == "already_nonrobust":
            out.append(replace(p, lower_bound=0))
            continue
        low = bounds.blanking_bound(state, bounds.point(state, t), alpha, p.num_cells)
        out.append(replace(p, impossible=p.impossible and low is None, lower_bound=low))
    return out


def poison_together(enc, T, answer):
    """Poisoning all points together, claiming what its certificate proves.

    The largest of the points' own checked bounds (each point needs its own blanks), so
    "optimal" where it meets the cells found, "impossible" where a point's check shows no
    blanking works; the search's own bound and proof are kept as ``search_bound`` and
    ``search_optimal``.
    """
    if answer.num_cells == 0:  # every point is already not robust
        return replace(answer, optimal=True, lower_bound=0, search_bound=0, search_optimal=True)
    status, low, _ = questions.together_bound(enc, T, answer, bounds.blanking_state(enc))
    proven = status == "impossible" or (low is not None and low == answer.num_cells)
    return replace(
        answer,
        optimal=proven,
        lower_bound=low,
        search_bound=answer.lower_bound,
        search_optimal=answer.optimal,
    )


def clean(tab, T, report, alpha):
    """A cleaning report with the claims the checker proves.

    Each point's fewest cells get the checker's ``lower_bound`` (``minimal`` where it
    meets them; a point no cleaning certifies keeps that claim only where the checker shows
    it, else its bound); all points together claim the largest of the kept points' bounds.
    """
    state, truth = bounds.cleaning_state(tab)
    points, lows, asked = [], {}, {}  # asked: a repeated point's bound, proven once
    for pos, pt in enumerate(report.points):
        if pt.num_cells == 0:
            points.append(replace(pt, lower_bound=0))
            continue
        key = (T[pos].tobytes(), pt.num_cells)
        if key not in asked:
            t = bounds.point(state, T[pos])
            asked[key] = bounds.cleaning_bound(state, truth, t, alpha, pt.num_cells)
        low = lows[pos] = asked[key]
        points.append(replace(pt, lower_bound=low))
    tg = report.together
    kept = [pos for pos in range(len(T)) if pos not in set(tg.excluded)]
    bounds_kept = sorted(lows.get(pos) or 0 for pos in kept)
    need = min(tg.target or len(bounds_kept), len(bounds_kept))
    # any `need` points cost at least the need-th smallest of their bounds
    low = bounds_kept[need - 1] if need > 0 else 0
    low = low if tg.num_cells is None else min(low, tg.num_cells)
    together = replace(
        tg,
        optimal=tg.possible and low == tg.num_cells,
        lower_bound=low,
        search_bound=tg.lower_bound,
        search_optimal=tg.optimal,
    )
    return replace(report, points=points, together=together)


__all__ = ["poison", "poison_together", "clean"]
