"""Candidate repairs: certification, possible labels and counts over the worlds that the
candidates allow, against enumeration of those worlds (``brute.Table`` with per-cell
candidate sets); alpha's domain with candidates never observed; the candidate table's and
CPClean's repairs folder's readers and their one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from brute import (
    brute_counts,
    brute_is_robust_after_cleaning,
    brute_labels,
    brute_min_clean,
    brute_min_clean_some,
    brute_robust,
    brute_total,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import alphas, candidate_instances

import nbcert

SETTINGS = dict(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _events(inst):
    for (_, f), vs in inst.candidates.items():
        observed = set(inst.train[f].dropna())
        if len(vs) == 1:
            event("a cell with one candidate")
        if set(vs) - observed:
            event("a candidate never observed")
    if any(
        v not in set(inst.train[f].dropna()) for row in inst.test_rows() for f, v in row.items()
    ):
        event("a test value not observed")


def _blanked(inst, data):
    """The instance with some test cells blank (each row's feature left out)."""
    test = inst.test.copy().astype(object)
    for f in inst.features:
        for i in range(len(test)):
            if data.draw(st.integers(0, 4)) == 0:
                test.iloc[i, test.columns.get_loc(f)] = None
                event("a blank test cell")
    inst.test = test
    return inst


@settings(max_examples=600, **SETTINGS)
@given(candidate_instances(max_missing=7), alphas, st.data())
def test_certify_with_candidates_matches_enumeration(inst, alpha, data):
    inst = _blanked(inst, data)
    _events(inst)
    got = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, candidates=inst.frame)
    for row, (_, r) in zip(inst.test_rows(), got.iterrows()):
        robust, label = brute_robust(inst.train, inst.label, row, alpha, inst.candidates)
        assert (bool(r.robust), r.label) == (robust, label), row
        labels, tie = brute_labels(inst.train, inst.label, row, alpha, inst.candidates)
        assert set(r.possible_labels) == labels, row
        if r.tie_possible is not None:
            assert r.tie_possible == tie, row


@settings(max_examples=400, **SETTINGS)
@given(
    candidate_instances(max_missing=6),
    alphas,
    st.sampled_from(["exact", "batch", "bounds"]),
    st.data(),
)
def test_counts_with_candidates_match_enumeration(inst, alpha, method, data):
    inst = _blanked(inst, data)
    _events(inst)
    got = nbcert.count_worlds(
        inst.train, inst.test, inst.label, alpha=alpha, method=method, candidates=inst.frame
    )
    total = brute_total(inst.train, inst.label, inst.candidates)
    for row, wc in zip(inst.test_rows(), got):
        counts, ties = brute_counts(inst.train, inst.label, row, alpha, inst.candidates)
        assert wc.total == total and int(wc.total_text) == total
        if method == "bounds":
            for lab, (lo, hi) in wc.proven.items():
                assert lo <= counts[lab] <= hi, (row, lab)
            assert wc.proven_ties[0] <= ties <= wc.proven_ties[1]
        else:
            assert wc.counts == counts and wc.ties == ties, row


@settings(max_examples=200, **SETTINGS)
@given(candidate_instances(max_missing=6, only_observed=True), alphas)
def test_candidates_in_the_observed_domain_never_lose_a_certain_row(inst, alpha):
    """Where every candidate is an observed value (binned numbers are), the domain is the
    same and the worlds are a subset: a row certain without candidates stays certain."""
    without = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    with_ = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, candidates=inst.frame)
    assert (with_.robust | ~without.robust).all()
    assert (with_.label[without.robust] == without.label[without.robust]).all()
    if (with_.robust & ~without.robust).any():
        event("candidates certify a row the domain does not")


@settings(max_examples=200, **SETTINGS)
@given(candidate_instances(max_missing=6), alphas)
def test_listing_every_cell_with_its_domain_is_no_candidates(inst, alpha):
    """Candidates that are each cell's whole domain change nothing."""
    domain = {f: sorted(set(inst.train[f].dropna()), key=repr) for f in inst.features}
    every = [
        (r, f, v)
        for f in inst.features
        for r in np.flatnonzero(inst.train[f].isna().to_numpy()).tolist()
        for v in domain[f]
    ]
    frame = pd.DataFrame(every, columns=["row", "column", "value"], dtype=object)
    plain = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha)
    listed = nbcert.certify(inst.train, inst.test, inst.label, alpha=alpha, candidates=frame)
    pd.testing.assert_frame_equal(plain, listed)


