"""nbcert's benchmarks: every method against its references (``methods``: ``python -m
benchmarks`` from the repository's root), the input path on generated files (``input``)
and whole pipeline runs (``pipeline``: ``python -m benchmarks.pipeline``).

They time what the workflow runs, so the workflow's scripts (``workflow/scripts``: the
discretization, the perturbation, the scaling study) are imported from this checkout, here
and in the Python processes the benchmarks start.
"""

import os
import sys
from pathlib import Path

_SCRIPTS = str(Path(__file__).resolve().parents[1] / "workflow" / "scripts")
if _SCRIPTS not in sys.path:
    sys.path.insert(0, _SCRIPTS)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [_SCRIPTS, os.environ.get("PYTHONPATH")])
    )
