"""Beyond the paper: counting possible worlds in practice, on the real data sets.

For each data set a small training table is subsampled (exact counting grows with the
number of missing cells per label), test points are drawn from the other rows, and the
training cells are blanked uniformly at each missing rate.  For every test point the
three counting methods of :mod:`nbcert.count` are timed one point at a time:

* ``batch`` - Algorithm 2 of the paper, the joint enumeration (the reference);
* ``exact`` - the per-label distributions combined by sorting;
* ``montecarlo`` - sampled worlds with simultaneous Wilson intervals.

A problem larger than ``max_states`` is recorded as skipped for that method (NaN
seconds, ``skipped`` true), never as an error.  The *majority label* of a point is the
label most worlds predict in the exact answer (the Monte-Carlo one when neither exact
method ran); each row records the share of worlds predicting it, and the Monte-Carlo
row its interval and whether the exact share lies inside.  Algorithm 2 and the
per-label method must give identical counts: a difference raises.

With alpha = 0 (the paper's classifier, the default here) a test value that no observed
training cell takes (common on a few dozen rows with many cells blanked) gives every
label support 0 in every world: no label wins anywhere.  Such points are flagged
``all_ties``; their majority share is 0.

All random choices derive from (seed, data set name, "counting", ...) via
:func:`nbcert.repro.pipeline.stages.rng_for`, so the table is reproducible except for the times.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ....count import TooLarge, count_encoded, total_worlds
from ....errors import InputError
from ....reading.encoding import encode
from ....stats import count_index
from ...pipeline.settings import CountingSettings
from ...pipeline.stages import perturbed, rng_for, split

METHODS = ("batch", "exact", "montecarlo")
NAMES = {"batch": "Algorithm 2", "exact": "per-label exact", "montecarlo": "Monte-Carlo"}
REP = "counting"  # the `rep` part of every seed of this study
COLUMNS = [
    "dataset",
    "missing_rate",
    "point",
    "method",
    "skipped",
    "seconds",
    "elapsed",
    "majority_label",
    "majority_from",
    "all_ties",
    "fraction",
    "tie_fraction",
    "ci_low",
    "ci_high",
    "outside_by",
    "exact_in_interval",
    "batch_equals_exact",
    "log10_worlds",
    "log10_batch_states",
    "train_rows",
    "features",
    "samples",
    "confidence",
    "max_states",
]
FLAGS = ("skipped", "all_ties", "exact_in_interval", "batch_equals_exact")
# The Wilson interval's ends are computed in floating point: with no sampled success the
# lower end can come out near 1e-20 rather than 0 (the upper end likewise a rounding
# error short of 1 with all successes), so an exact share of 0 or 1 would be "outside"
# by rounding alone.  The share counts as inside within this margin; the raw distance is
# kept in `outside_by`.
INTERVAL_SLACK = 1e-12


def draw(df: pd.DataFrame, label: str, name: str, seed: int, subsample: int, points: int):
    """(train, test): ``points`` test rows, then ``subsample`` training rows from the rest."""
    if subsample + points > len(df):
        raise InputError(
            f"{name}: {subsample} training rows + {points} test points exceed its {len(df)} rows"
        )
    pool, test = split(df, points, seed, name, REP)
    keep = np.sort(
        rng_for(seed, name, REP, "subsample").choice(len(pool), size=subsample, replace=False)
    )
    return pool.iloc[keep].reset_index(drop=True), test


def batch_states(enc, T: np.ndarray) -> np.ndarray:
    """log10 of the beta matrices Algorithm 2 enumerates per test point: the product over
    labels l and features j of (M_lj + 1), for features whose test value occurs in
    training and whose domain has more than one value (the others have one option)."""
    M = count_index(enc)[:, enc.missing_codes]  # (m, d) missing cells per label and feature
    per = np.log10(M + 1.0) * (enc.delta > 1)  # (m, d)
    return ((T >= 0) * per.sum(axis=0)).sum(axis=1)


def _count(enc, T, method, alpha, cfg, rng):
    """(WorldCounts or None if too large, elapsed seconds) for one test point."""
    t0 = time.perf_counter()
    try:
        wc = count_encoded(
            enc,
            T,
            alpha,
            method=method,
            n_samples=cfg.samples,
            confidence=cfg.confidence,
            seed=rng,
            max_states=cfg.max_states,
        )[0]
    except ValueError as e:
        if not isinstance(
            e.__context__, TooLarge
        ):  # count_encoded refuses a TooLarge as an InputError
            raise
        wc = None
    return wc, time.perf_counter() - t0


def _same(a, b) -> bool:
    return a.counts == b.counts and a.ties == b.ties and a.total == b.total


def _point_rows(enc, t, alpha, cfg, rngs, base):
    res = {m: _count(enc, t[None, :], m, alpha, cfg, rngs[m]) for m in METHODS}
    batch, exact, mc = (res[m][0] for m in METHODS)
    if batch is not None and exact is not None and not _same(batch, exact):
        raise AssertionError(
            f"{base['dataset']} rate {base['missing_rate']} point {base['point']}: Algorithm 2 "
            f"counts {batch.counts} (ties {batch.ties}) but per-label exact {exact.counts} "
            f"(ties {exact.ties})"
        )
    ref = exact if exact is not None else batch
    if ref is not None:
        majority = max(enc.labels, key=lambda lab: ref.counts[lab])  # first label on a tie
        truth = ref.counts[majority] / ref.total
        all_ties = ref.ties == ref.total
    else:
        majority = max(enc.labels, key=lambda lab: mc.fractions[lab])
        truth, all_ties = None, mc.tie_fraction == 1.0
    rows = []
    for method in METHODS:
        wc, elapsed = res[method]
        row = {
            **base,
            "method": method,
            "skipped": wc is None,
            "seconds": np.nan if wc is None else elapsed,
            "elapsed": elapsed,
            "majority_label": majority,
            "majority_from": "montecarlo" if ref is None else ref.method,
            "all_ties": all_ties,
            "fraction": np.nan,
            "tie_fraction": np.nan,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "outside_by": np.nan,
            "exact_in_interval": pd.NA,
            "batch_equals_exact": pd.NA,
        }
        if wc is not None and wc.counts is not None:
            row["fraction"] = wc.counts[majority] / wc.total
            row["tie_fraction"] = wc.ties / wc.total
        elif wc is not None:
            low, high = wc.intervals[majority]
            row.update(
                fraction=wc.fractions[majority],
                tie_fraction=wc.tie_fraction,
                ci_low=low,
                ci_high=high,
            )
            if truth is not None:
                row["outside_by"] = max(0.0, low - truth, truth - high)
                row["exact_in_interval"] = bool(row["outside_by"] <= INTERVAL_SLACK)
        if method == "batch" and batch is not None and exact is not None:
            row["batch_equals_exact"] = True  # checked above
        rows.append(row)
    return rows


def run(
    df: pd.DataFrame, label: str, name: str, seed: int, cfg: CountingSettings, progress=print
) -> pd.DataFrame:
    """The study on one data set; one row per (missing rate, test point, method).

    ``cfg`` holds subsample, missing_rates, points, samples, confidence, max_states,
    batch_rows and alpha (0 by default: the paper's classifier).
    """
    alpha = cfg.alpha
    rows = []
    sizes = [cfg.subsample] + ([cfg.batch_rows] if cfg.batch_rows else [])
    for size in sizes:  # the main subsample, then a tiny one where Algorithm 2 can run too
        rows += _run_size(df, label, name, seed, cfg, alpha, size, progress)
    out = pd.DataFrame(rows, columns=COLUMNS)
    for col in FLAGS:
        out[col] = out[col].astype("boolean")
    return out


def _run_size(df, label, name, seed, cfg, alpha, size, progress) -> list:
    train, test = draw(df, label, name, seed, size, cfg.points)
    rows = []
    for rate in cfg.missing_rates:
        rate = float(rate)
        dirty = perturbed(train, label, "uniform", rate, seed, name, REP, 0.0)
        blank = [c for c in dirty.columns if c != label and dirty[c].isna().all()]
        if blank:  # a feature without any observed value has no domain: leave it out
            progress(f"{name} rate {rate:g}: dropping fully blanked feature(s) {blank}")
            dirty = dirty.drop(columns=blank)
            if dirty.shape[1] == 1:
                raise InputError(
                    f"{name}: missing rate {rate:g} blanks every feature cell of the {len(dirty)} "
                    "training rows; there is nothing to count"
                )
        enc = encode(dirty, label)
        T = enc.encode_test(test)
        base = {
            "dataset": name,
            "missing_rate": rate,
            "train_rows": enc.n,
            "features": enc.d,
            "samples": cfg.samples,
            "confidence": cfg.confidence,
            "max_states": cfg.max_states,
        }
        log10 = total_worlds(enc, log10=True)
        states = batch_states(enc, T)
        for p in range(len(T)):
            rngs = {m: rng_for(seed, name, REP, f"{rate:.4f}", p, m) for m in METHODS}
            point_rows = _point_rows(
                enc,
                T[p],
                alpha,
                cfg,
                rngs,
                {**base, "point": p, "log10_worlds": log10, "log10_batch_states": float(states[p])},
            )
            rows += point_rows
            times = ", ".join(
                f"{r['method']} " + ("skipped" if r["skipped"] else f"{r['seconds']:.4f}s")
                for r in point_rows
            )
            progress(
                f"{name} {size} rows, rate {rate:g} point {p}: 10^{log10:.1f} worlds, {times}, "
                f"majority {point_rows[0]['majority_label']!r} share {point_rows[1]['fraction']:.4g}"
            )
    return rows


def split_sizes(table: pd.DataFrame):
    """(main, tiny): rows of each data set's largest subsample, and of its smaller one."""
    largest = table.groupby("dataset").train_rows.transform("max")
    return table[table.train_rows == largest], table[table.train_rows < largest]


def load(paths) -> pd.DataFrame:
    """The per-data-set tables, each checked, concatenated, with flags as booleans."""
    from ...pipeline.tables import read_tables

    return normalise(read_tables(paths, "counting"))


def normalise(table: pd.DataFrame) -> pd.DataFrame:
    """Flags as nullable booleans, however the CSV spelled them."""
    t = table.copy()
    for col in FLAGS:
        t[col] = t[col].map(
            lambda v: pd.NA if pd.isna(v) else str(v) in ("True", "true", "1", "1.0")
        )
        t[col] = t[col].astype("boolean")
    return t


def majority_shares(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, missing_rate, point): the majority share, exact where it ran."""
    t = split_sizes(table)[0]
    t = t[~t.skipped.astype(bool)]
    pref = {"exact": 0, "batch": 1, "montecarlo": 2}
    t = t.assign(_order=t.method.map(pref)).sort_values(
        ["dataset", "missing_rate", "point", "_order"]
    )
    best = t.groupby(["dataset", "missing_rate", "point"], sort=False).head(1)
    return best[["dataset", "missing_rate", "point", "method", "fraction", "all_ties"]].reset_index(
        drop=True
    )