def test_alpha_counts_candidate_values_in_the_domain():
    """With alpha > 0 a value only a candidate names is in the column's domain: the one
    world here is classified as scikit-learn's CategoricalNB classifies the filled table
    given those categories (|domain| 3), and that decides it: with the 2 observed values
    as the domain, the same counts would predict q."""
    from fractions import Fraction

    from sklearn.naive_bayes import CategoricalNB

    train = pd.DataFrame({"f": ["a", "b", "b", "b", "a", "a", None], "y": list("ppppqqp")})
    cands = pd.DataFrame({"row": [6], "column": ["f"], "value": ["c"]})
    test = pd.DataFrame({"f": ["a"]})
    got = nbcert.certify(train, test, "y", alpha=1, candidates=cands)
    codes = train.fillna({"f": "c"})["f"].map({"a": 0, "b": 1, "c": 2}).to_numpy()[:, None]
    said = CategoricalNB(alpha=1, min_categories=3).fit(codes, train["y"]).predict([[0]])[0]
    assert got.robust.iloc[0] and got.label.iloc[0] == said == "p"

    def support(N, c, delta):  # N_l / n * (c + 1) / (N_l + delta)
        return Fraction(N, 7) * Fraction(c + 1, N + delta)

    assert support(5, 1, 2) < support(2, 2, 2)  # |domain| 2: q would win


# ---------------------------------------------------------------------------------------
# reading candidates


TRAIN = pd.DataFrame({"f": ["a", None, "b", None], "g": [1.5, 2.0, None, 3.0], "y": list("pqpq")})
TEST = pd.DataFrame({"f": ["a"], "g": [2.0]})


@pytest.mark.parametrize(
    "rows, words",
    [
        ([(1, "h", "a")], "data row 0: column 'h' is not a feature column of training table"),
        ([(1, "f", "a"), (7, "f", "a")], "data row 1: row 7 is not a data row of training table"),
        ([(0, "f", "a")], "data row 0: row 0, column 'f' is not missing in training table"),
        ([(1, "f", None)], "data row 0: it has no value"),
        ([(2, "g", "x")], "data row 0: 'x' is not a number, but column 'g' holds numbers"),
    ],
)
def test_candidate_table_errors_name_the_entry(rows, words):
    cands = pd.DataFrame(rows, columns=["row", "column", "value"], dtype=object)
    with pytest.raises(nbcert.InputError, match=f"^candidate table: {words}"):
        nbcert.certify(TRAIN, TEST, "y", candidates=cands)


def test_a_table_without_the_columns_is_refused():
    with pytest.raises(nbcert.InputError, match="no column 'value'"):
        nbcert.certify(TRAIN, TEST, "y", candidates=pd.DataFrame({"row": [1], "column": ["f"]}))


def test_poisoning_refuses_candidates_with_its_reason():
    with pytest.raises(nbcert.ParameterError, match="no missing cell to give candidates to"):
        nbcert.poison(TRAIN.fillna("a"), TEST, "y", candidates=pd.DataFrame())


def test_binned_candidates_take_the_training_edges():
    """A numeric candidate is binned as the column is: 2.9 falls in the bin that observed
    values share, so it is no new value."""
    cands = pd.DataFrame({"row": [2, 2], "column": ["g", "g"], "value": ["2.9", "1.4"]})
    got = nbcert.count_worlds(TRAIN, TEST, "y", bins=2, candidates=cands, method="exact")
    assert got[0].total == 2 * 2 * 2  # f's two blanks over {a, b}, g's blank over 2 bins


def _repairs(folder, copies):
    folder.mkdir()
    for name, rows in copies.items():
        (folder / f"{name}.csv").write_text("f,g\n" + "\n".join(rows) + "\n")
    return folder


