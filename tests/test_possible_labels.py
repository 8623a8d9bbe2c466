"""possible_labels and tie_possible against the exhaustive possible-world reference.

A label is possible when some world predicts it as the unique argmax; tie_possible says
whether some world ties at the top (None: undecided, allowed only where the supports are
too many to list).  Cases: one-value domains, unseen test values, ties, alpha > 0.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import TIE, iter_world_predictions
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import Instance, alphas, instances

import nbcert
from nbcert import certification
from nbcert.estimator import CertifiedNB
from nbcert.reading.encoding import encode

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _frame(rows: str) -> pd.DataFrame:
    """A table from lines "f g y" ("." is a missing cell)."""
    cells = [line.split() for line in rows.strip().splitlines()]
    return pd.DataFrame(
        [[None if c == "." else c for c in r] for r in cells[1:]], columns=cells[0], dtype=object
    )


def brute_possible(inst, row, alpha) -> tuple:
    """(labels some world predicts uniquely, whether some world ties)."""
    preds = list(iter_world_predictions(inst.train, inst.label, row, alpha))
    return {p for p in preds if p is not TIE}, any(p is TIE for p in preds)


def check(inst, res, alpha):
    for row, possible, tie, robust in zip(
        inst.test_rows(), res["possible_labels"], res["tie_possible"], res["robust"]
    ):
        labels, ties = brute_possible(inst, row, alpha)
        assert set(possible) == labels and len(possible) == len(labels)
        assert tie is None or tie == ties
        assert bool(robust) == (len(labels) == 1 and not ties)  # certify agrees


@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_possible_labels_match_brute_force(inst, alpha):
    check(inst, nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha), alpha)


@SETTINGS
@given(inst=instances(max_missing=4), alpha=alphas)
def test_ties_are_decided_on_small_tables(inst, alpha):
    # at most 4 missing cells: every label has at most 2^4 count vectors, so no tie is undecided
    res = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    assert res["tie_possible"].notna().all()
    check(inst, res, alpha)


@pytest.mark.parametrize("checks", [0, 1])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_missing=4), alpha=alphas)
def test_ties_by_listing_every_support(checks, inst, alpha):
    # near-equal supports beyond TIE_CHECKS: the point's exact supports are listed instead
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(certification, "TIE_CHECKS", checks)
        res = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    assert res["tie_possible"].notna().all()
    check(inst, res, alpha)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(), alpha=alphas)
def test_iterate_reports_the_exact_possible_labels(inst, alpha):
    a = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    b = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, method="iterate")
    assert list(a["possible_labels"]) == list(b["possible_labels"])
    assert list(a["tie_possible"]) == list(b["tie_possible"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=instances(), alpha=alphas, seed=st.integers(0, 2**16), worlds=st.sampled_from([1, 3, 30])
)
def test_an_ad_row_says_what_its_sampled_worlds_saw(inst, alpha, seed, worlds):
    """AD's row is consistent with itself: robust iff its sampled worlds all predicted one
    label without a tie, and then that is its label; every label and tie it shows is a real
    world's; it has none of the exact columns it did not compute (Titanic: 7 of 30 rows said
    robust "yes" beside the possible labels "no, yes")."""
    res = nbcert.certify(
        inst.train, inst.test, inst.label, alpha=alpha, method="ad", n_worlds=worlds, seed=seed
    )
    assert "possible_labels" not in res and "tie_possible" not in res
    for row, robust, label, seen, tie, n in zip(
        inst.test_rows(),
        res["robust"],
        res["label"],
        res["sampled_labels"],
        res["sampled_tie"],
        res["worlds_sampled"],
    ):
        possible, can_tie = brute_possible(inst, row, alpha)
        assert set(seen) <= possible and (can_tie or not tie)
        assert 1 <= n <= worlds
        if robust:
            assert list(seen) == [label] and not tie and n == worlds
        else:
            assert label is None and (len(seen) >= 2 or tie)


# the budget cuts AD's batch of four worlds after the first of them, which disagrees: the
# batch AD samples without a budget also holds a tie, so the cut point is not AD's answer
AD_CUT_AT_A_DISAGREEMENT = Instance(
    train=_frame("y f0 f1 f2\np a a a\nq . a .\np . . .\np . . .\np b a a\nq a a a\nq a b a"),
    test=_frame("f0 f1 f2\na a a\na a a"),
    label="y",
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(), seed=st.integers(0, 2**16), budget=st.integers(0, 40))
@example(inst=AD_CUT_AT_A_DISAGREEMENT, seed=0, budget=4)
def test_ad_stops_between_worlds_and_says_where(inst, seed, budget):
    """AD with a stop asked before every world samples exactly ``budget`` worlds in all (or
    finishes first), yields the point it reached as stopped and ends there, whatever its cut
    batch showed; every point yielded not stopped is what AD decides without a stop (the
    same worlds from the same seed)."""
    from nbcert.methods import encode as enc_of
    from nbcert.methods import iter_ad_sampled

    enc = enc_of(inst.train, inst.label)
    T = enc.encode_test(inst.test[inst.features])
    asked = iter(range(10**9))
    seen = list(iter_ad_sampled(enc, T, n_worlds=8, seed=seed, stop=lambda: next(asked) >= budget))
    free = list(iter_ad_sampled(enc, T, n_worlds=8, seed=seed))
    assert not any(s.stopped for s in free) and sum(s.worlds for s in free) <= 8 * len(T)
    assert not any(s.stopped for s in seen[:-1])
    if seen[-1].stopped:
        assert sum(s.worlds for s in seen) == budget and not seen[-1].robust
        assert seen[-1].label == -1 and seen[:-1] == free[: len(seen) - 1]
    else:
        assert seen == free and sum(s.worlds for s in free) <= budget


@SETTINGS
@given(inst=instances(), alpha=alphas)
def test_estimator_possible_labels(inst, alpha):
    est = CertifiedNB(alpha=alpha).fit(inst.train[inst.features], inst.train[inst.label])
    got = est.possible_labels(inst.test[inst.features])
    expected = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)["possible_labels"]
    assert [list(g) for g in got] == [list(e) for e in expected]


CASES = {
    # name: (train, test row, alpha, possible labels, tie possible)
    "counting example": (
        "odor cap y\nn s p\nn . e\nn . e\nf s e\nf x e",
        {"odor": "n", "cap": "s"},
        0,
        ["e", "p"],
        True,
    ),
    "robust": (
        "odor cap y\nn s p\nn . e\nn . e\nf s e\nf x e",
        {"odor": "n", "cap": "x"},
        0,
        ["e"],
        False,
    ),
    "alpha > 0 makes it robust": (
        "odor cap y\nn s p\nn . e\nn . e\nf s e\nf x e",
        {"odor": "n", "cap": "s"},
        1,
        ["e"],
        False,
    ),
    "unseen value: every world ties": ("f y\na p\nb q\n. p", {"f": "z"}, 0, [], True),
    "unseen value, alpha > 0: the prior decides": (
        "f y\na p\nb q\n. p",
        {"f": "z"},
        1,
        ["p"],
        False,
    ),
    # g's domain is {x}: q's missing g cell is x in every world, so q reaches 1/4, p's 1/4 or 1/2
    "one-value domain: its cells are fixed": (
        "f g y\na x p\na . q\nb x q\n. x p",
        {"f": "a", "g": "x"},
        0,
        ["p"],
        True,
    ),
    # S_p = c_f / 10, S_q = c_g / 5 with c_f, c_g in {0, 1}: the only tie is both 0
    "a tie at zero only": (
        "f g y\n. x p\nb y p\na . q\na y q\na y q",
        {"f": "a", "g": "x"},
        0,
        ["p", "q"],
        True,
    ),
    "a tie inside the ranges only": ("f y\na p\nb p\n. q\n. q", {"f": "a"}, 0, ["p", "q"], True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hand_cases(case):
    train, row, alpha, labels, tie = CASES[case]
    train = _frame(train)
    res = nbcert.certify(train, pd.DataFrame([row], dtype=object), "y", alpha=alpha)
    assert list(res["possible_labels"].iloc[0]) == labels
    assert res["tie_possible"].iloc[0] is tie
    inst = type("I", (), {"train": train, "label": "y"})
    assert brute_possible(inst, row, Fraction(alpha)) == (
        set(labels),
        tie,
    )  # the case is designed right


def test_undecided_tie_beyond_the_listing_limit(monkeypatch):
    train = _frame("f y\na p\nb p\n. q\n. q")
    test = pd.DataFrame([{"f": "a"}], dtype=object)
    monkeypatch.setattr(
        certification, "TIE_VECTORS", 2
    )  # q has 3 count vectors (0, 1 or 2 cells take a)
    res = nbcert.certify(train, test, "y")
    assert res["tie_possible"].iloc[0] is None and list(res["possible_labels"].iloc[0]) == [
        "p",
        "q",
    ]


def test_possible_counts_is_vectorised_over_points():
    train = _frame("odor cap y\nn s p\nn . e\nn . e\nf s e\nf x e")
    enc = encode(train, "y")
    T = enc.encode_test(
        pd.DataFrame({"odor": ["n", "n", "z"], "cap": ["s", "x", "s"]}, dtype=object)
    )
    pos = certification.possible_index(enc, T, 0)
    assert pos.labels.shape == (3, 2) and pos.labels.dtype == bool
    assert np.array_equal(pos.labels, [[True, True], [True, False], [False, False]])  # labels e, p
    assert list(pos.tie) == [certification.TIE_YES, certification.TIE_NO, certification.TIE_YES]


def test_one_label_is_always_possible():
    train = _frame("f y\na p\n. p")
    res = nbcert.certify(train, pd.DataFrame([{"f": "z"}], dtype=object), "y")
    assert list(res["possible_labels"].iloc[0]) == ["p"] and res["tie_possible"].iloc[0] is False


def test_id_column_leads_the_result():
    train = _frame("odor cap y\nn s p\nn . e\nn . e\nf s e\nf x e")
    test = pd.DataFrame({"name": ["A", "B"], "odor": ["n", "n"], "cap": ["s", "x"]}, dtype=object)
    res = nbcert.certify(train, test, "y", id="name")
    assert list(res.columns) == ["name", "robust", "label", "possible_labels", "tie_possible"]
    assert list(res["name"]) == ["A", "B"]
    with pytest.raises(nbcert.InputError, match="no id column 'nom'"):
        nbcert.certify(train, test, "y", id="nom")
    with pytest.raises(nbcert.InputError, match="'odor' is a feature column"):
        nbcert.certify(train, test, "y", id="odor")
