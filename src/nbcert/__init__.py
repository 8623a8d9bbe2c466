"""nbcert: does the dirt in a training table change a Naive Bayes prediction?

Certifiable robustness, possible-world counting and minimum data poisoning for Naive
Bayes over incomplete categorical data (Certifiable Robustness for Naive Bayes
Classifiers, sections 3-5), exact where the answer is a certificate.
"""

from .api import certify, count_worlds, poison
from .counting import WorldCounts
from .encoding import EncodedTable, InputError, encode, from_codes, read_csv
from .estimator import CertifiedNB
from .poisoning import Poisoning

__all__ = ["certify", "count_worlds", "poison", "WorldCounts", "Poisoning", "EncodedTable",
           "InputError", "encode", "from_codes", "read_csv", "CertifiedNB"]
