"""Hypothesis strategies for the repaired-rows model: small tables whose dirty rows have
one to four repairs (repairs agreeing on some cells, values never observed, one-repair
rows), test points with unseen values and blank cells."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from hypothesis import strategies as st
from strategies import _pools, instances


@dataclass
class RepairInstance:
    train: pd.DataFrame  # features and label "y", positions 0..n-1
    test: pd.DataFrame
    label: str
    repairs: dict  # {row: [ {feature name: value} per repair ]}
    truth: pd.DataFrame | None = None

    @property
    def features(self) -> list:
        return [c for c in self.train.columns if c != self.label]

    @property
    def frame(self) -> pd.DataFrame:
        """The repairs as a long table row, repair, column, value."""
        rows = [
            (r, f"r{i}", f, v)
            for r, reps in self.repairs.items()
            for i, rep in enumerate(reps)
            for f, v in rep.items()
        ]
        return pd.DataFrame(rows, columns=["row", "repair", "column", "value"], dtype=object)

    def brute(self) -> tuple:
        """(cols, y, repairs by feature index, test points, truth cols) for brute_rows."""
        feats = self.features
        cols = [[None if pd.isna(v) else v for v in self.train[f].tolist()] for f in feats]
        reps = {
            r: [{feats.index(f): v for f, v in rep.items()} for rep in rs]
            for r, rs in self.repairs.items()
        }
        points = [[None if pd.isna(v) else v for v in self.test[f].tolist()] for f in feats]
        points = [list(p) for p in zip(*points)]
        truth = None
        if self.truth is not None:
            truth = [self.truth[f].tolist() for f in feats]
        return cols, self.train[self.label].tolist(), reps, points, truth

    def __repr__(self) -> str:
        return (
            f"RepairInstance(\ntrain=\n{self.train.to_string()}\ntest=\n{self.test.to_string()}"
            f"\nrepairs={self.repairs!r}\ntruth=\n"
            f"{None if self.truth is None else self.truth.to_string()})"
        )


@st.composite
def repair_sets(draw, train: pd.DataFrame, features: list, *, max_repairs: int = 4) -> dict:
    """For every dirty row 1..max_repairs repairs; a repair copies the previous one's value
    in some cells (repairs that agree), draws from the observed values and values never
    observed otherwise."""
    out = {}
    pools = {f: sum(_pools(train, f), []) for f in features}
    for r in range(len(train)):
        miss = [f for f in features if pd.isna(train[f].iloc[r])]
        if not miss:
            continue
        reps = []
        for _ in range(draw(st.sampled_from([1, 2, 2, 3, 4][: max_repairs + 1]))):
            rep = {}
            for f in miss:
                if reps and draw(st.booleans()):
                    rep[f] = reps[-1][f]
                else:
                    rep[f] = draw(st.sampled_from(pools[f]))
            reps.append(rep)
        out[r] = reps
    return out


@st.composite
def truths(draw, inst: RepairInstance) -> pd.DataFrame:
    """The true table: each missing cell one of its row's repairs' values, or a value from
    the column's pool (observed or never observed), or the test's value."""
    truth = inst.train.copy()
    for r, reps in inst.repairs.items():
        for f in reps[0]:
            pool = sum(_pools(inst.train, f), []) + [v for v in inst.test[f] if not pd.isna(v)]
            options = [rep[f] for rep in reps] + pool
            truth.loc[r, f] = draw(st.sampled_from(options))
    return truth


@st.composite
def repair_instances(
    draw, *, max_rows=6, max_missing=6, max_repairs=4, blanks=True, truth=False, **kw
):
    inst = draw(instances(max_rows=max_rows, max_missing=max_missing, **kw))
    train = inst.train.reset_index(drop=True)
    reps = draw(repair_sets(train, inst.features, max_repairs=max_repairs))
    test = inst.test.reset_index(drop=True).drop(columns=[inst.label], errors="ignore")
    if blanks and draw(st.integers(0, 3)) == 0:
        i, f = draw(st.integers(0, len(test) - 1)), draw(st.sampled_from(inst.features))
        test.loc[i, f] = np.nan
    out = RepairInstance(train, test, inst.label, reps)
    if truth:
        out.truth = draw(truths(out))
    return out


__all__ = ["RepairInstance", "repair_sets", "repair_instances"]


@st.composite
def crowded_instances(draw, *, max_rows=6, max_repairs=4, truth=False):
    """Tables biased to where rows matter: two or three features, two small domains, most
    rows dirty in several features, repairs that disagree (so picks trade one feature's
    match against another's, and fronts have several points), test values from the domain."""
    d = draw(st.integers(2, 3))
    n = draw(st.integers(3, max_rows))
    y = [draw(st.sampled_from(["p", "q"])) for _ in range(n)]
    y[:2] = ["p", "q"]
    values = ["a", "b"]
    cols = [[draw(st.sampled_from(values)) for _ in range(n)] for _ in range(d)]
    for j in range(d):
        for r in range(1, n):
            if draw(st.integers(0, 2)):
                cols[j][r] = None
        cols[j][0] = cols[j][0] or "a"
    feats = [f"f{j}" for j in range(d)]
    train = pd.DataFrame({**dict(zip(feats, cols)), "y": y}, dtype=object)
    pool = values + (["c"] if draw(st.booleans()) else [])
    reps = {}
    for r in range(n):
        miss = [f for j, f in enumerate(feats) if cols[j][r] is None]
        if miss:
            k = draw(st.integers(1, max_repairs))
            reps[r] = [{f: draw(st.sampled_from(pool)) for f in miss} for _ in range(k)]
    tests = [[draw(st.sampled_from(values)) for _ in feats] for _ in range(draw(st.integers(1, 3)))]
    test = pd.DataFrame(tests, columns=feats, dtype=object)
    out = RepairInstance(train, test, "y", reps)
    if truth:
        out.truth = draw(truths(out))
    return out


__all__ += ["crowded_instances"]
