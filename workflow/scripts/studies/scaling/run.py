"""Scaling study (beyond the paper): time and memory of every method as the table grows.

For each n, ``run_size`` draws a synthetic table with planted Naive Bayes structure
(nbcert.synthetic): the complete table for poisoning (OP, SR, RP),
then the same table with ``missing_rate`` of its feature cells blanked in place for deciding
(Iterate+Index, Iterate, AD) and Monte-Carlo counting.  The k test points come from the
same model, not from the table, and are the same for every n (they depend on the seed
only).

Each call is timed and its peak memory measured by a ``Meter`` (studies.scaling.meter):
wall and CPU seconds, and the peak resident set size the call adds (the kernel's
high-water mark, reset just before the call); the ``memory_method`` column says how.
``process_peak_mb`` is the whole process's peak.

Every poisoning answer is re-checked outside the timing (``verify_poisoning``: its cells
blanked on fresh counts, then the point must be non-robust); ``verified`` records it.

Before building a size, the memory it needs is estimated (studies.
scaling.memory) and compared with MemAvailable from /proc/meminfo (or a given budget): a
size, or a method, that would not fit is skipped and the row says why.  Iterate and AD
decide the test points one after another; with a time budget (``method_budget_s``, CPU
seconds of the job) such a method starts no new point once it has used that much, and its row says how many points it
decided and that it was stopped: times are per point decided, measured, never
extrapolated.

The names the study shares (methods, their families, rows, memory plan) are in
studies.scaling.plan; sizes streamed from disk are run by .streamed, and the
slopes the report fits by .slopes.
"""

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from common.draws import rng_for
from common.job import run_job, stamp
from common.settings import Section
from common.tables import write_table

from nbcert import from_codes
from nbcert.methods import (
    Certification,
    certify_index,
    certify_iterate,
    code_dtype,
    count_encoded,
    iter_ad_sampled,
    mem_available,
    poison_encoded,
)
from nbcert.synthetic import synthetic_table
from studies.scaling.blanking import blank_in_place, verify_poisoning
from studies.scaling.memory import MB, estimate_bytes
from studies.scaling.meter import Meter
from studies.scaling.plan import METHODS, POISON, SETUP, MemoryPlan, Rows, base_columns


@dataclass(frozen=True)
class _Size:
    """One in-memory size's run: its settings, memory, rows and time budget."""

    n: int
    cfg: Section
    seed: int
    memory: MemoryPlan
    rows: Rows
    budget_s: float | None
    mc_worlds: int
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
    cfg: Section,
    seed: int,
    *,
    mem_budget: int | None = None,
    budget_s=...,
    mc_worlds: int = 20_000,
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
        mc_worlds,
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


