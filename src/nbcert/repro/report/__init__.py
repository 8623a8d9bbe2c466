"""results/report.md: what was run, the paper's claims beside the numbers measured here,
and the studies beyond the paper; every sentence computed from this run's checked tables.

The paper's prose lives in this package (``paper``, and ``timing`` for the run's cost);
each study's section lives beside the study (``nbcert.repro.studies.<study>.report``), and
this package puts them together.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..studies.cleaning.report import cleaning as cleaning_section
from ..studies.counting.report import counting as counting_section
from ..studies.poisoning_many.report import poisoning_many as poisoning_many_section
from ..studies.scaling.report import scaling as scaling_section
from . import paper, timing


@dataclass
class ReportInputs:
    """Everything the report says something about (tables already checked).  The studies'
    tables are None for the paper's part alone (results/paper.md)."""

    settings: dict  # seed, repetitions, missing_rates, k_values, k_for_rates, subsample
    sources: list  # config files and --config values used
    statuses: list  # fetch status of every selected data set
    infos: list  # discretize's record per obtained data set (sha256 verified, cells missing)
    decision: pd.DataFrame
    poisoning: pd.DataFrame
    figures: list
    timings: pd.DataFrame  # per stage: jobs, wall and CPU seconds, peak memory (report.timing)
    provenance: str  # the commit and the library versions that computed it
    poisoning_many: pd.DataFrame | None = None
    counting: pd.DataFrame | None = None
    scaling: pd.DataFrame | None = None
    cleaning: pd.DataFrame | None = None
    beyond_figures: dict | None = None  # section -> figure path
    stale: list = ()  # tables of data sets not in this run's config

    @property
    def whole(self) -> bool:
        """Whether the studies beyond the paper are reported too."""
        return self.beyond_figures is not None


def _figure(path, caption: str = "") -> list:
    return [f"![{Path(path).stem}](figures/{Path(path).name})", ""] + (
        [caption, ""] if caption else []
    )


def render(r: ReportInputs) -> str:
    """results/report.md (or, without the studies' tables, results/paper.md)."""
    timed = [r.decision, r.poisoning] + (
        [r.poisoning_many, r.counting, r.scaling, r.cleaning] if r.whole else []
    )
    lines = paper.header(r.sources, r.settings, r.provenance, r.whole)
    lines += paper.datasets(r.statuses, r.infos, r.stale)
    cpu = {"decision": paper.decision_calls(r.decision), "poisoning": r.poisoning}
    if r.whole:
        cpu["many-point poisoning"] = r.poisoning_many
    lines += paper.machine(cpu, [t for t in timed if len(t)]) + timing.section(
        r.timings, paper.this_machine()
    )
    lines += paper.claims(r.decision, r.poisoning, r.settings["k_for_rates"])
    lines += paper.corrections(r.poisoning)
    lines += paper.extras(r.decision, r.poisoning)
    lines += ["## Figures", ""] + [
        line
        for f in r.figures
        for line in _figure(f, paper.figure_caption(Path(f).stem, r.settings))
    ]
    if r.whole:
        lines += _beyond(r)
    return "\n".join(lines) + "\n"


def _beyond(r: ReportInputs) -> list:
    lines = ["## Beyond the paper", ""]
    for name, section in (
        ("poisoning_many", poisoning_many_section(r.poisoning_many)),
        ("counting", counting_section(r.counting)),
        ("scaling", scaling_section(r.scaling)),
        ("cleaning", cleaning_section(r.cleaning)),
    ):
        lines += [section.strip(), ""] + _figure(r.beyond_figures[name])
    return lines
