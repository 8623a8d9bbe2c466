"""Benchmark of the input path: whole ``nbcert`` commands on big generated files against
pyarrow reading the same file, measured in one run (part of ``python -m benchmarks``).

Files (20 features of 5 values written v0..v4, 3 labels, 40 % of feature cells empty,
drawn from a planted Naive Bayes model) are generated in a scratch folder, never kept in
the repository, and deleted at the end unless ``--keep``; a size whose files the disk
cannot hold is skipped with the reason.  Each command runs in its own process; its wall
time and peak resident memory come from GNU time.  Each pair is run ``repeat`` times
(at least 3), alternating ours and the reference back to back, and the ratio is that of
the medians.  The 10^7-row CSV and Parquet targets are also measured on two more shapes
(``SHAPES``): integer values (Parquet: int64 columns), and one column of 5,000 values.

Targets:

* CSV, 10^7 rows: ``nbcert certify`` (32 points), whole command, <= 1.5x a bare
  ``python -c`` importing pandas and pyarrow and calling ``pyarrow.csv.read_csv``;
* CSV, 10^8 rows (streamed): peak RSS <= 1 GB, throughput >= 0.7x pyarrow's streaming
  CSV reader (``pyarrow.csv.open_csv``) over the same file;
* gzip CSV, 3 x 10^7 rows (1.4 GB of text, streamed): the same targets against
  ``open_csv`` over pyarrow's decompressing stream (a compressed file is decoded
  afresh on every pass, never held whole);
* Parquet, 10^7 rows: <= 1.2x ``pyarrow.parquet.read_table``;
* Dask, LocalCluster with 2 workers over a 10^7-row Parquet folder: throughput, reported
  beside the single-process streaming path (no target).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nbcert.synthetic import test_frame, write_table

GB = 10**9
BYTES_PER_ROW = {"csv": 47, "parquet": 9}  # measured on these files (d = 20, 40 % empty)


TIME = shutil.which("time", path="/usr/bin:/bin")  # GNU time: the peak of the command alone


def run_command(cmd: list) -> tuple:
    """(wall seconds, peak RSS bytes) of a command run to completion in its own process.

    The peak is GNU time's report of the command (``%M``).  Not ``os.wait4`` on a child of
    this process: a child forked from the benchmark (which holds gigabytes by then) carries
    the benchmark's resident size in its maximum until it execs, so every command measured
    that way seemed to peak at the benchmark's own size.  Without GNU time, that is the
    fallback, and the figure is an upper bound."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as peak:
        wrapped = [TIME, "-q", "-f", "%M", "-o", peak.name, *cmd] if TIME else cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(wrapped, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            raise RuntimeError(f"{cmd[:3]}... failed: {err.read().decode(errors='replace')[-500:]}")
        text = peak.read().strip() if TIME else ""
    return seconds, (int(text.splitlines()[-1]) if text else usage.ru_maxrss) * 1024


def best_pair(ours: list, ref: list, repeat: int) -> tuple:
    """Median (seconds, peak bytes) of each command over ``repeat`` alternating runs."""
    a, b = [], []
    for _ in range(repeat):
        a.append(run_command(ours))
        b.append(run_command(ref))
    return _median(a), _median(b)


def _median(runs: list) -> tuple:
    """The median run by time (of an even number, the upper middle one)."""
    return sorted(runs)[len(runs) // 2]


def versions() -> str:
    """The versions of Python, numpy, pandas and pyarrow this benchmark runs with."""
    import platform

    import numpy
    import pandas
    import pyarrow

    return (
        f"Python {platform.python_version()}, numpy {numpy.__version__}, pandas {pandas.__version__}, "
        f"pyarrow {pyarrow.__version__}"
    )


READERS = {  # format: (its name, the reference reading a file, the reader, the target ratio)
    "csv": (
        "CSV",
        "import pandas, pyarrow.csv as pc; pc.read_csv({!r})",
        "pyarrow.csv.read_csv",
        1.5,
    ),
    "parquet": (
        "Parquet",
        "import pandas, pyarrow.parquet as pq; pq.read_table({!r})",
        "pyarrow.parquet.read_table",
        1.2,
    ),
}

SHAPES = {
    "strings": "values v0..v4 (written as text)",
    "integers": "values 0..4 (Parquet: int64 columns)",
    "wide": "values v0..v4, one column of 5,000 values",
}


def write_shape(
    path: Path, shape: str, n: int, fmt: str, seed: int = 9, chunk: int = 1_000_000
) -> None:
    """A 20-feature table of ``shape`` (see SHAPES; 3 labels, 40 % of feature cells
    empty, values drawn uniformly), written chunk by chunk with pyarrow."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    writer = None
    for a in range(0, n, chunk):
        rows = min(chunk, n - a)
        cols = {}
        for j in range(20):
            k = 5000 if shape == "wide" and j == 0 else 5
            codes = rng.integers(0, k, rows)
            blank = rng.random(rows) < 0.4
            if shape == "integers":
                cols[f"f{j}"] = pa.array(codes, mask=blank)
            else:
                cols[f"f{j}"] = pa.DictionaryArray.from_arrays(
                    pa.array(codes.astype(np.int32), mask=blank),
                    pa.array([f"v{v}" for v in range(k)]),
                ).dictionary_decode()
        cols["class"] = pa.array([f"l{v}" for v in range(3)]).take(
            pa.array(rng.integers(0, 3, rows))
        )
        table = pa.table(cols)
        if writer is None:
            writer = (
                pacsv.CSVWriter(
                    str(path), table.schema, write_options=pacsv.WriteOptions(quoting_style="none")
                )
                if fmt == "csv"
                else pq.ParquetWriter(str(path), table.schema)
            )
        writer.write_table(table)
    writer.close()


def shape_test(path: Path, shape: str, k: int = 32, seed: int = 3) -> None:
    """``k`` test rows of ``shape``, every value one of the training values."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    text = (lambda v: str(v)) if shape == "integers" else (lambda v: f"v{v}")
    cols = {
        f"f{j}": [text(v) for v in rng.integers(0, 5000 if shape == "wide" and j == 0 else 5, k)]
        for j in range(20)
    }
    pd.DataFrame(cols).to_csv(path, index=False)


def certify_command(train: Path, test: Path, label: str, *extra) -> list:
    """``nbcert certify`` on two files, in this Python, with ``extra`` options."""
    cli = [sys.executable, "-m", "nbcert.cli", "certify"]
    return [*cli, "--train", str(train), "--test", str(test), "--label", label, *extra]


def _nbcert(train: Path, test: Path, *extra) -> list:
    return certify_command(train, test, "class", "--json", *extra)


def _python(code: str) -> list:
    return [sys.executable, "-c", code]


def _warm(path: Path) -> None:
    """Read a file once so that the commands timed next find it in the page cache."""
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


def _gzip(plain: Path, packed: Path) -> None:
    """Compress a file with gzip, through pyarrow, a piece at a time."""
    import pyarrow as pa

    with open(plain, "rb") as f, pa.CompressedOutputStream(str(packed), "gzip") as out:
        while piece := f.read(64 << 20):
            out.write(piece)


def _fits(scratch: Path, need: int) -> str:
    free = shutil.disk_usage(scratch).free
    return (
        ""
        if free > need * 1.1
        else (
            f"skipped: needs about {need / GB:.1f} GB of disk, {free / GB:.1f} GB free in {scratch}"
        )
    )


class InputBench:
    """Generates the files and runs each target; ``rows`` collects (target, measures, verdict)."""

    def __init__(self, scratch: Path, repeat: int = 3, keep: bool = False, log=print):
        self.scratch, self.repeat, self.keep, self.log = scratch, repeat, keep, log
        self.rows: list = []
        self.test = scratch / "q.csv"

    def _file(self, name: str, n: int, fmt: str, files: int = 1) -> tuple:
        path = self.scratch / name
        why = "" if path.exists() else _fits(self.scratch, n * BYTES_PER_ROW[fmt])
        if why:
            return None, why
        if not path.exists():
            t0 = time.perf_counter()
            model = write_table(path, n, fmt=fmt, files=files, seed=9)
            self.log(f"  wrote {path} ({n:,} rows) in {time.perf_counter() - t0:.0f}s")
            if not self.test.exists():
                test_frame(model, 32, seed=3).to_csv(self.test, index=False)
        return path, ""

    def add(self, target: str, ok: bool | None, detail: str):
        self.rows.append((target, "met" if ok else "MISSED" if ok is not None else "-", detail))
        self.log(f"  {target}: {detail} -> {self.rows[-1][1]}")

    def _versus(
        self,
        target: str,
        path,
        why: str,
        ref: str,
        what: str,
        limit: float,
        test: Path | None = None,
    ):
        """Whole certify command vs the reference code, both in fresh processes."""
        if why:
            return self.add(target, None, why)
        _warm(path)
        (s, mem), (r, rmem) = best_pair(
            _nbcert(path, test or self.test), _python(ref), max(3, self.repeat)
        )
        self.add(
            target,
            s <= limit * r,
            f"nbcert {s:.2f}s ({mem / GB:.2f} GB peak), {what} {r:.2f}s "
            f"({rmem / GB:.2f} GB), ratio {s / r:.2f} (medians of {max(3, self.repeat)})",
        )

    def shape(self, shape: str, fmt: str, n: int):
        """The in-memory target on a generated file of ``shape`` (see SHAPES)."""
        path = self.scratch / f"{shape}{n}.{fmt}"
        test = self.scratch / f"q-{shape}.csv"
        why = "" if path.exists() else _fits(self.scratch, n * BYTES_PER_ROW[fmt])
        if not why and not path.exists():
            t0 = time.perf_counter()
            write_shape(path, shape, n, fmt)
            shape_test(test, shape)
            self.log(
                f"  wrote {path} ({n:,} rows, {SHAPES[shape]}) in {time.perf_counter() - t0:.0f}s"
            )
        self._in_memory(fmt, n, path, why, shape, test)

    def _in_memory(self, fmt: str, n: int, path, why: str, shape: str = "", test=None):
        """Whole certify command vs the format's reader (``READERS``) on one file."""
        name, code, reader, limit = READERS[fmt]
        self._versus(
            f"{name} {n:.0e} rows{', ' + shape if shape else ''}: certify <= {limit}x {reader}",
            path,
            why,
            code.format(str(path)),
            reader.rpartition(".")[2],
            limit,
            test,
        )

    def csv_in_memory(self, n: int):
        path, why = self._file(f"t{n}.csv", n, "csv")
        self._in_memory("csv", n, path, why)

    def csv_streamed(self, n: int):
        path, why = self._file(f"t{n}.csv", n, "csv")
        target = f"CSV {n:.0e} rows streamed: peak <= 1 GB, >= 0.7x open_csv throughput"
        if why:
            return self.add(target, None, why)
        ref = f"import pyarrow.csv as pc\nfor b in pc.open_csv({str(path)!r}): pass"
        self._streamed(target, path, path, ref)

    def csv_gz_streamed(self, n: int):
        """A gzip CSV whose text is over 1 GB, streamed: decoded afresh on each pass, never
        held whole (a pipe's bytes are); against open_csv over the same decompressing
        stream."""
        path, why = self._file(f"t{n}.csv", n, "csv")
        target = (
            f"CSV.gz {n:.0e} rows streamed: peak <= 1 GB, >= 0.7x open_csv throughput "
            "(decompressing)"
        )
        if why:
            return self.add(target, None, why)
        packed = self.scratch / f"t{n}.csv.gz"
        if not packed.exists():
            _gzip(path, packed)
        ref = (
            "import pyarrow as pa, pyarrow.csv as pc\n"
            f"for b in pc.open_csv(pa.input_stream({str(packed)!r}, compression='gzip')): pass"
        )
        self._streamed(target, packed, path, ref)

    def _streamed(self, target: str, path: Path, text: Path, ref: str):
        """``nbcert --stream`` on ``path`` against the reference code ``ref``, one pair;
        throughputs in MB/s of ``text`` (the file's CSV text)."""
        _warm(path)  # both commands read it from the page cache, not the first one from disk
        (s, mem), (r, _) = best_pair(_nbcert(path, self.test, "--stream"), _python(ref), 1)
        size = text.stat().st_size
        self.add(
            target,
            mem <= GB and r / s >= 0.7,
            f"nbcert {s:.1f}s = {size / s / 1e6:.0f} MB/s of text, peak {mem / GB:.2f} GB; "
            f"open_csv {r:.1f}s = {size / r / 1e6:.0f} MB/s; throughput ratio {r / s:.2f}",
        )

    def parquet(self, n: int):
        path, why = self._file(f"t{n}.parquet", n, "parquet")
        self._in_memory("parquet", n, path, why)

    def dask(self, n: int, workers: int = 2):
        path, why = self._file(f"t{n}-parts", n, "parquet", files=10)
        target = f"Dask LocalCluster({workers} workers), Parquet folder of {n:.0e} rows"
        if why:
            return self.add(target, None, why)
        try:
            import dask.dataframe as dd
            from distributed import Client, LocalCluster
        except ImportError:
            return self.add(
                target, None, "skipped: Dask is not installed (pip install 'nbcert[dask]')"
            )
        import pandas as pd

        import nbcert

        test = pd.read_csv(self.test, dtype=str)
        t0 = time.perf_counter()
        local = nbcert.certify(str(path), test, "class")
        single = time.perf_counter() - t0
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=None
            ) as cluster,
            Client(cluster),
        ):
            t0 = time.perf_counter()
            res = nbcert.certify(dd.read_parquet(str(path)), test, "class")
            on_dask = time.perf_counter() - t0
        same = res.equals(local)
        self.add(
            target,
            None if same else False,
            f"Dask {on_dask:.1f}s = {n / on_dask / 1e6:.1f} M rows/s, single-process streaming "
            f"{single:.1f}s = {n / single / 1e6:.1f} M rows/s (Dask/single time "
            f"{on_dask / single:.2f}); answers {'identical' if same else 'DIFFER'}",
        )

    def cleanup(self):
        if not self.keep:
            shutil.rmtree(self.scratch, ignore_errors=True)


