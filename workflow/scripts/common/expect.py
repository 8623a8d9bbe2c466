"""What each run table of the pipeline must hold before it is gathered (gather.py): its
number of rows (None: any) and the values its file name promises, so that a damaged or
misplaced file stops the run with one line.  The row counts follow from the stages:

* decide.py: the shared encoding's row and Plain's, then Iterate+Index, Iterate, AD and AD
  (counts only) at every k;
* poison.py: RP, SR, OP, RP and SR (incremental) and the paper's two OP answers;
* studies/poisoning_many: the union of OP, greedy and exact;
* studies/scaling: a row per method run at a size, which depends on the size (streamed sizes
  run fewer methods; a method that would not fit in memory is skipped).
"""

DECISION_REFERENCE_ROWS, DECISION_METHODS, POISONING_METHODS, MANY_POINT_METHODS = 2, 4, 7, 3


def _expect(rows: int | None, **equal) -> dict:
    return {"rows": rows, "equal": equal}


def decision_run(dataset: str, rep: int, perturbation: str, rate, ks) -> dict:
    """A decision run of one perturbed table, timed at every k of ``ks``."""
    rows = DECISION_REFERENCE_ROWS + DECISION_METHODS * len(ks)
    return _expect(
        rows, dataset=dataset, rep=rep, perturbation=perturbation, missing_rate=float(rate)
    )


def poisoning_run(dataset: str, rep: int) -> dict:
    """A poisoning run of one repetition's first test point."""
    return _expect(POISONING_METHODS, dataset=dataset, rep=rep)


def poisoning_many_run(dataset: str, k: int) -> dict:
    """A many-point poisoning run of the first ``k`` test points."""
    return _expect(MANY_POINT_METHODS, dataset=dataset, k=k)


def scaling_run(n: int) -> dict:
    """A scaling run at ``n`` rows (in memory or streamed)."""
    return _expect(None, n=n)
