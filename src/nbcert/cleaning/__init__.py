"""Which missing cells to clean (beyond the paper): the fewest cleanings that certify.

Cleaning a missing cell replaces it by its true value.  Cells of one group (label, column,
true value; with candidate repairs also the cell's set of values) are interchangeable, so
the searches count cleanings per group.  One engine over two *cell models*, which say
which values a cell may take, how a cleaned cell moves the counts and which cells help a
row:

* ``table``   -- the model of domains: every missing cell may take any value of its
  column's domain, recomputed from the cleaned table (``CleaningTable``), and the exact
  robustness check on counts (``state_certification``); ``domains``, its branches over
  the columns' final domains;
* ``candidates`` -- the model of candidate repairs (alpha = 0): per cell a fixed set of
  values until it is cleaned to its truth (``CandidateTable``);
* ``rival``, ``fixed`` -- the fixed-domain problem for one would-be winner: water-filling
  for the winner, a Pareto search over each rival's columns, confirmed in exact integer
  arithmetic;

and, written once against a model:

* ``single``  -- the minimum with the truth for one point (exact; ``minimum_with_truth``,
  ``cleanable``);
* ``together`` -- several points at once: pruned greedy with a proven bound, or exact where
  small (``clean_together``), with ``program``'s HiGHS programs for domains at alpha = 0;
* ``policy``  -- without the truth, a heuristic that scores groups (``next_group``,
  ``follow``); ``entropy``, a CPClean-style rival to it (``entropy_chooser``);
* ``curve``   -- certain points and accuracy along a cleaning order;
* ``results`` -- the report with the truth known, and the policy's advice for a dirty table.
"""

from .candidates import CandidateTable
from .domains import MAX_BRANCHES, branching_columns
from .entropy import EntropyChooser, entropy_chooser
from .policy import GroupScores, follow, group_scores, next_group, policy_path
from .program import exact_together, relaxed_bound
from .results import (
    ADVICE_COLUMNS,
    CleaningReport,
    PointCleaning,
    advice,
    cell_model,
    path_cells,
    report,
)
from .single import CleaningPlan, TooManyBranches, cleanable, minimum_with_truth
from .table import CleaningTable, after, state_certification, truth_odds
from .together import TogetherCleaning, clean_together, greedy, prune

__all__ = [
    "ADVICE_COLUMNS",
    "CleaningTable",
    "CandidateTable",
    "cell_model",
    "state_certification",
    "after",
    "CleaningPlan",
    "minimum_with_truth",
    "cleanable",
    "MAX_BRANCHES",
    "TooManyBranches",
    "branching_columns",
    "exact_together",
    "relaxed_bound",
    "clean_together",
    "greedy",
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
    "path_cells",
    "PointCleaning",
    "CleaningReport",
    "report",
    "advice",
]
