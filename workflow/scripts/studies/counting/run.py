"""Beyond the paper: counting possible worlds in practice, on the real data sets.

For each data set a small training table is subsampled (exact counting grows with the
number of missing cells per label), test points are drawn from the other rows, and the
training cells are blanked uniformly at each missing rate.  For every test point the
counting methods of :mod:`nbcert.count` are timed one point at a time:

* ``batch`` - Algorithm 2 of the paper, the joint enumeration (the reference);
* ``exact`` - the per-label distributions combined by sorting;
* ``montecarlo`` - sampled worlds with simultaneous Wilson intervals;
* ``bounds`` - every label's count and the ties as a proven interval (refined to
  ``width`` within ``time_limit`` seconds a point).

A problem larger than ``max_states`` is recorded as skipped for that method (NaN
seconds, ``skipped`` true), never as an error.  The *majority label* of a point is the
label most worlds predict in the exact answer (else in the proven bounds, else in the
Monte-Carlo one); each row records the share of worlds predicting it, the Monte-Carlo row
its interval and whether the exact share lies inside, the bounds row its proven interval
and whether the exact counts of every label and the ties lie inside (``exact_in_bounds``:
they must, a miss raises).  Algorithm 2 and the per-label method must give identical
counts: a difference raises.

Then, at full size (``part`` "full": every row of the data set but the test points, the
first ``full_points`` of them), only ``bounds`` and ``montecarlo`` run: each bounds row
records the widest proven interval (``width``) and the time, each Monte-Carlo row whether
its intervals contain the proven ones, for every label and the ties
(``mc_contains_bounds``; a proven interval wider than Monte-Carlo's, as the ties' often is,
is not contained), and whether one of them is disjoint from the proven one, which proves
that interval wrong (``mc_misses_bounds``).

With alpha = 0 (the paper's classifier, the default here) a test value that no observed
training cell takes (common on a few dozen rows with many cells blanked) gives every
label support 0 in every world: no label wins anywhere.  Such points are flagged
``all_ties``; their majority share is 0.

All random choices derive from (seed, data set name, "counting", ...) via
:func:`common.stages.rng_for`, so the table is reproducible except for the
times (and, where a time limit cuts the refinement short, the proven widths).
"""

import time

import numpy as np
import pandas as pd
from common.draws import perturbed, rng_for, split
from common.job import run_job, stamp
from common.settings import Section
from common.tables import read_data, write_table

from nbcert import InputError, encode
from nbcert.methods import TooLarge, count_encoded, tally, total_worlds
from studies.counting.summary import FLAGS, FULL_METHODS, METHODS

REP = "counting"  # the `rep` part of every seed of this study
COLUMNS = [
    "dataset",
    "part",
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
    "proven_low",
    "proven_high",
    "width",
    "eps",
    "exact_in_bounds",
    "mc_contains_bounds",
    "mc_misses_bounds",
    "log10_worlds",
    "log10_batch_states",
    "train_rows",
    "features",
    "worlds",
    "confidence",
    "max_states",
    "width_target",
    "time_limit",
]
PARTS = ("main", "tiny", "full")  # the subsample, the tiny one, every row
# The Wilson interval's ends are computed in floating point: with no sampled success the
# lower end can come out near 1e-20 rather than 0 (the upper end likewise a rounding
# error short of 1 with all successes), so an exact share of 0 or 1 would be "outside"
# by rounding alone.  The share counts as inside within this margin; the raw distance is
# kept in `outside_by`.
INTERVAL_SLACK = 1e-12


def draw(df: pd.DataFrame, label: str, name: str, seed: int, subsample: int, points: int):
    """(train, test): ``points`` test points, then ``subsample`` training rows from the rest."""
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
    M = tally(enc)[:, enc.missing_codes]  # (m, d) missing cells per label and feature
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
            n_worlds=cfg.worlds,
            confidence=cfg.confidence,
            seed=rng,
            max_states=cfg.max_states,
            width=cfg.width,
            time_limit=cfg.time_limit,
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


def _middle(low_high) -> float:
    return (low_high[0] + low_high[1]) / 2


def _majority(labels, ref, proven, mc) -> tuple:
    """(majority label, its exact share or None, every world a tie?, where it comes from)."""
    if ref is not None:
        majority = max(labels, key=lambda lab: ref.counts[lab])  # first label on a tie
        return majority, ref.counts[majority] / ref.total, ref.ties == ref.total, ref.method
    if proven is not None:
        majority = max(labels, key=lambda lab: _middle(proven.proven_shares[lab]))
        return majority, None, proven.proven_tie_shares[0] == 1.0, "bounds"
    majority = max(labels, key=lambda lab: mc.fractions[lab])
    return majority, None, mc.tie_fraction == 1.0, "montecarlo"


