"""The names before the glossary's (docs/glossary.md) still work for one release: each warns
with a FutureWarning naming its new name and gives the same answer as the new name."""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import nbcert
from nbcert.cli import main

TRAIN = pd.DataFrame(
    {
        "color": ["red", "red", "blue", None, "blue", "red", "blue"],
        "size": ["S", None, "L", "S", "S", "L", "L"],
        "y": ["a", "a", "a", "b", "b", "b", "b"],
    }
)
TRUTH = TRAIN.fillna({"color": "blue", "size": "S"})
TEST = pd.DataFrame({"color": ["red", "blue"], "size": ["S", "L"]})


def _warns(old: str, new: str):
    return pytest.warns(FutureWarning, match=rf"^{re.escape(old)} is deprecated .*use {new}")


def test_the_old_names_are_importable_but_not_public():
    for old, new in [
        ("poison_many", "poison_together"),
        ("clean_offline", "clean_with_truth"),
        ("ManyPoisoning", "TogetherPoisoning"),
    ]:
        assert old not in nbcert.__all__ and new in nbcert.__all__
        assert old in dir(nbcert)
    from nbcert import clean_offline, poison_many  # noqa: F401 (no warning until called)


def test_poison_many_warns_and_answers_as_poison_together():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name warns of nothing
        new = nbcert.poison_together(TRUTH, TEST, "y", method="exact")
    with _warns("nbcert.poison_many", "nbcert.poison_together"):
        old = nbcert.poison_many(TRUTH, TEST, "y", method="exact")
    assert old == new and old.cells == ((0, "color"), (3, "color"), (4, "color"))


def test_the_old_poisoning_class_is_the_new_one():
    with _warns("nbcert.ManyPoisoning", "nbcert.TogetherPoisoning"):
        old = nbcert.ManyPoisoning
    assert old is nbcert.TogetherPoisoning
    with _warns("nbcert.poisoning.ManyPoisoning", "nbcert.TogetherPoisoning"):
        from nbcert.poisoning import ManyPoisoning
    assert ManyPoisoning is nbcert.TogetherPoisoning
    assert isinstance(nbcert.poison_together(TRUTH, TEST, "y"), ManyPoisoning)


def test_clean_offline_warns_and_answers_as_clean_with_truth():
    new = nbcert.clean_with_truth(TRAIN, TRUTH, TEST, "y")
    with _warns("nbcert.clean_offline", "nbcert.clean_with_truth"):
        old = nbcert.clean_offline(TRAIN, TRUTH, TEST, "y")
    assert old == new and old.together.cells == ((3, "color"),)


def test_count_index_warns_and_tallies():
    from nbcert.methods import count_index, encode, tally

    enc = encode(TRAIN, "y")
    with _warns("nbcert.methods.count_index", "nbcert.methods.tally"):
        old = count_index(enc)
    assert np.array_equal(old, tally(enc)) and old.sum() == enc.n * enc.d


def test_n_samples_is_the_old_name_of_n_worlds():
    kw = dict(method="montecarlo", seed=3)
    new = nbcert.count_worlds(TRAIN, TEST, "y", n_worlds=40, **kw)
    with _warns("count_worlds(n_samples=...)", r"n_worlds=\.\.\."):
        old = nbcert.count_worlds(TRAIN, TEST, "y", n_samples=40, **kw)
    assert old == new and old[0].n_worlds == 40
    with _warns("WorldCounts.samples", r"WorldCounts\.n_worlds"):
        assert old[0].samples == 40
    model = nbcert.CertifiedNB().fit(TRAIN[["color", "size"]], TRAIN["y"])
    with _warns("CertifiedNB.count_worlds(n_samples=...)", r"n_worlds=\.\.\."):
        old = model.count_worlds(TEST, n_samples=40, **kw)
    assert old == model.count_worlds(TEST, n_worlds=40, **kw)
    with pytest.raises(nbcert.ParameterError, match="^n_samples must be a positive integer"):
        nbcert.count_worlds(TRAIN, TEST, "y", n_samples=0)  # checked by its rule, as before


