"""Writing pipeline outputs so that an interrupted job never leaves a file that looks complete."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd


def atomic_path(dest) -> tuple[Path, Path]:
    """A temporary path beside ``dest``; os.replace(tmp, dest) then publishes it."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=dest.suffix)
    os.close(fd)
    return Path(tmp), dest


def write_csv(df: pd.DataFrame, dest) -> None:
    tmp, dest = atomic_path(dest)
    try:
        df.to_csv(tmp, index=False)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(text: str, dest) -> None:
    tmp, dest = atomic_path(dest)
    try:
        tmp.write_text(text)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
