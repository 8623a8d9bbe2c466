"""Time and peak memory of one call, for the scaling study (studies.scaling).

Time is ``time.perf_counter`` around the call (wall clock) and ``time.process_time`` (CPU
seconds of the process, which a busy shared machine inflates less).  Memory is the peak
resident set size the call adds: the kernel's high-water mark (VmHWM) is reset through
/proc/self/clear_refs just before the call and read after it, minus the resident size
(VmRSS) before it.  That counts every page the call touches (numpy buffers, Python
objects, C temporaries) at no cost to the timing; free C-heap pages are handed back
(malloc_trim) before each call so that memory the call reuses is counted too.  Where
clear_refs cannot be written, tracemalloc is used instead (Python and numpy heap
allocations; the time then includes its overhead); ``Meter.method`` says which.  The
reset also resets the maximum RSS that getrusage and /usr/bin/time report, so the meter
keeps the process's true peak itself (``Meter.peak``).

Standard library only: importing it costs nothing.
"""

from __future__ import annotations

import time
import tracemalloc


def _malloc_trim():
    """Return the C heap's free pages to the kernel, so that memory a call reuses is counted."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _status() -> dict:
    """VmHWM and VmRSS of this process, in bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmHWM", "VmRSS")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024
    return out


class Meter:
    """Times calls and measures the peak memory each adds (see the module docstring).

    After a call, ``cpu`` holds its CPU seconds and ``last_peak`` the process's resident
    peak during it (None with tracemalloc).
    """

    def __init__(self):
        self.process_peak = 0
        self.last_peak = None
        try:
            self._reset()
            self.method = (
                "peak RSS added (VmHWM reset via /proc/self/clear_refs, minus VmRSS before)"
            )
        except OSError:
            self.method = "tracemalloc peak (Python and numpy heap allocations)"

    def _reset(self):
        _malloc_trim()
        self.process_peak = max(self.process_peak, _status()["VmHWM"])
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")

    def peak(self) -> int:
        """The process's peak resident bytes so far (over all resets)."""
        try:
            self.process_peak = max(self.process_peak, _status()["VmHWM"])
        except OSError:
            pass
        return self.process_peak

    def __call__(self, fn):
        """(result, wall seconds, peak bytes added) of fn(); its CPU seconds are left in ``self.cpu``."""
        if self.method.startswith("tracemalloc"):
            tracemalloc.start()
            t0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            seconds, self.cpu = time.perf_counter() - t0, time.process_time() - c0
            added = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            return out, seconds, added
        self._reset()
        before = _status()["VmRSS"]
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        seconds, self.cpu = time.perf_counter() - t0, time.process_time() - c0
        self.last_peak = _status()[
            "VmHWM"
        ]  # the process's peak during the call, held data included
        return out, seconds, max(0, self.last_peak - before)
