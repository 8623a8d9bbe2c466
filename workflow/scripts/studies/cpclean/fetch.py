"""Obtain one of CPClean's benchmark spaces: every file the checksum list names for it.

A space (``BabyProduct/real``) is a folder of CSV files in CPClean's repository
(``chu-data-lab/CPClean``, folder ``data/data-reproduce``).  Each file is copied from the
mirror folder (``data_mirror`` or NBCERT_DATA_MIRROR, under ``cpclean/<space>/``) when it is
there, else downloaded from GitHub at the configured commit; either way its sha256 must be
the one the committed list (``config/cpclean.sha256``) gives, so the study reads the bytes
CPClean published and nothing else.  As for the data sets, what happened is recorded in
``status.json``: a space that cannot be obtained stops the run with ``on_unavailable:
fail``, and is reported as not obtained with ``skip``.
"""

import hashlib
import json
import shutil
import urllib.request
from pathlib import Path

from common.errors import FetchError
from common.job import run_job
from common.outputs import write_text

RAW = "https://raw.githubusercontent.com/{repository}/{commit}/{folder}/{space}/{file}"


def listed(checksums: Path, space: str) -> dict:
    """{file within the space: sha256} from a ``sha256sum`` listing (paths ./<space>/...)."""
    out = {}
    for n, line in enumerate(checksums.read_text().splitlines(), 1):
        if not line.strip():
            continue
        digest, _, path = line.partition("  ")
        if len(digest) != 64 or not path:
            raise FetchError(f"{checksums}: line {n} is not '<sha256>  <path>'")
        path = path.removeprefix("./")
        if path.startswith(space + "/"):
            out[path[len(space) + 1 :]] = digest.lower()
    if not out:
        raise FetchError(f"{checksums}: no file of the space {space!r} is listed")
    return out


def sha256_of(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def obtain(file: str, dest: Path, space: str, source: dict, mirror: Path | None) -> str:
    """Copy or download one file to ``dest``; where it came from."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    local = mirror / "cpclean" / space / file if mirror else None
    if local is not None and local.is_file():
        shutil.copyfile(local, dest)
        return f"mirror {mirror}"
    url = RAW.format(space=space, file=file, **source)
    try:
        with urllib.request.urlopen(url, timeout=60) as r, open(dest, "wb") as f:
            shutil.copyfileobj(r, f)
    except OSError as e:
        raise FetchError(f"{space}: cannot download {file} ({getattr(e, 'reason', e)})") from None
    return f"github {source['repository']}@{source['commit'][:12]}"


def fetch(space: str, out: Path, source: dict, checksums: Path, mirror: Path | None) -> str:
    """Every listed file of ``space`` into ``out``, each checked; where they came from."""
    froms = set()
    for file, digest in sorted(listed(checksums, space).items()):
        froms.add(obtain(file, out / file, space, source, mirror))
        seen = sha256_of(out / file)
        if seen != digest:
            raise FetchError(f"{space}/{file}: sha256 is {seen}, {checksums} lists {digest}")
    return ", ".join(sorted(froms))


def main(snakemake):
    p, out = snakemake.params, Path(snakemake.output[0])
    space, options = snakemake.wildcards.space, json.loads(p.options)
    mirror = Path(options["mirror"]) if options["mirror"] else None
    try:
        how = fetch(space, out, json.loads(p.source), Path(snakemake.input.checksums), mirror)
        status = {"space": space, "ok": True, "source": how}
    except FetchError as e:
        if options["on_unavailable"] == "fail":
            raise
        shutil.rmtree(out, ignore_errors=True)
        status = {"space": space, "ok": False, "reason": str(e)}
    out.mkdir(parents=True, exist_ok=True)
    write_text(json.dumps(status, indent=1) + "\n", out / "status.json")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821
