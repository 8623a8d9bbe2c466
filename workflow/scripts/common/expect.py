"""What each run table of the pipeline must hold before it is gathered (gather.py): its
number of rows (None: any) and the values its file name promises, so that a damaged or
misplaced file stops the run with one line.  The row counts follow from the stages:

* certify.py: the shared encoding's row and Plain's, then Iterate+Index, Iterate and AD at
  every number of test points;
* poison.py: RP, SR, OP and the paper's two OP answers;
* studies/poisoning_together: the union of OP, greedy and exact;
* studies/scaling: a row per method run at a size, which depends on the size (streamed sizes
  run fewer methods; a method that would not fit in memory is skipped).
"""

CERTIFY_REFERENCE_ROWS, CERTIFY_METHODS, POISONING_METHODS, TOGETHER_METHODS = 2, 3, 5, 3


def _expect(rows: int | None, **equal) -> dict:
    return {"rows": rows, "equal": equal}


def certify_run(dataset: str, rep: int, perturbation: str, rate, points) -> dict:
    """A certify run of one perturbed table, timed at every number of test points of ``points``."""
    rows = CERTIFY_REFERENCE_ROWS + CERTIFY_METHODS * len(points)
    return _expect(
        rows, dataset=dataset, rep=rep, perturbation=perturbation, missing_rate=float(rate)
    )


def poisoning_run(dataset: str, rep: int) -> dict:
    """A poisoning run of one repetition's first test point."""
    return _expect(POISONING_METHODS, dataset=dataset, rep=rep)


def poisoning_together_run(dataset: str, points: int) -> dict:
    """A run poisoning the first ``points`` test points together."""
    return _expect(TOGETHER_METHODS, dataset=dataset, points=points)


def scaling_run(n: int) -> dict:
    """A scaling run at ``n`` rows (in memory or streamed)."""
    return _expect(None, n=n)
