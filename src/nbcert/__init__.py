"""nbcert: does the dirt in a training table change a Naive Bayes prediction?

Certifiable robustness, possible-world counting and minimum data poisoning for Naive
Bayes over incomplete categorical data (Certifiable Robustness for Naive Bayes
Classifiers, sections 3-5), exact where the answer is a certificate; and, beyond the
paper, which missing cells to clean.
"""

from .api import certify, clean, clean_offline, count_worlds, poison, poison_many
from .cleaning import CleaningReport, PointCleaning, TogetherCleaning
from .counting import WorldCounts
from .encoding import EncodedTable, InputError, encode, from_codes
from .reading import TableSource, read_csv
from .stats import Stats
from .poisoning import Poisoning
from .poisoning_many import ManyPoisoning


def __getattr__(name):
    # scikit-learn (and scipy under it) takes seconds to import; only the estimator needs it.
    if name == "CertifiedNB":
        from .estimator import CertifiedNB

        return CertifiedNB
    raise AttributeError(f"module 'nbcert' has no attribute {name!r}")


__all__ = ["certify", "count_worlds", "poison", "poison_many", "clean", "clean_offline", "ManyPoisoning", "WorldCounts",
           "Poisoning", "CleaningReport", "PointCleaning", "TogetherCleaning", "EncodedTable", "InputError", "encode",
           "from_codes", "read_csv", "CertifiedNB", "Stats", "TableSource"]
