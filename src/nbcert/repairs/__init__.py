"""CPClean's worlds: each dirty training row takes one of its repairs, as a whole row.

``--candidates`` lets every missing cell take any of its candidate values on its own; here
a dirty row takes one of its distinct repaired rows (one imputer fills the whole row), so
the worlds are a subset of the per-cell ones and every prediction certain per cell is
certain here too.  The questions: certify (robust, possible labels, ties), count (worlds
per label) and clean (which rows first; with the truth, the fewest rows).

* ``table``: the repairs coded (``RowRepairs``), the domain of a feature its observed
  values and every repair's values, fixed across worlds;
* ``patterns``: what a test point sees of them: per label a base count and each dirty
  row's 0/1 match patterns, rows with the same pattern set grouped;
* ``front``: a label's extreme supports, over Pareto fronts of the reachable sums, with a
  proven outer bound where the search stops;
* ``reach``: every count vector a label reaches (ties, counts);
* ``certify``, ``count``, ``clean``: the questions.

The maths, its cost and what is proven are in docs/design.md ("Repaired rows").
"""

from .certify import RowCertification, Worlds, certify_rows
from .table import RowRepairs, code

__all__ = ["RowRepairs", "code", "Worlds", "RowCertification", "certify_rows"]
