"""One-point poisoning (OP) is minimal: held against brute force on every small table.

Random tables rarely give the cases where the paper's "one pure strategy suffices" fails
(a rival of one or two rows whose disagreeing cells run out, a cap that binds), so OP is
checked on *every* two-label table up to a size, as multisets of rows up to relabelling
(of labels and of each column's values), at every test point over the domains plus an
unseen value, against ``brute.min_poison_by_groups`` (every blanking, every world):

* alpha = 0: 2 features with domains of at most 2 and 3 values, 2 to 7 rows: 2,123 tables,
  22,513 (table, point) pairs (the paper's classifier; the smallest tables where the
  pure-strategy OP fails have 7 rows);
* alpha = 1/2 and 1: the same domains, 2 to 5 rows: 257 tables, 2,472 pairs each;
* three labels, alpha = 0: domains of 2 and 2 values, 3 to 5 rows.

The sizes are pinned below (``test_sizes``) so that a change to the enumeration shows.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from brute import min_poison_by_groups

from nbcert.poisoning import poison_encoded
from nbcert.reading.encoding import from_codes


def tables(max_rows: int, domains: tuple, labels: int = 2):
    """Every table of 2..max_rows rows with every label present, one per class of tables
    equal up to relabelling labels and each column's values, as rows (label, v_0, ...)."""
    types = [(l, *v) for l in range(labels) for v in itertools.product(*map(range, domains))]
    relabel = list(
        itertools.product(
            itertools.permutations(range(labels)), *map(itertools.permutations, map(range, domains))
        )
    )
    for n in range(labels, max_rows + 1):
        for rows in itertools.combinations_with_replacement(types, n):
            if len({r[0] for r in rows}) < labels:
                continue
            if any(
                sorted(tuple(p[v] for p, v in zip(perm, r)) for r in rows) < list(rows)
                for perm in relabel
            ):
                continue  # not the smallest of its class
            yield rows


def points(rows, d):
    """Every test point over each column's observed values and an unseen one (-1)."""
    seen = [sorted({r[1 + j] for r in rows}) for j in range(d)]
    return list(itertools.product(*[v + [-1] for v in seen]))


def check(rows, d, alpha):
    """OP's size at every point of the table against brute force; the mismatches."""
    y = [r[0] for r in rows]
    cols = [[r[1 + j] for r in rows] for j in range(d)]
    codes = [sorted(set(c)) for c in cols]
    local = np.array([[codes[j].index(v) for v in cols[j]] for j in range(d)]).T
    enc = from_codes(local, np.array(y), [len(c) for c in codes])
    bad = []
    for t in points(rows, d):
        t_local = np.array([codes[j].index(v) if v >= 0 else -1 for j, v in enumerate(t)])
        got = poison_encoded(enc, t_local, alpha=alpha)
        want = min_poison_by_groups(y, cols, [v if v >= 0 else "unseen" for v in t], alpha)
        if got.num_cells != want or (want is None) != (got.status == "impossible"):
            bad.append((rows, t, got.num_cells, want))
    return bad


CASES = {
    "alpha0": (7, (2, 3), 2, Fraction(0)),
    "alpha1/2": (5, (2, 3), 2, Fraction(1, 2)),
    "alpha1": (5, (2, 3), 2, Fraction(1)),
    "three_labels": (5, (2, 2), 3, Fraction(0)),
}
SHARDS = 6  # each case split so the workers share it


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("shard", range(SHARDS))
def test_op_is_minimal_on_every_small_table(case, shard):
    max_rows, domains, labels, alpha = CASES[case]
    bad = []
    for i, rows in enumerate(tables(max_rows, domains, labels)):
        if i % SHARDS == shard:
            bad += check(rows, len(domains), alpha)
    assert not bad, f"{len(bad)} points where OP is not the minimum, e.g. {bad[:3]}"


def test_sizes():
    got = {
        case: (len(ts := list(tables(n, dom, labels))), sum(len(points(r, len(dom))) for r in ts))
        for case, (n, dom, labels, _) in CASES.items()
    }
    assert got["alpha0"] == (2123, 22513)
    assert got["alpha1"] == got["alpha1/2"] == (257, 2472)
    assert got["three_labels"][0] > 0
