"""The report's "Counting in practice" section, computed from the study's table.

Every sentence follows the numbers: a claim is made only where this run's table shows it,
and results a time limit cut short are marked as such.
"""

import pandas as pd
from common.formatting import DASH, flags, number, of, spread, table

from studies.counting.summary import METHODS, full_size, majority_shares, normalise, split_sizes


def _median_seconds(r: pd.DataFrame, method: str) -> str:
    """A method's median seconds per test point, and on how many of the points it was skipped."""
    total, ran = r.point.nunique(), r[r.method == method].seconds.dropna()
    skipped = f" ({total - len(ran)} skipped)" if len(ran) < total else ""
    return (f"{ran.median():.3g}" if len(ran) else DASH) + skipped


def _checked(held: pd.Series) -> str:
    """ "k of n" of the points where a check against the exact answer could be made."""
    return of(held) if held.notna().any() else f"{DASH} (no exact answer)"


def _seconds(t: pd.DataFrame) -> pd.DataFrame:
    """Each method's seconds (a column each) per counting problem: data set, rate, point."""
    return t.pivot_table(
        index=["dataset", "missing_rate", "point"],
        columns="method",
        values="seconds",
        aggfunc="first",
        dropna=False,
    ).reindex(columns=list(METHODS))


def _limit(t: pd.DataFrame) -> str:
    """The state limits the methods were given: "20000", or "3 / 20000"."""
    return " / ".join(str(int(v)) for v in sorted(t.max_states.unique()))


def counting(table: pd.DataFrame) -> str:
    """The "Counting in practice" section, computed from the study's table."""
    whole = normalise(table)
    t, tiny = split_sizes(whole)
    lines = _intro(t)
    shares = majority_shares(t)
    for name in dict.fromkeys(t.dataset):
        lines += _dataset_table(name, t[t.dataset == name], shares)
    lines += [_paragraph(t, shares), ""]
    if len(tiny):
        lines += _tiny(tiny)
    lines += _proven(whole)
    return "\n".join(lines)


def _intro(t: pd.DataFrame) -> list:
    """The section's title and what was counted, how."""
    first = t.iloc[0]
    return [
        "### Counting in practice",
        "",
        f"Worlds predicting each label, counted for each of {t.point.nunique()} test points per data set on "
        f"{int(first.train_rows)} training rows subsampled from it (test points drawn from the other rows), "
        "blanked uniformly at each missing rate: Algorithm 2 (joint enumeration), the per-label exact method, "
        f"proven bounds (every label's count and the ties in a proven interval, refined to "
        f"{100 * first.width_target:g} percentage point within {first.time_limit:g} s a point) "
        f"and a Monte-Carlo estimate ({int(first.worlds)} sampled worlds, simultaneous "
        f"{first.confidence:.0%} intervals). A method whose problem exceeds "
        f"{_limit(t)} states is "
        "skipped. Times are medians per test point in seconds; the majority label is the one most worlds "
        "predict in the exact answer; its share is the median over test points (the middle of the proven interval, else Monte-Carlo, where no exact "
        "method ran).",
        "",
    ]


def _dataset_table(name: str, sub: pd.DataFrame, shares: pd.DataFrame) -> list:
    """One data set's table: a row per missing rate."""
    rows = []
    for rate, r in sub.groupby("missing_rate"):
        sh = shares[(shares.dataset == name) & (shares.missing_rate == rate)]
        states = number(r[r.method == "batch"].log10_batch_states.median(), ".1f")
        cells = [f"{rate:g}", f"{r.log10_worlds.max():.1f}", states]
        cells += [_median_seconds(r, m) for m in ("batch", "exact", "bounds", "montecarlo")]
        cells += [_checked(r[r.method == "montecarlo"].exact_in_interval)]
        cells += [_checked(r[r.method == "bounds"].exact_in_bounds)]
        cells += [f"{int(flags(sh, 'all_ties').sum())} of {r.point.nunique()}"]
        rows.append(cells + [f"{sh.fraction.median():.3g}"])
    return [
        f"**{name}** ({int(sub.train_rows.max())} training rows, {int(sub.features.max())} features)",
        "",
        *table(
            rows,
            "| missing rate | worlds (log10) | Algorithm 2 states (log10, median) | Algorithm 2 (s) "
            "| per-label exact (s) | proven bounds (s) | Monte-Carlo (s) "
            "| exact share inside the MC interval | exact counts inside the proven intervals "
            "| points where every world ties | majority-label share |",
        ),
        "",
    ]


