"""Data poisoning: blank cells of a complete table until test points are no longer
certifiably robust (alpha = 0, and any alpha for one point).

* ``single``     -- one point: OP on the counts under blanking (``PoisonedCounts``), and
  the dispatcher ``poison_encoded``;
* ``minimum``    -- OP's exact search (paper section 5.1, corrected: every split of the
  blanks, every configuration of removed values);
* ``baselines``  -- the paper's randomized baselines SR and RP;
* ``streamed``   -- OP on a table that stays on disk (a second pass names the cells);
* ``relaxation`` -- the relaxed program of poisoning points together (through ``nbcert.milp``);
* ``together``   -- several points at once: greedy, or exact with a proven lower bound.
"""

from .single import Cells, PoisonedCounts, Poisoning, poison_encoded
from .streamed import find_cells, poison_streamed
from .together import TogetherPoisoning, all_nonrobust, greedy, poison_together_encoded

__all__ = [
    "Poisoning",
    "Cells",
    "PoisonedCounts",
    "poison_encoded",
    "TogetherPoisoning",
    "poison_together_encoded",
    "greedy",
    "all_nonrobust",
    "poison_streamed",
    "find_cells",
]
