"""What the counting study's table says, for its report and its figure: the table's
methods and flags, its parts, and the majority label's share per test point (:mod:`.run`
makes the table)."""

import pandas as pd
from common.tables import read_tables

METHODS = ("batch", "exact", "montecarlo", "bounds")
FULL_METHODS = ("montecarlo", "bounds")  # at full size exact counting is out of reach
NAMES = {
    "batch": "Algorithm 2",
    "exact": "per-label exact",
    "montecarlo": "Monte-Carlo",
    "bounds": "proven bounds",
}
FLAGS = (
    "skipped",
    "all_ties",
    "exact_in_interval",
    "batch_equals_exact",
    "exact_in_bounds",
    "mc_contains_bounds",
    "mc_misses_bounds",
)


def split_sizes(table: pd.DataFrame):
    """(main, tiny): rows of each data set's subsample, and of its tiny one."""
    return table[table.part == "main"], table[table.part == "tiny"]


def full_size(table: pd.DataFrame) -> pd.DataFrame:
    """The rows counted on every row of each data set."""
    return table[table.part == "full"]


def load(paths) -> pd.DataFrame:
    """The per-data-set tables, each checked, concatenated, with flags as booleans."""
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
    pref = {"exact": 0, "batch": 1, "bounds": 2, "montecarlo": 3}
    t = t.assign(_order=t.method.map(pref)).sort_values(
        ["dataset", "missing_rate", "point", "_order"]
    )
    best = t.groupby(["dataset", "missing_rate", "point"], sort=False).head(1)
    return best[["dataset", "missing_rate", "point", "method", "fraction", "all_ties"]].reset_index(
        drop=True
    )
