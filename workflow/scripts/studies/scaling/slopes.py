"""Scaling study, summaries: how each method's time per point grows with n (the log-log
slopes the report and the figure give)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from studies.scaling.plan import FAMILY, METHODS


def timed_rows(table: pd.DataFrame) -> pd.DataFrame:
    ok = table[
        (table.family != "setup") & table.seconds_per_point.notna() & (table.seconds_per_point > 0)
    ]
    if "skipped" in ok:
        ok = ok[ok.skipped.fillna("").astype(str) == ""]
    return ok


def fit_slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Per method: least-squares slope of log time per point vs log n (all sizes run),
    and the slope between the two largest sizes."""
    out = []
    ok = timed_rows(table)
    for method in [m for m in METHODS if m in set(ok.method)] + sorted(
        set(ok.method) - set(METHODS)
    ):
        sub = ok[ok.method == method].groupby("n").seconds_per_point.mean().sort_index()
        x, yv = np.log10(sub.index.to_numpy(float)), np.log10(sub.to_numpy(float))
        slope = intercept = last = np.nan
        if len(sub) >= 2:
            slope, intercept = np.polyfit(x, yv, 1)
            last = (yv[-1] - yv[-2]) / (x[-1] - x[-2])
        out.append(
            {
                "method": method,
                "family": FAMILY.get(method, ""),
                "slope": slope,
                "intercept": intercept,
                "slope_largest": last,
                "sizes": len(sub),
                "n_min": int(sub.index.min()),
                "n_max": int(sub.index.max()),
                "seconds_at_max": float(sub.iloc[-1]),
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "method",
            "family",
            "slope",
            "intercept",
            "slope_largest",
            "sizes",
            "n_min",
            "n_max",
            "seconds_at_max",
        ],
    )
