"""The report's "Which cells to clean" section, computed from the study's table (:mod:`.run`
computes it; report.py puts the sections together)."""

import pandas as pd
from common.formatting import count, flags, number, of, spread, table

from studies.cleaning.summary import cells_needed, summary

SHARES = ["random", "cpclean", "nbcert", "truth", "lower_bound"]  # of the missing cells
RATIOS = ["vs_random", "vs_truth", "vs_bound"]
COLUMNS = ["dataset", "perturbation", "missing_rate", "reps", "missing_cells", *SHARES, *RATIOS]
HEADER = (
    "| data set | perturbation | missing rate | reps | missing cells | random | CPClean-style | nbcert "
    "| truth | bound | nbcert / random | nbcert / truth | nbcert / bound |"
)


def cleaning(runs: pd.DataFrame) -> str:
    """The "Which cells to clean" section, computed from the study's table."""
    s = summary(runs).rename(columns={"CPClean-style": "cpclean"})
    first = runs.iloc[0]
    excluded = runs.groupby(["dataset", "perturbation", "missing_rate", "rep"]).excluded.first()
    rows = s[COLUMNS].copy()
    rows[SHARES] = rows[SHARES].div(rows.missing_cells, axis=0)
    formats = {"missing_rate": "g", "reps": count, "missing_cells": count}
    formats |= dict.fromkeys(SHARES, ".1%") | dict.fromkeys(RATIOS, ".2f")
    return "\n".join(
        [
            "### Which cells to clean",
            "",
            f"Each perturbed table is cleaned (true values from the complete table) until all "
            f"{int(first.points + first.excluded)} test points are certifiably robust (points that no cleaning "
            f"can certify, proven, are left out: {int(excluded.sum())} "
            "in all runs). Cells needed are medians over "
            f"the repetitions that needed cleaning (of {int((s.reps + s.idle_reps).max())}; *reps* in the table), as a "
            "share of the missing cells; policies clean "
            "their chosen (label, column) group a batch at a time "
            f"({runs.batch.min()}–{runs.batch.max()} cells per step). "
            "*truth* is the answer for all points together found with the truth (greedy's, pruned, or with the config's "
            "method auto the exact program within its limits) and *bound* its proven lower bound: the fewest cells any order could need lies between.",
            "",
            *table(rows, HEADER, formats),
            "",
            _paragraph(s, cells_needed(runs)),
            "",
        ]
    )


def _paragraph(s: pd.DataFrame, need: pd.DataFrame) -> str:
    """What the numbers show: the two targets, the policies compared, the search with the truth."""
    live = s[s.reps > 0]
    idle = int((s.reps == 0).sum())
    parts = [
        f"{idle} of {len(s)} settings needed no cleaning in any repetition (every point already robust)."
        if idle
        else ""
    ]
    if len(live):
        parts += _target_1(live) + _target_2(live) + _policies(live)
    parts += _flat_criterion(need) + _with_truth(need) + _per_step(need)
    return " ".join(p for p in parts if p)


def _target_1(live: pd.DataFrame) -> list:
    """Target 1 (half of random's cells): met where, and where a proven bound rules it out."""
    met, out = live.half_of_random.astype(bool), live.half_out_of_reach.astype(bool)
    parts = [
        f"**Target 1** (nbcert needs at most half the cells random order needs, median over "
        f"repetitions): met in {of(met)} settings."
    ]
    miss, blocked = live[~met], out[~met]
    if len(miss):
        rest = miss[~blocked]
        listed = ", ".join(
            f"{r.dataset} {r.perturbation} {r.missing_rate:g}: nbcert "
            f"{r.vs_random:.2f}, truth {number(r.truth_vs_random, '.2f')}, bound "
            f"{number(r.bound_vs_random, '.2f')} of random"
            for r in rest.itertuples()
        )
        tail = f"; in the other {len(rest)} ({listed}) the target is not excluded by the bound but nbcert misses it"
        parts.append(
            f"Of the {len(miss)} misses, the target is provably out of reach for any order of cleaning in "
            f"{int(blocked.sum())}: the proven lower bound on the fewest cells that certify every point already "
            "exceeds half of random's cells at the median (random order needs nearly every missing "
            f"cell, and so does the optimum when each point needs most of its columns cleaned){tail if len(rest) else ''}."
        )
    return parts


def _target_2(live: pd.DataFrame) -> list:
    """Target 2 (within 2x of the floor with the truth), against the bound and the best answer found."""
    return [
        f"**Target 2** (within 2x of the floor with the truth): nbcert is within 2x of the proven lower bound "
        f"-- so provably within 2x of the true minimum -- in {of(live.within_2x_bound)} settings, "
        f"and within 2x of the best answer with the truth found in {of(live.within_2x_truth)}; its "
        f"median ratio to the answer with the truth is {spread(live.vs_truth, '.2f')}, "
        f"to the bound {spread(live.vs_bound, '.2f')}."
    ]


def _policies(live: pd.DataFrame) -> list:
    """Which policy needed the fewest cells, and the runs that never certified every point."""
    best = (
        live[["random", "cpclean", "nbcert"]].idxmin(axis=1).replace({"cpclean": "CPClean-style"})
    )
    fewest = ", ".join(f"{k} in {v}" for k, v in best.value_counts().items())
    parts = [
        f"Fewest cells among the three policies: {fewest} of {len(live)} settings; CPClean-style needs "
        f"{number(live.cpclean_vs_random.median(), '.2f')}x random's cells at the median."
    ]
    if live.incomplete.sum():
        parts.append(
            f"{int(live.incomplete.sum())} policy runs never had every point certified at once "
            "(left out of the medians)."
        )
    return parts


def _flat_criterion(need: pd.DataFrame) -> list:
    cp = need[(need.method == "CPClean-style") & (need.steps > 0)]
    if not len(cp) or "flat" not in need:
        return []
    flat = need.loc[cp.index, "flat"].astype(float).sum() / cp.steps.sum()
    return [
        f"CPClean-style saw no disagreement among its sampled worlds for any non-robust point (a flat "
        f"criterion; it then takes the largest group) in {flat:.0%} of its steps: the worlds that "
        "keep a point from being robust are too rare to sample, which is why certification needs the "
        "extremes rather than the bulk of the worlds."
    ]


def _with_truth(need: pd.DataFrame) -> list:
    """How often the answer with the truth was proven optimal, and whether a time limit cut it short."""
    off = need[need.method == "truth"]
    if off.empty:
        return []
    cut = int(flags(off, "time_limited").sum())
    return [
        f"The answer with the truth was proven optimal in {int(off.optimal.astype(bool).sum())} of {len(off)} runs.",
        f"The solver's time limit stopped the search in {cut} of them: their answers with the truth and bounds "
        "depend on the machine's speed and may differ between runs; the rest stopped at their node "
        "limit or finished, and are the same on every machine."
        if cut
        else "No search with the truth was stopped by the time limit (node limits only), so these answers are the "
        "same on every machine.",
    ]


def _per_step(need: pd.DataFrame) -> list:
    stepped = need[need.method.isin(["CPClean-style", "nbcert"]) & (need.steps > 0)]
    if stepped.empty:
        return []
    per = (stepped.seconds / stepped.steps).groupby(stepped.method).median()
    return [f"Median seconds per step: {', '.join(f'{k} {v:.3g}' for k, v in per.items())}."]
