"""Which missing cells to clean (beyond the paper): the fewest cleanings that certify.

Cleaning a missing cell replaces it by its true value; domains are recomputed from the
cleaned table (closed world), so a cleaning can add a value to its column's domain.  Cells
of one (label, column, true value) are interchangeable, so the searches count cleanings
per group.  The package, from the bottom up:

* ``table``   -- the dirty table with its truth in group form, and the exact robustness
  check on counts (``CleaningTable``, ``state_certification``);
* ``rival``, ``fixed`` -- the fixed-domain problem for one would-be winner: water-filling
  for the winner, a Pareto search over each rival's columns, confirmed in exact integer
  arithmetic;
* ``single``  -- the minimum with the truth for one point (exact): branches over the columns'
  final domains (``minimum_with_truth``, ``cleanable``);
* ``program`` -- the many-point programs for HiGHS (alpha = 0): the exact one and a relaxed
  lower bound (through ``nbcert.milp``);
* ``many``    -- several points at once: pruned greedy with a proven bound, or exact where
  small (``clean_many``);
* ``policy``  -- without the truth, a heuristic that scores groups (``next_group``,
  ``follow``); ``entropy``, a CPClean-style rival to it (``entropy_chooser``);
* ``candidates`` -- the same questions with candidate repairs (alpha = 0): per cell a fixed
  set of values, cleaned to its truth (``Kinds``, ``search``, ``together``, ``follow``);
* ``results`` -- the report with the truth known, and the policy's advice for a dirty table.
"""

from .entropy import EntropyChooser, entropy_chooser
from .many import TogetherCleaning, clean_many, greedy_many, prune
from .policy import GroupScores, follow, group_scores, next_group, policy_path, truth_odds
from .program import exact_many, relaxed_bound
from .results import (
    ADVICE_COLUMNS,
    CleaningReport,
    PointCleaning,
    advice,
    report,
    report_candidates,
)
from .single import (
    MAX_BRANCHES,
    CleaningPlan,
    TooManyBranches,
    branching_columns,
    cleanable,
    minimum_with_truth,
)
from .table import CleaningTable, after, all_robust, state_certification

__all__ = [
    "ADVICE_COLUMNS",
    "CleaningTable",
    "state_certification",
    "after",
    "all_robust",
    "CleaningPlan",
    "minimum_with_truth",
    "cleanable",
    "MAX_BRANCHES",
    "TooManyBranches",
    "branching_columns",
    "exact_many",
    "relaxed_bound",
    "clean_many",
    "greedy_many",
    "prune",
    "TogetherCleaning",
    "truth_odds",
    "GroupScores",
    "group_scores",
    "next_group",
    "follow",
    "EntropyChooser",
    "entropy_chooser",
    "policy_path",
    "PointCleaning",
    "CleaningReport",
    "report",
    "report_candidates",
    "advice",
]
