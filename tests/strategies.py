"""Hypothesis strategies: small random training tables, test points and alphas.

Instances are kept small (at most ``max_missing`` missing cells, domains of at most
three values) so the brute-force reference stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd
from hypothesis import strategies as st

LABEL = "y"
VALUES = ["a", "b", "c"]
LABELS = ["p", "q", "r", "s"]
UNSEEN = "z"
# integer-valued tables too: values, labels and the unseen test value
INT_VALUES, INT_LABELS, INT_UNSEEN = [0, 1, 2], [10, 20, 30, 40], 99

# huge alphas too: as alpha grows every factor tends to 1/delta_j, supports differ by
# less than a float can see and only the exact comparison decides
alphas = st.sampled_from(
    [0, 1, Fraction(1, 2), 0, 1, Fraction(1, 2), Fraction(10**308), Fraction(3, 7) * 10**300]
)


@dataclass
class Instance:
    train: pd.DataFrame
    test: pd.DataFrame
    label: str

    @property
    def features(self) -> list[str]:
        return [c for c in self.train.columns if c != self.label]

    def test_rows(self):
        """Test rows as dicts (feature -> value), in order."""
        return [{f: self.test[f].iloc[i] for f in self.features} for i in range(len(self.test))]

    def __repr__(self) -> str:  # readable falsifying examples
        return (
            f"Instance(label={self.label!r},\ntrain=\n{self.train.to_string()}\n"
            f"test=\n{self.test.to_string()})"
        )


@st.composite
def instances(
    draw,
    *,
    max_rows: int = 7,
    max_features: int = 3,
    max_missing: int = 8,
    complete: bool = False,
    max_tests: int = 3,
    unseen: bool = True,
    min_labels: int = 1,
    int_values: bool = True,
) -> Instance:
    values, all_labels, unseen_value = VALUES, LABELS, UNSEEN
    if int_values and draw(st.sampled_from([False, False, False, True])):
        values, all_labels, unseen_value = INT_VALUES, INT_LABELS, INT_UNSEEN
    lo = max(1, min_labels)
    n = draw(st.one_of(st.integers(min(3, max_rows), max_rows), st.integers(lo, max_rows)))
    d = draw(st.integers(1, max_features))
    # one label occasionally, otherwise 2-4
    choices = [2, 3, 2, 4, 3, 2, 1] if min_labels <= 1 else [2, 3, 2, 4]
    n_labels = draw(st.sampled_from(choices))
    labels = all_labels[:n_labels]
    y = [draw(st.sampled_from(labels)) for _ in range(n)]
    y[:n_labels] = labels[:n]  # every drawn label occurs (as far as n allows)
    y = y[:n]
    if draw(st.booleans()):
        y = y[::-1]
    dom_sizes = [draw(st.sampled_from([2, 3, 2, 1])) for _ in range(d)]
    cols = [[draw(st.sampled_from(values[:k])) for _ in range(n)] for k in dom_sizes]

    if not complete:
        rate = draw(st.sampled_from([30, 60, 10, 100, 30, 60, 0]))
        mask = [[draw(st.integers(0, 99)) < rate for _ in range(n)] for _ in range(d)]
        for j in range(d):  # keep at least one observed value per column
            anchor = draw(st.integers(0, n - 1))
            mask[j][anchor] = False
        kept = 0
        for r in range(n):
            for j in range(d):
                if mask[j][r]:
                    if kept < max_missing:
                        cols[j][r] = np.nan
                        kept += 1
    feats = [f"f{j}" for j in range(d)]
    data = {f: pd.Series(c, dtype=object) for f, c in zip(feats, cols)}
    label_pos = draw(st.integers(0, d))
    order = feats[:label_pos] + [LABEL] + feats[label_pos:]
    data[LABEL] = pd.Series(y, dtype=object)
    train = pd.DataFrame({c: data[c] for c in order})
    if draw(st.booleans()):
        # a non-default index: cells are addressed by position, never by index label
        train.index = pd.Index([100 + 7 * i for i in reversed(range(n))])

    k = draw(st.integers(1, max_tests))
    test_cols = {}
    for j, f in enumerate(feats):
        observed = [v for v in cols[j] if not (isinstance(v, float) and np.isnan(v))]
        pool = sorted(set(observed))
        choices = st.sampled_from(pool)
        if unseen:
            choices = st.one_of(choices, st.just(unseen_value)) if draw(st.booleans()) else choices
        test_cols[f] = [draw(choices) for _ in range(k)]
    test = pd.DataFrame(test_cols, dtype=object)
    if draw(st.booleans()):
        test[LABEL] = [draw(st.sampled_from(all_labels)) for _ in range(k)]  # ignored by nbcert
    test.index = pd.Index([f"t{i}" for i in range(k)]) if draw(st.booleans()) else test.index
    return Instance(train=train, test=test, label=LABEL)


def complete_instances(**kw) -> st.SearchStrategy[Instance]:
    return instances(complete=True, **kw)


def n_missing(inst: Instance) -> int:
    return int(inst.train[inst.features].isna().to_numpy().sum())


@dataclass
class DirtyInstance(Instance):
    """An Instance whose training table is dirty, with the complete table its missing cells
    were blanked from."""

    truth: pd.DataFrame = None

    @property
    def dirty(self) -> pd.DataFrame:
        return self.train

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f"\ntruth=\n{self.truth.to_string()})"


@st.composite
def dirty_instances(
    draw,
    *,
    max_rows: int = 6,
    max_features: int = 3,
    max_missing: int = 6,
    max_tests: int = 2,
    min_labels: int = 1,
) -> DirtyInstance:
    """Blank cells of a complete instance.  Per column: cells at a random rate, every cell of
    one value (its truth is then new to the dirty domain: a domain-changing cleaning), or
    none; each column keeps one observed cell and at most ``max_missing`` cells are blanked."""
    inst = draw(
        instances(
            complete=True,
            max_rows=max_rows,
            max_features=max_features,
            max_tests=max_tests,
            min_labels=min_labels,
        )
    )
    truth = inst.train.reset_index(drop=True)
    dirty = truth.copy().astype(object)
    n, budget = len(truth), max_missing
    for f in inst.features:
        col = truth[f].tolist()
        mode = draw(st.sampled_from(["rate", "value", "rate", "none"]))
        if mode == "value":
            v = draw(st.sampled_from(sorted(set(col))))
            rows = [r for r in range(n) if col[r] == v]
        elif mode == "rate":
            rate = draw(st.sampled_from([30, 60, 100]))
            rows = [r for r in range(n) if draw(st.integers(0, 99)) < rate]
        else:
            rows = []
        if len(rows) == n:
            rows.remove(draw(st.sampled_from(rows)))  # keep one observed cell
        for r in rows[:budget]:
            dirty.iloc[r, dirty.columns.get_loc(f)] = np.nan
        budget -= min(len(rows), budget)
    test = inst.test.reset_index(drop=True)
    if draw(st.booleans()):  # test values that occur only among the blanked cells
        for f in inst.features:
            hidden = sorted(set(truth[f][dirty[f].isna()]) - set(truth[f][dirty[f].notna()]))
            if hidden and draw(st.booleans()):
                test.loc[0, f] = draw(st.sampled_from(hidden))
    return DirtyInstance(train=dirty, test=test, label=inst.label, truth=truth)


def random_encoded(seed, n=400, d=5, rate=0.3):
    """An encoded synthetic table (domains of 1-4 values, a share ``rate`` of cells
    missing, every value observed) and 12 test points, the first with an unseen value."""
    from nbcert.reading.encoding import from_codes
    from nbcert.synthetic import synthetic_table

    rng = np.random.default_rng(seed)
    delta = rng.integers(1, 5, d)
    _, X, y, T, _ = synthetic_table(n, d, 4, 3, seed=seed, points=12)
    X = np.minimum(X, delta - 1)
    X[rng.random(X.shape) < rate] = -1
    X[:4] = np.minimum(np.arange(4)[:, None], delta - 1)  # every value observed
    T = np.minimum(T, delta - 1)
    T[0, 0] = -1  # a value unseen in training
    return from_codes(X, y, delta), T


@st.composite
def small_rival_instances(draw, *, max_major: int = 7) -> Instance:
    """Complete tables biased to poisoning's boundaries: a label of one or two rows beside
    a larger one (and sometimes a third of one row), whose disagreeing cells often hold
    values no other label has (so "keep one cell of each value" binds), and test points
    whose values come, column by column, from the larger label's cells (so it is predicted,
    and the rival's few cells run out before its largest count catches up)."""
    d = draw(st.sampled_from([2, 2, 1]))
    n_major = draw(st.sampled_from([n for n in (6, 6, 5, 7, 4, 3) if n <= max_major]))
    n_rival = draw(st.sampled_from([1, 1, 2]))
    third = draw(st.integers(0, 3)) == 0
    y = ["p"] * n_major + ["q"] * n_rival + (["r"] if third else [])
    cols = []
    for _ in range(d):
        vals = VALUES[: draw(st.sampled_from([1, 2, 3, 3]))]
        major = [draw(st.sampled_from(vals)) for _ in range(n_major)]
        own = [v for v in vals if v not in major] or vals
        rival = [draw(st.sampled_from(own if draw(st.booleans()) else vals)) for _ in y[n_major:]]
        cols.append(major + rival)
    tests = []
    for _ in range(draw(st.integers(1, 2))):
        pools = [
            c[:n_major] if draw(st.integers(0, 5)) else sorted(set(c)) + [UNSEEN] for c in cols
        ]
        tests.append([draw(st.sampled_from(pool)) for pool in pools])
    feats = [f"f{j}" for j in range(d)]
    train = pd.DataFrame({**{f: c for f, c in zip(feats, cols)}, LABEL: y}, dtype=object)
    test = pd.DataFrame(tests, columns=feats, dtype=object)
    return Instance(train=train, test=test, label=LABEL)


