"""Repaired rows on every small table: certify, count, each point's fewest rows and the
rows together, against enumeration (alpha 0; other alphas: the hypothesis tests).

The universe: three rows labelled p, p, q over two features with values a and b; row 0 is
(a, b); rows 1 and 2 (one of each label) are each complete, or missing one feature (the
other observed: every set of at most two repairs, every true filling) or both (every set of
at most two repairs; the truth one of them, or a filling none gives).  That is 48 ways per
row, 2,304 tables, each asked about all four test points, in four slices."""

from __future__ import annotations

import itertools

import brute_rows
import pandas as pd
import pytest

from nbcert.reading.truth import prepare_truth
from nbcert.repairs import Worlds, certify_rows, code
from nbcert.repairs.clean import point_cleaning
from nbcert.repairs.count import count_rows
from nbcert.repairs.together import together

VALUES = ("a", "b")
POINTS = [list(p) for p in itertools.product(VALUES, repeat=2)]


def row_states() -> list:
    """(cells, repairs, truth) of one row, every way: cells None where missing; repairs a
    list of {feature: value}; truth {feature: value}."""
    out = [(list(c), None, None) for c in itertools.product(VALUES, repeat=2)]
    for miss in ([0], [1], [0, 1]):
        keep = [j for j in (0, 1) if j not in miss]
        fillings = list(itertools.product(VALUES, repeat=len(miss)))
        sets = [s for k in (1, 2) for s in itertools.combinations(fillings, k)]
        for seen in itertools.product(VALUES, repeat=len(keep)):
            for reps in sets:
                truths = fillings
                if len(miss) == 2:  # one of the repairs, and one no repair gives
                    truths = [reps[0], next(f for f in fillings if f not in reps)]
                for true in truths:
                    cells = [None, None]
                    for j, v in zip(keep, seen):
                        cells[j] = v
                    out.append((cells, [dict(zip(miss, r)) for r in reps], dict(zip(miss, true))))
    return out


STATES = row_states()


def tables(part: int = 0, parts: int = 1):
    for i, (first, second) in enumerate(itertools.product(STATES, repeat=2)):
        if i % parts != part:
            continue
        rows = [(["a", "b"], None, None), first, second]
        cols = [[r[0][j] for r in rows] for j in (0, 1)]
        reps = {i: r[1] for i, r in enumerate(rows) if r[1] is not None}
        truth = [[r[0][j] if r[0][j] is not None else r[2][j] for r in rows] for j in (0, 1)]
        yield cols, ["p", "p", "q"], reps, truth


def coded(cols, y, reps, truth=None):
    frame = pd.DataFrame({"f0": cols[0], "f1": cols[1], "y": y}, dtype=object)
    long = pd.DataFrame(
        [
            (r, f"r{i}", f"f{j}", v)
            for r, rs in reps.items()
            for i, rep in enumerate(rs)
            for j, v in rep.items()
        ],
        columns=["row", "repair", "column", "value"],
        dtype=object,
    )
    if truth is None:
        from nbcert.reading.encoding import encode

        enc, missing = encode(frame, "y"), None
    else:
        true = pd.DataFrame({"f0": truth[0], "f1": truth[1], "y": y}, dtype=object)
        names = {"train": "training table", "truth": "truth table"}
        enc, missing = prepare_truth(frame, true, "y", None, names)
    enc, rr = code(enc, long, "repairs", "training table", missing)
    test = pd.DataFrame(POINTS, columns=["f0", "f1"], dtype=object)
    return rr, enc.encode_test(test)


def test_the_universe_has_every_row():
    assert len(STATES) == 48 and sum(1 for _ in tables()) == 2304


@pytest.mark.parametrize("part", range(4))
def test_every_small_table(part):
    """Certify, count and each point's fewest rows are exact (enumeration of every world
    and every set of rows agrees), and the rows together are proven fewest (or proven
    impossible) on every table."""
    for cols, y, reps, truth in tables(part, 4):
        rr, T = coded(cols, y, reps, truth)
        worlds = Worlds(rr, 0)
        got, counts = certify_rows(rr, T, 0, worlds), count_rows(rr, T, 0, worlds=worlds)
        labels = list(rr.enc.labels)
        base = worlds.patterns.base(T)
        each = []
        for i, t in enumerate(POINTS):
            robust, label, possible, tie = brute_rows.certify(cols, y, reps, t)
            assert got.robust[i] == int(robust), (cols, reps, t)
            assert {labels[l] for l in range(len(labels)) if got.possible[i][l] == 1} == possible
            assert got.tie[i] == int(tie)
            wins, ties, total = brute_rows.counts(cols, y, reps, t)
            assert (counts[i].counts, counts[i].ties, counts[i].total) == (wins, ties, total)
            one = point_cleaning(worlds, worlds.point(T[i], base[i]))
            fewest, _ = brute_rows.min_clean(cols, y, reps, truth, [t])
            assert one.optimal and one.possible == (fewest is not None), (cols, reps, truth, t)
            if fewest is not None:
                rows = tuple(sorted(int(rr.enc.rows[r]) for r in one.rows))
                assert len(rows) == fewest
                assert brute_rows.robust_after(cols, y, reps, truth, t, rows)
            each.append(one)
        found = together(rr, T, each)
        targets = [POINTS[i] for i in found.targets]
        fewest, _ = brute_rows.min_clean(cols, y, reps, truth, targets)
        assert found.optimal or found.possible is False, (cols, reps, truth)
        if found.possible is False:
            assert fewest is None
        else:
            assert len(found.rows) == fewest
