"""Scaling study (beyond the paper): time and memory of every method as the table grows.

For each n, ``run_size`` draws a synthetic table with planted Naive Bayes structure
(nbcert.repro.synthetic): the complete table for poisoning (OP, SR, RP), the same table with
``missing_rate`` of its feature cells blanked for deciding (Iterate+Index, Iterate, AD)
and Monte-Carlo counting.  The k test points come from the same model, not from the
table, and are the same for every n (they depend on the seed only).

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

Before building a size, the memory it needs is estimated from bytes per cell (n*d)
measured on this code (``SETUP_BYTES``, ``HELD_BYTES``, ``EXTRA_BYTES``) and compared with
MemAvailable from /proc/meminfo (or a given budget): a size, or a method, that would not
fit is skipped and the row says why.  AD samples ``ad_worlds`` worlds per point; where
that exceeds ``ad_max_samples`` sampled cells it is timed on fewer points (at least one),
and the ``points`` column says how many: times are reported per test point, measured,
never extrapolated.
"""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
import pandas as pd

from ... import decision, poisoning
from ...counting import count_encoded
from ...encoding import code_dtype, from_codes
from ...streaming import mem_available
from ..settings import ScalingSettings
from ..stages import rng_for
from ..perturb import blank_mask
from ..synthetic import synthetic_table

DECISION = ("Iterate+Index", "Iterate", "AD")
COUNTING = ("Monte-Carlo",)
POISON = ("OP", "SR", "RP")
METHODS = DECISION + COUNTING + POISON
SETUP = ("generate", "encode complete", "blank + encode")
KIND = {**{m: "decision" for m in DECISION}, **{m: "counting" for m in COUNTING},
        **{m: "poisoning" for m in POISON}, **{m: "setup" for m in SETUP}}

# Bytes per cell of the n x d table, the larger of what this module measured at n = 10^6
# and 10^7 (d = 20), rounded up by a fifth or more.  HELD: the encoded table kept while
# the methods run (1: compact codes; it was 8 with intp codes).  SETUP: the peak while generating, encoding and blanking (8 held
# + 18.4: up to three n x d intp copies and the blanking draw).  EXTRA: what each method
# adds on top of the held table (OP 2.4, SR 21.1, RP 33.4, AD 21.0, Iterate 2.0,
# Monte-Carlo 2.1, Iterate+Index ~0).
HELD_BYTES = 1  # codes take one byte per cell (nbcert.encoding.code_dtype) at these domains
SETUP_BYTES = 16  # the generator's intp table (8) and the compact copies and blanking draw
EXTRA_BYTES = {"Iterate+Index": 1, "Iterate": 3, "AD": 26, "Monte-Carlo": 3, "OP": 3, "SR": 26, "RP": 40}
BASE_BYTES = 300 * 10**6  # interpreter, numpy, pandas and small arrays
SAFETY = 0.8  # use at most this share of the available memory
MB = 10**6  # memory is reported in decimal megabytes


def fixed_bytes(method: str, d: int, labels: int = 3, mc_samples: int = 20_000) -> int:
    """What a method allocates whatever n: Monte-Carlo's (samples, m, d) arrays, RP's
    (4096, m, d) windows (a few of each, as measured)."""
    if method == "Monte-Carlo":
        return 5 * 8 * mc_samples * labels * d
    if method == "RP":
        return 10 * 8 * 4096 * labels * d
    return 0


def estimate_bytes(n: int, d: int, method: str | None = None, labels: int = 3, mc_samples: int = 20_000) -> int:
    """Estimated peak resident bytes of the setup (method None) or of one method."""
    cells = n * d
    if method is None:
        return BASE_BYTES + SETUP_BYTES * cells
    return BASE_BYTES + (HELD_BYTES + EXTRA_BYTES[method]) * cells + fixed_bytes(method, d, labels, mc_samples)


def job_mem_mb(n: int, d: int, labels: int = 3) -> int:
    """Memory a scaling job needs (MB): the largest of its estimates."""
    return math.ceil(max(estimate_bytes(n, d, m, labels) for m in (None, *METHODS)) / MB)


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


