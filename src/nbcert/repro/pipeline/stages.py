"""Pipeline stages 3-5: test points, perturbed tables, decision and poisoning runs (paper 6.1-6.3).

Every random choice is drawn from a generator seeded by (config seed, data set name,
repetition, variant), so every table except the timings is the same across runs and
across ``--cores`` values.  Times are measured on integer-coded tables: all methods
share the encoding, whose time is reported on its own row.  Each timed row records wall
seconds (``time.perf_counter``) and the process's CPU seconds (``time.process_time``):
where they differ much, something else shared the CPU.

A user's data set may lack cells.  Test points are then drawn from its complete rows only
(a test point needs every feature), and poisoning, which starts from a complete table,
runs on the complete training rows only.
"""

from __future__ import annotations

import time
import zlib

import numpy as np
import pandas as pd

from ... import approximate, decide, poisoning
from ...errors import InputError
from ...reading.encoding import encode
from .paper_op import authors_code, pure_strategies
from .perturb import perturb

KINDS = ("uniform", "feature")
# The two AD implementations a decision run times, by method name: the paper's (Figures
# 6-9) and the cheaper one beyond the paper, shown only in the report's table of extras.
AD_METHODS = {"AD": approximate.iter_ad, "AD (counts only)": approximate.iter_ad_counts}
# The poisoning methods a poisoning run times: the paper's three (Figure 10) and the
# baselines with the incremental robustness check beyond the paper.
# RP without a limit on the cells it blanks (the paper's), in both checks.
POISON_METHODS = {
    "RP": ("rp", "iterate"),
    "SR": ("sr", "iterate"),
    "OP": ("op", "iterate"),
    "RP (incremental)": ("rp", "incremental"),
    "SR (incremental)": ("sr", "incremental"),
}
# The paper's one-point poisoning beside OP, for the report's "where the paper is wrong":
# its pure strategies (Section 5.1.3) and the authors' published code; not in Figure 10.
PAPER_OP = {
    "OP (pure strategies)": lambda enc, t: (pure_strategies(enc, t), None),
    "OP (authors' code)": authors_code,
}


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
    """Draw k test rows from the complete rows (removed from training); returns (train,
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


def perturbed(
    train: pd.DataFrame,
    label: str,
    kind: str,
    rate: float,
    seed: int,
    name: str,
    rep: int,
    feature_share: float,
) -> pd.DataFrame:
    """The table of one perturbation variant, drawn from a generator seeded by the variant."""
    return perturb(
        train, label, rate, kind, rng_for(seed, name, rep, kind, f"{rate:.4f}"), feature_share
    )


def timed(fn):
    """(result, wall seconds, CPU seconds) of fn()."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def plain_times(train: pd.DataFrame, test: pd.DataFrame, label: str) -> tuple:
    """CategoricalNB fit on the clean table + one prediction, on ordinal codes."""
    from sklearn.naive_bayes import CategoricalNB  # only the decision jobs pay for importing it

    feats = [c for c in train.columns if c != label]
    both = pd.concat([train[feats], test[feats]])
    codes = both.apply(
        lambda c: pd.factorize(c, use_na_sentinel=False)[0]
    ).to_numpy()  # missing: own category
    Xtr, Xte = codes[: len(train)], codes[len(train) : len(train) + 1]
    cats = codes.max(axis=0) + 1
    y = train[label].to_numpy()
    return timed(lambda: CategoricalNB(min_categories=cats).fit(Xtr, y).predict(Xte))[1:]


def decision_runs(
    clean: pd.DataFrame,
    dirty: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    ks,
    *,
    ad_worlds: int,
    seed: int,
    name: str,
    rep: int,
    kind: str,
    rate: float,
    progress=print,
) -> pd.DataFrame:
    """Time AD, Iterate and Iterate+Index for the first k test points, for every k.

    Iterate+Index and Iterate are called once per k.  AD (each of ``AD_METHODS``) runs
    once, on the first max(ks) points, and its time for k is read when its k-th point is
    decided (``ad_prefixes``): a point's worlds and work do not depend on the points after
    it, so that is the time of AD on the first k points, measured, and the points of the
    smaller k are not decided again.  Both AD methods get the same seed.  Also times Plain
    (CategoricalNB on the clean table, one point) and the shared encoding of the dirty
    table, as reference rows.
    """
    enc, *t_enc = timed(lambda: encode(dirty, label))
    T = enc.encode_test(test)
    base = {"dataset": name, "rep": rep, "perturbation": kind, "missing_rate": rate}
    empty = {"robust": None, "nonrobust": None, "ad_false_robust": None}
    rows = [
        {**base, "method": "encode", "k": 0, **times(t_enc), **empty},
        {**base, "method": "Plain", "k": 1, **times(plain_times(clean, test, label)), **empty},
    ]
    ad_seed = rng_for(seed, name, rep, kind, rate, "ad").bit_generator.seed_seq
    ads = {
        m: ad_prefixes(enc, T, ks, ad_worlds, np.random.default_rng(ad_seed), fn)
        for m, fn in AD_METHODS.items()
    }
    for k in ks:
        exact, runs = _decide_first(enc, T, k, ads, name, f"rep {rep}, {kind} {rate}, k={k}")
        rows += [_decision_row(base, m, k, robust, t, exact) for m, robust, t in runs]
        (_, _, t_index), (_, _, t_iter) = runs[:2]  # Iterate+Index's and Iterate's
        progress(
            f"{name} rep {rep} {kind} {rate}: k={k} index {t_index[0]:.4f}s iterate {t_iter[0]:.4f}s "
            f"ad {ads['AD'][1][k][0]:.3f}s"
        )
    return pd.DataFrame(rows)


