"""The report's "Scaling" section, computed from the study's table (:mod:`.run` computes
it; report.py puts the sections together)."""

import numpy as np
import pandas as pd
from common.formatting import DASH, count, flags, megabytes, rows, seconds, table

from studies.scaling.memory import MB
from studies.scaling.plan import FAMILY, STREAMED
from studies.scaling.slopes import fit_slopes, timed_rows


def _first(table: pd.DataFrame, column: str):
    """The first known value of a column; None if it has none (or the table lacks it)."""
    known = table[column].dropna() if column in table else ()
    return known.iloc[0] if len(known) else None


def _points(r) -> str:
    """Points a method decided at one size, and whether its time budget stopped it."""
    if pd.isna(r.points_done):
        return DASH
    if "stopped" in r and pd.notna(r.stopped) and bool(r.stopped):
        return f"{int(r.points_done)} of {int(r.points)}, stopped after {float(r.budget_s):g} CPU s"
    return f"{int(r.points_done)}"


def scaling(table: pd.DataFrame) -> str:
    """The "### Scaling" section of the report, computed from the table."""
    lines = ["### Scaling", ""]
    streamed = table[flags(table, "streamed")]
    table = table.drop(streamed.index)
    if table.empty:
        return "\n".join(lines + ["No scaling runs.", ""])
    ran = sorted(timed_rows(table).n.unique())
    slopes = fit_slopes(table)
    lines += [_setup(table, ran), ""]
    if ran:
        lines += _slope_table(table, slopes, max(ran)) + [""] + _points_lines(table) + [""]
    lines += _skipped_lines(table)
    lines += [_paragraph(table, slopes, ran), ""]
    lines += _streamed_lines(streamed)
    return "\n".join(lines)


def _setup(table: pd.DataFrame, ran: list) -> str:
    """What was run: the tables, the test points, what the times and memory are."""
    first = table.iloc[0]
    rate = table[table.n.isin(ran)].missing_rate.mean() if ran else first.missing_rate
    samples = count(_first(table, "mc_worlds"))
    return (
        "Synthetic tables with planted Naive Bayes structure "
        f"(nbcert.synthetic): d = {first.d} features "
        f"with {first.domain} values, {first.labels} labels, n = "
        f"{', '.join(rows(n) for n in sorted(table.n.unique()))} rows. Deciding and "
        f"counting run on the table with {rate:.0%} of its feature cells blanked, poisoning on the complete table. "
        f"The k = {first.points} test points come from the same model, not from the table. Times are per test point: "
        f"Iterate+Index certifies all k, Iterate and AD as many as the table below says, Monte-Carlo counting "
        f"({samples} sampled worlds) and OP, SR (incremental) and RP (incremental) one point. Memory is the {first.memory_method}."
    )


def _slope_table(runs: pd.DataFrame, slopes: pd.DataFrame, nmax) -> list:
    """Per method: slopes, time, CPU, points and memory at the largest size run."""
    at = slopes.merge(runs[runs.n == nmax], on="method", how="left", suffixes=("", "_run"))
    at["points"] = [_points(r) for _, r in at.iterrows()]
    at["cpu_per_point"] = at.get("cpu_per_point")
    columns = ["method", "slope", "slope_largest", "seconds_per_point", "cpu_per_point", "points"]
    header = (
        f"| method | slope (all sizes) | slope (two largest) | time per point at n = {rows(nmax)} "
        f"| CPU per point | points timed | peak memory added at n = {rows(nmax)} | estimated |"
    )
    formats = {"slope": ".2f", "slope_largest": ".2f", "seconds_per_point": seconds}
    formats |= {"cpu_per_point": seconds, "peak_mb": megabytes, "estimate_added_mb": megabytes}
    return table(at[columns + ["peak_mb", "estimate_added_mb"]], header, formats)


def _points_lines(table: pd.DataFrame) -> list:
    """How many points Iterate (where a budget stopped it) and AD decided at each size."""
    lines = []
    for method in ("Iterate", "AD"):
        sub = table[(table.method == method) & table.points_done.notna()].sort_values("n")
        if len(sub) and (method == "AD" or flags(sub, "stopped").any()):
            worlds = _first(sub, "ad_worlds") if method == "AD" else None
            worlds = f" (each sampling up to {int(worlds)} worlds)" if worlds is not None else ""
            sizes = ", ".join(f"{_points(r)} at n = {rows(r.n)}" for _, r in sub.iterrows())
            lines.append(f"{method} points decided per size: {sizes}{worlds}.")
    return lines