def test_cpclean_repairs_folder_gives_each_missing_cell_its_values(tmp_path):
    """A repaired copy per imputer; a missing cell's candidates are the values the copies
    give it (a copy's blank skipped), observed cells are not read."""
    from nbcert.reading.candidates import from_repairs

    folder = _repairs(
        tmp_path / "X_train_repairs",
        {
            "mean": ["a,1.5", "a,2.0", "b,2.2", "a,3.0"],
            "mode": ["x,1.5", "b,2.0", "b,1.5", ",3.0"],
            "dummy": ["a,9", "missing,2.0", "b,2.2", "missing,3.0"],
        },
    )
    got = from_repairs(folder, TRAIN, "y", "X_train_repairs")
    cells = {(r, c): set(g["value"]) for (r, c), g in got.groupby(["row", "column"])}
    assert cells == {
        (1, "f"): {"a", "b", "missing"},
        (3, "f"): {"a", "missing"},
        (2, "g"): {"2.2", "1.5"},
    }
    with_ = nbcert.certify(TRAIN, TEST, "y", candidates=str(folder))
    by_table = nbcert.certify(TRAIN, TEST, "y", candidates=got)
    pd.testing.assert_frame_equal(with_, by_table)


@pytest.mark.parametrize(
    "copies, words",
    [
        ({}, "no CSV files in the folder"),
        ({"mean": ["a", "b", "a", "a"]}, "mean.csv: no column 'g'"),
        ({"mean": ["a,1", "b,2"]}, "mean.csv: it has 2 data rows, the training table 4"),
    ],
)
def test_cpclean_repairs_folder_errors_are_one_line(tmp_path, copies, words):
    folder = tmp_path / "reps"
    folder.mkdir()
    for name, rows in copies.items():
        head = "f" if all("," not in r for r in rows) else "f,g"
        (folder / f"{name}.csv").write_text(head + "\n" + "\n".join(rows) + "\n")
    with pytest.raises(nbcert.InputError, match=words):
        nbcert.certify(TRAIN, TEST, "y", candidates=str(folder))


def test_montecarlo_samples_the_candidate_worlds():
    """Monte-Carlo draws beta from its exact law (the ways over their sum): on a table whose
    counts are known, its shares are the exact ones to within sampling error."""
    rng = np.random.default_rng(7)
    n = 40
    train = pd.DataFrame(
        {
            "f": rng.choice(["a", "b", "c"], n),
            "g": rng.choice(["x", "y"], n),
            "y": rng.choice(["p", "q"], n),
        }
    )
    train.loc[rng.random(n) < 0.4, "f"] = None
    blanks = np.flatnonzero(train["f"].isna().to_numpy())
    cands = pd.DataFrame(
        [(r, "f", v) for r in blanks for v in (["a", "d"] if r % 2 else ["b", "c", "a"])],
        columns=["row", "column", "value"],
    )
    test = pd.DataFrame({"f": ["a"], "g": ["x"]})
    (exact,) = nbcert.count_worlds(train, test, "y", method="exact", candidates=cands)
    (mc,) = nbcert.count_worlds(
        train, test, "y", method="montecarlo", n_worlds=200_000, seed=1, candidates=cands
    )
    for lab, c in exact.counts.items():
        lo, hi = mc.intervals[lab]
        assert lo <= c / exact.total <= hi and abs(mc.fractions[lab] - c / exact.total) < 0.01


# ---------------------------------------------------------------------------------------
# cleaning with the truth and candidates (alpha = 0)


@st.composite
def dirty_with_candidates(draw, **kw):
    from strategies import candidate_sets, dirty_instances

    inst = draw(dirty_instances(**kw))
    return inst, draw(candidate_sets(inst.dirty, inst.features))


def _frame(cands: dict) -> pd.DataFrame:
    rows = [(r, f, v) for (r, f), vs in cands.items() for v in vs]
    return pd.DataFrame(rows, columns=["row", "column", "value"], dtype=object)


@settings(max_examples=400, **SETTINGS)
@given(dirty_with_candidates(max_rows=6, max_missing=5, max_tests=3, min_labels=2))
def test_cleaning_minimum_with_candidates_matches_enumeration(case):
    inst, cands = case
    rep = nbcert.clean_with_truth(
        inst.dirty, inst.truth, inst.test, inst.label, method="greedy", candidates=_frame(cands)
    )
    rows = inst.test_rows()
    args = (inst.dirty, inst.truth, inst.label)
    for row, pt in zip(rows, rep.points):
        best = brute_min_clean(*args, [row], 0, cands)
        assert pt.num_cells == best, (row, pt, best)
        if best:
            event("the minimum cleans cells")
            assert brute_is_robust_after_cleaning(*args, row, pt.cells, 0, cands)
    tg = rep.together
    able = [r for r, pt in zip(rows, rep.points) if pt.possible]
    assert list(tg.excluded) == [p for p, pt in enumerate(rep.points) if not pt.possible]
    if tg.possible:
        assert all(brute_is_robust_after_cleaning(*args, r, tg.cells, 0, cands) for r in able)
    assert rep.path_certifies == all(
        brute_is_robust_after_cleaning(*args, r, rep.path, 0, cands) for r in able
    )


