"""Scaling study (beyond the paper): time and memory of every method as the table grows.

For each n, ``run_size`` draws a synthetic table with planted Naive Bayes structure
(nbcert.repro.studies.scaling.synthetic): the complete table for poisoning (OP, SR, RP),
then the same table with ``missing_rate`` of its feature cells blanked in place for deciding
(Iterate+Index, Iterate, AD) and Monte-Carlo counting.  The k test points come from the
same model, not from the table, and are the same for every n (they depend on the seed
only).

Each call is timed and its peak memory measured by a ``Meter`` (nbcert.repro.studies.scaling.meter):
wall and CPU seconds, and the peak resident set size the call adds (the kernel's
high-water mark, reset just before the call); the ``memory_method`` column says how.
``process_peak_mb`` is the whole process's peak.

Every poisoning answer is re-checked outside the timing (``verify_poisoning``: its cells
blanked on fresh counts, then the point must be non-robust); ``verified`` records it.

Before building a size, the memory it needs is estimated (nbcert.repro.studies.
scaling.memory) and compared with MemAvailable from /proc/meminfo (or a given budget): a
size, or a method, that would not fit is skipped and the row says why.  Iterate and AD
decide the test points one after another; with a time budget (``method_budget_s``) such a
method starts no new point once it has run that long, and its row says how many points it
decided and that it was stopped: times are per point decided, measured, never
extrapolated.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .... import approximate, decide, poisoning
from ....count import count_encoded
from ....reading.encoding import code_dtype, from_codes
from ....reading.streaming import mem_available
from ...pipeline.settings import ScalingSettings
from ...pipeline.stages import rng_for
from .blanking import MAX_BLANK_CELLS, blank_in_place, verify_poisoning
from .memory import MB, added_bytes, estimate_bytes, job_mem_mb  # noqa: F401 (re-exported)
from .meter import Meter
from .synthetic import synthetic_table

DECISION = ("Iterate+Index", "Iterate", "AD")
COUNTING = ("Monte-Carlo",)
# SR and RP with the incremental check (the paper's, with Iterate after every cell, costs
# O(n d) per cell: hours at 10^7 rows); named so, as they are not the paper's procedure.
POISON = ("OP", "SR (incremental)", "RP (incremental)")
METHODS = DECISION + COUNTING + POISON
SETUP = ("generate", "encode complete", "blank")
STREAM_METHODS = ("Iterate+Index", "Monte-Carlo", "OP")
STREAMED = {m: f"{m} (streamed)" for m in STREAM_METHODS}  # their times include reading the file
KIND = {
    **{m: "decision" for m in DECISION},
    **{m: "counting" for m in COUNTING},
    **{m: "poisoning" for m in POISON},
    **{m: "setup" for m in SETUP},
}
KIND.update({STREAMED[m]: KIND[m] for m in STREAM_METHODS})
SAFETY = 0.8  # use at most this share of the available memory


class _Rows:
    """The rows of one size's table: one per method or setup step, timed by ``meter``;
    with ``estimates`` each method's row also gives the memory it was estimated to add."""

    def __init__(self, base: dict, meter: Meter, n: int, d: int, estimates: bool = True):
        self.base, self.meter, self.n, self.d, self.estimates, self.rows = (
            base,
            meter,
            n,
            d,
            estimates,
            [],
        )

    def add(self, method, seconds=None, peak=None, points=None, est=None, skipped="", **extra):
        """One row: ``seconds`` and ``peak`` (bytes added) of the meter's last call, or
        None for a method not run (``skipped`` says why); ``est`` the bytes estimated."""
        measured = seconds is not None
        added = (
            added_bytes(self.n, self.d, method)
            if self.estimates and KIND[method] != "setup"
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
                "kind": KIND[method],
                "points": points,
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
class _Memory:
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


@dataclass(frozen=True)
class _Size:
    """One in-memory size's run: its settings, memory, rows and time budget."""

    n: int
    cfg: ScalingSettings
    seed: int
    memory: _Memory
    rows: _Rows
    budget_s: float | None
    mc_samples: int
    progress: object

    @property
    def meter(self) -> Meter:
        return self.rows.meter

    def admit(self, method: str) -> int | None:
        """The method's estimated bytes if it is to run; otherwise its row says why, and None."""
        est, why = self.memory.fits(method)
        if why:
            self.rows.add(method, est=est, skipped=why)
            return None
        return est


def run_size(
    n: int,
    cfg: ScalingSettings,
    seed: int,
    *,
    mem_budget: int | None = None,
    budget_s=...,
    mc_samples: int = 20_000,
    progress=print,
    methods: tuple = METHODS,
) -> pd.DataFrame:
    """Time and measure every method (or those in ``methods``) on one synthetic table of n
    rows (see the module docstring).

    cfg: d, domain, labels, missing_rate, k, ad_worlds, method_budget_s (``budget_s``
    overrides it; None: no budget).  mem_budget: bytes the run may use (default:
    MemAvailable).  One row per method plus three setup rows; ``peak_mb`` is the memory a
    call added, ``call_peak_mb`` the process's resident peak during it (the held table
    included).
    """
    size = _start(
        n,
        cfg,
        seed,
        mem_budget,
        cfg.method_budget_s if budget_s is ... else budget_s,
        mc_samples,
        progress,
        methods,
    )
    why = size.memory.setup_refused()
    if why:
        return _refused(size, why)
    enc, T, t_labels = _build(size)
    _poison(size, enc, T[0])
    rate = _blank(size, enc)
    _decide(size, enc, T, t_labels)
    _monte_carlo(size, enc, T)
    return size.rows.frame(rate)


def _start(n, cfg, seed, mem_budget, budget_s, mc_samples, progress, methods) -> _Size:
    """The meter, the memory available and the columns every row of the size shares."""
    meter = Meter()
    avail = mem_budget if mem_budget is not None else mem_available()
    base = {
        "n": n,
        "d": cfg.d,
        "domain": cfg.domain,
        "labels": cfg.labels,
        "k": cfg.k,
        "table_mb": n * cfg.d * code_dtype(cfg.d * (cfg.domain + 1)).itemsize / MB,
        "available_mb": None if avail is None else avail / MB,
        "memory_method": meter.method,
        "budget_s": budget_s,
    }
    return _Size(
        n,
        cfg,
        seed,
        _Memory(n, cfg.d, avail, methods),
        _Rows(base, meter, n, cfg.d),
        budget_s,
        mc_samples,
        progress,
    )


def _refused(size: _Size, why: str) -> pd.DataFrame:
    """Every row of a size whose tables do not fit, saying why."""
    size.progress(f"n={size.n}: {why}")
    for method in SETUP + METHODS:
        size.rows.add(
            method,
            est=estimate_bytes(size.n, size.cfg.d, None if method in SETUP else method),
            skipped=why,
        )
    return size.rows.frame(size.cfg.missing_rate)


def _build(size: _Size):
    """The complete encoded table and the test points: (enc, T, their labels).  The model
    and the test points depend on the seed only."""
    n, cfg = size.n, size.cfg
    need = estimate_bytes(n, cfg.d)
    table_seed = rng_for(size.seed, "scaling").bit_generator.seed_seq
    (model, X, y, T, t_labels), s, peak = size.meter(
        lambda: synthetic_table(n, cfg.d, cfg.domain, cfg.labels, table_seed, cfg.k)
    )
    size.rows.add("generate", s, peak, est=need)
    enc, s, peak = size.meter(lambda: from_codes(X, y, np.full(cfg.d, cfg.domain, np.intp)))
    size.rows.add("encode complete", s, peak, est=need)
    size.progress(f"n={n}: table and {cfg.k} test points ready")
    return enc, T, t_labels


def _blank(size: _Size, enc) -> float:
    """Blank cells of the same table in place (the complete table is given up); the first
    rows, which make every value occur, are never blanked.  Returns the share blanked."""
    cfg = size.cfg
    rate, s, peak = size.meter(
        lambda: blank_in_place(
            enc.X,
            enc.missing_codes,
            cfg.missing_rate,
            rng_for(size.seed, "scaling", size.n, "blank"),
            skip_rows=max(cfg.domain, cfg.labels),
        )
    )
    size.rows.add("blank", s, peak, est=estimate_bytes(size.n, cfg.d))
    return rate


def _poison(size: _Size, enc, t):
    """OP, SR and RP for one test point on the complete table, each answer re-checked."""
    for method in POISON:
        est = size.admit(method)
        if est is None:
            continue
        res, s, peak = size.meter(
            lambda: poisoning.poison_encoded(
                enc,
                t,
                method[:2].lower(),
                seed=rng_for(size.seed, "scaling", size.n, method[:2]),
                check="incremental",
            )
        )
        ok = verify_poisoning(enc, t, res)
        size.rows.add(
            method,
            s,
            peak,
            1,
            est,
            possible=res.possible,
            cells=res.num_cells,
            verified=ok,
            poisoning_rate=None if not res.possible else res.num_cells / (enc.n * enc.d),
        )
        size.progress(
            f"n={size.n}: {method} {res.num_cells} cells in {s:.3f}s, +{peak / MB:.0f} MB"
            + ("" if ok is not False else " (the cells do NOT make the point non-robust)")
        )


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
    """Iterate one point at a time: a function of T yielding (robust, label) per point."""

    def each(T):
        for t in T:
            dec = decide.certify_iterate(enc, t[None])
            yield bool(dec.robust[0]), int(dec.label[0])

    return each


def _index(size: _Size, enc, T):
    """Iterate+Index on all the test points at once: (Decision, stopped early?)."""
    return decide.certify_index(enc, T), False


def _iterate(size: _Size, enc, T):
    """Iterate point by point, within the time budget."""
    return _per_point(_iterate_points(enc), T, size.budget_s)


def _ad(size: _Size, enc, T):
    """AD point by point (``ad_worlds`` worlds each), within the time budget."""
    seed = rng_for(size.seed, "scaling", size.n, "ad")
    return _per_point(
        lambda T_: approximate.iter_ad(enc, T_, n_worlds=size.cfg.ad_worlds, seed=seed),
        T,
        size.budget_s,
    )


DECIDERS = {
    "Iterate+Index": _index,
    "Iterate": _iterate,
    "AD": _ad,
}  # in DECISION's order: Iterate+Index first


def _decide(size: _Size, enc, T, truth):
    """The deciding methods on the k test points, each checked against Iterate+Index."""
    exact = None
    for method, run in DECIDERS.items():
        est = size.admit(method)
        if est is None:
            continue
        (dec, stopped), s, peak = size.meter(lambda: run(size, enc, T))
        exact = dec if method == "Iterate+Index" else exact
        _check(method, dec, exact, size.n)
        size.rows.add(
            method,
            s,
            peak,
            len(dec.robust),
            est,
            **_decision_columns(method, dec, exact, truth, stopped, size.cfg),
        )
        size.progress(
            f"n={size.n}: {method} {len(dec.robust)} points in {s:.3f}s, +{peak / MB:.0f} MB"
            + (f" (stopped: budget {size.budget_s:g} s)" if stopped else "")
        )


def _decision_columns(method, dec, exact, truth, stopped, cfg) -> dict:
    """A deciding method's own columns: robust and correct points, whether the budget
    stopped it; for AD its worlds and the points it wrongly called robust."""
    p = len(dec.robust)
    out = {
        "robust": int(dec.robust.sum()),
        "correct": int((dec.robust & (dec.label == truth[:p])).sum()),
        "stopped": stopped,
    }
    if method == "AD":
        out["worlds"] = cfg.ad_worlds
        if exact is not None:
            out["ad_false_robust"] = int((dec.robust & ~exact.robust[:p]).sum())
    return out


def _check(method, dec, exact, n):
    """Iterate must give Iterate+Index's answers; AD may never call a robust point non-robust."""
    if exact is None or method == "Iterate+Index":
        return
    p = len(dec.robust)
    if method == "Iterate" and not (
        np.array_equal(dec.robust, exact.robust[:p]) and np.array_equal(dec.label, exact.label[:p])
    ):
        raise AssertionError(f"n={n}: Iterate and Iterate+Index disagree")
    if method == "AD" and (exact.robust[:p] & ~dec.robust).any():
        raise AssertionError(f"n={n}: AD called a robust point non-robust")


def _monte_carlo(size: _Size, enc, T):
    """Monte-Carlo counting of the first test point."""
    est = size.admit("Monte-Carlo")
    if est is None:
        return
    res, s, peak = size.meter(
        lambda: count_encoded(
            enc,
            T[:1],
            method="montecarlo",
            n_samples=size.mc_samples,
            seed=rng_for(size.seed, "scaling", size.n, "count"),
        )
    )
    size.rows.add(
        "Monte-Carlo",
        s,
        peak,
        1,
        est,
        samples=size.mc_samples,
        top_fraction=max(res[0].fractions.values()),
    )
    size.progress(f"n={size.n}: Monte-Carlo in {s:.3f}s, +{peak / MB:.0f} MB")


def csv_bytes_per_row(d: int) -> int:
    """Bytes per row of the generated CSV (two characters a value), rounded up."""
    return 3 * d + 4


def run_streamed(
    n: int,
    cfg: ScalingSettings,
    seed: int,
    *,
    scratch=None,
    mc_samples: int = 20_000,
    progress=print,
) -> pd.DataFrame:
    """Iterate+Index, Monte-Carlo counting and OP on an n-row table that stays on disk
    (rows named "<method> (streamed)": their times include reading the file).

    The table (same model and test points as ``run_size``) is written as CSV in a scratch
    folder, read back in record batches by the library (memory bounded by the batch), and
    deleted; then OP runs on a complete file, written then, and names its cells in a
    second pass (so the disk holds one file at a time: ``csv_bytes_per_row`` per row).
    Iterate, AD, SR and RP need the table in memory and are listed as not run; a size whose
    files the disk cannot hold is skipped with the reason.  Same columns as ``run_size``.
    """
    from .synthetic import model_and_tests, test_frame

    meter = Meter()
    folder = Path(tempfile.mkdtemp(prefix="nbcert-scaling-", dir=scratch))
    base = {
        "n": n,
        "d": cfg.d,
        "domain": cfg.domain,
        "labels": cfg.labels,
        "k": cfg.k,
        "table_mb": 0.0,
        "streamed": True,
        "available_mb": None,
        "memory_method": meter.method,
    }
    rows = _Rows(base, meter, n, cfg.d, estimates=False)
    try:
        why = _disk_refused(folder, n, cfg.d)
        _not_streamed(rows, why)
        if why:
            progress(f"n={n}: {why}")
            return rows.frame(cfg.missing_rate)
        model, T, truth, _ = model_and_tests(
            cfg.d, cfg.domain, cfg.labels, rng_for(seed, "scaling").bit_generator.seed_seq, cfg.k
        )
        test = test_frame(model, cfg.k, T=T)
        _stream_blanked(
            rows, folder / "dirty.csv", cfg, model, test, truth, seed, mc_samples, progress
        )
        _stream_complete(rows, folder / "clean.csv", cfg, model, test, progress)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows.frame(cfg.missing_rate)


def _disk_refused(folder: Path, n: int, d: int) -> str:
    """Why the disk cannot hold the size's file (one file at a time: the blanked one is
    deleted before the complete one is written), or ""."""
    need, free = n * csv_bytes_per_row(d), shutil.disk_usage(folder).free
    return (
        ""
        if need * 1.1 < free
        else (
            f"not run: the streamed file needs about {need / 1e9:.1f} GB of disk, "
            f"{free / 1e9:.1f} GB free"
        )
    )


def _not_streamed(rows: _Rows, why: str):
    """The rows of the methods not run: those that need the table in memory, and with
    ``why`` the streamed ones too."""
    for method in METHODS:
        if method not in STREAM_METHODS:
            rows.add(method, skipped=why or "not run: needs the table in memory (a streamed size)")
        elif why:
            rows.add(STREAMED[method], skipped=why)


def _stream_blanked(rows: _Rows, path: Path, cfg, model, test, truth, seed, mc_samples, progress):
    """Iterate+Index on every test point and Monte-Carlo on the first, from a blanked file
    (deleted after)."""
    from .... import api
    from .synthetic import write_table

    n, k = rows.n, cfg.k
    _, s, peak = rows.meter(
        lambda: write_table(path, n, cfg.d, cfg.domain, cfg.labels, cfg.missing_rate, model=model)
    )
    rows.add("generate", s, peak)
    res, s, peak = rows.meter(lambda: api.certify(str(path), test, "class"))
    robust = res.robust.to_numpy()
    correct = robust & (res.label.to_numpy() == np.array([f"l{v}" for v in truth], dtype=object))
    rows.add(
        STREAMED["Iterate+Index"], s, peak, k, robust=int(robust.sum()), correct=int(correct.sum())
    )
    progress(f"n={n}: Iterate+Index {k} points streamed in {s:.1f}s, +{peak / MB:.0f} MB")
    wc, s, peak = rows.meter(
        lambda: api.count_worlds(
            str(path),
            test.iloc[:1],
            "class",
            method="montecarlo",
            n_samples=mc_samples,
            seed=rng_for(seed, "scaling", n, "count"),
        )
    )
    rows.add(
        STREAMED["Monte-Carlo"],
        s,
        peak,
        1,
        samples=mc_samples,
        top_fraction=max(wc[0].fractions.values()),
    )
    path.unlink()


def _stream_complete(rows: _Rows, path: Path, cfg, model, test, progress):
    """OP on the first test point, from a complete file: it plans from the statistics and
    names its cells in a second pass."""
    from .... import api
    from .synthetic import write_table

    n = rows.n
    _, s, peak = rows.meter(
        lambda: write_table(path, n, cfg.d, cfg.domain, cfg.labels, 0.0, model=model)
    )
    rows.add("encode complete", s, peak)
    res, s, peak = rows.meter(lambda: api.poison(str(path), test.iloc[:1], "class", stream=True))
    rows.add(
        STREAMED["OP"],
        s,
        peak,
        1,
        possible=res[0].possible,
        cells=res[0].num_cells,
        poisoning_rate=None if not res[0].possible else res[0].num_cells / (n * cfg.d),
    )
    progress(f"n={n}: OP streamed in {s:.1f}s ({res[0].num_cells} cells), +{peak / MB:.0f} MB")


# ---------------------------------------------------------------- summaries


def timed_rows(table: pd.DataFrame) -> pd.DataFrame:
    ok = table[
        (table.kind != "setup") & table.seconds_per_point.notna() & (table.seconds_per_point > 0)
    ]
    if "skipped" in ok:
        ok = ok[ok.skipped.fillna("").astype(str) == ""]
    return ok


def fit_slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Per method: least-squares slope of log time per point vs log n (all sizes run),
    and the slope between the two largest sizes."""
    out = []
    ok = timed_rows(table)
    for method in [m for m in METHODS if m in set(ok.method)] + sorted(
        set(ok.method) - set(METHODS)
    ):
        sub = ok[ok.method == method].groupby("n").seconds_per_point.mean().sort_index()
        x, yv = np.log10(sub.index.to_numpy(float)), np.log10(sub.to_numpy(float))
        slope = intercept = last = np.nan
        if len(sub) >= 2:
            slope, intercept = np.polyfit(x, yv, 1)
            last = (yv[-1] - yv[-2]) / (x[-1] - x[-2])
        out.append(
            {
                "method": method,
                "kind": KIND.get(method, ""),
                "slope": slope,
                "intercept": intercept,
                "slope_largest": last,
                "sizes": len(sub),
                "n_min": int(sub.index.min()),
                "n_max": int(sub.index.max()),
                "seconds_at_max": float(sub.iloc[-1]),
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "method",
            "kind",
            "slope",
            "intercept",
            "slope_largest",
            "sizes",
            "n_min",
            "n_max",
            "seconds_at_max",
        ],
    )
