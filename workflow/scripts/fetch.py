"""Fetch one data set's raw file (nbcert.repro.fetch); record the outcome in status.json."""
import json
import sys
from pathlib import Path

from nbcert.repro.fetch import FetchError, Source, Unavailable, fetch, mirror_folder
from nbcert.repro.outputs import write_text

sys.stderr = sys.stdout = open(snakemake.log[0], "w", buffering=1)
name, cfg = snakemake.wildcards.ds, snakemake.params.source
src = Source(name=name, file=cfg["file"], kaggle=cfg.get("kaggle"), version=cfg.get("version"),
             local=cfg.get("local"), sha256=cfg.get("sha256"))
out = Path(snakemake.output[0])
out.mkdir(parents=True, exist_ok=True)
try:
    status = fetch(src, mirror_folder(snakemake.params.mirror), out / src.file)
except Unavailable as e:
    if snakemake.params.on_unavailable == "fail":
        raise SystemExit(str(e))
    status = {"ok": False, "data set": name, "reason": str(e)}
    print(f"WARNING: {e} -- skipping this data set (on_unavailable: skip)")
except FetchError as e:
    raise SystemExit(str(e))
if status.get("warning"):
    print(f"WARNING: {status['warning']}")
print(json.dumps(status))
write_text(json.dumps(status, indent=1) + "\n", out / "status.json")
