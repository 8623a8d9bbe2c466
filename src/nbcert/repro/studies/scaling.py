"""Scaling study (beyond the paper): time and memory of every method as the table grows.

For each n, ``run_size`` draws a synthetic table with planted Naive Bayes structure
(nbcert.repro.synthetic): the complete table for poisoning (OP, SR, RP), then the same
table with ``missing_rate`` of its feature cells blanked in place for deciding
(Iterate+Index, Iterate, AD) and Monte-Carlo counting.  The k test points come from the
same model, not from the table, and are the same for every n (they depend on the seed
only).

Time is ``time.perf_counter`` around one call (wall clock; the figure and slopes use it)
and ``time.process_time`` (CPU seconds of the process, which a busy shared machine
inflates less; the methods are single-threaded).  Memory is the peak resident set size the
call adds: the kernel's high-water mark (VmHWM) is reset through /proc/self/clear_refs
just before the call and read after it, minus the resident size (VmRSS) before it.  That
counts every page the call touches (numpy buffers, Python objects, C temporaries) at no
cost to the timing; free C-heap pages are handed back (malloc_trim) before each call so
that memory the call reuses is counted too.  Where clear_refs cannot be written,
tracemalloc is used instead (Python and numpy heap allocations; the time then includes
its overhead); the ``memory_method`` column says which.  (The reset also resets the
maximum RSS that getrusage and /usr/bin/time report; ``process_peak_mb`` is the true peak.)

Every poisoning answer is re-checked outside the timing (``verify_poisoning``: its cells
blanked on fresh counts, then the point must be non-robust); ``verified`` records it.

Before building a size, the memory it needs is estimated (nbcert.repro.studies.
scaling_memory) and compared with MemAvailable from /proc/meminfo (or a given budget): a
size, or a method, that would not fit is skipped and the row says why.  Iterate and AD
decide the test points one after another; with a time budget (``method_budget_s``) such a
method starts no new point once it has run that long, and its row says how many points it
decided and that it was stopped: times are per point decided, measured, never
extrapolated.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pandas as pd

from ... import decide, poisoning
from ...count import count_encoded
from ...reading.encoding import code_dtype, from_codes
from ...reading.streaming import mem_available
from ..settings import ScalingSettings
from ..stages import rng_for
from ..synthetic import synthetic_table
from .scaling_memory import MB, added_bytes, estimate_bytes, job_mem_mb  # noqa: F401 (re-exported)

DECISION = ("Iterate+Index", "Iterate", "AD")
COUNTING = ("Monte-Carlo",)
POISON = ("OP", "SR", "RP")
METHODS = DECISION + COUNTING + POISON
SETUP = ("generate", "encode complete", "blank")
KIND = {**{m: "decision" for m in DECISION}, **{m: "counting" for m in COUNTING},
        **{m: "poisoning" for m in POISON}, **{m: "setup" for m in SETUP}}
SAFETY = 0.8  # use at most this share of the available memory
MAX_BLANK_CELLS = 10**9  # numpy's hypergeometric draws need fewer cells than this (blank_in_place)


def _malloc_trim():
    """Return the C heap's free pages to the kernel, so that memory a call reuses is counted."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _status() -> dict:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmHWM", "VmRSS")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024
    return out


class Meter:
    """Times calls and measures the peak memory each adds (see the module docstring)."""

    def __init__(self):
        self.process_peak = 0
        self.last_peak = None
        try:
            self._reset()
            self.method = "peak RSS added (VmHWM reset via /proc/self/clear_refs, minus VmRSS before)"
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
        self.last_peak = _status()["VmHWM"]  # the process's peak during the call, held data included
        return out, seconds, max(0, self.last_peak - before)


def _cell_arrays(enc, cells):
    """(table rows, feature indices) of a poisoning's cells (as held, for Cells)."""
    if isinstance(cells, poisoning.Cells):
        return cells.rows, cells.cols
    col = {f: j for j, f in enumerate(enc.features)}
    return (np.array([r for r, _ in cells], np.intp).reshape(-1),
            np.array([col[f] for _, f in cells], np.intp).reshape(-1))


