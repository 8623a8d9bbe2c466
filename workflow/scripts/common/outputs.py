"""Writing pipeline outputs so that an interrupted job never leaves a file that looks complete.

Every output is written to a temporary name beside its destination and renamed into place
(:func:`publish`) once complete.  A job whose Snakemake process has gone (killed, say with
``kill -9``) is killed with it (:func:`common.job.start`), and :func:`publish` refuses
to rename for such an orphan (:mod:`common.parent`), so no output appears after its
run has ended.  Published files get the permissions the user's umask gives new files
(mkstemp's are 0600).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from common.parent import parent_alive

if TYPE_CHECKING:  # the Snakefile imports this module (through fetch): no pandas at parse time
    import pandas as pd


def atomic_path(dest) -> tuple[Path, Path]:
    """A temporary path beside ``dest``; :func:`publish` then moves it into place."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=dest.suffix)
    os.close(fd)
    return Path(tmp), dest


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def publish(tmp: Path, dest: Path, mode: int = 0o666) -> None:
    """Give ``tmp`` normal permissions and rename it to ``dest``, unless this job is an
    orphan of a Snakemake process that no longer exists."""
    if not parent_alive():
        Path(tmp).unlink(missing_ok=True)
        raise SystemExit(
            f"not writing {dest}: the Snakemake process that started this job has gone"
        )
    os.chmod(tmp, mode & ~_umask())
    os.replace(tmp, dest)


def write_csv(df: pd.DataFrame, dest) -> None:
    tmp, dest = atomic_path(dest)
    try:
        df.to_csv(tmp, index=False)
        publish(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(text: str, dest) -> None:
    tmp, dest = atomic_path(dest)
    try:
        tmp.write_text(text)
        publish(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
