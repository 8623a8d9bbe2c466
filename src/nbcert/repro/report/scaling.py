"""The report's "Scaling" section, computed from the scaling study's table
(nbcert.repro.studies.scaling computes; the prose lives here, beside the rest of the
report).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..studies.scaling import KIND, MB, STREAMED, fit_slopes, timed_rows


def _n(n) -> str:
    n = int(n)
    e = round(math.log10(n)) if n > 0 else 0
    return f"10^{e}" if n == 10 ** e else f"{n:,}"


def _mb(x) -> str:
    if x is None or not np.isfinite(x):
        return "-"
    return f"{x / 1000:.2f} GB" if x >= 1000 else f"{x:.1f} MB" if x >= 1 else f"{x * 1000:.0f} kB"


def _s(x) -> str:
    if x is None or not np.isfinite(x):
        return "-"
    return f"{x:.3g} s" if x >= 0.1 else f"{x * 1e3:.3g} ms"


def _f(x) -> str:
    return f"{x:.2f}" if np.isfinite(x) else "-"


def _was_stopped(rows: pd.DataFrame) -> pd.Series:
    return rows.stopped.fillna(False).astype(bool) if "stopped" in rows else pd.Series(False, index=rows.index)


def _points(r) -> str:
    """Points a method decided at one size, and whether its time budget stopped it."""
    if pd.isna(r.points):
        return "-"
    if "stopped" in r and pd.notna(r.stopped) and bool(r.stopped):
        return f"{int(r.points)} of {int(r.k)}, stopped after {float(r.budget_s):g} s"
    return f"{int(r.points)}"


def scaling(table: pd.DataFrame) -> str:
    """The "### Scaling" section of the report, computed from the table."""
    lines = ["### Scaling", ""]
    streamed = table[table["streamed"].fillna(False).astype(bool)] if "streamed" in table else table.iloc[:0]
    table = table.drop(streamed.index)
    if table.empty:
        return "\n".join(lines + ["No scaling runs.", ""])
    first = table.iloc[0]
    sizes = sorted(table.n.unique())
    ran = sorted(timed_rows(table).n.unique())
    rate = table[table.n.isin(ran)].missing_rate.mean() if ran else first.missing_rate
    lines.append(
        f"Synthetic tables with planted Naive Bayes structure (nbcert.repro.synthetic): d = {first.d} features with "
        f"{first.domain} values, {first.labels} labels, n = {', '.join(_n(n) for n in sizes)} rows. Deciding and "
        f"counting run on the table with {rate:.0%} of its feature cells blanked, poisoning on the complete table. "
        f"The k = {first.k} test points come from the same model, not from the table. Times are per test point: "
        f"Iterate+Index certifies all k, Iterate and AD as many as the table below says, Monte-Carlo counting "
        f"({int(table.samples.dropna().iloc[0]) if 'samples' in table and table.samples.notna().any() else '-'} "
        f"samples) and OP, SR and RP one point. Memory is the {first.memory_method}.")
    lines.append("")
    slopes = fit_slopes(table)
    if ran:
        nmax = max(ran)
        at = table[table.n == nmax].set_index("method")
        lines += [f"| method | slope (all sizes) | slope (two largest) | time per point at n = {_n(nmax)} "
                  f"| CPU per point | points timed | peak memory added at n = {_n(nmax)} | estimated |",
                  "|---|---|---|---|---|---|---|---|"]
        for _, r in slopes.iterrows():
            a = at.loc[r.method] if r.method in at.index else None
            lines.append(f"| {r.method} | {_f(r.slope)} | {_f(r.slope_largest)} | "
                         f"{_s(a.seconds_per_point) if a is not None else '-'} | "
                         f"{_s(a.get('cpu_per_point', np.nan)) if a is not None else '-'} | "
                         f"{_points(a) if a is not None else '-'} | "
                         f"{_mb(a.peak_mb) if a is not None else '-'} | "
                         f"{_mb(a.estimate_added_mb) if a is not None else '-'} |")
        lines.append("")
        for method in ("Iterate", "AD"):
            sub = table[(table.method == method) & table.points.notna()].sort_values("n")
            if len(sub) and (method == "AD" or _was_stopped(sub).any()):
                worlds = (f" (each sampling up to {int(sub.worlds.dropna().iloc[0])} worlds)"
                          if method == "AD" and "worlds" in sub and sub.worlds.notna().any() else "")
                lines.append(f"{method} points decided per size: "
                             + ", ".join(f"{_points(r)} at n = {_n(r.n)}" for _, r in sub.iterrows()) + worlds + ".")
        lines.append("")
    skipped = table[table.skipped.fillna("").astype(str) != ""]
    if len(skipped):
        lines.append("Skipped:")
        for (n, why), sub in skipped.groupby(["n", "skipped"]):
            methods = [m for m in sub.method if KIND.get(m) != "setup"]
            lines.append(f"- n = {_n(n)}: {', '.join(methods)}: {why}")
        lines.append("")
    lines.append(_paragraph(table, slopes, ran))
    lines.append("")
    lines += _streamed_lines(streamed)
    return "\n".join(lines)


def _streamed_lines(streamed: pd.DataFrame) -> list:
    """What the sizes streamed from disk measured (their times include reading the file)."""
    if streamed.empty:
        return []
    out = []
    for n, sub in streamed.groupby("n"):
        ran = sub[sub.seconds.notna() & sub.method.isin(STREAMED.values())]
        why = sub.skipped.fillna("").astype(str)
        if ran.empty:
            out.append(f"Streamed from disk, n = {_n(n)}: {why[why != ''].iloc[0] if (why != '').any() else 'not run'}.")
            continue
        parts = [f"{r.method.replace(' (streamed)', '')} {_s(r.seconds)} for {int(r.points)} point"
                 f"{'s' * (int(r.points) != 1)}, peak {_mb(r.call_peak_mb)} resident"
                 + (f", {int(r.cells)} cells" if pd.notna(r.get("cells", np.nan)) else "") for _, r in ran.iterrows()]
        out.append(f"Streamed from a generated CSV on disk (deleted after), n = {_n(n)}: " + "; ".join(parts)
                   + ". These times include reading the whole file (OP twice: plan, then its cells); Iterate, AD, "
                     "SR and RP need the table in memory and were not run.")
    return out + [""]


def _paragraph(table, slopes, ran) -> str:
    if not ran or slopes.empty:
        return "No size could be run on this machine (see above)."
    nmax = max(ran)
    at = table[(table.n == nmax)].set_index("method")
    out = []
    fit = slopes[np.isfinite(slopes.slope_largest)]
    if len(fit):
        lin = fit[(fit.slope_largest >= 0.8) & (fit.slope_largest <= 1.2)].method.tolist()
        sub = fit[fit.slope_largest < 0.8].method.tolist()
        sup = fit[fit.slope_largest > 1.2].method.tolist()
        part = []
        if lin:
            part.append(f"about linearly in n ({', '.join(lin)})")
        if sub:
            part.append(f"sublinearly, still dominated by per-call costs ({', '.join(sub)})")
        if sup:
            part.append(f"faster than linearly ({', '.join(sup)})")
        lo, hi = fit.slope_largest.min(), fit.slope_largest.max()
        out.append(f"Between the two largest sizes run, time grows {'; '.join(part)}: slopes {lo:.2f} to {hi:.2f}.")
        small = fit[fit.slope < fit.slope_largest - 0.15].method.tolist()
        if small:
            out.append(f"Fitted over all sizes the slopes of {', '.join(small)} are lower, because fixed "
                       f"costs per call dominate at the smallest tables.")
    dec = at[at.kind == "decision"].seconds_per_point.dropna()
    if "Iterate+Index" in dec and len(dec) > 1:
        others = ", ".join(f"{dec[m] / dec['Iterate+Index']:.0f}x faster than {m}"
                           for m in dec.index if m != "Iterate+Index")
        out.append(f"At n = {_n(nmax)} Iterate+Index certifies a point in {_s(dec['Iterate+Index'])} "
                   f"({others}).")
    poi = at[at.kind == "poisoning"]
    poi = poi[poi.seconds.notna()]
    if len(poi):
        def bad(r):
            return "verified" in r and str(r.verified) == "False"

        out.append("Poisoning one point at n = " + _n(nmax) + " took " + ", ".join(
            f"{m} {_s(r.seconds)} ({int(r.cells) if pd.notna(r.cells) else 'no'} cells"
            f"{', which do not verify' if bad(r) else ''})" for m, r in poi.iterrows()) + ".")
        if "verified" in table:
            failed = table[table.verified.astype(str) == "False"]
            if len(failed):
                out.append(f"Re-checked on fresh counts, the cells returned by "
                           f"{', '.join(dict.fromkeys(failed.method))} at n = "
                           f"{', '.join(_n(n) for n in sorted(set(failed.n)))} do not make the point non-robust, "
                           f"so those cell counts are not comparable with OP's.")
    peaks = at[at.kind != "setup"].peak_mb.dropna()
    setup_peak = at[at.kind == "setup"].peak_mb.dropna()
    if len(peaks):
        big = peaks.idxmax()
        total = table[table.n == nmax].process_peak_mb.max()
        out.append(
            f"Memory: the encoded table at n = {_n(nmax)} is {_mb(at.table_mb.iloc[0])} ("
            f"{at.table_mb.iloc[0] * MB / (nmax * at.d.iloc[0]):.0f} byte per cell); "
            f"the methods added between {_mb(peaks.min())} and {_mb(peaks.max())} ({big} the most"
            + (f"; building the tables added up to {_mb(setup_peak.max())}" if len(setup_peak) else "") + ")"
            + f", and the whole run peaked at {_mb(total)} resident"
            + (f" of {_mb(at.available_mb.iloc[0])} available" if pd.notna(at.available_mb.iloc[0]) else "") + ".")
    if "estimate_added_mb" in at:
        short = at[(at.kind != "setup") & (at.peak_mb > at.estimate_added_mb)]
        if len(short):
            out.append("The memory estimate fell short for " + ", ".join(
                f"{m} ({_mb(r.peak_mb)} measured, {_mb(r.estimate_added_mb)} estimated)" for m, r in short.iterrows())
                + ".")
    timed = timed_rows(table)
    if "cpu_seconds" in timed and timed.cpu_seconds.notna().any():
        slow = (timed.seconds / timed.cpu_seconds)[timed.seconds > 0.05].max()  # ignore tiny timings
        if np.isfinite(slow) and slow > 1.2:
            out.append(f"The machine was shared while timing: wall time exceeds the process's CPU time by up to "
                       f"{slow:.1f}x (CPU per point is in the table).")
    ad = at.loc["AD"] if "AD" in at.index else None
    if ad is not None and pd.notna(ad.get("ad_false_robust")) and ad.ad_false_robust > 0:
        out.append(f"AD called {int(ad.ad_false_robust)} of its {int(ad.points)} points at n = {_n(nmax)} robust "
                   f"that are not: {int(ad.worlds)} sampled worlds per point missed every world that changes "
                   f"the prediction.")
    stopped = table[_was_stopped(table) & table.points.notna()] if "stopped" in table else table.iloc[:0]
    if len(stopped):
        budget = float(stopped.budget_s.iloc[0])
        out.append(f"Iterate and AD had a time budget of {budget:g} s per size: after it they start no new test "
                   "point. Stopped after " + f"{budget:g} s: " + ", ".join(
                       f"{r.method} at n = {_n(r.n)} ({int(r.points)} of {int(r.k)} points)"
                       for _, r in stopped.sort_values(["method", "n"]).iterrows())
                   + ". Their time per point is the mean over the points decided, measured, not an extrapolation "
                     "(open markers in the figure).")
    return " ".join(out)


# ---------------------------------------------------------------- sizes beyond memory

