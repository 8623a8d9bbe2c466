"""What a scaling run measures and may use (studies.scaling.run and .streamed):
the methods and the family of each (certification, counting, poisoning, setup), the columns
every row of a size shares, the rows themselves (``Rows``: one per method or setup step,
timed by a ``Meter``) and the memory a size may use (``MemoryPlan``: estimated by
studies.scaling.memory, against the memory available).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from common.settings import Section

from studies.scaling.blanking import MAX_BLANK_CELLS
from studies.scaling.memory import MB, added_bytes, estimate_bytes
from studies.scaling.meter import Meter

CERTIFICATION = ("Iterate+Index", "Iterate", "AD")
COUNTING = ("Monte-Carlo",)
# SR and RP with the incremental check (the paper's, with Iterate after every cell, costs
# O(n d) per cell: hours at 10^7 rows); named so, as they are not the paper's procedure.
POISON = ("OP", "SR (incremental)", "RP (incremental)")
METHODS = CERTIFICATION + COUNTING + POISON
SETUP = ("generate", "encode complete", "blank")
STREAM_METHODS = ("Iterate+Index", "Monte-Carlo", "OP")
STREAMED = {m: f"{m} (streamed)" for m in STREAM_METHODS}  # their times include reading the file
FAMILY = {
    **{m: "certification" for m in CERTIFICATION},
    **{m: "counting" for m in COUNTING},
    **{m: "poisoning" for m in POISON},
    **{m: "setup" for m in SETUP},
}
FAMILY.update({STREAMED[m]: FAMILY[m] for m in STREAM_METHODS})
SAFETY = 0.8  # use at most this share of the available memory


def base_columns(n: int, cfg: Section, table_mb: float, **more) -> dict:
    """The columns every row of one size shares: the table's shape, then ``more``."""
    return {
        "n": n,
        "d": cfg.d,
        "domain": cfg.domain,
        "labels": cfg.labels,
        "points": cfg.points,
        "table_mb": table_mb,
        **more,
    }


class Rows:
    """The rows of one size's table: one per method or setup step, timed by ``meter``;
    with ``estimates`` each method's row also gives the memory it was estimated to add."""

    def __init__(self, base: dict, meter: Meter, n: int, d: int, estimates: bool = True):
        self.base, self.meter, self.n, self.d = base, meter, n, d
        self.estimates, self.rows = estimates, []

    def add(self, method, seconds=None, peak=None, points=None, est=None, skipped="", **extra):
        """One row: ``seconds`` and ``peak`` (bytes added) of the meter's last call, or
        None for a method not run (``skipped`` says why); ``est`` the bytes estimated."""
        measured = seconds is not None
        added = (
            added_bytes(self.n, self.d, method)
            if self.estimates and FAMILY[method] != "setup"
            else None
        )
        cpu = self.meter.cpu if measured else None
        call_peak = (
            self.meter.last_peak / MB if measured and self.meter.last_peak is not None else None
        )
        self.rows.append(
            {
                **self.base,
                "method": method,
                "family": FAMILY[method],
                "points_done": points,
                "seconds": seconds,
                "call_peak_mb": call_peak,
                "seconds_per_point": seconds / points if measured and points else None,
                "cpu_seconds": cpu,
                "cpu_per_point": cpu / points if measured and points else None,
                "peak_mb": None if peak is None else peak / MB,
                "estimate_added_mb": None if added is None else added / MB,
                "estimate_mb": None if est is None else est / MB,
                "skipped": skipped,
                **extra,
            }
        )

    def frame(self, rate) -> pd.DataFrame:
        out = pd.DataFrame(self.rows)
        out["missing_rate"] = rate
        out["process_peak_mb"] = self.meter.peak() / MB
        return out


@dataclass(frozen=True)
class MemoryPlan:
    """What one size may use: ``avail`` bytes (None: unknown), SAFETY of them, and only
    for the methods asked for."""

    n: int
    d: int
    avail: int | None
    methods: tuple

    def _over(self, need: int, what: str) -> str:
        if self.avail is None or need <= SAFETY * self.avail:
            return ""
        return (
            f"not run: {what} about {need / MB:,.0f} MB, over {SAFETY:.0%} of the {self.avail / MB:,.0f} MB "
            "available"
        )

    def setup_refused(self) -> str:
        """Why the size's tables cannot be built in memory, or ""."""
        over = self._over(estimate_bytes(self.n, self.d), "building the tables needs")
        if over or self.n * self.d < MAX_BLANK_CELLS:
            return over
        return f"not run: in memory the study blanks tables of fewer than {MAX_BLANK_CELLS:.0e} cells; stream this size"

    def fits(self, method: str) -> tuple:
        """(estimated bytes, why the method is not run or "")."""
        est = estimate_bytes(self.n, self.d, method)
        if method not in self.methods:
            return est, "not run: not asked for"
        return est, self._over(est, "needs")
