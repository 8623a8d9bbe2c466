"""Certificates: answers with the evidence that lets anyone check them.

A certificate is a JSON file written beside an answer (``--certificate FILE``, or
``certificate=`` in the API): the claims of the ``--json`` results, each with an
``evidence`` object, and the ``inputs`` that pin what was answered (each file's path
relative to the certificate, SHA-256 and data rows, the label, alpha as a fraction, how the
files were read, nbcert's version).  ``nbcert.verify`` (one file, Python's standard library
only) re-reads the files and checks every claim: ``python3 verify.py CERT`` or ``nbcert
verify CERT``.  A certificate claims no more than the checker proves: "the fewest" where
its lower bound meets the answer, else the answer and the bound.

* ``evidence``  -- witness worlds and extreme supports of one test point;
* ``states``    -- the table as read, blanked (poisoning) or cleaned (cleaning);
* ``bounds``    -- the lower bounds the checker proves, run on the table's counts;
* ``questions`` -- each question's results with their evidence;
* ``document``  -- the file: where it goes, what it pins, written whole or not at all.

The entry points for a program that answers on coded tables (the reproduction's runs) are
:func:`certify_encoded` here and :func:`nbcert.verify.check`.
"""

from __future__ import annotations

import numpy as np

from . import document, questions
from .document import FORMAT, VERSION, Target


def _test_rows(target: Target, T: np.ndarray, test_indices, reading) -> int:
    """The test file's data rows: T's, or the file's where the points answered
    (``test_indices``) may be a few of them."""
    return len(T) if test_indices is None else _data_rows(target.files["test"], reading)


def certify_encoded(
    certificate,
    table,
    T: np.ndarray,
    *,
    train,
    test,
    label: str,
    alpha=0,
    test_indices=None,
    reading=None,
) -> dict:
    """Certify coded test points on a coded table and write the certificate.

    For a program that reads its files with ``nbcert.read_csv`` (every value the text
    written, an empty field missing) and codes them itself (``nbcert.encode``,
    ``EncodedTable.encode_test``): the answers are Iterate+Index's (exact), and the
    certificate names the files so that ``verify.py`` reads them again.

    Parameters
    ----------
    certificate : str, path or Target
        Where to write the certificate.
    table : EncodedTable or Stats
        The training table, coded from the file ``train``.
    T : ndarray of shape (k, d)
        Test points as ``table``'s local codes (-1: unseen, -2: blank), the data rows
        ``test_indices`` of the file ``test``.
    train, test : str or path
        The files the table and the test points were read from (read with nbcert's
        defaults, or as ``reading`` says).
    label : str
        The label column of ``train``.
    alpha : Fraction, int or str, default 0
        The smoothing the answers are for (exact: ``"1/2"``, ``Fraction(1, 2)``).
    test_indices : sequence of int, optional
        Each point's data row in ``test`` (default 0, ..., k - 1, the whole file); given,
        the certificate lists them (``inputs.test_indices``) and answers for those alone.
    reading : nbcert.reading.options.Reading, optional
        How the files were read, when not with the defaults.

    Returns
    -------
    dict
        The certificate written: ``results`` as ``nbcert certify --json`` prints them, each
        with its ``evidence``.
    """
    from .. import certification
    from ..params import as_alpha

    alpha = as_alpha(alpha)
    target = Target.of(certificate, train=train, test=test)
    T = np.asarray(T)
    test_indices = None if test_indices is None else [int(i) for i in test_indices]
    rows = {"train": table.n, "test": _test_rows(target, T, test_indices, reading)}
    inputs = document.inputs(target, table, label, alpha, reading, rows=rows,
                             test_indices=test_indices)  # fmt: skip
    answer = _certified(table, T, alpha, certification)
    results = questions.certify(table, T, answer, alpha, test_indices or list(range(len(T))))
    return document.write(target, "certify", inputs, results)


def _data_rows(path: str, reading) -> int:
    """The data rows of a file as nbcert reads it (with ``reading``'s options)."""
    from ..reading.files import read_csv

    options = {k: getattr(reading, k, None) for k in ("missing", "sep", "encoding", "decimal")}
    return len(read_csv(path, **options))


def _certified(table, T, alpha, certification) -> dict:
    """Iterate+Index's answers per row, each row on the table as a whole (a blank test cell
    leaves its column out of the row's product)."""
    from .. import blanks

    def answer(sub, codes, rows, keep):
        dec = certification.certify_index(sub, codes, alpha)
        pos = certification.possible_index(sub, codes, alpha)
        tie = [
            None if t == certification.TIE_UNKNOWN else bool(t == certification.TIE_YES)
            for t in pos.tie
        ]
        return [
            (
                bool(r),
                sub.labels[c] if c >= 0 else None,
                [sub.labels[x] for x in np.flatnonzero(w)],
                t,
            )
            for r, c, w, t in zip(dec.robust, dec.label, pos.labels, tie)
        ]

    rows = blanks.per_group(table, T, answer)
    names = ("robust", "label", "possible_labels", "tie_possible")
    return {name: [r[i] for r in rows] for i, name in enumerate(names)}


def _rows(table, T, *roles) -> dict:
    """Each file's data rows: the training table's (and its truth's) and the test points'
    (every point of the test file is answered)."""
    return {role: (len(T) if role == "test" else table.n) for role in roles}


def write_certify(
    target: Target, table, T, answer, *, label, alpha, reading, bins, test_indices, ids
):
    """certify's certificate (``nbcert.certify(..., certificate=)``): its answer
    ``answer`` (the DataFrame it returns) with the evidence."""
    results = questions.certify(table, T, answer, alpha, test_indices, ids or target.ids)
    rows = _rows(table, T, "train", "test")
    inputs = document.inputs(target, table, label, alpha, reading, bins, rows=rows)
    return document.write(target, "certify", inputs, results)


def write_poison(
    target: Target, enc, T, answers, *, method, label, alpha, reading, bins, test_indices, ids
):
    """poison's certificate (one point at a time)."""
    results = questions.poison(enc, T, answers, method, alpha, test_indices, ids or target.ids)
    rows = _rows(enc, T, "train", "test")
    inputs = document.inputs(target, enc, label, alpha, reading, bins, rows=rows)
    return document.write(target, "poison", inputs, results)


def write_poison_together(
    target: Target, enc, T, answer, *, label, reading, bins, test_indices, ids
):
    """poison --together's certificate (alpha = 0)."""
    results = questions.poison_together(enc, T, answer, test_indices, ids or target.ids)
    rows = _rows(enc, T, "train", "test")
    inputs = document.inputs(target, enc, label, 0, reading, bins, rows=rows)
    return document.write(target, "poison --together", inputs, results)


def write_clean(target: Target, tab, T, report, *, label, alpha, reading, bins, test_indices, ids):
    """clean --truth's certificate, of a report with the checker's claims
    (``nbcert.certificate.claims.clean``: each point's proven bound is its evidence)."""
    found = questions.clean(tab, T, report, alpha, test_indices, ids or target.ids)
    rows = _rows(tab.enc, T, "train", "truth", "test")
    inputs = document.inputs(target, tab.enc, label, alpha, reading, bins, rows=rows)
    results = found.pop("results")
    return document.write(target, "clean --truth", inputs, results, **found)


__all__ = ["FORMAT", "VERSION", "Target", "certify_encoded"]
