"""Repaired rows (CPClean's worlds): certify against enumeration of every row choice."""

from __future__ import annotations

from fractions import Fraction

import brute_rows
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from repairs_strategies import repair_instances

from nbcert.certification import TIE_NO, TIE_UNKNOWN, TIE_YES
from nbcert.reading.encoding import encode
from nbcert.repairs import certify_rows, code

ALPHAS = st.sampled_from([0, 1, Fraction(1, 2), 0])


def coded(inst):
    enc = encode(inst.train, inst.label)
    enc, rr = code(enc, inst.frame, "repairs", "training table")
    T = enc.encode_test(inst.test)
    return rr, T


@given(repair_instances(), ALPHAS)
@settings(max_examples=300, deadline=None)
def test_certify_equals_enumeration(inst, alpha):
    rr, T = coded(inst)
    got = certify_rows(rr, T, alpha)
    cols, y, reps, points, _ = inst.brute()
    labels = list(rr.enc.labels)
    for i, t in enumerate(points):
        robust, label, possible, tie = brute_rows.certify(cols, y, reps, t, alpha)
        assert got.robust[i] == int(robust), i
        assert (labels[got.label[i]] if got.label[i] >= 0 else None) == label
        assert {labels[l] for l in np.flatnonzero(got.possible[i] == 1)} == possible
        assert got.undecided[i] is None
        if got.tie[i] != TIE_UNKNOWN:
            assert got.tie[i] == (TIE_YES if tie else TIE_NO)
