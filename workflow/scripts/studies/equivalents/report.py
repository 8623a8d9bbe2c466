"""The report's "Cheaper equivalents of the paper's baselines" section, from the paper's run
tables and the study's (:mod:`.run` computes them; report.py puts the sections together)."""

import pandas as pd
from common.formatting import number, of, table
from common.runs import AD_METHODS, calls

# each cheaper equivalent beside the paper's method it gives the answers of
PAPER_METHOD = {"AD (counts only)": "AD", "RP (incremental)": "RP", "SR (incremental)": "SR"}
HEADER = "| data set | method | paper's method | runs | total time (s) | paper's / this | answers |"


def equivalents(certify: pd.DataFrame, poisoning: pd.DataFrame) -> str:
    """The section; ``certify`` and ``poisoning``: the paper's run tables with the study's
    rows beside them."""
    return "\n".join(
        [
            "### Cheaper equivalents of the paper's baselines",
            "",
            "Figures 6-10 time AD, RP and SR as the paper describes them: AD trains Naive Bayes "
            "on each sampled world, every cell of the filled table counted; RP and SR run "
            "Iterate on the table as it stands after every blanked cell. The same questions "
            "have cheaper answers, timed here on the same tables and nowhere else: *AD (counts "
            "only)* counts the observed cells once and draws, per world, only how many missing "
            "cells of each feature and label took each value (AD's seed); *RP/SR (incremental)* "
            "blank the same cells in the same order (same seed) and read robustness off running "
            "sums of the counts (the authors' published code checks RP and SR this way). RP "
            "blanks cells with no limit, as the paper says; a column it empties has no observed "
            "value, so no t_j, every support has the factor 0 and every world ties: the point "
            "is non-robust (RP stops there).",
            "",
            *table(_rows(certify, poisoning), HEADER),
            "",
        ]
    )


def _rows(certify: pd.DataFrame, poisoning: pd.DataFrame) -> list:
    """Per data set, each cheaper equivalent that ran beside the paper's method."""
    answered, rows = calls(certify), []
    for name in sorted(set(certify.dataset) | set(poisoning.dataset)):
        for cheaper, paper in PAPER_METHOD.items():
            runs = answered if cheaper in AD_METHODS else poisoning
            mine, theirs = (
                runs[(runs.dataset == name) & (runs.method == m)] for m in (cheaper, paper)
            )
            if len(mine) and len(theirs):
                time, answers = mine.seconds.sum(), _answers(mine, theirs, cheaper)
                ratio = f"{number(theirs.seconds.sum() / time)}x"
                rows.append((name, cheaper, paper, len(mine), f"{time:.3g}", ratio, answers))
    return rows


def _answers(mine: pd.DataFrame, theirs: pd.DataFrame, cheaper: str) -> str:
    """How the cheaper method's answers compare with the paper method's."""
    if cheaper in AD_METHODS:
        return (
            f"wrongly robust: {int(mine.ad_false_robust.sum())} of {int(mine.points.sum())} points "
            f"(AD: {int(theirs.ad_false_robust.sum())})"
        )
    both = mine.merge(theirs, on=["dataset", "rep"], suffixes=("", "_paper"))
    cells = both.cells.fillna(-1) == both.cells_paper.fillna(-1)
    return (
        f"same number of cells in {of((both.possible == both.possible_paper) & cells)} repetitions"
    )
