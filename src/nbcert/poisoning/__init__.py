"""Data poisoning: blank cells of a complete table until test points are no longer
certifiably robust (alpha = 0): one point (``single``), several at once (``many``)."""

from .many import ManyPoisoning, all_nonrobust, greedy, poison_many_encoded
from .single import Cells, PoisonedCounts, Poisoning, poison_encoded

__all__ = ["Poisoning", "Cells", "PoisonedCounts", "poison_encoded", "ManyPoisoning", "poison_many_encoded",
           "greedy", "all_nonrobust"]
