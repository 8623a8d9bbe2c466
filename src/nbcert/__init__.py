"""nbcert: does the dirt in a training table change a Naive Bayes prediction?

Certifiable robustness, possible-world counting and minimum data poisoning for Naive
Bayes over incomplete categorical data (Certifiable Robustness for Naive Bayes
Classifiers, sections 3-5), exact where the answer is a certificate.
"""

from .api import certify, count_worlds, poison, poison_many
from .counting import WorldCounts
from .encoding import EncodedTable, InputError, encode, from_codes, read_csv
from .poisoning import Poisoning
from .poisoning_many import ManyPoisoning


def __getattr__(name):
    # scikit-learn (and scipy under it) takes seconds to import; only the estimator needs it.
    if name == "CertifiedNB":
        from .estimator import CertifiedNB

        return CertifiedNB
    raise AttributeError(f"module 'nbcert' has no attribute {name!r}")


__all__ = ["certify", "count_worlds", "poison", "poison_many", "ManyPoisoning", "WorldCounts", "Poisoning", "EncodedTable",
           "InputError", "encode", "from_codes", "read_csv", "CertifiedNB"]

# which cells to clean (beyond the paper)
from .api import clean, clean_offline  # noqa: E402
from .cleaning import CleaningReport, PointCleaning, TogetherCleaning  # noqa: E402

__all__ += ["clean", "clean_offline", "CleaningReport", "PointCleaning", "TogetherCleaning"]
