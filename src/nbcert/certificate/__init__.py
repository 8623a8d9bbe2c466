"""Certificates: answers with the evidence that lets anyone check them.

A certificate is a JSON file written beside an answer (``--certificate FILE``, or
``certificate=`` in the API): the ``--json`` results, each with an ``evidence`` object, and
the ``inputs`` that pin what was answered (each file's path and SHA-256, the label, alpha
as a fraction, how the files were read, nbcert's version).  ``nbcert.verify`` (one file,
Python's standard library only) re-reads the files and checks every claim in exact
arithmetic: ``python3 verify.py CERT`` or ``nbcert verify CERT``.

* ``evidence``  -- witness worlds and extreme supports of one test point;
* ``states``    -- the table as read, blanked (poisoning) or cleaned (cleaning);
* ``questions`` -- each question's results with their evidence;
* ``document``  -- the file: where it goes, what it pins, written whole or not at all.

The entry points for a program that answers on coded tables (the reproduction's runs) are
:func:`certify_encoded` here and :func:`nbcert.verify.check`.
"""

from __future__ import annotations

import numpy as np

from . import document, questions
from .document import FORMAT, VERSION, Target


def certify_encoded(
    certificate,
    table,
    T: np.ndarray,
    *,
    train,
    test,
    label: str,
    alpha=0,
    test_rows=None,
    reading=None,
) -> dict:
    """Certify coded test rows on a coded table and write the certificate.

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
        Test rows as ``table``'s local codes (-1: unseen, -2: blank), the rows ``test_rows``
        of the file ``test``.
    train, test : str or path
        The files the table and the test rows were read from (read with nbcert's defaults,
        or as ``reading`` says).
    label : str
        The label column of ``train``.
    alpha : Fraction, int or str, default 0
        The smoothing the answers are for (exact: ``"1/2"``, ``Fraction(1, 2)``).
    test_rows : sequence of int, optional
        Each row of T's data row in ``test`` (default 0, 1, ..., k - 1: T is the whole
        file).  Given, the certificate lists them (``inputs.test_rows``) and answers for
        those rows alone.
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
    inputs = document.inputs(target, table, label, alpha, reading)
    if test_rows is not None:  # the rows answered, when they may be a few of the file's
        inputs["test_rows"] = test_rows = [int(i) for i in test_rows]
    answer = _certified(table, T, alpha, certification)
    results = questions.certify(table, T, answer, alpha, test_rows or list(range(len(T))))
    return document.write(target, "certify", inputs, results)


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


def write_certify(target: Target, table, T, answer, *, label, alpha, reading, bins, test_rows, ids):
    """certify's certificate (``nbcert.certify(..., certificate=)``): its answer
    ``answer`` (the DataFrame it returns) with the evidence."""
    results = questions.certify(table, T, answer, alpha, test_rows, ids or target.ids)
    inputs = document.inputs(target, table, label, alpha, reading, bins)
    return document.write(target, "certify", inputs, results)


def write_poison(
    target: Target, enc, T, answers, *, method, label, alpha, reading, bins, test_rows, ids
):
    """poison's certificate (one row at a time)."""
    results = questions.poison(enc, T, answers, method, alpha, test_rows, ids or target.ids)
    inputs = document.inputs(target, enc, label, alpha, reading, bins)
    return document.write(target, "poison", inputs, results)


def write_poison_together(target: Target, enc, T, answer, *, label, reading, bins, test_rows, ids):
    """poison --together's certificate (alpha = 0)."""
    results = questions.poison_together(enc, T, answer, test_rows, ids or target.ids)
    inputs = document.inputs(target, enc, label, 0, reading, bins)
    return document.write(target, "poison --together", inputs, results)


def write_clean(target: Target, tab, T, report, *, label, alpha, reading, bins, test_rows, ids):
    """clean --truth's certificate."""
    found = questions.clean(tab, T, report, alpha, test_rows, ids or target.ids)
    inputs = document.inputs(target, tab.enc, label, alpha, reading, bins)
    results = found.pop("results")
    return document.write(target, "clean --truth", inputs, results, **found)


__all__ = ["FORMAT", "VERSION", "Target", "certify_encoded"]
