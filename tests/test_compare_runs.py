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


def test_a_run_made_before_the_renames_compares_under_todays_names(tmp_path):
    """Tables written before the glossary's renames (``decision_*``, ``poisoning_many``,
    columns ``k``/``samples``/``worlds``, the cleaning method ``offline``) are read under
    today's names, so a run on either side of the renames compares; a changed answer still
    differs."""
    old = {
        "decision_mushrooms": pd.DataFrame({"method": ["Iterate"], "k": [4], "robust": [3]}),
        "poisoning_many": pd.DataFrame({"method": ["greedy"], "k": [2], "cells": [5]}),
        "scaling": pd.DataFrame(
            {
                "method": ["AD"],
                "family": ["decision"],
                "k": [8],
                "points": [6],
                "samples": [100],
                "worlds": [10],
            }
        ),
        "counting_mushrooms": pd.DataFrame({"method": ["exact"], "samples": [2000]}),
        "cleaning_mushrooms": pd.DataFrame({"method": ["nbcert", "offline"], "cells": [3, 2]}),
    }
    today = {
        "certify_mushrooms": pd.DataFrame({"method": ["Iterate"], "points": [4], "robust": [3]}),
        "poisoning_together": pd.DataFrame({"method": ["greedy"], "points": [2], "cells": [5]}),
        "scaling": pd.DataFrame(
            {
                "method": ["AD"],
                "family": ["certification"],
                "points": [8],
                "points_done": [6],
                "mc_worlds": [100],
                "ad_worlds": [10],
            }
        ),
        "counting_mushrooms": pd.DataFrame({"method": ["exact"], "worlds": [2000]}),
        "cleaning_mushrooms": pd.DataFrame({"method": ["nbcert", "truth"], "cells": [3, 2]}),
    }
    before, after = _run(tmp_path / "a", **old), _run(tmp_path / "b", **today)
    assert {v for _, v in compare(before, after)} == {"same"}
    assert {v for _, v in compare(after, after)} == {"same"}  # today's tables as they are
    today["scaling"].loc[0, "points_done"] = 5
    shutil.rmtree(after)
    verdicts = dict(compare(before, _run(after, **today)))
    assert (
        verdicts["scaling.csv"].startswith("differs")
        and verdicts["decision_mushrooms.csv"] == "same"
    )
