"""The answers of the exact methods in a pipeline run's tables, in one long table: what
must not change when the pipeline is made faster.  Rows a solver's time limit
cut short are left out: they depend on the machine's speed, and the report marks them."""

import json
from pathlib import Path

import pandas as pd

# table prefix -> (methods, identifying columns, answer columns)
EXACT = {
    "certify": (
        ("Iterate", "Iterate+Index"),
        ["rep", "perturbation", "missing_rate", "points"],
        ["robust", "nonrobust"],
    ),
    "poisoning": (("OP",), ["rep"], ["possible", "cells"]),
    "counting": (
        ("batch", "exact"),
        ["train_rows", "missing_rate", "point"],
        ["skipped", "majority_label", "fraction", "tie_fraction", "all_ties"],
    ),
    "cleaning": (
        ("truth",),
        ["perturbation", "missing_rate", "rep", "final"],
        ["cells", "points", "excluded", "missing_cells", "optimal"],
    ),
    "poisoning_together": (
        ("union of OP", "greedy", "exact"),
        ["points"],
        ["cells", "valid", "optimal"],
    ),
    "scaling": (
        ("Iterate+Index", "Iterate", "OP", "Iterate+Index (streamed)", "OP (streamed)"),
        ["n"],
        ["robust", "correct", "possible", "cells"],
    ),
}


def _value(v):
    return None if pd.isna(v) else (round(float(v), 12) if isinstance(v, float) else v)


def exact_answers(results: Path) -> pd.DataFrame:
    """(table, method, key, column, value) for every exact answer in results/tables."""
    rows = []
    for path in sorted((results / "tables").glob("*.csv")):
        prefix = next(
            (p for p in sorted(EXACT, key=len, reverse=True) if path.stem.startswith(p)), None
        )
        if prefix is None:
            continue
        methods, keys, answers = EXACT[prefix]
        t = pd.read_csv(path)
        t = t[t.method.isin(methods)]
        if "time_limited" in t:
            t = t[~t.time_limited.fillna(False).astype(bool)]
        for r in t.to_dict("records"):
            key = json.dumps(
                {
                    k: _value(r.get("dataset", "")) if k == "dataset" else _value(r[k])
                    for k in ["dataset"] + keys
                    if k in r
                },
                sort_keys=True,
                default=str,
            )
            rows += [
                {
                    "table": path.stem,
                    "method": r["method"],
                    "key": key,
                    "column": c,
                    "value": json.dumps(_value(r[c]), default=str),
                }
                for c in answers
                if c in r
            ]
    return pd.DataFrame(rows, columns=["table", "method", "key", "column", "value"])
