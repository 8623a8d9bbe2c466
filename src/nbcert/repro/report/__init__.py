"""results/report.md: what was run, the paper's claims beside the numbers measured here,
and the studies beyond the paper; every sentence computed from this run's checked tables.

The prose lives in this package (``paper`` for the reproduction, ``beyond`` for the
studies); the studies themselves only compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import beyond, paper
from .cleaning import cleaning as cleaning_section
from .scaling import scaling as scaling_section


@dataclass
class ReportInputs:
    """Everything the report says something about (tables already checked)."""

    settings: dict  # seed, repetitions, missing_rates, k_values, k_for_rates, subsample
    sources: list  # config files and --config values used
    statuses: list  # fetch status of every selected data set
    infos: list  # discretize's record per obtained data set (sha256 verified, cells missing)
    decision: pd.DataFrame
    poisoning: pd.DataFrame
    figures: list
    poisoning_many: pd.DataFrame
    counting: pd.DataFrame
    scaling: pd.DataFrame
    cleaning: pd.DataFrame
    beyond_figures: dict  # section -> figure path
    stale: list = ()  # tables of data sets not in this run's config


def _figure(path) -> list:
    return [f"![{Path(path).stem}](figures/{Path(path).name})", ""]


def render(r: ReportInputs) -> str:
    timed = [r.decision, r.poisoning, r.poisoning_many, r.counting, r.scaling, r.cleaning]
    lines = paper.header(r.sources, r.settings) + paper.datasets(r.statuses, r.infos, r.stale)
    lines += paper.machine({"decision": r.decision, "poisoning": r.poisoning,
                            "many-point poisoning": r.poisoning_many}, [t for t in timed if len(t)])
    lines += paper.claims(r.decision, r.poisoning, r.settings["k_for_rates"])
    lines += ["## Figures", ""] + [line for f in r.figures for line in _figure(f)]
    lines += ["## Beyond the paper", ""]
    for name, section in (("poisoning_many", beyond.poisoning_many(r.poisoning_many)),
                          ("counting", beyond.counting(r.counting)), ("scaling", scaling_section(r.scaling)),
                          ("cleaning", cleaning_section(r.cleaning))):
        lines += [section.strip(), ""] + _figure(r.beyond_figures[name])
    return "\n".join(lines) + "\n"
