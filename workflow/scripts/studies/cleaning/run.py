"""Beyond the paper: which cells to clean, on the real data sets.

For each data set, repetition, perturbation and missing rate, the perturbed table of the
pipeline (the same split and blanking as the certify stage) is cleaned -- true values from
the complete table -- until all k test points are certifiably robust.  Four answers:

* ``random`` -- missing cells in a uniformly random order (the floor rival);
* ``CPClean-style`` -- after Karlas et al. (VLDB 2021; ``nbcert.cleaning.entropy``): the (label,
  column) group whose cleaning most reduces the expected entropy of the predicted-label distribution over the
  possible worlds, summed over the non-robust points.  The distribution is nbcert's
  Monte-Carlo counting law (beta_lj ~ Binomial(M_lj, 1/delta_j), a uniform random world)
  with ``worlds`` sampled worlds per point and step; revealing a batch of B cells of a group
  reveals how many of them hold t_j (in a world: its count among the group's next B cells,
  hypergeometric given beta), so the expected entropy after cleaning is the conditional
  entropy of the label given that count.  The worlds are kept between steps: a world
  splits each group's count into its next batch of cells and the rest, and when a batch is
  cleaned only that group changes (its cells leave the world; the next batch is split off
  the rest, hypergeometrically, which leaves a uniform world over the cells still
  missing); a column whose domain grew is drawn afresh.  A step costs O(points x worlds x groups) for the criterion (one sort per
  point and group) plus O(points x worlds x labels) for the cleaned group's update;
* ``nbcert`` -- :func:`nbcert.cleaning.next_group` (truth-free, the product's policy);
* ``truth`` -- with the truth: the answer for all points together (greedy, pruned; exact
  program where small) and its proven lower bound (the largest single-point minimum, or
  the program's bound).  The true minimum lies between them.

Points that no cleaning can certify (proven by the exact single-point minimum: e.g. with
alpha = 0 a test value that no training cell holds) are left out and counted (``excluded``).
Policies clean ``batch`` cells of their chosen group per step (batch = ``batch_share`` of
the missing cells, at least 1); cells of a group are taken in a seeded random order, the
same for every policy.  A random choice derives from (seed, data set, repetition, variant,
method), so the table is reproducible except for the times.
"""

import time

import numpy as np
import pandas as pd
from common.draws import complete_rows, perturbed, rng_for, split
from common.job import run_job, stamp
from common.settings import Section
from common.tables import read_data, write_table

from nbcert import encode
from nbcert.methods import (
    CleaningTable,
    clean_together,
    cleanable,
    entropy_chooser,
    follow,
    next_group,
    state_certification,
)
from studies.cleaning.summary import METHODS, OUTCOME

COLUMNS = [
    "dataset",
    "perturbation",
    "missing_rate",
    "rep",
    "method",
    "cells",
    "certified",
    "points",
    "excluded",
    "missing_cells",
    "final",
    *OUTCOME,
    "batch",
]
REP = "cleaning"  # the seed part of this study's subsample


# ----------------------------------------------------------------------------- one run


def _random_history(tab, T, alpha, rng, batch):
    """Certified points after every ``batch`` cells of a uniformly random cleaning order."""
    shape = tab.obs.shape
    m, d, K = shape
    r, c = np.nonzero(tab.missing)
    y = np.repeat(np.arange(m), tab.N)
    key = ((y[r] * d + c) * K + tab.values()[r, c])[rng.permutation(len(r))]
    obs, hid = tab.obs.ravel().copy(), tab.hid.ravel().copy()
    history, last = [], 0
    for stop in list(range(0, len(key), batch)) + [len(key)]:
        add = np.bincount(key[last:stop], minlength=obs.size)
        obs, hid, last = obs + add, hid - add, stop
        count = int(
            state_certification(
                obs.reshape(shape), hid.reshape(shape).sum(axis=2), tab.N, T, alpha
            ).robust.sum()
        )
        history.append((stop, count))
        if count == len(T):
            break
    return history


def _rows(base, method, history, seconds, steps, **extra):
    out = []
    for i, (cells, certified) in enumerate(history):
        out.append(
            {
                **base,
                "method": method,
                "cells": int(cells),
                "certified": int(certified),
                "final": i == len(history) - 1,
                "seconds": seconds,
                "steps": steps,
                "lower_bound": None,
                "optimal": None,
                "flat": None,
                **extra,
            }
        )
    return out


