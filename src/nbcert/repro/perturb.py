"""Pipeline stage 3: blank cells of a complete table (paper section 6.1).

*uniform* blanks cells drawn uniformly from all feature cells; *feature* draws them
from the cells of a random 20 % of the features.  The missing rate is blanked cells
over the cells considered.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def blank_mask(n: int, d: int, rate: float, kind: str, rng: np.random.Generator,
               feature_share: float = 0.2) -> np.ndarray:
    """A boolean (n, d) mask with round(rate * considered cells) cells set."""
    if not 0 <= rate <= 1:
        raise ValueError(f"missing rate must lie in [0, 1], got {rate}")
    if kind == "uniform":
        cols = np.arange(d)
    elif kind == "feature":
        cols = np.sort(rng.choice(d, size=max(1, round(feature_share * d)), replace=False))
    else:
        raise ValueError(f"unknown perturbation {kind!r} (use uniform or feature)")
    considered = n * len(cols)
    picked = rng.choice(considered, size=round(rate * considered), replace=False)
    mask = np.zeros((n, d), bool)
    mask[picked // len(cols), cols[picked % len(cols)]] = True
    return mask


def perturb(df: pd.DataFrame, label: str, rate: float, kind: str, rng: np.random.Generator,
            feature_share: float = 0.2) -> pd.DataFrame:
    """A copy of ``df`` with feature cells blanked (NaN); the label column is untouched."""
    features = [c for c in df.columns if c != label]
    mask = blank_mask(len(df), len(features), rate, kind, rng, feature_share)
    out = df.copy()
    out[features] = out[features].mask(mask)
    return out
