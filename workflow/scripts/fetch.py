"""Stage 1: obtain a data set's raw file, from a local mirror or from Kaggle.

A mirror folder (``data_mirror`` in the config, or the NBCERT_DATA_MIRROR environment
variable) is tried first: clusters without internet and this repository's tests use it.
Otherwise kagglehub downloads the file (anonymously for public data sets; it uses
KAGGLE_USERNAME/KAGGLE_KEY or ~/.kaggle/kaggle.json when present).  Either way the file's
sha256 is checked against the config; with no checksum configured, the one seen is
recorded next to the file and a warning is given.

What happened is recorded beside the file (``status.json``): a data set that can be
neither copied nor downloaded stops the run with ``on_unavailable: fail`` and is recorded
as not obtained with ``skip``; the run stops only when no data set at all was obtained.
"""

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from common.errors import FetchError
from common.job import run_job
from common.outputs import atomic_path, publish, write_text


class Unavailable(FetchError):
    """Neither the mirror, a local file nor Kaggle could provide the file."""


@dataclass(frozen=True)
class Source:
    name: str
    file: str
    kaggle: str | None = None  # owner/dataset
    version: int | None = None  # a pinned Kaggle dataset version
    local: str | None = None  # a local file instead of Kaggle
    sha256: str | None = None


def sha256_of(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def verify(path, expected: str, name: str) -> str:
    """The raw file's sha256, which must still be the ``expected`` one it was fetched with."""
    path = Path(path)
    seen = sha256_of(path)
    if seen != expected.lower():
        raise FetchError(
            f"{path}: sha256 is {seen}, but {name}'s file was fetched with {expected}: the file was "
            f"changed after fetching; delete {path.parent} and run again to fetch it anew"
        )
    return seen


def _from_kaggle(src: Source) -> Path:
    import kagglehub  # imported here: only this path needs it

    handle = src.kaggle + (f"/versions/{src.version}" if src.version else "")
    try:
        return Path(kagglehub.dataset_download(handle, path=src.file))
    except Exception as e:  # kagglehub raises many kinds (HTTP, auth, DNS)
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise FetchError(reason[:300]) from None


def locate(src: Source, mirror: Path | None) -> tuple[Path, str]:
    """Where the file comes from: (path, how) — mirror, local file or Kaggle."""
    if src.local:
        path = Path(src.local)
        if not path.is_file():
            raise Unavailable(f"{src.name}: local file {path} does not exist")
        return path, "local file"
    if mirror is not None and (mirror / src.file).is_file():
        return mirror / src.file, f"mirror {mirror}"
    if not src.kaggle:
        raise Unavailable(f"{src.name}: no kaggle handle or local file configured")
    try:
        return _from_kaggle(src), f"kaggle {src.kaggle}"
    except FetchError as e:
        where = (
            f"the mirror folder {mirror}"
            if mirror
            else "a mirror folder (data_mirror / NBCERT_DATA_MIRROR)"
        )
        raise Unavailable(
            f"{src.name}: {src.file} is not in {where} and the Kaggle download of {src.kaggle} failed ({e}); "
            f"either put {src.file} into {where}, or give this machine Kaggle access "
            f"(internet, and KAGGLE_USERNAME/KAGGLE_KEY for private data)"
        ) from None


def fetch(src: Source, mirror: Path | None, dest: Path) -> dict:
    """Copy the verified raw file to ``dest`` atomically; return what happened."""
    path, how = locate(src, mirror)
    seen = sha256_of(path)
    warning = None
    if src.sha256 and seen != src.sha256.lower():
        raise FetchError(
            f"{src.name}: sha256 of {path} is {seen}, but the config expects {src.sha256}; "
            f"refusing a file that differs from the pinned one"
        )
    if not src.sha256:
        warning = (
            f"{src.name}: no sha256 in the config; recorded {seen} — add 'sha256: {seen}' to pin it"
        )
    tmp, dest = atomic_path(dest)
    shutil.copyfile(path, tmp)
    if sha256_of(tmp) != seen:
        tmp.unlink()
        raise FetchError(f"{src.name}: {path} changed while it was being copied; try again")
    publish(tmp, dest, mode=0o444)  # read-only: the stages verify it against this sha256
    return {
        "ok": True,
        "data set": src.name,
        "source": how,
        "file": src.file,
        "sha256": seen,
        "warning": warning,
    }


def fetch_into(
    src: Source, mirror: Path | None, folder: Path, on_unavailable: str = "skip", say=print
) -> dict:
    """Fetch ``src`` into ``folder`` and record the outcome in ``folder/status.json``.

    Parameters
    ----------
    src : Source
        The data set's file and where it may come from.
    mirror : Path or None
        The mirror folder (:func:`mirror_folder`).
    folder : Path
        Where the file and ``status.json`` are written.
    on_unavailable : {"skip", "fail"}
        When neither the mirror, a local file nor Kaggle has the file: record the data set
        as not obtained, or raise :class:`Unavailable`.
    say : callable
        Where the warnings and the status go (the job's log).

    Returns
    -------
    dict
        The status written: ``ok``, the data set's name and, when obtained, the source,
        file, sha256 and warning.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        status = fetch(src, mirror, folder / src.file)
    except Unavailable as e:
        if on_unavailable == "fail":
            raise
        status = {"ok": False, "data set": src.name, "reason": str(e)}
        say(f"WARNING: {e} -- skipping this data set (on_unavailable: skip)")
    if status.get("warning"):
        say(f"WARNING: {status['warning']}")
    say(json.dumps(status))
    write_text(json.dumps(status, indent=1) + "\n", folder / "status.json")
    return status


def main(snakemake):
    p = snakemake.params
    options = json.loads(p.options)
    src = Source(name=snakemake.wildcards.ds, **json.loads(p.source))
    mirror = Path(options["mirror"]) if options["mirror"] else None
    fetch_into(src, mirror, Path(snakemake.output[0]), options["on_unavailable"])


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
