"""Fetch one data set's raw file (nbcert.repro.fetch); record the outcome in status.json."""
import json
from pathlib import Path

from nbcert.repro import job
from nbcert.repro.fetch import FetchError, Source, Unavailable, fetch, mirror_folder
from nbcert.repro.outputs import write_text


def main():
    name, p = snakemake.wildcards.ds, snakemake.params
    src = Source(name=name, **json.loads(p.source))
    out = Path(snakemake.output[0])
    out.mkdir(parents=True, exist_ok=True)
    try:
        status = fetch(src, mirror_folder(snakemake.config.get("data_mirror")), out / src.file)
    except Unavailable as e:
        if snakemake.config.get("on_unavailable", "skip") == "fail":
            raise
        status = {"ok": False, "data set": name, "reason": str(e)}
        print(f"WARNING: {e} -- skipping this data set (on_unavailable: skip)")
    if status.get("warning"):
        print(f"WARNING: {status['warning']}")
    print(json.dumps(status))
    write_text(json.dumps(status, indent=1) + "\n", out / "status.json")


job.run(snakemake, main)
