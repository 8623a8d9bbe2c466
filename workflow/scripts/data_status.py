"""Stop at once, in one line, when no data set could be obtained; else list what was."""

import json

from common.errors import FetchError
from common.job import run_job
from common.outputs import write_text


def require_one(statuses: list) -> list:
    """The fetches' statuses, unless no data set was obtained: then one line saying why."""
    if not any(s["ok"] for s in statuses):
        names = ", ".join(s["data set"] for s in statuses)
        raise FetchError(
            f"no data set could be obtained ({names}), so nothing can be reproduced; "
            f"{statuses[0]['reason']}"
        )
    return statuses


def main(snakemake):
    statuses = require_one([json.load(open(f)) for f in snakemake.input])
    write_text(json.dumps(statuses, indent=1) + "\n", snakemake.output[0])


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