@dataclass
class CandidateInstance(Instance):
    """An Instance with candidate repairs: ``candidates`` {(row position, feature): values}
    for some of its missing cells; ``frame`` the same as a long table (row, column, value)."""

    candidates: dict = None

    @property
    def frame(self) -> pd.DataFrame:
        rows = [(r, f, v) for (r, f), vs in self.candidates.items() for v in vs]
        return pd.DataFrame(rows, columns=["row", "column", "value"], dtype=object)

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f"\ncandidates={self.candidates!r})"


def _pools(train: pd.DataFrame, f: str) -> tuple:
    """(the column's observed values, values never observed that a candidate may name)."""
    observed = sorted(set(train[f].dropna()), key=repr)
    ints = bool(observed) and all(isinstance(v, (int, np.integer)) for v in observed)
    fresh = [3, INT_UNSEEN] if ints else ["d", UNSEEN]
    return observed, fresh


@st.composite
def candidate_sets(draw, train: pd.DataFrame, features: list, *, only_observed: bool = False):
    """Candidates for some missing cells: one to three values, from the observed domain
    and (unless ``only_observed``) values never observed, the test's unseen value among
    them; some cells are left unlisted (they keep the domain)."""
    out = {}
    for f in features:
        observed, fresh = _pools(train, f)
        pool = observed if only_observed else observed + fresh
        for r in np.flatnonzero(train[f].isna().to_numpy()).tolist():
            if draw(st.integers(0, 3)) == 0:
                continue  # not listed: the whole domain
            k = draw(st.sampled_from([1, 1, 2, 2, 3]))
            out[(r, f)] = sorted(
                set(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=k))), key=repr
            )
    return out


@st.composite
def candidate_instances(draw, *, only_observed: bool = False, **kw) -> CandidateInstance:
    """Instances (``instances``' options) with candidate repairs for some missing cells."""
    inst = draw(instances(**kw))
    train = inst.train.reset_index(drop=True)
    cands = draw(candidate_sets(train, inst.features, only_observed=only_observed))
    return CandidateInstance(train=train, test=inst.test, label=inst.label, candidates=cands)
