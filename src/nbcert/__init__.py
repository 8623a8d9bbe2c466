"""nbcert: whether the dirt in a training table changes a Naive Bayes prediction.

Certifiable robustness, possible-world counting and minimum data poisoning for Naive
Bayes over incomplete categorical data (Certifiable Robustness for Naive Bayes
Classifiers, sections 3-5), exact where the answer is a certificate; and, beyond the
paper, which missing cells to clean.
"""

# Names are imported on first use (PEP 562): a pipeline job or a command that needs one
# module does not pay for pandas, scipy or scikit-learn it never touches.
_WHERE = {
    "certify": "api",
    "count_worlds": "api",
    "poison": "api",
    "poison_together": "api",
    "clean": "api",
    "clean_with_truth": "api",
    "cleaning_curve": "api",
    "read_repairs": "reading.candidates",
    "ReadingOptions": "reading.options",
    "CleaningReport": "cleaning",
    "PointCleaning": "cleaning",
    "TogetherCleaning": "cleaning",
    "WorldCounts": "count",
    "EncodedTable": "reading.encoding",
    "InputError": "errors",
    "ParameterError": "errors",
    "encode": "reading.encoding",
    "from_codes": "reading.encoding",
    "TableSource": "reading.files",
    "read_csv": "api",
    "Stats": "stats",
    "Poisoning": "poisoning",
    "TogetherPoisoning": "poisoning",
    "CertifiedNB": "estimator",
    "Binner": "binner",
    "DataWarning": "errors",
}

__all__ = list(_WHERE)

# modules reached as attributes: nbcert.verify.check(path), nbcert.certificate.certify_encoded
_MODULES = ("verify", "certificate")


def _version() -> str:
    """Give the installed distribution's version.

    Looked up on first use: importing ``importlib.metadata`` costs every command that never asks for it.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nbcert")
    except PackageNotFoundError:  # pragma: no cover - imported from a source tree
        return "unknown"


def __getattr__(name):
    if name == "__version__":
        globals()[name] = _version()
        return globals()[name]
    from importlib import import_module

    if name in _MODULES:
        return import_module(f".{name}", __name__)
    if name not in _WHERE:
        raise AttributeError(f"module 'nbcert' has no attribute {name!r}")

    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE) | set(_MODULES))
