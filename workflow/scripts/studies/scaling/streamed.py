"""Scaling study, streamed sizes: Iterate+Index, Monte-Carlo counting and OP on a table
that stays on disk (``run_streamed``; the in-memory sizes are studies.scaling.run).

The table, drawn from the same model as the in-memory sizes (same test points), is written
as CSV in a scratch folder and read back by the library in record batches; the rows are
named "<method> (streamed)" and their times include reading the file.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from common.draws import rng_for
from common.settings import Section

from nbcert import certify, count_worlds, poison
from nbcert.synthetic import model_and_tests, test_frame, write_table
from studies.scaling.memory import MB
from studies.scaling.meter import Meter
from studies.scaling.plan import METHODS, STREAM_METHODS, STREAMED, Rows, base_columns


def csv_bytes_per_row(d: int) -> int:
    """Bytes per row of the generated CSV (two characters a value), rounded up."""
    return 3 * d + 4


def run_streamed(
    n: int,
    cfg: Section,
    seed: int,
    *,
    scratch=None,
    mc_worlds: int = 20_000,
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
    meter = Meter()
    folder = Path(tempfile.mkdtemp(prefix="nbcert-scaling-", dir=scratch))
    base = base_columns(n, cfg, 0.0, streamed=True, available_mb=None, memory_method=meter.method)
    rows = Rows(base, meter, n, cfg.d, estimates=False)
    try:
        why = _disk_refused(folder, n, cfg.d)
        _not_streamed(rows, why)
        if why:
            progress(f"n={n}: {why}")
            return rows.frame(cfg.missing_rate)
        model, T, truth, _ = model_and_tests(
            cfg.d,
            cfg.domain,
            cfg.labels,
            rng_for(seed, "scaling").bit_generator.seed_seq,
            cfg.points,
        )
        test = test_frame(model, cfg.points, T=T)
        _stream_blanked(
            rows, folder / "dirty.csv", cfg, model, test, truth, seed, mc_worlds, progress
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


def _not_streamed(rows: Rows, why: str):
    """The rows of the methods not run: those that need the table in memory, and with
    ``why`` the streamed ones too."""
    for method in METHODS:
        if method not in STREAM_METHODS:
            rows.add(method, skipped=why or "not run: needs the table in memory (a streamed size)")
        elif why:
            rows.add(STREAMED[method], skipped=why)


def _stream_blanked(rows: Rows, path: Path, cfg, model, test, truth, seed, mc_worlds, progress):
    """Iterate+Index on every test point and Monte-Carlo on the first, from a blanked file
    (deleted after)."""
    n, k = rows.n, cfg.points
    _, s, peak = rows.meter(
        lambda: write_table(path, n, cfg.d, cfg.domain, cfg.labels, cfg.missing_rate, model=model)
    )
    rows.add("generate", s, peak)
    res, s, peak = rows.meter(lambda: certify(str(path), test, "class"))
    robust = res.robust.to_numpy()
    correct = robust & (res.label.to_numpy() == np.array([f"l{v}" for v in truth], dtype=object))
    rows.add(
        STREAMED["Iterate+Index"], s, peak, k, robust=int(robust.sum()), correct=int(correct.sum())
    )
    progress(f"n={n}: Iterate+Index {k} points streamed in {s:.1f}s, +{peak / MB:.0f} MB")
    wc, s, peak = rows.meter(
        lambda: count_worlds(
            str(path),
            test.iloc[:1],
            "class",
            method="montecarlo",
            n_worlds=mc_worlds,
            seed=rng_for(seed, "scaling", n, "count"),
        )
    )
    rows.add(
        STREAMED["Monte-Carlo"],
        s,
        peak,
        1,
        mc_worlds=mc_worlds,
        top_fraction=max(wc[0].fractions.values()),
    )
    path.unlink()


def _stream_complete(rows: Rows, path: Path, cfg, model, test, progress):
    """OP on the first test point, from a complete file: it plans from the statistics and
    names its cells in a second pass."""
    n = rows.n
    _, s, peak = rows.meter(
        lambda: write_table(path, n, cfg.d, cfg.domain, cfg.labels, 0.0, model=model)
    )
    rows.add("encode complete", s, peak)
    res, s, peak = rows.meter(lambda: poison(str(path), test.iloc[:1], "class", stream=True))
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