def compile_nbcert() -> str:
    """Compile nbcert's modules to bytecode, as an installed package (or any first run)
    has them; the reference's pandas and pyarrow are compiled at install.  Where the
    environment forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``) an editable install
    would otherwise compile every module again in every command measured."""
    import compileall

    import nbcert

    ok = compileall.compile_dir(str(Path(nbcert.__file__).parent), quiet=1)
    return "nbcert's modules compiled to bytecode" + ("" if ok else " (some could not be written)")


def run_input(
    scratch: str | None,
    *,
    stream: bool = True,
    dask: bool = True,
    repeat: int = 3,
    keep: bool = False,
    log=print,
) -> list:
    """Run every input target; returns (target, verdict, detail) rows."""
    root = Path(scratch or tempfile.mkdtemp(prefix="nbcert-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    bench = InputBench(root, repeat=repeat, keep=keep, log=log)
    log(f"  {versions()}; {compile_nbcert()}")
    try:
        bench.csv_in_memory(10**7)
        bench.parquet(10**7)
        for shape in ("integers", "wide"):
            for fmt in ("csv", "parquet"):
                bench.shape(shape, fmt, 10**7)
        if dask:
            bench.dask(10**7)
        if stream:
            bench.csv_gz_streamed(3 * 10**7)
            bench.csv_streamed(10**8)
    finally:
        bench.cleanup()
    return [(t, v, d) for t, v, d in bench.rows]