def _holds(proven, ref) -> bool:
    """Whether every label's exact count, and the ties, lie in the proven intervals."""
    pairs = [(proven.proven[lab], c) for lab, c in ref.counts.items()]
    return all(lo <= c <= hi for (lo, hi), c in [*pairs, (proven.proven_ties, ref.ties)])


def _pairs(mc, proven) -> list:
    """(Monte-Carlo interval, proven interval) of every label and the ties."""
    pairs = [(mc.intervals[lab], proven.proven_shares[lab]) for lab in mc.intervals]
    return pairs + [(mc.tie_interval, proven.proven_tie_shares)]


def _contains(mc, proven) -> bool:
    """Whether the Monte-Carlo intervals contain the proven ones, every label and the ties."""
    return all(m[0] <= p[0] and p[1] <= m[1] for m, p in _pairs(mc, proven))


def _misses(mc, proven) -> bool:
    """Whether a Monte-Carlo interval is disjoint from the proven one (proven wrong)."""
    return any(m[1] < p[0] or p[1] < m[0] for m, p in _pairs(mc, proven))


def _bounds_fields(wc, majority, ref) -> dict:
    """A bounds row's share (the middle of its proven interval) and proven interval."""
    shares = [*wc.proven_shares.values(), wc.proven_tie_shares]
    low, high = wc.proven_shares[majority]
    return {
        "fraction": (low + high) / 2,
        "tie_fraction": _middle(wc.proven_tie_shares),
        "proven_low": low,
        "proven_high": high,
        "width": max(h - lo for lo, h in shares),
        "eps": wc.eps,
        "exact_in_bounds": pd.NA if ref is None else _holds(wc, ref),
    }


def _method_row(method, wc, elapsed, base, picked, res) -> dict:
    """One row of the table: a method's answer for one point."""
    majority, truth, all_ties, source = picked
    row = dict.fromkeys(COLUMNS, np.nan) | {
        **base,
        "method": method,
        "skipped": wc is None,
        "seconds": np.nan if wc is None else elapsed,
        "elapsed": elapsed,
        "majority_label": majority,
        "majority_from": source,
        "all_ties": all_ties,
    }
    row.update({f: pd.NA for f in FLAGS if f not in ("skipped", "all_ties")})
    if wc is None:
        return row
    if wc.counts is not None:
        row.update(fraction=wc.counts[majority] / wc.total, tie_fraction=wc.ties / wc.total)
    elif wc.proven is not None:
        row.update(_bounds_fields(wc, majority, res.get("exact") or res.get("batch")))
    else:
        low, high = wc.intervals[majority]
        row.update(
            fraction=wc.fractions[majority], tie_fraction=wc.tie_fraction, ci_low=low, ci_high=high
        )
        if truth is not None:
            row["outside_by"] = max(0.0, low - truth, truth - high)
            row["exact_in_interval"] = bool(row["outside_by"] <= INTERVAL_SLACK)
        if res.get("bounds") is not None:
            row["mc_contains_bounds"] = _contains(wc, res["bounds"])
            row["mc_misses_bounds"] = _misses(wc, res["bounds"])
    return row


def _point_rows(enc, t, alpha, cfg, rngs, base, methods=METHODS):
    timed = {m: _count(enc, t[None, :], m, alpha, cfg, rngs[m]) for m in methods}
    res = {m: wc for m, (wc, _) in timed.items()}
    batch, exact = res.get("batch"), res.get("exact")
    where = f"{base['dataset']} rate {base['missing_rate']} point {base['point']}"
    if batch is not None and exact is not None and not _same(batch, exact):
        raise AssertionError(
            f"{where}: Algorithm 2 counts {batch.counts} (ties {batch.ties}) but per-label "
            f"exact {exact.counts} (ties {exact.ties})"
        )
    ref = exact if exact is not None else batch
    if ref is not None and res.get("bounds") is not None and not _holds(res["bounds"], ref):
        raise AssertionError(
            f"{where}: exact counts {ref.counts} (ties {ref.ties}) outside the proven "
            f"intervals {res['bounds'].proven} (ties {res['bounds'].proven_ties})"
        )
    picked = _majority(enc.labels, ref, res.get("bounds"), res.get("montecarlo"))
    rows = [_method_row(m, timed[m][0], timed[m][1], base, picked, res) for m in methods]
    if batch is not None and exact is not None:
        rows[methods.index("batch")]["batch_equals_exact"] = True  # checked above
    return rows


