"""Pipeline stages 3-5: test points, perturbed tables, decision and poisoning runs (paper 6.1-6.3).

Every random choice is drawn from a generator seeded by (config seed, data set name,
repetition, variant), so every table except the timings is the same across runs and
across ``--cores`` values.  Times are measured on integer-coded tables: all methods
share the encoding, whose time is reported on its own row.
"""

from __future__ import annotations

import time
import zlib

import numpy as np
import pandas as pd

from .. import decision, poisoning
from ..encoding import encode
from .perturb import perturb

KINDS = ("uniform", "feature")


def rng_for(seed: int, *parts) -> np.random.Generator:
    """A generator that depends only on the seed and the (stringified) parts."""
    keys = [int(seed)] + [zlib.crc32(str(p).encode()) for p in parts]
    return np.random.default_rng(np.random.SeedSequence(keys))


def split(df: pd.DataFrame, k: int, seed: int, name: str, rep: int):
    """Draw k test rows (removed from training); returns (train, test), both re-indexed."""
    rng = rng_for(seed, name, rep, "split")
    order = rng.permutation(len(df))
    test = df.iloc[np.sort(order[:k])].reset_index(drop=True)
    train = df.iloc[np.sort(order[k:])].reset_index(drop=True)
    return train, test


def perturbed(train: pd.DataFrame, label: str, kind: str, rate: float, seed: int, name: str, rep: int,
              feature_share: float) -> pd.DataFrame:
    """The table of one perturbation variant, drawn from a generator seeded by the variant."""
    return perturb(train, label, rate, kind, rng_for(seed, name, rep, kind, f"{rate:.4f}"), feature_share)


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def plain_seconds(train: pd.DataFrame, test: pd.DataFrame, label: str) -> float:
    """CategoricalNB fit on the clean table + one prediction, on ordinal codes."""
    from sklearn.naive_bayes import CategoricalNB  # only the decision jobs pay for importing it

    feats = [c for c in train.columns if c != label]
    both = pd.concat([train[feats], test[feats]])
    codes = both.apply(lambda c: pd.factorize(c)[0]).to_numpy()
    Xtr, Xte = codes[:len(train)], codes[len(train):len(train) + 1]
    cats = codes.max(axis=0) + 1
    y = train[label].to_numpy()
    _, s = _timed(lambda: CategoricalNB(min_categories=cats).fit(Xtr, y).predict(Xte))
    return s


def decision_runs(clean: pd.DataFrame, dirty: pd.DataFrame, test: pd.DataFrame, label: str, ks, *,
                  ad_worlds: int, seed: int, name: str, rep: int, kind: str, rate: float,
                  progress=print) -> pd.DataFrame:
    """Time AD, Iterate and Iterate+Index for the first k test points, for every k.

    Also times Plain (CategoricalNB on the clean table, one point) and the shared
    encoding of the dirty table, as reference rows.
    """
    enc, s_enc = _timed(lambda: encode(dirty, label))
    T = enc.encode_test(test)
    base = {"dataset": name, "rep": rep, "perturbation": kind, "missing_rate": rate}
    empty = {"robust": None, "nonrobust": None, "ad_false_robust": None}
    rows = [{**base, "method": "encode", "k": 0, "seconds": s_enc, **empty},
            {**base, "method": "Plain", "k": 1, "seconds": plain_seconds(clean, test, label), **empty}]
    for k in ks:
        exact, s_index = _timed(lambda: decision.certify_index(enc, T[:k]))
        it, s_iter = _timed(lambda: decision.certify_iterate(enc, T[:k]))
        if not (np.array_equal(it.robust, exact.robust) and np.array_equal(it.label, exact.label)):
            raise AssertionError(f"{name}: Iterate and Iterate+Index disagree (rep {rep}, {kind} {rate}, k={k})")
        ad, s_ad = _timed(lambda: decision.certify_ad(enc, T[:k], n_worlds=ad_worlds,
                                                      seed=rng_for(seed, name, rep, kind, rate, k, "ad")))
        if (exact.robust & ~ad.robust).any():
            raise AssertionError(f"{name}: AD called a robust point non-robust")
        for method, dec, s in (("Iterate+Index", exact, s_index), ("Iterate", it, s_iter), ("AD", ad, s_ad)):
            rows.append({**base, "method": method, "k": k, "seconds": s, "robust": int(dec.robust.sum()),
                         "nonrobust": int(k - dec.robust.sum()),
                         "ad_false_robust": int((ad.robust & ~exact.robust).sum()) if method == "AD" else None})
        progress(f"{name} rep {rep} {kind} {rate}: k={k} index {s_index:.4f}s iterate {s_iter:.4f}s ad {s_ad:.3f}s")
    return pd.DataFrame(rows)


def poisoning_runs(train: pd.DataFrame, test: pd.DataFrame, label: str, *, seed: int, name: str, rep: int,
                   progress=print) -> pd.DataFrame:
    """RP, SR and OP on the complete table for the repetition's first test point."""
    enc = encode(train, label)
    t = enc.encode_test(test.iloc[:1])[0]
    cells = enc.n * enc.d
    rows = []
    for method in ("RP", "SR", "OP"):
        res, s = _timed(lambda: poisoning.poison_encoded(enc, t, method.lower(), seed=rng_for(seed, name, rep, method)))
        rows.append({"dataset": name, "rep": rep, "method": method, "seconds": s, "possible": res.possible,
                     "cells": res.num_cells, "poisoning_rate": (res.num_cells / cells) if res.possible else None})
        progress(f"{name} rep {rep}: {method} {res.num_cells} cells in {s:.4f}s")
    return pd.DataFrame(rows)