def verify_poisoning(enc, t: np.ndarray, res, chunk: int = 1 << 20) -> bool | None:
    """Whether blanking the answer's cells on fresh counts leaves t non-robust (None if
    no poisoning was found; False also for a cell named twice).  Works ``chunk`` cells at
    a time, with a bitmap of the cells seen."""
    if not res.possible:
        return None
    rows, cols = _cell_arrays(enc, res.cells)
    pos = np.empty(len(enc.rows), np.int32 if len(enc.rows) < 1 << 31 else np.intp)
    pos[enc.rows] = np.arange(len(enc.rows))  # training-table row -> position in enc.X
    seen = np.zeros((enc.n * enc.d + 7) // 8, np.uint8)
    state = poisoning.PoisonedCounts(enc, t)
    for a in range(0, len(rows), chunk):
        r, c = pos[rows[a:a + chunk]].astype(np.intp), cols[a:a + chunk].astype(np.intp)
        ids = np.sort(r * enc.d + c)
        byte, bit = ids >> 3, (1 << (ids & 7)).astype(np.uint8)
        if (ids[1:] == ids[:-1]).any() or (seen[byte] & bit).any():
            return False
        first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
        seen[byte[first]] |= np.bitwise_or.reduceat(bit, first)
        state.blank_many(r, c)
    return not state.robust()


def blank_in_place(X: np.ndarray, missing_codes: np.ndarray, rate: float, rng, *, skip_rows: int = 0,
                   chunk_rows: int = 1 << 16) -> float:
    """Blank round(rate * n * d) cells of X (n, d) in place, a uniformly random set of the
    cells below row ``skip_rows`` (all there are if fewer), by writing each column's
    missing code; returns the share of the table blanked.

    Chunk by chunk of rows, the number of cells a chunk gets is drawn from the
    hypergeometric distribution of the cells still to place among the cells still to
    come, then which of its cells: an exactly uniform set of that size, no full-size mask.
    """
    n, d = X.shape
    if n * d >= MAX_BLANK_CELLS:
        raise ValueError(f"blank_in_place: {n * d:,} cells; tables of {MAX_BLANK_CELLS:,} or more are not supported")
    flat = X.reshape(-1)
    cells = (n - skip_rows) * d
    want = left = min(round(rate * n * d), cells)
    for a in range(skip_rows * d, n * d, chunk_rows * d):
        size = min(chunk_rows * d, n * d - a)
        k = int(rng.hypergeometric(size, cells - size, left)) if cells > size else left
        pick = a + rng.choice(size, k, replace=False)
        flat[pick] = missing_codes[pick % d]
        cells, left = cells - size, left - k
    return want / (n * d) if n * d else 0.0


_clock = time.perf_counter  # the budget's clock


def _per_point(decide_one, T: np.ndarray, budget_s: float | None):
    """decide_one(T) point by point until all are decided or ``budget_s`` seconds have passed
    (a point once started is finished): (Decision of the points decided, stopped early?)."""
    t0 = _clock()
    robust, label = [], []
    for r, l in decide_one(T):
        robust.append(r)
        label.append(l)
        if budget_s is not None and len(robust) < len(T) and _clock() - t0 >= budget_s:
            break
    dec = decide.Decision(np.array(robust, bool), np.array(label, np.intp).reshape(len(label)))
    return dec, len(robust) < len(T)


def _iterate_points(enc):
    def each(T):
        for t in T:
            dec = decide.certify_iterate(enc, t[None])
            yield bool(dec.robust[0]), int(dec.label[0])
    return each


class _Rows:
    """The rows of one size's table (see run_size)."""

    def __init__(self, base, meter, n, d, mc_samples):
        self.base, self.meter, self.n, self.d, self.mc_samples, self.rows = base, meter, n, d, mc_samples, []

    def add(self, method, seconds=None, peak=None, points=None, est=None, skipped="", **extra):
        added = added_bytes(self.n, self.d, method) if method in KIND and KIND[method] != "setup" else None
        cpu = None if seconds is None else self.meter.cpu
        call_peak = None if seconds is None or self.meter.last_peak is None else self.meter.last_peak / MB
        self.rows.append({**self.base, "method": method, "kind": KIND[method], "points": points, "seconds": seconds,
                          "call_peak_mb": call_peak,
                          "seconds_per_point": None if seconds is None or not points else seconds / points,
                          "cpu_seconds": cpu, "cpu_per_point": None if cpu is None or not points else cpu / points,
                          "peak_mb": None if peak is None else peak / MB,
                          "estimate_added_mb": None if added is None else added / MB,
                          "estimate_mb": None if est is None else est / MB, "skipped": skipped, **extra})

    def frame(self, rate) -> pd.DataFrame:
        out = pd.DataFrame(self.rows)
        out["missing_rate"] = rate
        out["process_peak_mb"] = self.meter.peak() / MB
        return out


def run_size(n: int, cfg: ScalingSettings, seed: int, *, mem_budget: int | None = None, budget_s=...,
             mc_samples: int = 20_000, progress=print, methods: tuple = METHODS) -> pd.DataFrame:
    """Time and measure every method (or those in ``methods``) on one synthetic table of n
    rows (see the module docstring).

    cfg: d, domain, labels, missing_rate, k, ad_worlds, method_budget_s (``budget_s``
    overrides it; None: no budget).  mem_budget: bytes the run may use (default:
    MemAvailable).  One row per method plus three setup rows; ``peak_mb`` is the memory a
    call added, ``call_peak_mb`` the process's resident peak during it (the held table
    included).
    """
    d, domain, labels, k = cfg.d, cfg.domain, cfg.labels, cfg.k
    budget_s = cfg.method_budget_s if budget_s is ... else budget_s
    meter = Meter()
    avail = mem_budget if mem_budget is not None else mem_available()
    limit = None if avail is None else SAFETY * avail
    base = {"n": n, "d": d, "domain": domain, "labels": labels, "k": k,
            "table_mb": n * d * code_dtype(d * (domain + 1)).itemsize / MB,
            "available_mb": None if avail is None else avail / MB, "memory_method": meter.method,
            "budget_s": budget_s}
    out = _Rows(base, meter, n, d, mc_samples)

    def fits(method):
        est = estimate_bytes(n, d, method)
        if method not in methods:
            return est, "not run: not asked for"
        if limit is None or est <= limit:
            return est, ""
        return est, f"not run: needs about {est / MB:,.0f} MB, over {SAFETY:.0%} of the {avail / MB:,.0f} MB available"

    need = estimate_bytes(n, d)
    why = (f"not run: building the tables needs about {need / MB:,.0f} MB, over {SAFETY:.0%} of the "
           f"{avail / MB:,.0f} MB available" if limit is not None and need > limit else
           f"not run: in memory the study blanks tables of fewer than {MAX_BLANK_CELLS:.0e} cells; stream this size"
           if n * d >= MAX_BLANK_CELLS else "")
    if why:
        progress(f"n={n}: {why}")
        for method in SETUP + METHODS:
            out.add(method, est=estimate_bytes(n, d, None if method in SETUP else method), skipped=why)
        return out.frame(cfg.missing_rate)

    # Setup: the table and the test points, then the complete encoded table.
    table_seed = rng_for(seed, "scaling").bit_generator.seed_seq  # the model and test points: seed only
    (model, X, y, T, t_labels), s, peak = meter(lambda: synthetic_table(n, d, domain, labels, table_seed, k))
    out.add("generate", s, peak, est=need)
    enc, s, peak = meter(lambda: from_codes(X, y, np.full(d, domain, np.intp)))
    del X, y
    out.add("encode complete", s, peak, est=need)
    progress(f"n={n}: table and {k} test points ready")

    _poison(out, enc, T[0], n, seed, fits, progress)

    # Blank cells of the same table in place (the complete table is given up); the first
    # rows, which make every value occur, are never blanked.
    cover = max(domain, labels)
    rate, s, peak = meter(lambda: blank_in_place(enc.X, enc.missing_codes, cfg.missing_rate,
                                                 rng_for(seed, "scaling", n, "blank"), skip_rows=cover))
    out.add("blank", s, peak, est=need)

    _decide(out, enc, T, t_labels, cfg, n, seed, fits, budget_s, progress)
    est, why = fits("Monte-Carlo")
    if why:
        out.add("Monte-Carlo", est=est, skipped=why)
    else:
        res, s, peak = meter(lambda: count_encoded(enc, T[:1], method="montecarlo", n_samples=mc_samples,
                                                   seed=rng_for(seed, "scaling", n, "count")))
        out.add("Monte-Carlo", s, peak, 1, est, samples=mc_samples, top_fraction=max(res[0].fractions.values()))
        progress(f"n={n}: Monte-Carlo in {s:.3f}s, +{peak / MB:.0f} MB")
    return out.frame(rate)


def _poison(out: _Rows, enc, t, n, seed, fits, progress):
    """OP, SR and RP for one test point on the complete table, each answer re-checked."""
    for method in POISON:
        est, why = fits(method)
        if why:
            out.add(method, est=est, skipped=why)
            continue
        res, s, peak = out.meter(lambda: poisoning.poison_encoded(enc, t, method.lower(),
                                                                  seed=rng_for(seed, "scaling", n, method)))
        ok = verify_poisoning(enc, t, res)
        out.add(method, s, peak, 1, est, possible=res.possible, cells=res.num_cells, verified=ok,
                poisoning_rate=None if not res.possible else res.num_cells / (enc.n * enc.d))
        progress(f"n={n}: {method} {res.num_cells} cells in {s:.3f}s, +{peak / MB:.0f} MB"
                 + ("" if ok is not False else " (the cells do NOT make the point non-robust)"))


def _decide(out: _Rows, enc, T, truth, cfg, n, seed, fits, budget_s, progress):
    """Iterate+Index, Iterate and AD on the k test points; Iterate and AD within the budget."""
    exact = None
    for method in DECISION:
        est, why = fits(method)
        if why:
            out.add(method, est=est, skipped=why)
            continue
        stopped = False
        if method == "Iterate+Index":
            dec, s, peak = out.meter(lambda: decide.certify_index(enc, T))
            exact = dec
        elif method == "Iterate":
            (dec, stopped), s, peak = out.meter(lambda: _per_point(_iterate_points(enc), T, budget_s))
        else:
            ad_seed = rng_for(seed, "scaling", n, "ad")
            (dec, stopped), s, peak = out.meter(lambda: _per_point(
                lambda T_: decide.iter_ad(enc, T_, n_worlds=cfg.ad_worlds, seed=ad_seed), T, budget_s))
        p = len(dec.robust)
        _check(method, dec, exact, n)
        extra = {"robust": int(dec.robust.sum()), "correct": int((dec.robust & (dec.label == truth[:p])).sum()),
                 "stopped": stopped}
        if method == "AD":
            extra["worlds"] = cfg.ad_worlds
            if exact is not None:
                extra["ad_false_robust"] = int((dec.robust & ~exact.robust[:p]).sum())
        out.add(method, s, peak, p, est, **extra)
        progress(f"n={n}: {method} {p} points in {s:.3f}s, +{peak / MB:.0f} MB"
                 + (f" (stopped: budget {budget_s:g} s)" if stopped else ""))


def _check(method, dec, exact, n):
    """Iterate must give Iterate+Index's answers; AD may never call a robust point non-robust."""
    if exact is None or method == "Iterate+Index":
        return
    p = len(dec.robust)
    if method == "Iterate" and not (np.array_equal(dec.robust, exact.robust[:p])
                                    and np.array_equal(dec.label, exact.label[:p])):
        raise AssertionError(f"n={n}: Iterate and Iterate+Index disagree")
    if method == "AD" and (exact.robust[:p] & ~dec.robust).any():
        raise AssertionError(f"n={n}: AD called a robust point non-robust")


# ---------------------------------------------------------------- summaries

def timed_rows(table: pd.DataFrame) -> pd.DataFrame:
    ok = table[(table.kind != "setup") & table.seconds_per_point.notna() & (table.seconds_per_point > 0)]
    if "skipped" in ok:
        ok = ok[ok.skipped.fillna("").astype(str) == ""]
    return ok


def fit_slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Per method: least-squares slope of log time per point vs log n (all sizes run),
    and the slope between the two largest sizes."""
    out = []
    ok = timed_rows(table)
    for method in [m for m in METHODS if m in set(ok.method)] + sorted(set(ok.method) - set(METHODS)):
        sub = ok[ok.method == method].groupby("n").seconds_per_point.mean().sort_index()
        x, yv = np.log10(sub.index.to_numpy(float)), np.log10(sub.to_numpy(float))
        slope = intercept = last = np.nan
        if len(sub) >= 2:
            slope, intercept = np.polyfit(x, yv, 1)
            last = (yv[-1] - yv[-2]) / (x[-1] - x[-2])
        out.append({"method": method, "kind": KIND.get(method, ""), "slope": slope, "intercept": intercept,
                    "slope_largest": last, "sizes": len(sub), "n_min": int(sub.index.min()),
                    "n_max": int(sub.index.max()), "seconds_at_max": float(sub.iloc[-1])})
    return pd.DataFrame(out, columns=["method", "kind", "slope", "intercept", "slope_largest", "sizes", "n_min",
                                      "n_max", "seconds_at_max"])


STYLE = {"Iterate+Index": ("tab:green", "^", "-"), "Iterate": ("tab:blue", "o", "-"), "AD": ("tab:red", "s", "-"),
         "Monte-Carlo": ("tab:purple", "D", "-"), "OP": ("tab:olive", "P", "--"), "SR": ("tab:orange", "v", "--"),
         "RP": ("tab:red", "x", "--")}


def figure(table: pd.DataFrame, outputs):
    """Log-log time per test point vs n, one line per method, fitted slope in the legend.

    ``outputs`` has ``pdf`` and ``png`` paths (written atomically)."""
    from ..figures import save_figure, plt

    slopes = fit_slopes(table).set_index("method")
    ok = timed_rows(table)
    fig, ax = plt.subplots(figsize=(7.6, 4.4))
    stopped = ok.stopped.fillna(False).astype(bool) if "stopped" in ok else pd.Series(False, index=ok.index)
    for method in slopes.index:
        mine = ok.method == method
        sub = ok[mine].groupby("n").seconds_per_point.mean().sort_index()
        color, marker, ls = STYLE.get(method, ("black", ".", ":"))
        sl = slopes.loc[method, "slope"]
        cut = sorted(set(ok[mine & stopped].n))
        parts = [f"slope {sl:.2f}"] if np.isfinite(sl) else []
        if cut:
            parts.append(f"stopped after {float(ok[mine & stopped].budget_s.iloc[0]):g} s at n = "
                         + ", ".join(f"{n:.0e}" for n in cut))
        ax.plot(sub.index, sub.to_numpy(), color=color, marker=marker, linestyle=ls,
                label=f"{method} ({'; '.join(parts)})" if parts else method)
        if cut:  # open markers: the mean over the points decided before the time budget ran out
            ax.plot(cut, sub.loc[cut].to_numpy(), linestyle="none", marker=marker, markersize=11,
                    markerfacecolor="white", markeredgecolor=color)
    first = table.iloc[0] if len(table) else None
    if first is not None:
        ax.set_title(f"Scaling: d={first.d}, domain {first.domain}, {first.labels} labels, "
                     f"{float(first.missing_rate):.0%} missing", fontsize=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows n")
    ax.set_ylabel("time per test point (s)")
    ax.grid(True, which="both", alpha=0.3)
    if len(slopes):
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    save_figure(fig, outputs)


STREAM_METHODS = ("Iterate+Index", "Monte-Carlo", "OP")
STREAMED = {m: f"{m} (streamed)" for m in STREAM_METHODS}  # their times include reading the file
KIND.update({STREAMED[m]: KIND[m] for m in STREAM_METHODS})


def csv_bytes_per_row(d: int) -> int:
    """Bytes per row of the generated CSV (two characters a value), rounded up."""
    return 3 * d + 4


def run_streamed(n: int, cfg: ScalingSettings, seed: int, *, scratch=None, mc_samples: int = 20_000,
                 progress=print) -> pd.DataFrame:
    """Iterate+Index, Monte-Carlo counting and OP on an n-row table that stays on disk
    (rows named "<method> (streamed)": their times include reading the file).

    The table (same model and test points as ``run_size``) is written as CSV in a scratch
    folder, read back in record batches by the library (memory bounded by the batch), and
    deleted; then OP runs on a complete file, written then, and names its cells in a
    second pass (so the disk holds one file at a time: ``csv_bytes_per_row`` per row).
    Iterate, AD, SR and RP need the table in memory and are listed as not run; a size whose
    files the disk cannot hold is skipped with the reason.  Same columns as ``run_size``.
    """
    import shutil
    import tempfile
    from pathlib import Path

    from ... import api
    from ..synthetic import model_and_tests, test_frame, write_table

    d, domain, labels, rate, k = cfg.d, cfg.domain, cfg.labels, cfg.missing_rate, cfg.k
    meter = Meter()
    folder = Path(tempfile.mkdtemp(prefix="nbcert-scaling-", dir=scratch))
    base = {"n": n, "d": d, "domain": domain, "labels": labels, "k": k, "table_mb": 0.0, "streamed": True,
            "available_mb": None, "memory_method": meter.method}
    rows = []

    def row(method, seconds=None, peak=None, points=None, skipped="", **extra):
        rows.append({**base, "method": method, "kind": KIND[method], "points": points, "seconds": seconds,
                     "call_peak_mb": None if seconds is None else meter.last_peak / MB if meter.last_peak else None,
                     "seconds_per_point": None if seconds is None or not points else seconds / points,
                     "cpu_seconds": None if seconds is None else meter.cpu,
                     "cpu_per_point": None if seconds is None or not points else meter.cpu / points,
                     "peak_mb": None if peak is None else peak / MB, "estimate_added_mb": None, "estimate_mb": None,
                     "skipped": skipped, **extra})

    need = n * csv_bytes_per_row(d)  # one file at a time: the blanked one is deleted before the complete one
    free = shutil.disk_usage(folder).free
    why = "" if need * 1.1 < free else (f"not run: the streamed file needs about {need / 1e9:.1f} GB of disk, "
                                        f"{free / 1e9:.1f} GB free")
    try:
        model, T, truth, _ = model_and_tests(d, domain, labels, rng_for(seed, "scaling").bit_generator.seed_seq, k)
        test = test_frame(model, k, T=T)
        for method in METHODS:
            if method not in STREAM_METHODS:
                row(method, skipped=why or "not run: needs the table in memory (a streamed size)")
            elif why:
                row(STREAMED[method], skipped=why)
        if why:
            progress(f"n={n}: {why}")
            return _streamed_frame(rows, rate, meter)
        dirty, clean = folder / "dirty.csv", folder / "clean.csv"
        _, s, peak = meter(lambda: write_table(dirty, n, d, domain, labels, rate, model=model))
        row("generate", s, peak)
        res, s, peak = meter(lambda: api.certify(str(dirty), test, "class"))
        robust = res.robust.to_numpy()
        correct = robust & (res.label.to_numpy() == np.array([f"l{v}" for v in truth], dtype=object))
        row(STREAMED["Iterate+Index"], s, peak, k, robust=int(robust.sum()), correct=int(correct.sum()))
        progress(f"n={n}: Iterate+Index {k} points streamed in {s:.1f}s, +{peak / MB:.0f} MB")
        wc, s, peak = meter(lambda: api.count_worlds(str(dirty), test.iloc[:1], "class", method="montecarlo",
                                                     n_samples=mc_samples, seed=rng_for(seed, "scaling", n, "count")))
        row(STREAMED["Monte-Carlo"], s, peak, 1, samples=mc_samples, top_fraction=max(wc[0].fractions.values()))
        dirty.unlink()
        _, s, peak = meter(lambda: write_table(clean, n, d, domain, labels, 0.0, model=model))
        row("encode complete", s, peak)
        res, s, peak = meter(lambda: api.poison(str(clean), test.iloc[:1], "class", stream=True))
        row(STREAMED["OP"], s, peak, 1, possible=res[0].possible, cells=res[0].num_cells,
            poisoning_rate=None if not res[0].possible else res[0].num_cells / (n * d))
        progress(f"n={n}: OP streamed in {s:.1f}s ({res[0].num_cells} cells), +{peak / MB:.0f} MB")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _streamed_frame(rows, rate, meter)


def _streamed_frame(rows, rate, meter) -> pd.DataFrame:
    out = pd.DataFrame(rows)
    out["missing_rate"] = rate
    out["process_peak_mb"] = meter.peak() / MB
    return out
