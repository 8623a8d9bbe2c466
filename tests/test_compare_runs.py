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
    assert compare(before, after) == [("cleaning.csv", "same (new columns new)")]
    other = cleaning.assign(cells=[4, 9])
    shutil.rmtree(after)
    assert compare(before, _run(after, cleaning=other))[0][1].startswith("differs")
