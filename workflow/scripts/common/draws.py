"""Every random draw of the pipeline: the subsample, the test points, the blanked cells.

Every choice is drawn from a generator seeded by (config seed, data set name, repetition,
variant), so every table except the timings is the same across runs and across
``--cores`` values.  A user's data set may lack cells: test points are then drawn from its
complete rows only (a test point needs every feature).

*uniform* blanks cells drawn uniformly from all feature cells; *feature* draws them from
the cells of a random share (``feature_share``, the paper's 20 %) of the features.  The
missing rate is the share of the considered cells that are missing afterwards: cells a
user's data set already lacks count towards it, and only the rest are drawn from the cells
still observed (on a complete table this is the paper's perturbation, Section 6.1).
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from nbcert import InputError


def rng_for(seed: int, *parts) -> np.random.Generator:
    """A generator that depends only on the seed and the (stringified) parts."""
    keys = [int(seed)] + [zlib.crc32(str(p).encode()) for p in parts]
    return np.random.default_rng(np.random.SeedSequence(keys))


def subsample(df: pd.DataFrame, rows: int | None, seed: int, name: str) -> pd.DataFrame:
    """Keep ``rows`` rows drawn at random (all of them when rows is None or too many)."""
    if not rows or len(df) <= rows:
        return df
    keep = rng_for(seed, name, "subsample").choice(len(df), rows, replace=False)
    return df.iloc[np.sort(keep)].reset_index(drop=True)


def complete_rows(df: pd.DataFrame) -> np.ndarray:
    """Positions of the rows with no missing cell."""
    return np.flatnonzero(df.notna().all(axis=1).to_numpy())


def split(df: pd.DataFrame, k: int, seed: int, name: str, rep: int):
    """Draw k test points from the complete rows (removed from training); returns (train,
    test), both re-indexed.  On a complete table this is a uniform draw of k rows."""
    complete = complete_rows(df)
    if len(complete) < k:
        raise InputError(
            f"{name}: only {len(complete)} rows have every feature, but {k} test points are needed"
        )
    rng = rng_for(seed, name, rep, "split")
    picked = np.zeros(len(df), bool)
    picked[complete[rng.permutation(len(complete))[:k]]] = True
    return df[~picked].reset_index(drop=True), df[picked].reset_index(drop=True)


def blank_mask(
    n: int,
    d: int,
    rate: float,
    perturbation: str,
    rng: np.random.Generator,
    feature_share: float = 0.2,
    missing: np.ndarray | None = None,
) -> np.ndarray:
    """A boolean (n, d) mask of new blanks: with the ``missing`` cells (n, d) already
    blank, round(rate * considered cells) of the considered cells end up missing."""
    if not 0 <= rate <= 1:
        raise ValueError(f"missing rate must lie in [0, 1], got {rate}")
    if perturbation == "uniform":
        cols = np.arange(d)
    elif perturbation == "feature":
        cols = np.sort(rng.choice(d, size=max(1, round(feature_share * d)), replace=False))
    else:
        raise ValueError(f"unknown perturbation {perturbation!r} (use uniform or feature)")
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
    perturbation: str,
    rng: np.random.Generator,
    feature_share: float = 0.2,
) -> pd.DataFrame:
    """A copy of ``df`` with feature cells blanked (NaN); the label column is untouched."""
    features = [c for c in df.columns if c != label]
    mask = blank_mask(
        len(df),
        len(features),
        rate,
        perturbation,
        rng,
        feature_share,
        df[features].isna().to_numpy(),
    )
    out = df.copy()
    out[features] = out[features].mask(mask)
    return out


def perturbed(
    train: pd.DataFrame,
    label: str,
    perturbation: str,
    rate: float,
    seed: int,
    name: str,
    rep: int,
    feature_share: float,
) -> pd.DataFrame:
    """The table of one perturbation variant, drawn from a generator seeded by the variant."""
    return perturb(
        train,
        label,
        rate,
        perturbation,
        rng_for(seed, name, rep, perturbation, f"{rate:.4f}"),
        feature_share,
    )
