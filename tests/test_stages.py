"""Pipeline stages 2-3 as functions: discretization, test-point draws and perturbation."""

import numpy as np
import pandas as pd
import pytest

from nbcert.repro.discretize import discretize
from nbcert.encoding import InputError
from nbcert.repro.stages import perturbed, split
from nbcert.repro.perturb import blank_mask


def table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"num": rng.normal(size=n), "cat": rng.choice(["u", "v"], n),
                         "const": np.ones(n), "y": rng.choice(["a", "b"], n)})


def test_discretize_bins_numeric_columns_with_kbins():
    out = discretize(table(), "y", n_bins=5)
    assert set(out["num"]) <= {f"bin{i}" for i in range(5)} and out["num"].nunique() == 5
    assert set(out["cat"]) == {"u", "v"} and out["const"].nunique() == 1
    assert list(out["y"]) == list(table()["y"])


def test_discretize_names_a_missing_column():
    with pytest.raises(InputError, match="'nope'"):
        discretize(table(), "y", drop=["nope"])


@pytest.mark.parametrize("kind", ["uniform", "feature"])
@pytest.mark.parametrize("rate", [0.2, 0.4, 0.6, 0.8])
def test_blank_mask_hits_the_rate_exactly(kind, rate):
    mask = blank_mask(50, 10, rate, kind, np.random.default_rng(1))
    cols = np.flatnonzero(mask.any(axis=0))
    considered = 50 * (10 if kind == "uniform" else 2)
    assert mask.sum() == round(rate * considered)
    if kind == "feature":
        assert len(cols) <= 2


def test_draws_are_deterministic_and_disjoint():
    df = discretize(table(), "y")
    tr1, te1 = split(df, 8, seed=3, name="t", rep=0)
    tr2, te2 = split(df, 8, seed=3, name="t", rep=0)
    pd.testing.assert_frame_equal(te1, te2)
    assert len(tr1) + len(te1) == len(df) and len(te1) == 8
    _, te3 = split(df, 8, seed=3, name="t", rep=1)
    assert not te1.equals(te3)
    p1 = perturbed(tr1, "y", "uniform", 0.4, 3, "t", 0, 0.2)
    p2 = perturbed(tr1, "y", "uniform", 0.4, 3, "t", 0, 0.2)
    pd.testing.assert_frame_equal(p1, p2)
    assert p1["y"].notna().all() and p1.drop(columns="y").isna().to_numpy().mean() == pytest.approx(0.4, abs=0.01)