def _skipped_lines(table: pd.DataFrame) -> list:
    skipped = table[table.skipped.fillna("").astype(str) != ""]
    if skipped.empty:
        return []
    lines = ["Skipped:"]
    for (n, why), sub in skipped.groupby(["n", "skipped"]):
        methods = [m for m in sub.method if FAMILY.get(m) != "setup"]
        lines.append(f"- n = {rows(n)}: {', '.join(methods)}: {why}")
    return lines + [""]


def _streamed_lines(streamed: pd.DataFrame) -> list:
    """What the sizes streamed from disk measured (their times include reading the file)."""
    if streamed.empty:
        return []
    out = []
    for n, sub in streamed.groupby("n"):
        ran = sub[sub.seconds.notna() & sub.method.isin(STREAMED.values())]
        if ran.empty:
            why = sub.skipped.fillna("").astype(str)
            out.append(
                f"Streamed from disk, n = {rows(n)}: {next(iter(why[why != '']), 'not run')}."
            )
            continue
        parts = [
            f"{r.method.replace(' (streamed)', '')} {seconds(r.seconds)} for {int(r.points_done)} point"
            f"{'s' * (int(r.points_done) != 1)}, peak {megabytes(r.call_peak_mb)} resident"
            + (f", {int(r.cells)} cells" if pd.notna(r.get("cells", np.nan)) else "")
            for _, r in ran.iterrows()
        ]
        out.append(
            f"Streamed from a generated CSV on disk (deleted after), n = {rows(n)}: {'; '.join(parts)}. "
            "These times include reading the whole file (OP twice: plan, then its cells); Iterate, AD, "
            "SR and RP need the table in memory and were not run."
        )
    return out + [""]


def _paragraph(table, slopes, ran) -> str:
    """What the numbers show, sentence by sentence, each only where the table has its numbers."""
    if not ran or slopes.empty:
        return "No size could be run on this machine (see above)."
    nmax = max(ran)
    at = table[(table.n == nmax)].set_index("method")
    out = (
        _growth(slopes)
        + _index_speed(at, nmax)
        + _poisoning(table, at, nmax)
        + _memory(table, at, nmax)
        + _estimate_short(at)
        + _shared_machine(table)
        + _ad_wrong(at, nmax)
        + _budget(table)
    )
    return " ".join(out)


# How time grows between the two largest sizes: slope 0.8 to 1.2, below, above.
GROWTH = (
    "about linearly in n",
    "sublinearly, still dominated by per-call costs",
    "faster than linearly",
)


def _growth(slopes: pd.DataFrame) -> list:
    """How time grows between the two largest sizes, and where fixed costs flatten the fit."""
    fit = slopes[np.isfinite(slopes.slope_largest)]
    if fit.empty:
        return []
    s = fit.slope_largest
    how = np.select([s < 0.8, s > 1.2], GROWTH[1:], GROWTH[0])
    part = "; ".join(f"{h} ({', '.join(fit.method[how == h])})" for h in GROWTH if (how == h).any())
    out = [
        f"Between the two largest sizes run, time grows {part}: slopes {s.min():.2f} to {s.max():.2f}."
    ]
    small = fit[fit.slope < s - 0.15].method.tolist()
    if small:
        out.append(
            f"Fitted over all sizes the slopes of {', '.join(small)} are lower, because fixed "
            f"costs per call dominate at the smallest tables."
        )
    return out


def _index_speed(at: pd.DataFrame, nmax) -> list:
    dec = at[at.family == "certification"].seconds_per_point.dropna()
    if "Iterate+Index" not in dec or len(dec) <= 1:
        return []
    others = ", ".join(
        f"{dec[m] / dec['Iterate+Index']:.0f}x faster than {m}"
        for m in dec.index
        if m != "Iterate+Index"
    )
    return [
        f"At n = {rows(nmax)} Iterate+Index certifies a point in {seconds(dec['Iterate+Index'])} ({others})."
    ]