def _tiny(tiny: pd.DataFrame) -> list:
    """The tiny subsample's times, and how the two exact methods compare on it."""
    rows = [
        (name, f"{rate:g}", *(_median_seconds(r, m) for m in ("batch", "exact", "montecarlo")))
        for (name, rate), r in tiny.groupby(["dataset", "missing_rate"], sort=False)
    ]
    lines = [
        f"On a tiny subsample ({int(tiny.train_rows.max())} training rows, the same test points), where "
        "Algorithm 2 can run, median seconds per test point:",
        "",
        *table(rows, "| data set | missing rate | Algorithm 2 | per-label exact | Monte-Carlo |"),
    ]
    wide = _seconds(tiny).dropna()
    if len(wide):
        lines += [
            "",
            f"Where both exact methods ran on the tiny tables ({len(wide)} problems), Algorithm 2 took "
            f"{spread(wide['batch'] / wide['exact'], unit='x')} the per-label method's time.",
            "",
        ]
    return lines


def _paragraph(t: pd.DataFrame, shares: pd.DataFrame) -> str:
    """What the numbers show: which methods ran, how they compare, how open the points are."""
    wide = _seconds(t)
    limit = _limit(t)
    parts = (
        _methods_ran(t, wide, limit)
        + _monte_carlo_times(t, wide)
        + _intervals(t)
        + _all_ties(shares)
        + _trend(t, shares)
    )
    return " ".join(parts)


def _methods_ran(t: pd.DataFrame, wide: pd.DataFrame, limit: str) -> list:
    """Where each method ran, why Algorithm 2 was skipped, and the two exact methods compared."""
    n = len(wide)
    ran = wide.notna().sum()
    parts = [
        f"Of {n} counting problems (data set, missing rate, test point), Algorithm 2 ran on {ran['batch']}, "
        f"the per-label exact method on {ran['exact']}, proven bounds on {ran['bounds']} and "
        f"Monte-Carlo on {ran['montecarlo']}."
    ]
    skipped = t[(t.method == "batch") & t.skipped.astype(bool)].log10_batch_states
    if len(skipped):
        parts.append(
            f"Algorithm 2 was skipped on {len(skipped)}: its joint enumeration would visit "
            f"10^{skipped.min():.1f} to 10^{skipped.max():.1f} beta matrices per point "
            f"(median 10^{skipped.median():.1f}) against a limit of {limit}."
        )
    both = wide.dropna(subset=["batch", "exact"])
    if len(both):
        equal = t[t.method == "batch"].batch_equals_exact.dropna()
        ratio = both["batch"] / both["exact"]
        parts.append(
            f"Where both exact methods ran ({len(both)} problems) their counts were identical "
            f"({of(equal)} checked) and Algorithm 2 took {spread(ratio, unit='x')} "
            f"the per-label method's time (the per-label method faster on {int((ratio > 1).sum())})."
        )
    if n - ran["exact"]:
        parts.append(
            f"The per-label method exceeded {limit} distinct supports for a label on {n - ran['exact']}."
        )
    return parts


def _monte_carlo_times(t: pd.DataFrame, wide: pd.DataFrame) -> list:
    parts = []
    ex = wide.dropna(subset=["exact", "montecarlo"])
    if len(ex):
        parts.append(
            f"Where the per-label method ran, Monte-Carlo took {spread(ex['montecarlo'] / ex['exact'], unit='x')} "
            "its time."
        )
    per_rate = t[t.method == "montecarlo"].groupby(["dataset", "missing_rate"]).seconds.median()
    if len(per_rate):
        parts.append(
            f"Monte-Carlo's median time per point lay between {per_rate.min():.3g} s and "
            f"{per_rate.max():.3g} s for every data set and missing rate."
        )
    return parts


def _intervals(t: pd.DataFrame) -> list:
    """How often the exact share lay inside the Monte-Carlo interval (and by rounding only)."""
    mcrows = t[(t.method == "montecarlo") & t.exact_in_interval.notna()]
    if mcrows.empty:
        return []
    inside = mcrows.exact_in_interval.astype(bool)
    text = (
        f"The exact majority-label share lay inside the Monte-Carlo interval on {of(inside)} "
        f"points where both ran ({inside.mean():.1%}; the intervals are simultaneous over "
        f"labels and ties at {t.confidence.iloc[0]:.0%})"
    )
    rounding = mcrows.outside_by[inside & (mcrows.outside_by > 0)]
    if len(rounding):
        text += (
            f"; on {len(rounding)} of them only within floating-point rounding of an interval end (an "
            f"exact share of 0 or 1 against an end computed at most {rounding.max():.1g} from it)"
        )
    return [text + "."]


