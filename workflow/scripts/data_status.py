"""Stop at once, in one line, when no data set could be obtained; else list what was."""
import json

from nbcert.repro import job
from nbcert.repro.outputs import write_text
from nbcert.repro.fetch import FetchError


def main():
    statuses = [json.load(open(f)) for f in snakemake.input]
    if not any(s["ok"] for s in statuses):
        names = ", ".join(s["data set"] for s in statuses)
        raise FetchError(f"no data set could be obtained ({names}), so nothing can be reproduced; "
                         f"{statuses[0]['reason']}")
    write_text(json.dumps(statuses, indent=1) + "\n", snakemake.output[0])


job.run(snakemake, main)