def run_one(
    tab: CleaningTable,
    T: np.ndarray,
    base: dict,
    cfg: Section,
    seed_parts: tuple,
    progress=print,
) -> list:
    """Every method on one perturbed table; tidy rows."""
    missing = int(tab.hid.sum())
    batch = max(1, round(cfg.batch_share * missing))
    possible = np.array([cleanable(tab, t, cfg.alpha) for t in T], bool)
    T = T[possible]  # a point no cleaning can certify (proven) is left out
    base = {
        **base,
        "points": len(T),
        "excluded": int((~possible).sum()),
        "missing_cells": missing,
        "batch": batch,
    }
    order = rng_for(*seed_parts, "group order").permutation(tab.enc.n)
    t0 = time.perf_counter()
    hist = _random_history(tab, T, cfg.alpha, rng_for(*seed_parts, "random"), batch)
    rows = _rows(base, "random", hist, time.perf_counter() - t0, len(hist) - 1)
    for method in ("CPClean-style", "nbcert"):
        rows += _policy_rows(tab, T, base, cfg, method, batch, order, seed_parts)
    truth, together = _truth_rows(tab, T, base, cfg)
    rows += truth
    done = {r["method"]: r["cells"] for r in rows if r["final"]}
    progress(
        f"{base['dataset']} rep {base['rep']} {base['perturbation']} {base['missing_rate']:g}: {missing} missing, "
        + ", ".join(f"{m} {done.get(m)}" for m in METHODS)
        + f" (lower bound {together.lower_bound})"
    )
    return rows


def _policy_rows(tab, T, base, cfg, method, batch, order, seed_parts) -> list:
    """A policy (CPClean-style or nbcert's) cleaning until every point is certified."""
    if method == "CPClean-style":
        choose = entropy_chooser(
            tab.N, T, cfg.alpha, cfg.worlds, batch, rng_for(*seed_parts, method)
        )
    else:

        def choose(obs, M, robust):
            return next_group(obs, M, tab.N, T, cfg.alpha, cfg.prior, robust)

    t0 = time.perf_counter()
    _, hist, _ = follow(tab, T, choose, cfg.alpha, batch, order)
    return _rows(
        base,
        method,
        hist,
        time.perf_counter() - t0,
        len(hist) - 1,
        flat=getattr(choose, "flat", None),
    )


def _truth_rows(tab, T, base, cfg) -> tuple:
    """The answer with the truth and its lower bound: (rows, the answer); one final
    row without cells where no cleaning certifies every point."""
    t0 = time.perf_counter()
    together = clean_together(tab, T, cfg.alpha, cfg.method, cfg.node_limit, cfg.time_limit)
    hist = [(together.num_cells, len(T))] if together.possible else []
    outcome = {
        "lower_bound": together.lower_bound,
        "optimal": bool(together.optimal),
        "time_limited": together.time_limited,
    }
    rows = _rows(base, "truth", hist, time.perf_counter() - t0, 0, **outcome)
    if not together.possible:
        rows.append(
            {
                **base,
                "method": "truth",
                "cells": None,
                "certified": None,
                "final": True,
                "seconds": time.perf_counter() - t0,
                "steps": 0,
                **outcome,
            }
        )
    return rows, together


def run(
    df: pd.DataFrame, label: str, name: str, seed: int, cfg: Section, progress=print
) -> pd.DataFrame:
    """The study on one data set's discretized table: every repetition, perturbation and
    missing rate of ``cfg`` (repetitions, perturbations, missing_rates, points,
    feature_share, batch_share, worlds, prior, alpha, node_limit, time_limit and
    subsample: rows kept, drawn before the split).  Only the complete rows take part: the
    true value of a cell the data set already lacks is unknown."""
    df = df.iloc[complete_rows(df)].reset_index(drop=True)
    if cfg.subsample and cfg.subsample < len(df):
        keep = np.sort(
            rng_for(seed, name, REP, "subsample").choice(len(df), cfg.subsample, replace=False)
        )
        df = df.iloc[keep].reset_index(drop=True)
    rows = []
    for rep in range(cfg.repetitions):
        train, test = split(df, cfg.points, seed, name, rep)
        enc = encode(train, label)
        T = enc.encode_test(test)
        for perturbation in cfg.perturbations:
            for rate in cfg.missing_rates:
                dirty = perturbed(
                    train, label, perturbation, rate, seed, name, rep, cfg.feature_share
                )
                miss = dirty[list(enc.features)].isna().to_numpy()[enc.rows]
                tab = CleaningTable.build(enc, miss)
                base = {
                    "dataset": name,
                    "perturbation": perturbation,
                    "missing_rate": rate,
                    "rep": rep,
                }
                rows += run_one(
                    tab, T, base, cfg, (seed, name, rep, perturbation, f"{rate:.4f}"), progress
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def main(snakemake):
    """The study on one data set's discretized table."""
    p = snakemake.params
    df = read_data(snakemake.input[0], p.label)
    table = run(df, p.label, snakemake.wildcards.ds, p.seed, Section.from_json(p.settings))
    write_table(stamp(table), snakemake.output[0], "cleaning")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