def verify_poisoning(enc, t: np.ndarray, res) -> bool | None:
    """Whether blanking the answer's cells on fresh counts leaves t non-robust (None if
    no poisoning was found)."""
    if not res.possible:
        return None
    state = poisoning.PoisonedCounts(enc, t)
    pos = np.empty_like(enc.rows)
    pos[enc.rows] = np.arange(len(enc.rows))  # training-table row -> position in enc.X
    col = {f: j for j, f in enumerate(enc.features)}
    by_col: dict = {}
    for r, f in res.cells:
        by_col.setdefault(col[f], []).append(r)
    for j, rows in by_col.items():
        state.blank(pos[np.asarray(rows, np.intp)], j)
    return not state.robust()


def ad_points(n: int, cfg: ScalingSettings, max_samples: float) -> int:
    """Test points AD is timed on: all k unless k * worlds * missing cells > max_samples."""
    per_point = cfg.ad_worlds * max(1.0, cfg.missing_rate * n * cfg.d)
    return int(min(cfg.k, max(1, max_samples // per_point)))


def run_size(n: int, cfg: ScalingSettings, seed: int, *, mem_budget: int | None = None, ad_max_samples: float = 3e9,
             mc_samples: int = 20_000, progress=print, methods: tuple = METHODS) -> pd.DataFrame:
    """Time and measure every method (or those in ``methods``) on one synthetic table of n
    rows (see the module docstring).

    cfg: d, domain, labels, missing_rate, k, ad_worlds.  mem_budget: bytes the run may use
    (default: MemAvailable).  One row per method plus three setup rows; ``peak_mb`` is the
    memory a call added, ``call_peak_mb`` the process's resident peak during it (the held
    table included).
    """
    d, domain, labels, rate, k = cfg.d, cfg.domain, cfg.labels, cfg.missing_rate, cfg.k
    meter = Meter()
    avail = mem_budget if mem_budget is not None else mem_available()
    limit = None if avail is None else SAFETY * avail
    base = {"n": n, "d": d, "domain": domain, "labels": labels, "k": k, "table_mb": n * d * code_dtype(d * (domain + 1)).itemsize / MB,
            "available_mb": None if avail is None else avail / MB, "memory_method": meter.method}
    rows = []

    def row(method, seconds=None, peak=None, points=None, est=None, skipped="", **extra):
        added = (EXTRA_BYTES[method] * n * d + fixed_bytes(method, d, labels, mc_samples)
                 if method in EXTRA_BYTES else None)
        cpu = None if seconds is None else meter.cpu
        call_peak = None if seconds is None or meter.last_peak is None else meter.last_peak / MB
        rows.append({**base, "method": method, "kind": KIND[method], "points": points, "seconds": seconds,
                     "call_peak_mb": call_peak,
                     "seconds_per_point": None if seconds is None or not points else seconds / points,
                     "cpu_seconds": cpu, "cpu_per_point": None if cpu is None or not points else cpu / points,
                     "peak_mb": None if peak is None else peak / MB,
                     "estimate_added_mb": None if added is None else added / MB,
                     "estimate_mb": None if est is None else est / MB, "skipped": skipped, **extra})

    def done(actual_rate=None):
        out = pd.DataFrame(rows)
        out["missing_rate"] = rate if actual_rate is None else actual_rate
        out["process_peak_mb"] = meter.peak() / MB
        return out

    need = estimate_bytes(n, d)
    if limit is not None and need > limit:
        why = (f"not run: building the tables needs about {need / MB:,.0f} MB, over {SAFETY:.0%} of the "
               f"{avail / MB:,.0f} MB available")
        progress(f"n={n}: {why}")
        for method in SETUP + METHODS:
            row(method, est=estimate_bytes(n, d, None if method in SETUP else method, labels, mc_samples),
                skipped=why)
        return done()

    def fits(method):
        est = estimate_bytes(n, d, method, labels, mc_samples)
        if method not in methods:
            return est, "not run: not asked for"
        if limit is None or est <= limit:
            return est, ""
        return est, (f"not run: needs about {est / MB:,.0f} MB, over {SAFETY:.0%} of the "
                     f"{avail / MB:,.0f} MB available")

    # Setup: the table and the test points, then the complete encoded table.
    table_seed = rng_for(seed, "scaling").bit_generator.seed_seq  # the model and test points: seed only
    (model, X, y, T, t_labels), s, peak = meter(lambda: synthetic_table(n, d, domain, labels, table_seed, k))
    row("generate", s, peak, est=need)
    delta = np.full(d, domain, np.intp)
    enc, s, peak = meter(lambda: from_codes(X, y, delta))
    del X
    row("encode complete", s, peak, est=need)
    progress(f"n={n}: table and {k} test points ready")

    # Poisoning: one test point on the complete table.
    t = T[0]
    for method in POISON:
        est, why = fits(method)
        if why:
            row(method, est=est, skipped=why)
            continue
        res, s, peak = meter(lambda: poisoning.poison_encoded(enc, t, method.lower(),
                                                              seed=rng_for(seed, "scaling", n, method)))
        ok = verify_poisoning(enc, t, res)
        row(method, s, peak, 1, est, possible=res.possible, cells=res.num_cells, verified=ok,
            poisoning_rate=None if not res.possible else res.num_cells / (n * d))
        progress(f"n={n}: {method} {res.num_cells} cells in {s:.3f}s, +{peak / MB:.0f} MB"
                 + ("" if ok is not False else " (the cells do NOT make the point non-robust)"))

    # Blank cells of the same table, in place (the complete table is given up).
    cover = max(domain, labels)  # the rows that make every value occur are never blanked

    def blank():
        L = np.empty(enc.X.shape, np.int8 if domain < 127 else np.int32)
        np.subtract(enc.X, enc.offsets[:-1], out=L, casting="unsafe")  # back to local codes
        mask = blank_mask(n, d, rate, "uniform", rng_for(seed, "scaling", n, "blank"))
        mask[:cover] = False
        L[mask] = -1
        return from_codes(L, y, delta), float(mask.mean())

    (dirty, actual_rate), s, peak = meter(blank)
    del enc
    row("blank + encode", s, peak, est=need)

    # Deciding k points, counting one.
    truth = t_labels
    exact = None
    for method in DECISION + COUNTING:
        est, why = fits(method)
        if why:
            row(method, est=est, skipped=why)
            continue
        if method == "Iterate+Index":
            dec, s, peak = meter(lambda: decision.certify_index(dirty, T))
            exact, p = dec, k
        elif method == "Iterate":
            dec, s, peak = meter(lambda: decision.certify_iterate(dirty, T))
            p = k
            if exact is not None and not (np.array_equal(dec.robust, exact.robust)
                                          and np.array_equal(dec.label, exact.label)):
                raise AssertionError(f"n={n}: Iterate and Iterate+Index disagree")
        elif method == "AD":
            p = ad_points(n, cfg, ad_max_samples)
            dec, s, peak = meter(lambda: decision.certify_ad(dirty, T[:p], n_worlds=cfg.ad_worlds,
                                                             seed=rng_for(seed, "scaling", n, "ad")))
            if exact is not None and (exact.robust[:p] & ~dec.robust).any():
                raise AssertionError(f"n={n}: AD called a robust point non-robust")
        else:
            res, s, peak = meter(lambda: count_encoded(dirty, T[:1], method="montecarlo", n_samples=mc_samples,
                                                       seed=rng_for(seed, "scaling", n, "count")))
            row(method, s, peak, 1, est, samples=mc_samples,
                top_fraction=max(res[0].fractions.values()))
            progress(f"n={n}: {method} in {s:.3f}s, +{peak / MB:.0f} MB")
            continue
        extra = {"robust": int(dec.robust.sum()),
                 "correct": int((dec.robust & (dec.label == truth[:p])).sum())}
        if method == "AD":
            extra["worlds"] = cfg.ad_worlds
            if exact is not None:
                extra["ad_false_robust"] = int((dec.robust & ~exact.robust[:p]).sum())
        row(method, s, peak, p, est, **extra)
        progress(f"n={n}: {method} {p} points in {s:.3f}s, +{peak / MB:.0f} MB")
    return done(actual_rate)


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
    for method in slopes.index:
        sub = ok[ok.method == method].groupby("n").seconds_per_point.mean().sort_index()
        color, marker, ls = STYLE.get(method, ("black", ".", ":"))
        sl = slopes.loc[method, "slope"]
        ax.plot(sub.index, sub.to_numpy(), color=color, marker=marker, linestyle=ls,
                label=f"{method} (slope {sl:.2f})" if np.isfinite(sl) else method)
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
    deleted; OP runs on a second, complete file and names its cells in a second pass.
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

    need = 2 * n * csv_bytes_per_row(d)
    free = shutil.disk_usage(folder).free
    why = "" if need * 1.1 < free else (f"not run: the streamed files need about {need / 1e9:.1f} GB of disk, "
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
