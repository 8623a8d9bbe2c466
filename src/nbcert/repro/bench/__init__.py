"""Benchmarks: every method against its references (``methods``, run as ``python -m
nbcert.bench``), the input path on generated files (``input``) and whole pipeline runs
(``pipeline``, ``python -m nbcert.repro.bench.pipeline``)."""


def main(argv=None) -> int:
    """``python -m nbcert.bench`` (:func:`nbcert.repro.bench.methods.main`)."""
    from .methods import main as methods_main

    return methods_main(argv)