def _all_ties(shares: pd.DataFrame) -> list:
    ties = flags(shares, "all_ties")
    if not ties.any():
        return []
    return [
        f"On {of(ties)} points no label wins in any world (every world a tie: "
        "typically a test value that no observed training cell takes, so with alpha = 0 every label "
        "has support 0); their majority share is 0."
    ]


def _trend(t: pd.DataFrame, shares: pd.DataFrame) -> list:
    """How the median majority share moves with the missing rate, per data set."""
    by_rate = shares.groupby(["dataset", "missing_rate"]).fraction.median()
    trend = [_trend_of(name, by_rate[name]) for name in dict.fromkeys(t.dataset) if name in by_rate]
    if not trend:
        return []
    return [
        f"The median share of worlds predicting the majority label ({'; '.join(trend)}) measures "
        "how open the missing cells leave the prediction: a share of 1 is a certifiably robust point."
    ]


def _trend_of(name: str, med: pd.Series) -> str:
    """One data set's median majority share from its lowest missing rate to its highest."""
    (first, lo), (last, hi) = (med.index[0], med.iloc[0]), (med.index[-1], med.iloc[-1])
    if len(med) == 1:
        return f"{name}: {lo:.3g} at rate {first:g}"
    if abs(hi - lo) < 0.02:
        return f"{name}: about {lo:.3g} at every rate from {first:g} to {last:g}"
    return f"{name}: {'falls' if hi < lo else 'rises'} from {lo:.3g} at rate {first:g} to {hi:.3g} at rate {last:g}"


def _proven(t: pd.DataFrame) -> list:
    """Proven bounds: that the exact counts lay inside wherever both ran, and the widths
    and times at full size."""
    bounds = t[(t.method == "bounds") & ~t.skipped.astype(bool)]
    held = bounds.exact_in_bounds.dropna()
    if bounds.empty:
        return []
    lines = ["#### Proven bounds", ""]
    if len(held):
        lines += [
            f"Wherever an exact method ran (the subsampled tables), the exact count of every "
            f"label and of the ties lay inside the proven intervals on {of(held)} "
            f"points{' (every time)' if held.all() else ''}.",
            "",
        ]
    full = full_size(t)
    if len(full):
        lines += _full_table(full)
    return lines


def _full_table(full: pd.DataFrame) -> list:
    """One row per data set and missing rate of the counts on every row."""
    target, rows = full.width_target.iloc[0], []
    for (name, rate), r in full.groupby(["dataset", "missing_rate"], sort=False):
        b = r[(r.method == "bounds") & ~r.skipped.astype(bool)]
        mc = r[r.method == "montecarlo"]
        rows.append(
            (name, f"{rate:g}", int(r.train_rows.max()), f"{r.log10_worlds.max():.0f}")
            + (f"{100 * b.width.median():.2g}", f"{100 * b.width.max():.2g}", of(b.width <= target))
            + (f"{b.seconds.median():.3g}", f"{b.seconds.max():.3g}", f"{mc.seconds.median():.3g}")
            + (of(mc.mc_contains_bounds), of(mc.mc_misses_bounds))
        )
    return [
        f"At full size (every row of the data set but the test points; "
        f"{full.point.nunique()} test points per data set and rate), the widest proven interval "
        f"per point (as a share of the worlds, in percentage points) and the time per point; "
        f"the last columns say whether the Monte-Carlo intervals ({int(full.worlds.iloc[0])} "
        "sampled worlds) contain the proven ones, for every label and the ties (a proven interval "
        "wider than Monte-Carlo's, as the ties' often is, is not contained), and whether one "
        "of them misses the proven one (is disjoint from it: proven wrong):",
        "",
        *table(
            rows,
            "| data set | missing rate | training rows | worlds (log10) | widest interval, median "
            f"(points) | widest, max | within {100 * target:g} point | proven s/point, median "
            "| max | Monte-Carlo s/point | MC intervals contain the proven ones | an MC interval "
            "proven wrong |",
        ),
        "",
    ]