def test_the_estimators_index_is_its_stats_counts():
    model = nbcert.CertifiedNB().fit(TRAIN[["color", "size"]], TRAIN["y"])
    with _warns("CertifiedNB.index_", r"CertifiedNB\.stats_\.counts"):
        old = model.index_
    assert np.array_equal(old, model.stats_.counts)
    assert "index_" not in vars(model)  # not a fitted attribute of its own


def test_table_source_kind_is_its_format(tmp_path):
    path = tmp_path / "t.csv"
    TRAIN.to_csv(path, index=False)
    source = nbcert.TableSource(path)
    with _warns("TableSource.kind", r"TableSource\.format"):
        assert source.kind == source.format == "csv"


def test_the_samples_flag_is_the_old_worlds_flag(tmp_path, capsys):
    """``--samples`` still counts with the worlds asked for; it says so on stderr, and the
    ``--json`` output stays pure JSON, the same as with ``--worlds``."""
    train, test = tmp_path / "t.csv", tmp_path / "q.csv"
    TRAIN.to_csv(train, index=False)
    TEST.to_csv(test, index=False)
    args = ["count", "--train", str(train), "--test", str(test), "--label", "y", "--json"]
    args += ["--method", "montecarlo", "--seed", "0"]
    assert main([*args, "--worlds", "30"]) == 0
    new, new_err = capsys.readouterr()
    assert main([*args, "--samples", "30"]) == 0
    old, old_err = capsys.readouterr()
    assert json.loads(old) == json.loads(new) and old == new
    first = json.loads(old)["results"][0]
    assert first["n_worlds"] == first["samples"] == 30  # the key's old name, until 0.2
    assert new_err == ""
    assert old_err == (
        "nbcert: warning: --samples is deprecated and will be removed in nbcert 0.2; "
        "use --worlds instead\n"
    )
    assert main(["count", "-h"]) == 0
    assert "--samples" not in capsys.readouterr().out  # left out of the help


def test_a_bad_value_of_the_old_flag_is_one_line(tmp_path, capsys):
    assert (
        main(["count", "--train", "a.csv", "--test", "b.csv", "--label", "y"] + ["--samples", "0"])
        == 2
    )
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.splitlines()[-1].startswith("nbcert: error: argument --samples")


def test_the_encoded_level_old_names_warn_and_answer_as_the_new():
    from nbcert import methods

    enc = methods.encode(TRUTH, "y")
    T = enc.encode_test(TEST)
    with _warns("nbcert.methods.poison_many_encoded", r"nbcert\.methods\.poison_together_encoded"):
        old = methods.poison_many_encoded(enc, T, "exact")
    assert old == methods.poison_together_encoded(enc, T, "exact")
    with _warns("nbcert.methods.Decision", r"nbcert\.methods\.Certification"):
        old_class = methods.Decision
    assert old_class is methods.Certification
    assert isinstance(methods.certify_index(enc, T), old_class)
    with pytest.raises(AttributeError, match="has no attribute 'Decisions'"):
        methods.Decisions  # noqa: B018 (only the renamed names resolve)
    with _warns("count_encoded(n_samples=...)", r"n_worlds=\.\.\."):
        old = methods.count_encoded(enc, T, method="montecarlo", n_samples=50, seed=1)
    assert old == methods.count_encoded(enc, T, method="montecarlo", n_worlds=50, seed=1)


def test_synthetic_tables_take_points_and_warn_for_k():
    from nbcert.synthetic import synthetic_table

    new = synthetic_table(50, 3, 4, 2, seed=1, points=5)
    with _warns("nbcert.synthetic.synthetic_table(k=...)", r"points=\.\.\."):
        old = synthetic_table(50, 3, 4, 2, seed=1, k=5)
    assert all(np.array_equal(a, b) for a, b in zip(old[1:], new[1:])) and len(new[3]) == 5