def _start(n, cfg, seed, mem_budget, budget_s, mc_worlds, progress, methods) -> _Size:
    """The meter, the memory available and the columns every row of the size shares."""
    meter = Meter()
    avail = mem_budget if mem_budget is not None else mem_available()
    base = base_columns(
        n,
        cfg,
        n * cfg.d * code_dtype(cfg.d * (cfg.domain + 1)).itemsize / MB,
        available_mb=None if avail is None else avail / MB,
        memory_method=meter.method,
        budget_s=budget_s,
    )
    return _Size(
        n,
        cfg,
        seed,
        MemoryPlan(n, cfg.d, avail, methods),
        Rows(base, meter, n, cfg.d),
        budget_s,
        mc_worlds,
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
        lambda: synthetic_table(n, cfg.d, cfg.domain, cfg.labels, table_seed, cfg.points)
    )
    size.rows.add("generate", s, peak, est=need)
    enc, s, peak = size.meter(lambda: from_codes(X, y, np.full(cfg.d, cfg.domain, np.intp)))
    size.rows.add("encode complete", s, peak, est=need)
    size.progress(f"n={n}: table and {cfg.points} test points ready")
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
            lambda: poison_encoded(
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


# The budget's clock: the job's CPU time, so that a budget costs the same CPU however busy
# the machine is (the jobs' CPU is known from the config), and a method stopped on a busy
# machine got as much of the CPU as on a quiet one.
_clock = time.process_time


def _certified(answers: list) -> Certification:
    robust, label = zip(*answers) if answers else ((), ())
    return Certification(np.array(robust, bool), np.array(label, np.intp).reshape(len(label)))


def _per_point(decide_one, T: np.ndarray, budget_s: float | None):
    """decide_one(T) point by point until all are decided or ``budget_s`` seconds have passed
    (a point once started is finished: Iterate's point is one scan of the table):
    (Certification of the points decided, stopped early?, {})."""
    t0, answers = _clock(), []
    for answer in decide_one(T):
        answers.append(answer)
        if budget_s is not None and len(answers) < len(T) and _clock() - t0 >= budget_s:
            break
    return _certified(answers), len(answers) < len(T), {}


def _iterate_points(enc):
    """Iterate one point at a time: a function of T yielding (robust, label) per point."""

    def each(T):
        for t in T:
            dec = certify_iterate(enc, t[None])
            yield bool(dec.robust[0]), int(dec.label[0])

    return each


def _index(size: _Size, enc, T):
    """Iterate+Index on all the test points at once: (Certification, stopped early?, {})."""
    return certify_index(enc, T), False, {}


def _iterate(size: _Size, enc, T):
    """Iterate point by point, within the time budget."""
    return _per_point(_iterate_points(enc), T, size.budget_s)


def _ad(size: _Size, enc, T):
    """AD point by point (``ad_worlds`` worlds each) within the time budget, which is
    checked between worlds: at 10^7 rows one world is a pass over the table (about a
    second), a point up to 100 of them.  (Certification of the points decided, stopped early?,
    the worlds it sampled in all.)"""
    seed = rng_for(size.seed, "scaling", size.n, "ad")
    deadline = _clock() + (size.budget_s if size.budget_s is not None else float("inf"))
    stop = lambda: _clock() >= deadline  # noqa: E731
    seen = list(iter_ad_sampled(enc, T, n_worlds=size.cfg.ad_worlds, seed=seed, stop=stop))
    done = [(s.robust, s.label) for s in seen if not s.stopped]
    return _certified(done), len(done) < len(T), {"worlds_sampled": sum(s.worlds for s in seen)}


DECIDERS = {
    "Iterate+Index": _index,
    "Iterate": _iterate,
    "AD": _ad,
}  # in CERTIFICATION's order: Iterate+Index first


def _decide(size: _Size, enc, T, truth):
    """The deciding methods on the k test points, each checked against Iterate+Index."""
    exact = None
    for method, run in DECIDERS.items():
        est = size.admit(method)
        if est is None:
            continue
        (dec, stopped, more), s, peak = size.meter(lambda: run(size, enc, T))
        exact = dec if method == "Iterate+Index" else exact
        _check(method, dec, exact, size.n)
        size.rows.add(
            method,
            s,
            peak,
            len(dec.robust),
            est,
            **_certification_columns(method, dec, exact, truth, stopped, size.cfg),
            **more,
        )
        worlds = more.get("worlds_sampled")
        size.progress(
            f"n={size.n}: {method} {len(dec.robust)} points in {s:.3f}s, +{peak / MB:.0f} MB"
            + (
                f", {worlds} worlds ({worlds / s:.3g} a second)"
                if worlds is not None and s > 0
                else ""
            )
            + (f" (stopped: budget {size.budget_s:g} s)" if stopped else "")
        )


def _certification_columns(method, dec, exact, truth, stopped, cfg) -> dict:
    """A deciding method's own columns: robust and correct points, whether the budget
    stopped it; for AD its worlds and the points it wrongly called robust."""
    p = len(dec.robust)
    out = {
        "robust": int(dec.robust.sum()),
        "correct": int((dec.robust & (dec.label == truth[:p])).sum()),
        "stopped": stopped,
    }
    if method == "AD":
        out["ad_worlds"] = cfg.ad_worlds
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
            n_worlds=size.mc_worlds,
            seed=rng_for(size.seed, "scaling", size.n, "count"),
        )
    )
    size.rows.add(
        "Monte-Carlo",
        s,
        peak,
        1,
        est,
        mc_worlds=size.mc_worlds,
        top_fraction=max(res[0].fractions.values()),
    )
    size.progress(f"n={size.n}: Monte-Carlo in {s:.3f}s, +{peak / MB:.0f} MB")


def main(snakemake):
    """One synthetic table of n rows (the run ``n{n}``), in memory (:func:`run_size`), or
    streamed from a file on disk (``streamed_n{n}``: :func:`studies.scaling.streamed.run_streamed`)."""
    from studies.scaling.streamed import run_streamed

    where, n = snakemake.wildcards.run.rsplit("n", 1)
    run = run_streamed if where == "streamed_" else run_size
    cfg = Section.from_json(snakemake.params.settings)
    write_table(stamp(run(int(n), cfg, snakemake.params.seed)), snakemake.output[0], "scaling_run")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
