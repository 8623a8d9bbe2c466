"""benchmarks.compare: two runs' tables are the same but for what the machine decides."""

import shutil

import pandas as pd

from benchmarks.compare import compare


def _run(folder, **tables):
    (folder / "results/tables").mkdir(parents=True)
    for name, df in tables.items():
        df.to_csv(folder / "results/tables" / f"{name}.csv", index=False)
    return folder


def test_timings_and_time_limited_rows_are_left_out_and_the_rest_compared(tmp_path):
    cleaning = pd.DataFrame(
        {
            "method": ["nbcert", "truth"],
            "cells": [3, 9],
            "time_limited": [None, True],
            "seconds": [0.1, 9],
        }
    )
    before = _run(tmp_path / "a", cleaning=cleaning)
    slower = cleaning.assign(seconds=[0.5, 60])
    slower.loc[1, "cells"] = 8  # what a time limit decides may differ
    after = _run(tmp_path / "b", cleaning=slower.assign(new=1))
    assert compare(before, after) == [("results/tables/cleaning.csv", "same (new columns new)")]
    other = cleaning.assign(cells=[4, 9])
    shutil.rmtree(after)
    assert compare(before, _run(after, cleaning=other))[0][1].startswith("differs")


def test_rows_a_cpu_budget_stopped_are_left_out(tmp_path):
    """The scaling study's AD and Iterate stop at their CPU budget: how far they got is
    the machine's; the rows no budget stopped are compared."""
    scaling = pd.DataFrame(
        {"method": ["AD", "RP"], "points_done": [17, 32], "stopped": [True, None]}
    )
    before = _run(tmp_path / "a", scaling=scaling)
    after = _run(tmp_path / "b", scaling=scaling.assign(points_done=[18, 32]))
    assert compare(before, after) == [("results/tables/scaling.csv", "same")]
    shutil.rmtree(after)
    after = _run(after, scaling=scaling.assign(points_done=[17, 31]))
    assert compare(before, after)[0][1].startswith("differs")


def test_renamed_columns_and_rows_moved_to_a_table_of_their_own_compare(tmp_path):
    """A column renamed between the runs (``--rename``) and rows moved from a table to one of
    their own (``--joined``, compared in sorted order) are read as they are today; a changed
    answer still differs."""
    runs = pd.DataFrame({"method": ["Iterate", "AD", "AD (cheap)"], "robust": [3, 4, 4]})
    before = _run(tmp_path / "a", certify_x=runs, certified_x=pd.DataFrame({"old": [1]}))
    after = _run(
        tmp_path / "b",
        certify_x=runs.iloc[:2],
        extra_certify_x=runs.iloc[2:],
        certified_x=pd.DataFrame({"new": [1]}),
    )
    how = dict(renamed={"certified": {"old": "new"}}, joined={"certify_": "extra_certify_"})
    assert {v for _, v in compare(before, after, **how)} == {"same"}
    assert dict(compare(before, after))["results/tables/certify_x.csv"].startswith("differs")
    moved = runs.iloc[2:].assign(robust=[5])
    (after / "results/tables/extra_certify_x.csv").write_text(moved.to_csv(index=False))
    assert dict(compare(before, after, **how))["results/tables/certify_x.csv"].startswith("differs")


def test_proven_intervals_move_with_the_machine_their_flags_do_not(tmp_path):
    counting = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "part": ["full", "full"],
            "missing_rate": [0.2, 0.2],
            "point": [0, 0],
            "method": ["bounds", "montecarlo"],
            "fraction": [0.5, 0.51],
            "width": [0.0008, None],
            "width_target": [0.001, 0.001],
            "exact_in_bounds": [True, None],
            "mc_contains_bounds": [None, False],
        }
    )
    before = _run(tmp_path / "a", counting_d=counting)
    finer = counting.assign(
        fraction=[0.50001, 0.51], width=[0.0005, None], mc_contains_bounds=[None, True]
    )
    assert compare(before, _run(tmp_path / "b", counting_d=finer)) == [
        ("results/tables/counting_d.csv", "same")
    ]
    wrong = finer.assign(exact_in_bounds=[False, None])
    assert compare(before, _run(tmp_path / "c", counting_d=wrong))[0][1].startswith("differs")
