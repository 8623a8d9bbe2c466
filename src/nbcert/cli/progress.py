"""Progress on a terminal while long work runs: tqdm bars on standard error.

The command draws them only where a person watches (standard error is a terminal) and the
output is not ``--json``; otherwise ``Session.progress`` is None and nothing extra is
written.  A stage with a known size (test points) is a bar of rows; a stage whose end is not
known in advance (a HiGHS search, the policy's path) shows its elapsed time, redrawn twice
a second by a thread while the search runs (HiGHS releases the interpreter's lock).  Bars
are erased when their stage ends (``leave=False``), so the terminal keeps only the answer.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

TICK = 0.5  # seconds between redraws of a stage of unknown size


class Bars:
    """Progress bars on ``stream``, one stage at a time; callable as
    ``bars(done, total, stage, detail=None)`` (``total`` None: a stage of unknown size)."""

    def __init__(self, stream):
        self.stream = stream
        self.bar = None
        self.stage = None
        self._stop = None

    def __call__(self, done: int, total: int | None, stage: str, detail: str | None = None):
        if self.bar is None or stage != self.stage or total != self.bar.total:
            self._close()
            self._open(stage, total)
        if detail:
            self.bar.set_postfix_str(detail, refresh=False)
        if total is not None:
            self.bar.update(min(done, total) - self.bar.n)  # redrawn at most every 0.1 s
            if done >= total:
                self._close()

    def counting(self, done: int, total: int, method: str) -> None:
        """``nbcert.count_worlds``'s ``progress(done, total, method)``."""
        self(done, total, "counting test points", method)

    @contextmanager
    def ticking(self, stage: str):
        """A stage of unknown size for the length of the block (a call with no hooks)."""
        self(0, None, stage)
        try:
            yield
        finally:
            self._close()

    def _open(self, stage: str, total: int | None) -> None:
        from tqdm import tqdm

        self.stage = stage
        unknown = total is None
        self.bar = tqdm(
            total=total,
            desc=f"nbcert: {stage}",
            file=self.stream,
            leave=False,
            unit="row",
            dynamic_ncols=True,
            bar_format="{desc}: {elapsed}{postfix}" if unknown else None,
        )
        if unknown:
            self._stop = threading.Event()
            threading.Thread(target=self._tick, args=(self.bar, self._stop), daemon=True).start()

    @staticmethod
    def _tick(bar, stop: threading.Event) -> None:
        while not stop.wait(TICK):
            bar.refresh()

    def _close(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        if self.bar is not None:
            self.bar.close()
        self.bar, self.stage = None, None

    def close(self) -> None:
        self._close()


__all__ = ["Bars", "TICK"]
