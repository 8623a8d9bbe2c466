"""What each run file of the pipeline must hold, written beside the stages that write it.

Before the run files of a stage are joined into one table (workflow/scripts/gather.py),
each is read against its schema with what it is expected to hold: its number of rows
(None: any) and the values its file name promises (data set, repetition, perturbation,
missing rate, k or n), so that a damaged or misplaced file stops the run with one line.
The row counts follow from how the stages build their tables:

* ``stages.decision_runs``: the shared encoding's row and Plain's row, then one row for
  each of Iterate+Index, Iterate, AD and AD (counts only) at every k;
* ``stages.poisoning_runs``: one row for each of RP, SR, OP, RP (incremental), SR
  (incremental) and the paper's OP answers (pure strategies, the authors' code);
* ``studies.poisoning_many.run``: one row for each of the union of OP, greedy and exact;
* ``studies.scaling``: one row per method run at a size, which depends on the size
  (streamed sizes run fewer methods; a method that would not fit in memory is skipped),
  so any number.

Each function returns ``{"rows": count or None, "equal": {column: value}}``.
"""

from __future__ import annotations

DECISION_REFERENCE_ROWS = 2  # the shared encoding and Plain
DECISION_METHODS = 4  # Iterate+Index, Iterate, AD, AD (counts only) at every k
POISONING_METHODS = 7  # RP, SR, OP, the incremental RP and SR, the paper's two OP answers
MANY_POINT_METHODS = 3  # union of OP, greedy, exact


def _expect(rows: int | None, **equal) -> dict:
    return {"rows": rows, "equal": equal}


def decision_run(dataset: str, rep: int, kind: str, rate, ks) -> dict:
    """A decision run of one perturbed table, timed at every k of ``ks``.

    Parameters
    ----------
    dataset, rep, kind, rate
        The data set, repetition, perturbation and missing rate its file name promises.
    ks : sequence of int
        The numbers of test points the run decides.
    """
    return _expect(
        DECISION_REFERENCE_ROWS + DECISION_METHODS * len(ks),
        dataset=dataset,
        rep=rep,
        perturbation=kind,
        missing_rate=float(rate),
    )


def poisoning_run(dataset: str, rep: int) -> dict:
    """A poisoning run: RP, SR, OP, the incremental RP and SR and the paper's two OP answers
    for one repetition's first test point."""
    return _expect(POISONING_METHODS, dataset=dataset, rep=rep)


def poisoning_many_run(dataset: str, k: int) -> dict:
    """A many-point poisoning run of the first ``k`` test points."""
    return _expect(MANY_POINT_METHODS, dataset=dataset, k=k)


def scaling_run(n: int) -> dict:
    """A scaling run at ``n`` rows (in memory or streamed)."""
    return _expect(None, n=n)