@settings(max_examples=150, **SETTINGS)
@given(
    dirty_with_candidates(max_rows=5, max_features=2, max_missing=5, max_tests=3),
    st.sampled_from(["exact", "greedy", "auto"]),
    st.sampled_from([1, 1, 0.5]),
)
def test_cleaning_together_with_candidates_claims_are_true(case, method, target):
    """A proven bound never exceeds the optimum (enumerated), "optimal" is it, and the
    exact method proves the optimum of these small tables."""
    inst, cands = case
    tg = nbcert.clean_with_truth(
        inst.dirty,
        inst.truth,
        inst.test,
        inst.label,
        method=method,
        target=target,
        candidates=_frame(cands),
    ).together
    args = (inst.dirty, inst.truth, inst.label)
    assert (tg.why_not_optimal is None) == tg.optimal, tg
    able = [r for p, r in enumerate(inst.test_rows()) if p not in tg.excluded]
    best = brute_min_clean_some(*args, able, tg.target, 0, cands)
    if tg.lower_bound is not None and best is not None:
        assert tg.lower_bound <= best
    if tg.possible:
        assert len(tg.cells) >= best and (not tg.optimal or len(tg.cells) == best)
        if method == "exact" and target == 1:
            event("exact")
            assert tg.optimal, (tg, best)


def test_cleaning_with_candidates_needs_alpha_zero():
    dirty = pd.DataFrame({"f": ["a", None], "y": ["p", "q"]})
    with pytest.raises(nbcert.ParameterError, match="^candidates: cleaning with candidate"):
        nbcert.clean_with_truth(
            dirty,
            dirty.fillna("b"),
            TEST[["f"]],
            "y",
            alpha=1,
            candidates=_frame({(1, "f"): ["b"]}),
        )


@settings(max_examples=150, **SETTINGS)
@given(
    candidate_instances(max_missing=6, min_labels=2),
    alphas,
    st.sampled_from(["observed", "worlds"]),
)
def test_advice_with_whole_domain_candidates_is_the_plain_advice(inst, alpha, prior):
    """The policy sees the candidate worlds' counts: candidates that are every cell's whole
    domain give the plain ranking (where no domain has one value and every test value is in
    its domain: the plain policy counts every missing cell as free, also those that cannot
    take the test value)."""
    domain = {f: sorted(set(inst.train[f].dropna()), key=repr) for f in inst.features}
    if any(len(v) == 1 for v in domain.values()):
        return
    if any(v not in domain[f] for row in inst.test_rows() for f, v in row.items()):
        return
    every = [
        (r, f, v)
        for f in inst.features
        for r in np.flatnonzero(inst.train[f].isna().to_numpy()).tolist()
        for v in domain[f]
    ]
    frame = pd.DataFrame(every, columns=["row", "column", "value"], dtype=object)
    plain = nbcert.clean(inst.train, inst.test, inst.label, alpha=alpha, prior=prior)
    listed = nbcert.clean(
        inst.train, inst.test, inst.label, alpha=alpha, prior=prior, candidates=frame
    )
    event("ranked" if len(plain) else "nothing to rank")
    assert list(zip(plain.row, plain.column)) == list(zip(listed.row, listed.column))
    assert listed.score.tolist() == pytest.approx(plain.score.tolist())


# ---------------------------------------------------------------------------------------
# the command line


def _files(tmp_path):
    from test_cli import write

    train = write(tmp_path, "t.csv", "f,g,y\na,x,p\n,y,q\nb,,p\n,x,q\na,y,p\n")
    truth = write(tmp_path, "truth.csv", "f,g,y\na,x,p\nb,y,q\nb,x,p\nb,x,q\na,y,p\n")
    test = write(tmp_path, "q.csv", "f,g\na,x\nb,y\nc,x\n")
    cands = write(tmp_path, "c.csv", "row,column,value\n1,f,b\n1,f,c\n3,f,b\n2,g,x\n")
    return train, truth, test, cands


