"""Blank test cells: Naive Bayes leaves a missing test feature out of the product (its factor
is 1), for every one-row question and front end, held against brute-force enumeration of
the possible worlds (``brute``: a blank test value skips its factor) on small random
tables with one-value domains, unseen values, ties and alpha > 0."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from brute import (
    TIE,
    brute_counts,
    brute_is_nonrobust_after,
    brute_is_robust_after_cleaning,
    brute_min_clean,
    brute_min_poison,
    brute_min_poison_together,
    brute_robust,
    iter_world_predictions,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import alphas, complete_instances, dirty_instances, instances

import nbcert
from nbcert.cli import main

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def with_blanks(draw, base, sparse: bool = False):
    """An instance whose test rows have some cells blanked (sometimes every cell of a row);
    ``sparse``: about one cell in four, and never a whole row."""
    inst = draw(base)
    test = inst.test.copy()
    for f in inst.features:
        cells = st.integers(0, 3).map(lambda v: v == 0) if sparse else st.booleans()
        mask = draw(st.lists(cells, min_size=len(test), max_size=len(test)))
        test.loc[np.array(mask, bool), f] = np.nan
    if not sparse and draw(st.booleans()):
        test.loc[test.index[0], inst.features] = np.nan  # a row known by the prior alone
    inst.test = test
    return inst


def rows(inst):
    return inst.test_rows()


@SETTINGS
@given(inst=with_blanks(instances()), alpha=alphas, method=st.sampled_from(["index", "iterate"]))
def test_certify_and_possible_labels_leave_blank_features_out(inst, alpha, method):
    res = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, method=method)
    for row, robust, label, possible, tie in zip(
        rows(inst), res.robust, res.label, res.possible_labels, res.tie_possible
    ):
        want = brute_robust(inst.train, inst.label, row, alpha)
        assert (bool(robust), label) == want
        preds = list(iter_world_predictions(inst.train, inst.label, row, alpha))
        assert set(possible) == {p for p in preds if p is not TIE}
        assert tie is None or tie == any(p is TIE for p in preds)


@SETTINGS
@given(inst=with_blanks(instances()), alpha=alphas)
def test_counts_leave_blank_features_out_and_count_every_world(inst, alpha):
    """The left-out columns' missing cells still multiply the worlds."""
    for row, wc in zip(
        rows(inst),
        nbcert.count_worlds(inst.train, inst.test, inst.label, alpha=alpha, method="exact"),
    ):
        counts, ties = brute_counts(inst.train, inst.label, row, alpha)
        assert wc.counts == counts and wc.ties == ties
        assert wc.total == sum(counts.values()) + ties
        assert wc.total_text == str(wc.total)  # the whole table's worlds, as JSON shows them


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=with_blanks(complete_instances(max_rows=5, max_features=3)))
def test_op_poisons_on_the_observed_features(inst):
    for row, res in zip(rows(inst), nbcert.poison(inst.train, inst.test, inst.label)):
        want = brute_min_poison(inst.train, inst.label, row)
        if want is None:
            assert res.num_cells is None and res.status == "impossible"
        else:
            assert res.num_cells == want
            blanked = {c for _, c in res.cells}
            blank = {f for f in inst.features if pd.isna(row[f])}
            assert not blanked & blank  # a left-out column's cell never matters


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=with_blanks(
        st.one_of(
            complete_instances(max_rows=5, max_features=2, min_labels=2, unseen=False),
            complete_instances(max_rows=4, max_features=3, min_labels=2, unseen=False),
        )
    )
)
def test_poisoning_rows_together_leaves_blank_features_out(inst):
    """Every claim of poison_together (cells that work, a proven bound, optimal, impossible) is
    true on the rows with their blank features left out; these tables are small enough
    that the exact method proves the optimum."""
    best = brute_min_poison_together(inst.train, inst.label, rows(inst))
    event(f"together {'none' if best is None else min(best, 3)}+ cells")
    for method in ("exact", "greedy"):
        res = nbcert.poison_together(
            inst.train, inst.test, inst.label, method=method, time_limit=60
        )
        if res.lower_bound is not None and best is not None:
            assert res.lower_bound <= best, (method, res, best)
        if not res.possible:
            assert not res.optimal or best is None, (method, res, best)
            continue
        assert all(
            brute_is_nonrobust_after(inst.train, inst.label, r, list(res.cells)) for r in rows(inst)
        ), (method, res)
        assert best is not None and res.num_cells >= best
        if method == "exact":
            assert res.search_optimal and res.num_cells == best, (res, best)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=st.one_of(
        with_blanks(dirty_instances(max_rows=8, max_features=3, max_missing=6, max_tests=3)),
        with_blanks(
            dirty_instances(max_rows=6, max_features=3, max_missing=6, min_labels=2, max_tests=4),
            sparse=True,
        ),
    ),
    alpha=st.sampled_from([0, 0, Fraction(1, 2)]),
)
def test_cleaning_with_the_truth_leaves_blank_features_out(inst, alpha):
    """clean --truth on rows with blank cells: each row's minimum and the rows' together
    (proven optimal where these tables are small enough, at alpha = 0) are enumeration's,
    and the policy's path certifies what it claims."""
    everyone = rows(inst)
    for method in ("exact", "greedy") if alpha == 0 else ("greedy",):
        rep = nbcert.clean_with_truth(
            inst.dirty, inst.truth, inst.test, inst.label, alpha=alpha, method=method
        )
        for row, point in zip(everyone, rep.points):
            want = brute_min_clean(inst.dirty, inst.truth, inst.label, [row], alpha)
            if pd.isna(list(row.values())).any() and want:
                event("a row with a blank cell needs cleaning")
            assert point.num_cells == want, (row, point, want)
            if want is not None:
                assert brute_is_robust_after_cleaning(
                    inst.dirty, inst.truth, inst.label, row, point.cells, alpha
                )
        # the rows no cleaning certifies are set aside: the answer is about the others
        able = [r for r, pt in zip(everyone, rep.points) if pt.possible]
        assert list(rep.together.excluded) == [
            p for p, pt in enumerate(rep.points) if not pt.possible
        ]
        best = brute_min_clean(inst.dirty, inst.truth, inst.label, able, alpha)
        tg = rep.together
        event(f"{method}: together {'none' if best is None else min(best, 3)}+ cells")
        if tg.lower_bound is not None and best is not None:
            assert tg.lower_bound <= best, (method, tg, best)
        if not tg.possible:
            assert not tg.optimal or best is None, (method, tg, best)
        else:
            assert all(
                brute_is_robust_after_cleaning(
                    inst.dirty, inst.truth, inst.label, r, tg.cells, alpha
                )
                for r in able
            ), (method, tg)
            assert best is not None and tg.num_cells >= best
            if method == "exact":
                assert tg.search_optimal and tg.num_cells == best, (tg, best)
        certified = all(
            brute_is_robust_after_cleaning(inst.dirty, inst.truth, inst.label, r, rep.path, alpha)
            for r in able
        )
        assert rep.path_certifies == certified


