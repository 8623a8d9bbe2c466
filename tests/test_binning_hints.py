"""Binning that says what it does (issue 28, item 5): a numeric column kept from binning by
a few text tokens is named with all its tokens, all such columns in one warning, and binned
once the tokens are declared missing; the missing-token hint names every column and token;
the "looks numeric" hint holds at any table size; ``bins`` is bounded before any work."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_cli import run

import nbcert

# ---------------------------------------------------------------------------------------
# --bins is bounded


@pytest.mark.parametrize("bins", [10_001, 2_147_483_648, 10**12])
def test_bins_beyond_the_bound_is_one_parameter_error_before_reading(tmp_path, bins):
    absent = str(tmp_path / "absent.csv")
    message = rf"^bins must be an integer from 2 to 10,000 \(.*\), got {bins}$"
    with pytest.raises(nbcert.ParameterError, match=message):
        nbcert.certify(absent, pd.DataFrame({"x": [1]}), "y", bins=bins)
    with pytest.raises(nbcert.ParameterError, match=message.replace("bins", "n_bins", 1)):
        nbcert.Binner(bins).fit(np.zeros((3, 1)))


def test_bins_at_the_bound_is_accepted():
    from nbcert import params

    assert params.validate(bins=10_000) == {"bins": 10_000}
    assert params.validate(bins=2) == {"bins": 2}
    X = np.arange(40.0).reshape(-1, 1)
    binner = nbcert.Binner(10_000).fit(X)  # KBinsDiscretizer merges the empty bins' edges
    assert len(binner.bin_edges_[0]) < 100 and len(np.unique(binner.transform(X))) == 40


@pytest.mark.parametrize("bins", ["10001", "2147483648", "1000000000000"])
def test_cli_bins_beyond_the_bound_is_a_usage_error(tmp_path, capsys, bins):
    absent = str(tmp_path / "absent.csv")
    rc, out, err = run(
        capsys, "certify", "--train", absent, "--test", absent, "--label", "y", "--bins", bins
    )
    assert rc == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1] == (
        "nbcert certify: error: argument --bins: expected an integer from 2 to 10,000 (more "
        f"bins than that give nearly every value a bin of its own), got '{bins}'"
    )
