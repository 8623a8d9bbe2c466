"""Pipeline stage 3: blank cells of a complete table (paper section 6.1).

*uniform* blanks cells drawn uniformly from all feature cells; *feature* draws them
from the cells of a random 20 % of the features.  The missing rate is the share of the
considered cells that are missing afterwards: cells a user's data set already lacks count
towards it, and only the rest are drawn from the cells still observed (on a complete table
this is the paper's perturbation).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def blank_mask(
    n: int,
    d: int,
    rate: float,
    kind: str,
    rng: np.random.Generator,
    feature_share: float = 0.2,
    missing: np.ndarray | None = None,
) -> np.ndarray:
    """A boolean (n, d) mask of new blanks: with the ``missing`` cells (n, d) already
    blank, round(rate * considered cells) of the considered cells end up missing."""
    if not 0 <= rate <= 1:
        raise ValueError(f"missing rate must lie in [0, 1], got {rate}")
    if kind == "uniform":
        cols = np.arange(d)
    elif kind == "feature":
        cols = np.sort(rng.choice(d, size=max(1, round(feature_share * d)), replace=False))
    else:
        raise ValueError(f"unknown perturbation {kind!r} (use uniform or feature)")
    considered = n * len(cols)
    want = round(rate * considered)
    if missing is None or not missing[:, cols].any():
        picked = rng.choice(considered, size=want, replace=False)
    else:
        free = np.flatnonzero(~missing[:, cols].ravel())  # considered cells still observed
        picked = free[
            rng.choice(len(free), size=max(0, want - (considered - len(free))), replace=False)
        ]
    mask = np.zeros((n, d), bool)
    mask[picked // len(cols), cols[picked % len(cols)]] = True
    _keep_one_observed(mask, missing)
    return mask


def _keep_one_observed(mask: np.ndarray, missing: np.ndarray | None) -> None:
    """Un-blank the first new blank of any column the mask would leave with no observed
    cell (a feature without a domain cannot be encoded); only tiny or sparse tables at
    high rates are ever affected."""
    gone = mask | missing if missing is not None else mask
    for j in np.flatnonzero(gone.all(axis=0) & mask.any(axis=0)):
        mask[np.flatnonzero(mask[:, j])[0], j] = False


def perturb(
    df: pd.DataFrame,
    label: str,
    rate: float,
    kind: str,
    rng: np.random.Generator,
    feature_share: float = 0.2,
) -> pd.DataFrame:
    """A copy of ``df`` with feature cells blanked (NaN); the label column is untouched."""
    features = [c for c in df.columns if c != label]
    mask = blank_mask(
        len(df), len(features), rate, kind, rng, feature_share, df[features].isna().to_numpy()
    )
    out = df.copy()
    out[features] = out[features].mask(mask)
    return out
