"""Beyond the paper: CPClean's benchmark spaces through nbcert, beside CPClean's own numbers.

CPClean (Karlas et al., "Nearest Neighbor Classifiers over Incomplete Information", VLDB
2021) asks nbcert's cleaning question for a K-nearest-neighbour classifier and publishes
its benchmark spaces.  Per space (its first ``validation_rows`` validation rows, numeric
columns in ``bins`` bins) this job asks, with nbcert's public API:

* ``certain_before``: the share of validation rows certifiably robust before any cleaning
  (``nbcert.certify``), over nbcert's worlds (every missing cell any value of its column's
  domain) and over CPClean's (each missing cell one of its candidate repairs, the values
  its imputers give in ``X_train_repairs/``: ``candidates=``);
* cleaning to all certain with the truth (``nbcert.clean_with_truth``, alpha 0): the fewest
  cells for all rows together, the training rows they lie in (CPClean's unit), whether
  proven optimal or the proven lower bound, and the rows set aside (no cleaning certifies
  them, proven);
* the cleaning curve (``nbcert.cleaning_curve``): certain rows and Naive Bayes' validation
  accuracy as training rows are cleaned whole, in nbcert's truth-free policy's order and
  in a random one (CPClean's RandomClean), with and without candidates; the cells not yet
  cleaned take CPClean's default repair (``mean.csv``) for the accuracy.  So the accuracy
  with the default repair is the curve's first point, with the truth the random curve's
  last (every cell cleaned), after nbcert's cleaning the policy curve's last;
* over CPClean's own worlds (``repairs=``: each dirty row takes one of its repaired rows
  whole, as CPClean's kNN sees it): the share certain before cleaning and the points a
  search left undecided, and the certain rows as rows are cleaned in nbcert's policy's
  order (the truth revealed as it goes, until every row the true table certifies is
  certain: its rows are a heuristic's count), a random one, and CPClean's (the rows its
  shipped result cleaned, in table order: its order is not shipped), with the share
  certain at the end of the policy's and CPClean's;
* CPClean's own numbers from its shipped tables (:mod:`.knn`: its Q1 certain share with
  K = 3, the rows its result cleaned, the kNN's accuracies).

What differs, and the report says so: the classifier (Naive Bayes here, kNN there), so
certain shares and accuracies are not the same quantity; the worlds are the same only in
the repairs row (nbcert's domains, or CPClean's candidate sets cell by cell, are wider).
"""

import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from common.job import run_job, stamp
from common.settings import Section
from common.tables import write_table

import nbcert
from nbcert.methods import repairs_curve
from studies.cpclean import knn

WORLDS = {False: "domains", True: "candidates"}


def space_tables(folder: Path, rows: int) -> dict:
    """The training table (features and label), its truth, the first ``rows`` validation
    rows and their labels, the default repair, as nbcert reads CSV files."""

    def read(name):
        return nbcert.read_csv(folder / f"{name}.csv")

    y = read("y_train")
    label = y.columns[0]
    return {
        "label": label,
        "train": read("X_train_dirty").assign(**{label: y[label]}),
        "truth": read("X_train_clean").assign(**{label: y[label]}),
        "val": read("X_val").iloc[:rows],
        "labels": read("y_val")[label].iloc[:rows],
        "fill": read("X_train_repairs/mean"),
        "repairs": folder / "X_train_repairs",
    }


def timed(fn):
    t0 = time.perf_counter()
    return fn(), time.perf_counter() - t0


def nbcert_row(t: dict, settings: Section, seed: int, with_candidates: bool) -> tuple:
    """(the summary row, the curves) of nbcert over domains or over candidate repairs."""
    cand = t["repairs"] if with_candidates else None
    common = dict(bins=settings.bins, candidates=cand)
    args = (t["train"], t["truth"], t["val"], t["label"])
    certified = nbcert.certify(t["train"], t["val"], t["label"], **common)
    found, secs = timed(
        lambda: nbcert.clean_with_truth(*args, time_limit=settings.time_limit, **common)
    )
    curves = {
        order: nbcert.cleaning_curve(
            *args,
            labels=t["labels"],
            order=order,
            unit="rows",
            fill=t["fill"],
            points=settings.curve_points,
            seed=seed,
            **common,
        ).assign(worlds=WORLDS[with_candidates])
        for order in ("policy", "random")
    }
    tg, missing = found.together, t["train"].drop(columns=t["label"]).isna()
    row = {
        "system": "nbcert",
        "classifier": "Naive Bayes",
        "worlds": WORLDS[with_candidates],
        "dirty_rows": int(missing.any(axis=1).sum()),
        "dirty_cells": int(missing.to_numpy().sum()),
        "certain_before": float(certified.robust.mean()),
        "cells_cleaned": tg.num_cells,
        "rows_cleaned": tg.num_rows if tg.possible else None,
        "excluded": len(tg.excluded),
        "optimal": bool(tg.optimal),
        "lower_bound": tg.lower_bound,
        "accuracy_default": float(curves["policy"].accuracy.iloc[0]),
        "accuracy_truth": float(curves["random"].accuracy.iloc[-1]),
        "accuracy_cleaned": float(curves["policy"].accuracy.iloc[-1]),
        "seconds": secs,
    }
    return row, list(curves.values())