def _poisoning(table: pd.DataFrame, at: pd.DataFrame, nmax) -> list:
    """Poisoning times at the largest size, and which answers failed their re-check."""
    poi = at[(at.family == "poisoning") & at.seconds.notna()]
    if poi.empty:
        return []
    took = ", ".join(
        f"{m} {seconds(r.seconds)} ({int(r.cells) if pd.notna(r.cells) else 'no'} cells"
        f"{', which do not verify' if 'verified' in r and str(r.verified) == 'False' else ''})"
        for m, r in poi.iterrows()
    )
    out = [f"Poisoning one point at n = {rows(nmax)} took {took}."]
    failed = table[table.verified.astype(str) == "False"] if "verified" in table else table.iloc[:0]
    if len(failed):
        out.append(
            f"Re-checked on fresh counts, the cells returned by {', '.join(dict.fromkeys(failed.method))} "
            f"at n = {', '.join(rows(n) for n in sorted(set(failed.n)))} do not make the point non-robust, "
            f"so those cell counts are not comparable with OP's."
        )
    return out


def _memory(table: pd.DataFrame, at: pd.DataFrame, nmax) -> list:
    """The held table, what the methods and the setup added, the whole run's peak."""
    peaks = at[at.family != "setup"].peak_mb.dropna()
    if peaks.empty:
        return []
    setup_peak = at[at.family == "setup"].peak_mb.dropna()
    setup = (
        f"; building the tables added up to {megabytes(setup_peak.max())}"
        if len(setup_peak)
        else ""
    )
    available = at.available_mb.iloc[0]
    available = f" of {megabytes(available)} available" if pd.notna(available) else ""
    return [
        f"Memory: the encoded table at n = {rows(nmax)} is {megabytes(at.table_mb.iloc[0])} ("
        f"{at.table_mb.iloc[0] * MB / (nmax * at.d.iloc[0]):.0f} byte per cell); "
        f"the methods added between {megabytes(peaks.min())} and {megabytes(peaks.max())} "
        f"({peaks.idxmax()} the most{setup}), and the whole run peaked at "
        f"{megabytes(table[table.n == nmax].process_peak_mb.max())} resident{available}."
    ]


def _estimate_short(at: pd.DataFrame) -> list:
    if "estimate_added_mb" not in at:
        return []
    short = at[(at.family != "setup") & (at.peak_mb > at.estimate_added_mb)]
    if short.empty:
        return []
    which = ", ".join(
        f"{m} ({megabytes(r.peak_mb)} measured, {megabytes(r.estimate_added_mb)} estimated)"
        for m, r in short.iterrows()
    )
    return [f"The memory estimate fell short for {which}."]


def _shared_machine(table: pd.DataFrame) -> list:
    timed = timed_rows(table)
    if "cpu_seconds" not in timed or not timed.cpu_seconds.notna().any():
        return []
    slow = (timed.seconds / timed.cpu_seconds)[timed.seconds > 0.05].max()  # ignore tiny timings
    if not (np.isfinite(slow) and slow > 1.2):
        return []
    return [
        f"The machine was shared while timing: wall time exceeds the process's CPU time by up to "
        f"{slow:.1f}x (CPU per point is in the table)."
    ]


def _ad_wrong(at: pd.DataFrame, nmax) -> list:
    ad = at.loc["AD"] if "AD" in at.index else None
    if ad is None or not pd.notna(ad.get("ad_false_robust")) or not ad.ad_false_robust > 0:
        return []
    return [
        f"AD called {int(ad.ad_false_robust)} of its {int(ad.points_done)} points at n = {rows(nmax)} robust "
        f"that are not: {int(ad.ad_worlds)} sampled worlds per point missed every world that changes "
        f"the prediction."
    ]


def _budget(table: pd.DataFrame) -> list:
    stopped = table[flags(table, "stopped") & table.points_done.notna()]
    if stopped.empty:
        return []
    budget = float(stopped.budget_s.iloc[0])

    def worlds(r) -> str:  # AD's worlds within the budget (a point may need up to ad_worlds)
        sampled = r.get("worlds_sampled")
        return (
            ""
            if pd.isna(sampled)
            else f"; {int(sampled)} worlds, {sampled / r.seconds:.3g} a second"
        )

    which = ", ".join(
        f"{r.method} at n = {rows(r.n)} ({int(r.points_done)} of {int(r.points)} points in {r.seconds:.3g} s{worlds(r)})"
        for _, r in stopped.sort_values(["method", "n"]).iterrows()
    )
    return [
        f"Iterate and AD had a time budget of {budget:g} CPU seconds per size: after it Iterate starts no new "
        f"test point and AD samples no new world. Stopped: {which}. Their time per point is the "
        "mean over the points decided, measured, not an extrapolation (open markers in the figure); "
        "a method that decided no point has none."
    ]