def _decide_first(enc, T, k: int, ads: dict, name: str, where: str) -> tuple:
    """Iterate+Index and Iterate on the first k points of T, and the AD methods' answers
    ``ads`` for them, each checked against Iterate+Index: (its Decision, [(method, robust,
    (wall, CPU) seconds)])."""
    exact, *t_index = timed(lambda: decide.certify_index(enc, T[:k]))
    it, *t_iter = timed(lambda: decide.certify_iterate(enc, T[:k]))
    if not (np.array_equal(it.robust, exact.robust) and np.array_equal(it.label, exact.label)):
        raise AssertionError(f"{name}: Iterate and Iterate+Index disagree ({where})")
    runs = [("Iterate+Index", exact.robust, t_index), ("Iterate", it.robust, t_iter)]
    for method, (ad_robust, t_ads) in ads.items():
        if (exact.robust & ~ad_robust[:k]).any():
            raise AssertionError(f"{name}: {method} called a robust point non-robust")
        runs.append((method, ad_robust[:k], t_ads[k]))
    return exact, runs


def _decision_row(base: dict, method: str, k: int, robust, t, exact) -> dict:
    """One method's row at k points: its times, how many it called robust and, for AD,
    how many of those Iterate+Index calls non-robust."""
    return {
        **base,
        "method": method,
        "k": k,
        **times(t),
        "robust": int(robust.sum()),
        "nonrobust": int(k - robust.sum()),
        "ad_false_robust": int((robust & ~exact.robust).sum()) if method in AD_METHODS else None,
    }


def ad_prefixes(enc, T: np.ndarray, ks, n_worlds: int, seed, iter_ad=approximate.iter_ad) -> tuple:
    """AD (``iter_ad``, the paper's by default) on the first max(ks) points of T in one call:
    whether each point was called robust, and per k the (wall, CPU) seconds from the call
    until its k-th point was decided -- its set-up included, as in a call on the first k points."""
    want, marks, robust = set(ks), {}, []
    t0, c0 = time.perf_counter(), time.process_time()
    for r, _ in iter_ad(enc, T[: max(ks)], n_worlds=n_worlds, seed=seed):
        robust.append(r)
        if len(robust) in want:
            marks[len(robust)] = (time.perf_counter() - t0, time.process_time() - c0)
    return np.array(robust, bool), marks


def times(t) -> dict:
    """The columns of a (wall, CPU) pair of seconds."""
    return {"seconds": t[0], "cpu_seconds": t[1]}


def poisoning_runs(
    train: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    *,
    seed: int,
    name: str,
    rep: int,
    progress=print,
) -> pd.DataFrame:
    """RP, SR and OP (and the baselines' incremental variants, ``POISON_METHODS``; the
    paper's own OP answers, ``PAPER_OP``) on the complete training rows for the
    repetition's first test point.  A baseline and its
    incremental variant get the same seed, so they blank the same cells in the same order."""
    enc = encode(train.iloc[complete_rows(train)], label)
    t = enc.encode_test(test.iloc[:1])[0]
    cells = enc.n * enc.d
    rows = []
    for method, (code, check) in POISON_METHODS.items():
        res, *t_run = timed(
            lambda: poisoning.poison_encoded(
                enc,
                t,
                code,
                seed=rng_for(seed, name, rep, method[:2]),
                check=check,
                keep_last=False,
            )
        )
        rows.append(
            {
                "dataset": name,
                "rep": rep,
                "method": method,
                **times(t_run),
                "train_rows": enc.n,
                "possible": res.possible,
                "cells": res.num_cells,
                "poisoning_rate": (res.num_cells / cells) if res.possible else None,
            }
        )
        progress(f"{name} rep {rep}: {method} {res.num_cells} cells in {t_run[0]:.4f}s")
    for method, answer in PAPER_OP.items():
        (n_cells, valid), *t_run = timed(lambda: answer(enc, t))
        rows.append(
            {
                "dataset": name,
                "rep": rep,
                "method": method,
                **times(t_run),
                "train_rows": enc.n,
                "possible": n_cells is not None,
                "cells": n_cells,
                "poisoning_rate": None if n_cells is None else n_cells / cells,
                **({} if valid is None else {"valid": valid}),
            }
        )
    return pd.DataFrame(rows)