def run(
    df: pd.DataFrame, label: str, name: str, seed: int, cfg: Section, progress=print
) -> pd.DataFrame:
    """The study on one data set; one row per (part, missing rate, test point, method).

    ``cfg`` holds subsample, missing_rates, points, worlds, confidence, max_states,
    batch_rows, full_points, width, time_limit and alpha (0 by default: the paper's
    classifier).
    """
    rows = []
    parts = ["main"] + (["tiny"] if cfg.batch_rows else []) + (["full"] if cfg.full_points else [])
    for part in parts:  # the subsample, a tiny one where Algorithm 2 can run too, every row
        rows += _run_part(df, label, name, seed, cfg, part, progress)
    out = pd.DataFrame(rows, columns=COLUMNS)
    for col in FLAGS:
        out[col] = out[col].astype("boolean")
    return out


def _tables(df, label, name, seed, cfg, part):
    """(training rows, test points, methods) of one part of the study."""
    if part == "full":
        train, test = split(df, cfg.points, seed, name, REP)
        return train, test.iloc[: cfg.full_points], FULL_METHODS
    size = cfg.subsample if part == "main" else cfg.batch_rows
    return (*draw(df, label, name, seed, size, cfg.points), METHODS)


def _blanked(train, label, name, seed, rate, part, progress):
    """The training rows blanked at ``rate``, without any feature left with no value."""
    rep = REP if part != "full" else f"{REP}-full"
    dirty = perturbed(train, label, "uniform", rate, seed, name, rep, 0.0)
    blank = [c for c in dirty.columns if c != label and dirty[c].isna().all()]
    if blank:  # a feature without any observed value has no domain: leave it out
        progress(f"{name} rate {rate:g}: dropping fully blanked feature(s) {blank}")
        dirty = dirty.drop(columns=blank)
        if dirty.shape[1] == 1:
            raise InputError(
                f"{name}: missing rate {rate:g} blanks every feature cell of the {len(dirty)} "
                "training rows; there is nothing to count"
            )
    return dirty


def _run_part(df, label, name, seed, cfg, part, progress) -> list:
    train, test, methods = _tables(df, label, name, seed, cfg, part)
    rows = []
    for rate in map(float, cfg.missing_rates):
        enc = encode(_blanked(train, label, name, seed, rate, part, progress), label)
        T = enc.encode_test(test)
        base = {
            "dataset": name,
            "part": part,
            "missing_rate": rate,
            "train_rows": enc.n,
            "features": enc.d,
            "worlds": cfg.worlds,
            "confidence": cfg.confidence,
            "max_states": cfg.max_states,
            "width_target": cfg.width,
            "time_limit": cfg.time_limit,
            "log10_worlds": total_worlds(enc, log10=True),
        }
        states = batch_states(enc, T)
        for p in range(len(T)):
            keys = (f"{rate:.4f}", p) if part != "full" else ("full", f"{rate:.4f}", p)
            rngs = {m: rng_for(seed, name, REP, *keys, m) for m in methods}
            point = {**base, "point": p, "log10_batch_states": float(states[p])}
            point_rows = _point_rows(enc, T[p], cfg.alpha, cfg, rngs, point, methods)
            rows += point_rows
            progress(_progress_line(name, part, enc.n, rate, p, base, point_rows))
    return rows


def _progress_line(name, part, n, rate, p, base, point_rows) -> str:
    times = ", ".join(
        f"{r['method']} " + ("skipped" if r["skipped"] else f"{r['seconds']:.4f}s")
        for r in point_rows
    )
    widths = [r["width"] for r in point_rows if r["method"] == "bounds"]
    proven = f", proven width {widths[0]:.3g}" if widths else ""
    return (
        f"{name} {part} ({n} rows), rate {rate:g} point {p}: 10^{base['log10_worlds']:.1f} "
        f"worlds, {times}{proven}, majority {point_rows[0]['majority_label']!r} share "
        f"{point_rows[-1]['fraction']:.4g}"
    )


def main(snakemake):
    """The study on one data set's discretized table."""
    p = snakemake.params
    df = read_data(snakemake.input[0], p.label)
    table = run(df, p.label, snakemake.wildcards.ds, p.seed, Section.from_json(p.settings))
    write_table(stamp(table), snakemake.output[0], "counting")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
