"""What the certify stage's run tables mean beyond their schema: the columns naming a run,
and which of its rows are calls of their own.

A run (one perturbed table) times Iterate+Index and Iterate once per number of test points,
but an AD method once, on the largest number: its rows for smaller numbers are the first
points of that call (certify.ad_prefixes), so only the largest's row is a call.
"""

import pandas as pd

# the columns naming one run (one perturbed table)
RUN = ["dataset", "rep", "perturbation", "missing_rate"]
# the methods that answer a run's points in one call: the paper's AD, its cheaper equivalent
AD_METHODS = ("AD", "AD (counts only)")


def calls(runs: pd.DataFrame) -> pd.DataFrame:
    """The rows that are calls of their own: every row but an AD method's smaller numbers
    of test points."""
    ad = runs.method.isin(AD_METHODS)
    last = (
        runs[ad].sort_values("points", kind="stable").drop_duplicates(RUN + ["method"], keep="last")
    )
    return pd.concat([runs[~ad], last]).sort_index(kind="stable")


def ad_answers(runs: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per data set, an AD method's answers (``points``, each test point counted once) and
    the robust ones among them that were wrong (``ad_false_robust``)."""
    ad = calls(runs)
    return ad[ad.method == method].groupby("dataset")[["ad_false_robust", "points"]].sum()