def repairs_row(t: dict, settings: Section, seed: int, cpclean_rows: list) -> tuple:
    """(the summary row, the curves) of nbcert over CPClean's own worlds: each dirty row takes
    one of its repaired rows whole (``repairs=``), cleaned a row at a time.  The rows to
    clean are the policy's path, the truth revealed as it goes (a heuristic's count: the
    fewest rows with proven bounds, ``clean_with_truth(repairs=)``, is too slow at CPClean's
    1,000 validation rows for the default run)."""
    args = (t["train"], t["truth"], t["val"], t["label"], t["repairs"])
    curves, secs = {}, 0.0
    for order, given in (("policy", "policy"), ("random", "random"), ("cpclean", cpclean_rows)):
        (status, curve), took = timed(
            lambda given=given: repairs_curve(
                *args, order=given, seed=seed, points=settings.repairs_points, bins=settings.bins
            )
        )
        secs += took
        curves[order] = curve.assign(order=order, worlds="repairs", cells=None, accuracy=None)
    policy = curves["policy"]
    row = {
        "system": "nbcert",
        "classifier": "Naive Bayes",
        "worlds": "repairs",
        "dirty_rows": int(t["train"].drop(columns=t["label"]).isna().any(axis=1).sum()),
        "certain_before": float((status.status == "certain").mean()),
        "undecided_before": int((status.status == "undecided").sum()),
        "rows_cleaned": len(policy.attrs["rows"]),
        "certain_after_policy": float(policy.share.iloc[-1]),
        "certain_after_cpclean": float(curves["cpclean"].share.iloc[-1]),
        "seconds": secs,
    }
    return row, list(curves.values())


def cpclean_rows(folder: Path, rows: int) -> list:
    """The training rows CPClean's shipped result cleaned (positions, in table order: its
    order of cleaning is not shipped)."""
    space = knn.load_space(folder, rows)
    dirty = space.X_train_dirty.isna().any(axis=1).to_numpy()
    result = space.results.get("X_train_CPClean")
    if result is None:
        return []
    return np.flatnonzero(knn.rows_changed(result, space.repairs["mean"]) & dirty).tolist()


def cpclean_row(folder: Path, rows: int) -> dict:
    """CPClean's own numbers (kNN, K = 3) from its shipped tables."""
    got = knn.cpclean_numbers(knn.load_space(folder, rows))
    acc = got.val_accuracy
    return {
        "system": "CPClean",
        "classifier": f"kNN, K = {knn.K}",
        "worlds": "candidates",
        "dirty_rows": got.dirty_rows,
        "certain_before": got.certain_before,
        "rows_cleaned": got.rows_cleaned.get("X_train_CPClean"),
        "rows_cleaned_et": got.rows_cleaned.get("X_train_CPCleanET"),
        "rows_hidden": got.rows_hidden,
        "accuracy_default": acc["default repair"],
        "accuracy_truth": acc["truth's closest"],
        "accuracy_cleaned": acc.get("X_train_CPClean"),
        "accuracy_cleaned_et": acc.get("X_train_CPCleanET"),
    }


def study(folder: Path, space: str, settings: Section, seed: int) -> tuple:
    """(summary, curves) of one obtained space."""
    t = space_tables(folder, settings.validation_rows)
    rows, curves = [], []
    with warnings.catch_warnings():  # the unseen-value notes are the point of the study
        warnings.simplefilter("ignore", nbcert.DataWarning)
        for with_candidates in (False, True):
            row, found = nbcert_row(t, settings, seed, with_candidates)
            rows.append(row)
            curves += found
        row, found = repairs_row(t, settings, seed, cpclean_rows(folder, settings.validation_rows))
        rows.append(row)
        curves += found
    rows.append(cpclean_row(folder, settings.validation_rows))
    summary = pd.DataFrame(rows).assign(space=space, obtained=True, validation_rows=len(t["val"]))
    curve = pd.concat(curves, ignore_index=True).assign(space=space)
    return summary, curve[CURVE]


CURVE = ["space", "order", "worlds", "cells", "rows", "certain", "share", "accuracy"]


def main(snakemake):
    settings = Section.from_json(snakemake.params.settings)
    space, folder = snakemake.wildcards.space, Path(snakemake.input[0])
    status = json.loads((folder / "status.json").read_text())
    started = time.time()
    if status["ok"]:
        summary, curve = study(folder, space, settings, snakemake.params.seed)
    else:
        summary = pd.DataFrame([{"space": space, "obtained": False, "reason": status["reason"]}])
        curve = pd.DataFrame(columns=CURVE)
    write_table(stamp(summary, started), snakemake.output.summary, "cpclean")
    write_table(curve, snakemake.output.curve, "cpclean_curve")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821
