"""The number of possible worlds, ``prod_j delta_j^M_j``, exact and computed only when read.

A table of 10^7 rows with 40 % of 20 five-valued cells blank has 5^(8·10^7) worlds, a
number of 56 million decimal digits.  Its logarithm is one dot product; its digits are
not: writing them costs tens of seconds, for a number the text output rounds to three
digits.  :class:`Worlds` keeps the powers and writes the
digits once, when first asked (JSON's ``total``, ``WorldCounts.total_text``), and every
row of one count shares it.

The digits come from decimal arithmetic (libmpdec), whose numbers are decimal already:
turning a Python int of millions of digits into text is quadratic.  Equal domain sizes
are one power (``delta^(M_1 + M_2)``), and the powers are multiplied smallest first, so no
step multiplies a huge number by a small one more than needed: the 56-million-digit
total takes about 3 s instead of 30.
"""

from __future__ import annotations

import decimal
import heapq
import math
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Worlds:
    """``prod delta^M`` over ``powers``, ((delta, M), ...) with delta > 1 and M > 0, one
    per distinct delta, in increasing delta.

    Examples
    --------
    >>> Worlds.of_counts([3, 3, 2, 1], [2, 1, 5, 4]).text
    '864'
    >>> round(Worlds.of_counts([3, 2], [2, 5]).log10, 6)  # log10(288)
    2.459392
    """

    powers: tuple

    @classmethod
    def of_counts(cls, delta, missing) -> Worlds:
        """From each feature's domain size and its number of missing cells."""
        merged: dict = {}
        for dj, mj in zip(delta, missing):
            dj, mj = int(dj), int(mj)
            if dj > 1 and mj > 0:
                merged[dj] = merged.get(dj, 0) + mj
        return cls(tuple(sorted(merged.items())))

    @property
    def log10(self) -> float:
        """log10 of the number (0.0 for one world)."""
        return math.fsum(m * math.log10(d) for d, m in self.powers)

    @property
    def digits(self) -> int:
        """How many decimal digits the number has, at most (from its log10, rounded up)."""
        return int(self.log10 * (1 + 1e-12)) + 2

    @cached_property
    def text(self) -> str:
        """The exact number as a decimal string, computed the first time it is read."""
        ctx = decimal.Context(
            prec=self.digits + 30,
            Emax=decimal.MAX_EMAX,
            Emin=decimal.MIN_EMIN,
            traps=[decimal.Inexact, decimal.Overflow, decimal.InvalidOperation],
        )
        heap = [
            (m * math.log10(d), i, ctx.power(decimal.Decimal(d), m))
            for i, (d, m) in enumerate(self.powers)
        ]
        heapq.heapify(heap)
        while len(heap) > 1:  # the two smallest first: a balanced product
            (la, i, a), (lb, _, b) = heapq.heappop(heap), heapq.heappop(heap)
            heapq.heappush(heap, (la + lb, i, ctx.multiply(a, b)))
        return format(heap[0][2], "f") if heap else "1"

    def __int__(self) -> int:
        return int(self.text)