def test_one_blank_cell_by_hand():
    """f says p, g says q more strongly; without g the row is p's, without f it is q's."""
    train = pd.DataFrame(
        {
            "f": ["a", "a", "a", "b", "b", None],
            "g": ["x", "y", "y", "y", "y", "y"],
            "y": ["p", "p", "p", "q", "q", "q"],
        }
    )
    test = pd.DataFrame({"f": ["a", None], "g": [None, "y"]})
    res = nbcert.certify(train, test, "y")
    assert res.label.tolist() == ["p", "q"] and res.robust.all()
    counts = nbcert.count_worlds(train, test, "y")
    assert [c.total for c in counts] == [2, 2]  # the blank f cell is still filled 2 ways


def test_blank_test_cells_refused_when_asked_and_named_by_column():
    train = pd.DataFrame({"f": ["a", "b"], "g": ["x", "y"], "y": ["p", "q"]})
    test = pd.DataFrame({"f": ["a", "b"], "g": ["x", None]})
    with pytest.raises(
        nbcert.InputError, match=r"^test table: data row 1 has a missing value in column 'g'"
    ):
        nbcert.certify(train, test, "y", test_missing="error")


def test_the_command_takes_blank_test_cells(tmp_path, capsys):
    train, test = tmp_path / "t.csv", tmp_path / "q.csv"
    train.write_text("f,g,y\na,x,p\na,y,p\nb,y,q\nb,x,q\n")
    test.write_text("f,g\na,\n,y\n")
    argv = ["--train", train, "--test", test, "--label", "y", "--json"]
    for command in ("certify", "count", "poison"):
        assert main([command, *map(str, argv)]) == 0
        out, _ = capsys.readouterr()
        assert len(json.loads(out)["results"]) == 2
    assert main(["certify", *map(str, argv), "--test-missing", "error"]) == 2
    assert "column 'g'" in capsys.readouterr().err