def test_the_command_line_takes_a_candidate_file(tmp_path, capsys):
    import json

    from test_cli import run

    train, truth, test, cands = _files(tmp_path)
    base = ["--train", train, "--test", test, "--label", "y", "--json", "--candidates", cands]
    rc, out, err = run(capsys, "certify", *base)
    assert rc == 0, err
    want = nbcert.certify(nbcert.read_csv(train), nbcert.read_csv(test), "y", candidates=cands)
    assert [r["robust"] for r in json.loads(out)["results"]] == want.robust.tolist()
    rc, out, err = run(capsys, "count", *base, "--method", "exact")
    assert (
        rc == 0 and json.loads(out)["results"][0]["total"] == "2"
    )  # 1:f in {b, c}, 3:f = b, 2:g = x
    rc, out, err = run(capsys, "clean", *base, "--truth", truth)
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["together"]["excluded"] == [
        p for p, r in enumerate(doc["results"]) if r["num_cells"] is None
    ]


@pytest.mark.parametrize(
    "command, extra, words",
    [
        ("poison", [], "--candidates: poisoning takes no candidates"),
        ("certify", ["--stream"], "candidate repairs need the training table's rows in memory"),
        ("certify", ["--method", "ad"], "with candidates use method 'index'"),
        (
            "clean",
            ["--alpha", "1", "--truth", "T"],
            "candidates: cleaning with candidate repairs is for alpha 0",
        ),
    ],
)
def test_candidates_where_a_question_takes_none_is_one_line(
    tmp_path, capsys, command, extra, words
):
    from test_cli import run

    train, truth, test, cands = _files(tmp_path)
    extra = [truth if e == "T" else e for e in extra]
    if command == "poison":
        train = truth
    rc, out, err = run(
        capsys,
        command,
        "--train",
        train,
        "--test",
        test,
        "--label",
        "y",
        "--candidates",
        cands,
        *extra,
    )
    assert rc == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_a_bad_candidate_file_is_named_with_its_row(tmp_path, capsys):
    from test_cli import run, write

    train, _, test, _ = _files(tmp_path)
    bad = write(tmp_path, "bad.csv", "row,column,value\n1,f,b\n0,f,a\n")
    rc, out, err = run(
        capsys, "certify", "--train", train, "--test", test, "--label", "y", "--candidates", bad
    )
    assert rc == 2 and err == (
        f"nbcert: error: {bad}: data row 1: row 0, column 'f' is not missing in {train} "
        "(candidates are for missing cells)\n"
    )


@settings(max_examples=200, **SETTINGS)
@given(
    dirty_with_candidates(max_rows=6, max_features=3, max_missing=6, max_tests=3),
    st.booleans(),
    alphas,
    st.data(),
)
def test_the_policy_takes_the_paths_certification_as_its_own(case, listed, alpha, data):
    """Along its path the policy is told which points are robust (``follow`` has just
    certified them): its scores are those it finds deciding the points itself, over domains
    and over candidate sets, blank test cells and any cleaning included."""
    from nbcert.cleaning.policy import scores
    from nbcert.params import as_alpha
    from nbcert.reading.asked import ask
    from nbcert.reading.options import reading_options

    inst, cands = case
    inst = _blanked(inst, data)
    alpha = as_alpha(alpha if not listed else 0)
    given_cands = _frame(cands) if listed else None
    reading = reading_options(inst.dirty)
    asked = ask(
        inst.dirty, inst.test, inst.label, reading, alpha=alpha, truth=inst.truth,
        candidates=given_cands,
    )  # fmt: skip
    model = nbcert.cleaning.cell_model(asked.table, asked.cand)
    cap = model.cap.ravel()
    x = np.array([data.draw(st.integers(0, int(c))) for c in cap], np.int64)
    x = x.reshape(model.cap.shape)
    robust = model.certify(x, asked.T, asked.alpha).robust
    obs, M, view = model.scoring(*model.observed(x))
    for prior in ("observed", "worlds"):
        own = scores(obs, model.table.N, asked.T, asked.alpha, prior, view)
        told = scores(obs, model.table.N, asked.T, asked.alpha, prior, view, robust)
        assert own.todo == told.todo
        for name in ("score", "as_winner", "as_rival", "helped"):
            assert np.array_equal(getattr(own, name), getattr(told, name)), name
        event(f"{'candidates' if listed else 'domains'}: {int(robust.sum())} robust")
