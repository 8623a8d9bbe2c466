"""The report's "CPClean's benchmarks" section, computed from the study's tables (:mod:`.run`
computes them; report.py puts the sections together)."""

import pandas as pd
from common.formatting import DASH, missing, table

HEADER = (
    "| space | system | classifier | worlds | certain before | cells cleaned | rows cleaned "
    "| set aside | proven | accuracy: default repair | truth | after cleaning |"
)
COLUMNS = [
    "space",
    "system",
    "classifier",
    "worlds",
    "certain_before",
    "cells_cleaned",
    "rows",
    "excluded",
    "proven",
    "accuracy_default",
    "accuracy_truth",
    "accuracy_cleaned",
]


def cpclean(summary: pd.DataFrame) -> str:
    """The section: what was asked, the table, and what differs."""
    got = summary[summary.obtained.astype(bool)]
    lines = ["### CPClean's benchmarks", "", _intro(got), ""]
    missing = summary[~summary.obtained.astype(bool)]
    lines += [f"Not obtained: {r.space} ({r.reason})." for r in missing.itertuples()]
    if len(got):
        rows = got.assign(rows=got.apply(_rows, axis=1), proven=got.apply(_proven, axis=1))
        formats = {"certain_before": ".1%", "cells_cleaned": _whole, "excluded": _whole}
        formats |= dict.fromkeys(["accuracy_default", "accuracy_truth", "accuracy_cleaned"], ".3f")
        lines += table(rows[COLUMNS], HEADER, formats) + ["", _findings(got), ""]
    return "\n".join(lines)


def _intro(got: pd.DataFrame) -> str:
    n = int(got.validation_rows.dropna().max()) if len(got) else 0
    return (
        "CPClean (Karlas et al., VLDB 2021) asks nbcert's cleaning question for a kNN "
        f"classifier. On its spaces (the first {n:,} validation rows, as its reproduce.py), "
        "nbcert certifies Naive Bayes before cleaning and cleans with the truth until every "
        "validation row that some cleaning can certify is certain (the others, proven "
        "uncleanable, are set aside), over its own worlds (every missing cell any value of "
        "its column's domain), over CPClean's candidate repairs cell by cell (each missing "
        "cell one of its candidates), and over CPClean's own worlds (each dirty row one of "
        "its repaired rows whole; cleaned a row at a time, by nbcert's policy). "
        "Accuracy is on the validation rows, cells not yet cleaned at CPClean's "
        "default repair (mean.csv). CPClean's row is its own numbers from its shipped "
        "tables: its certain share (Q1, K = 3), the rows its shipped result cleaned (made "
        "with its 1,000 validation rows), and its kNN's accuracy (truth: the truth's "
        "closest candidate, its ground truth)."
    )


def _whole(x) -> str:
    return DASH if missing(x) else f"{int(x):,}"


def _rows(r) -> str:
    """Rows cleaned; CPClean's with early termination beside, and the rows that cannot show."""
    if pd.isna(r.rows_cleaned):
        return DASH
    text = f"{int(r.rows_cleaned):,}"
    if pd.notna(r.get("rows_cleaned_et")):
        text += f" ({int(r.rows_cleaned_et):,} with early termination)"
    if pd.notna(r.get("rows_hidden")) and r.rows_hidden:
        text += f", up to {int(r.rows_hidden):,} more unseen"
    return text


def _proven(r) -> str:
    """Whether nbcert's cells for all rows together are proven fewest, or its proven bound;
    over repaired rows the rows are the policy's (a heuristic's count)."""
    if r.system != "nbcert":
        return DASH
    if r.worlds == "repairs":
        return "heuristic (policy)" if pd.notna(r.rows_cleaned) else DASH
    if pd.isna(r.cells_cleaned):
        return DASH
    if bool(r.optimal):
        return "optimal"
    return f">= {int(r.lower_bound):,}" if pd.notna(r.lower_bound) else "no bound"


def _findings(got: pd.DataFrame) -> str:
    """Per space: candidates against domains, nbcert's rows against CPClean's, the accuracy
    nbcert's cleaning reaches; then what differs between the two systems."""
    parts = []
    for space, s in got.groupby("space", sort=False):
        nb = s[s.system == "nbcert"].set_index("worlds")
        cp = s[s.system == "CPClean"]
        if {"domains", "candidates"} <= set(nb.index):
            d, c = nb.loc["domains"], nb.loc["candidates"]
            parts.append(
                f"**{space}**: {c.certain_before:.1%} of the validation rows are certain over "
                f"CPClean's candidate repairs, {d.certain_before:.1%} over the domains; "
                f"cleaning them all takes {_cells(c)} with candidates and {_cells(d)} without"
                + (
                    f", where CPClean's result cleaned {int(cp.rows_cleaned.iloc[0]):,} rows for kNN"
                    if len(cp) and pd.notna(cp.rows_cleaned.iloc[0])
                    else ""
                )
                + f". Naive Bayes' accuracy goes from {c.accuracy_default:.3f} (default repair) "
                f"to {c.accuracy_cleaned:.3f} after nbcert's cleaning ({c.accuracy_truth:.3f} "
                "with every cell at its truth)."
            )
        if "repairs" in nb.index:
            parts.append(_repairs(nb, cp))
    parts.append(
        "What differs: the classifier (Naive Bayes here, kNN with K = 3 in CPClean), so a "
        "certain share or an accuracy is not the same quantity in both rows; the worlds "
        "(the same only in the repaired-rows row: a missing cell any value of its column's "
        "domain, or one of CPClean's candidates cell by cell, are wider); the unit (nbcert "
        "finds the fewest cells, and reports the rows they lie in; CPClean cleans a row at a "
        "time); and the truth (nbcert's is X_train_clean.csv, CPClean's the candidate closest "
        "to it)."
    )
    return " ".join(parts)


def _cells(r) -> str:
    if pd.isna(r.cells_cleaned):
        return "no cleaning"
    return f"{int(r.cells_cleaned):,} cells in {int(r.rows_cleaned):,} rows"


def _repairs(nb: pd.DataFrame, cp: pd.DataFrame) -> str:
    """Over CPClean's own worlds: the certain share against the per-cell one, the rows the
    truth needs against CPClean's, and the share certain after CPClean's rows."""
    r = nb.loc["repairs"]
    text = f"Over CPClean's own worlds (a row takes one of its repaired rows) {r.certain_before:.1%} are certain"
    if "candidates" in nb.index:
        gain = r.certain_before - nb.loc["candidates"].certain_before
        text += f", {gain * 100:.1f} percentage points more than over its candidates cell by cell"
    if pd.notna(r.get("undecided_before")) and r.undecided_before:
        text += f" ({int(r.undecided_before):,} undecided: a search stopped)"
    if pd.notna(r.rows_cleaned):
        text += (
            f"; nbcert's policy, the truth revealed as it goes, cleans {int(r.rows_cleaned):,} "
            f"rows (a heuristic's count) and ends with {r.certain_after_policy:.1%} certain"
        )
    if len(cp) and pd.notna(cp.rows_cleaned.iloc[0]) and pd.notna(r.get("certain_after_cpclean")):
        text += (
            f"; after the {int(cp.rows_cleaned.iloc[0]):,} rows CPClean's result cleaned "
            f"{r.certain_after_cpclean:.1%} are certain for Naive Bayes"
        )
    return text + "."