@SETTINGS
@given(inst=with_blanks(instances()), alpha=alphas)
def test_the_estimator_leaves_blank_features_out(inst, alpha):
    """predict on a row with blank cells is predict of the model fitted without those
    columns; certify and possible labels are the API's."""
    X, y = inst.train[inst.features], inst.train[inst.label]
    est = nbcert.CertifiedNB(alpha=alpha).fit(X, y)
    api = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    assert est.certify(inst.test[inst.features]).tolist() == api.robust.tolist()
    assert [list(p) for p in est.possible_labels(inst.test[inst.features])] == [
        list(p) for p in api.possible_labels
    ]
    got = est.predict(inst.test[inst.features])
    for i, row in enumerate(rows(inst)):
        kept = [f for f in inst.features if not pd.isna(row[f])]
        if kept:
            alone = nbcert.CertifiedNB(alpha=alpha).fit(X[kept], y)
            assert got[i] == alone.predict(inst.test[kept].iloc[[i]])[0]


def test_cross_validation_and_grid_search_on_dirty_x():
    """A pipeline of Binner and CertifiedNB scores finite numbers on X with blanks."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline

    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.15] = np.nan
    pipe = make_pipeline(nbcert.Binner(4), nbcert.CertifiedNB(1))
    scores = cross_val_score(pipe, X, y, cv=5)
    assert np.isfinite(scores).all() and scores.mean() > 0.8
    grid = GridSearchCV(pipe, {"certifiednb__alpha": [0.5, 1, 2]}, cv=3).fit(X, y)
    assert np.isfinite(grid.best_score_)


@pytest.mark.parametrize("stream", [False, True])
def test_every_input_path_gives_the_same_answers(tmp_path, stream):
    """A CSV path, read whole or streamed (OP's second pass included), answers as the
    DataFrame does."""
    train = pd.DataFrame(
        {
            "f": ["a", "a", "b", "b", "a", "c"],
            "g": ["x", "y", "y", "x", "x", "y"],
            "y": ["p", "p", "q", "q", "p", "q"],
        }
    )
    test = pd.DataFrame({"f": ["a", None, None, "c"], "g": [None, "y", None, "x"]})
    path = tmp_path / "train.csv"
    train.to_csv(path, index=False)
    for ask in (nbcert.certify, nbcert.count_worlds, nbcert.poison):
        got = ask(str(path), test, "y", stream=stream)
        want = ask(train, test, "y")
        if isinstance(want, pd.DataFrame):
            pd.testing.assert_frame_equal(got, want)
        else:
            assert [str(g) for g in got] == [str(w) for w in want]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_features=3), alpha=alphas)
def test_cleaning_advice_leaves_a_blank_column_out(inst, alpha):
    """Test rows all blank in one column are advised as on the table without it."""
    if len(inst.features) < 2:
        return
    gone = inst.features[0]
    blanked = inst.test.assign(**{gone: np.nan})
    got = nbcert.clean(inst.train, blanked, inst.label, alpha=alpha, top=50)
    want = nbcert.clean(
        inst.train.drop(columns=gone), inst.test.drop(columns=gone), inst.label, alpha=alpha, top=50
    )
    # equal frames, a missing test_value (NaN) equal to itself
    pd.testing.assert_frame_equal(got.drop(columns="score"), want.drop(columns="score"))
    assert np.allclose(got.score.astype(float), want.score.astype(float))
