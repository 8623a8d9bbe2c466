"""results/report.md (or, without the studies, results/paper.md): what was run, the paper's
claims beside the numbers measured here, and the studies beyond the paper; every sentence
computed from this run's checked tables.

The paper's part is here: the config files and command-line values used, the data sets with
the sha256 each stage verified and the cells they already lacked, the machine the timed
jobs ran on with each method's wall and CPU time, then the paper's claims (section 6)
beside the numbers measured here.  Each study's section lives beside the study
(``studies/<study>/report.py``); this script puts them together.
"""

import json
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from common.formatting import DASH, listing, number, table
from common.job import run_job
from common.outputs import write_text
from common.provenance import describe
from common.runs import RUN, ad_answers, calls
from common.tables import read_table, read_tables
from common.timing import section as timing_section
from common.timing import stage_times
from studies.cleaning.report import cleaning as cleaning_section
from studies.counting.report import counting as counting_section
from studies.counting.summary import load as load_counting
from studies.cpclean.report import cpclean as cpclean_section
from studies.equivalents.report import equivalents as equivalents_section
from studies.poisoning_together.report import poisoning_together as poisoning_together_section
from studies.scaling.report import scaling as scaling_section

# Section 6.3 of the paper: average training + prediction time of one point ("Plain").
PAPER_PLAIN = {
    "fetal_health": 0.067,
    "bodyPerformance": 0.253,
    "mushrooms": 0.331,
    "star_classification": 2.812,
}


def _answering(runs: pd.DataFrame, method: str) -> tuple:
    """A method's rows that answer for test points (k > 0) and their smallest k."""
    sub = runs[(runs.method == method) & (runs.points > 0)]
    return sub, sub.points.min()


def growth(runs: pd.DataFrame, method: str, k: int) -> pd.Series:
    """Per data set, time(k) / time(smallest k) of a method, like for like: the ratio is
    taken within each run (the same perturbed table, so the same rate and perturbation)
    that has both k, then averaged over those runs."""
    sub, kmin = _answering(runs, method)
    wide = (
        sub[sub.points.isin([k, kmin])]
        .pivot_table(index=RUN, columns="points", values="seconds")
        .dropna()
    )
    if k not in wide or kmin not in wide:
        return pd.Series(dtype=float)
    return (wide[k] / wide[kmin]).groupby("dataset").mean()


def growth_setting(runs: pd.DataFrame, k: int) -> str:
    """The rate(s) at which the runs certify both k and the smallest k points (Plain's row,
    k = 1, is a reference: it certifies nothing)."""
    sub, kmin = _answering(runs, "Iterate+Index")
    both = sub.groupby(RUN).points.agg(lambda ks: {k, kmin} <= set(ks))
    rates = sorted(set(both[both].index.get_level_values("missing_rate")))
    return f"k={k} / k={kmin} in the same run, at missing rate {listing(rates)}"


def certify_summary(runs: pd.DataFrame, k: int) -> pd.DataFrame:
    """Per data set: Iterate / Iterate+Index time ratios at k points, how each method's time
    grows with k (``growth``), and the AD errors."""
    at_k = runs[runs.points == k].pivot_table(index=RUN, columns="method", values="seconds")
    ratio = (at_k["Iterate"] / at_k["Iterate+Index"]).groupby("dataset")
    ad_ratio = (at_k["AD"] / at_k["Iterate+Index"]).groupby("dataset")
    ad = ad_answers(runs, "AD")
    plain = runs[runs.method == "Plain"].groupby("dataset").seconds.mean()
    return pd.DataFrame(
        {
            "index_speedup_mean": ratio.mean(),
            "index_speedup_max": ratio.max(),
            "ad_over_index_mean": ad_ratio.mean(),
            "growth_iterate": growth(runs, "Iterate", k),
            "growth_index": growth(runs, "Iterate+Index", k),
            "growth_ad": growth(runs, "AD", k),
            "ad_false_robust": ad.ad_false_robust,
            "ad_points": ad.points,
            "plain": plain,
        }
    )


def poisoning_summary(poi: pd.DataFrame) -> pd.DataFrame:
    t = poi.pivot_table(index=["dataset", "rep"], columns="method", values="seconds")
    r = poi.pivot_table(index=["dataset", "rep"], columns="method", values="poisoning_rate")
    lowest = ((r["OP"] <= r["SR"]) & (r["OP"] <= r["RP"])).groupby("dataset")  # the paper's three
    return pd.DataFrame(
        {
            "op_vs_rp": (t["RP"] / t["OP"]).groupby("dataset").mean(),
            "op_vs_sr": (t["SR"] / t["OP"]).groupby("dataset").mean(),
            "rate_op": r["OP"].groupby("dataset").mean(),
            "rate_sr": r["SR"].groupby("dataset").mean(),
            "rate_rp": r["RP"].groupby("dataset").mean(),
            "op_lowest": lowest.sum(),
            "reps": lowest.size(),
        }
    )


def header(sources, settings, provenance: str, whole: bool = True) -> list:
    """The title, what the run was configured with and what computed it."""
    used = ", ".join(f"`{s}`" for s in sources) or "the workflow's defaults"
    rows = f", subsampled to {settings['subsample']} rows" if settings.get("subsample") else ""
    scope = (
        ""
        if whole
        else " This is the paper's part alone (`snakemake paper`); `snakemake` adds the "
        "studies beyond the paper in results/report.md."
    )
    return [
        "# nbcert reproduction report" + ("" if whole else ": the paper's part"),
        "",
        f"Regenerated by `snakemake` from {used} (seed {settings['seed']}, {settings['repetitions']} "
        f"repetitions, missing rates {listing(settings['missing_rates'])}, k in "
        f"{sorted(settings['points'])}{rows}).{scope}",
        "",
        f"Computed by: {provenance}.",
        "",
    ]


def datasets(statuses, infos, stale) -> list:
    """Which data sets were obtained, the sha256 verified when they were used, their cells."""
    info = {i["dataset"]: i for i in infos}
    rows = [_dataset(s, info.get(s["data set"])) for s in statuses]
    header = "| data set | status | source | sha256 verified when read | rows x features | cells already missing |"
    lines = ["## Data sets", "", *table(rows, header)]
    if any(i["missing_cells"] for i in infos):
        lines += [
            "",
            "Where a data set already lacks cells, test points are drawn from its complete rows, the "
            "perturbation's missing rate counts the cells already missing, and poisoning runs on the "
            "complete training rows.",
        ]
    if stale:
        used = ", ".join(f"`{t}`" for t in stale)
        lines += [
            "",
            f"Not used: {used} in results/tables belong to data sets not in this run's config.",
        ]
    return lines + [""]


def _dataset(s: dict, i: dict | None) -> tuple:
    """A data set's row: where it came from, its sha256 and cells; or why it is missing."""
    if not s["ok"]:
        return s["data set"], "**NOT OBTAINED**", DASH, s["reason"], DASH, DASH
    sha = i["sha256"] + (f" (warning: {s['warning']})" if s.get("warning") else "")
    cells = f"{i['missing_cells']} of {i['cells']} ({i['complete_rows']} complete rows)"
    return s["data set"], "obtained", s["source"], sha, f"{i['rows']} x {i['features']}", cells


def overlapping_jobs(tables) -> int:
    """How many timed jobs ran while another timed job was running on the same host."""
    jobs = pd.concat(
        [t[["host", "started", "finished"]] for t in tables], ignore_index=True
    ).drop_duplicates()
    count = 0
    for _, g in jobs.sort_values("started").groupby("host"):
        running_until = np.maximum.accumulate(g.finished.to_numpy())
        count += int((g.started.to_numpy()[1:] < running_until[:-1]).sum())
    return count


def machine(cpu_tables: dict, timed_tables) -> list:
    """Where the timed jobs ran, whether any two overlapped on a host, and per method wall
    against CPU time (a wall time well above the CPU time means something else held the CPU)."""
    hosts = sorted(set().union(*(set(t.host) for t in timed_tables)))
    where = ", ".join(hosts) + (f" ({this_machine()})" if hosts == [platform.node()] else "")
    overlap = overlapping_jobs(timed_tables)
    alone = (
        f"**{overlap} of them overlapped another timed job on the same host**, so their times include "
        "waiting for the CPU."
        if overlap
        else "no two of them overlapped on a host."
    )
    return [
        "## Machine and timing",
        "",
        f"The timed jobs ran on {where}; {alone} Wall and CPU seconds of the process, summed over every run:",
        "",
        *_cpu_table(cpu_tables),
        "",
    ]


def _cpu_table(cpu_tables: dict) -> list:
    """Per table and method: runs, wall and CPU seconds summed, and their ratio."""
    t = pd.concat(cpu_tables, names=["table", None]).groupby(["table", "method"], sort=False)
    runs = t.agg(runs=("seconds", "size"), wall=("seconds", "sum"), cpu=("cpu_seconds", "sum"))
    runs["ratio"] = runs.wall / runs.cpu.where(runs.cpu > 0)
    header = "| table | method | runs | wall (s) | CPU (s) | wall / CPU |"
    return table(runs.reset_index(), header, {"wall": ".3g", "cpu": ".3g", "ratio": ".2f"})


def this_machine() -> str:
    """The CPU, cores, memory and system of the machine this runs on."""
    cpu = re.search(r"^model name[^:]*:(.*)$", _read("/proc/cpuinfo"), re.MULTILINE)
    mem = re.search(r"^MemTotal:\s*(\d+)", _read("/proc/meminfo"), re.MULTILINE)
    return (
        (cpu[1].strip() if cpu else platform.processor() or "unknown CPU")
        + f", {os.cpu_count()} cores"
        + (f", {int(mem[1]) / 2**20:.0f} GiB" if mem and int(mem[1]) else "")
        + f", {platform.system()}"
    )


def _read(path) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def claims(runs: pd.DataFrame, poi: pd.DataFrame, k: int) -> list:
    """The paper's claims of section 6 beside the numbers measured here."""
    setting, rows = growth_setting(runs, k), []
    for name, r in certify_summary(runs, k).iterrows():
        here = {
            "Iterate+Index up to 19.5x faster than Iterate": f"mean {number(r.index_speedup_mean)}x, max {number(r.index_speedup_max)}x",
            "Iterate+Index much faster than AD": f"AD takes {number(r.ad_over_index_mean)}x as long",
            "AD and Iterate grow ~linearly in k, Iterate+Index ~flat": f"{setting}: Iterate {number(r.growth_iterate)}, "
            f"AD {number(r.growth_ad)}, Iterate+Index {number(r.growth_index)}",
            "AD may report robust wrongly": f"wrong on {int(r.ad_false_robust)} of {int(r.ad_points)} test points' answers",
            f"Plain (train + predict one point) {number(PAPER_PLAIN.get(name))} s": f"{number(r.plain)} s (CategoricalNB on codes)",
        }
        rows += [(name, claim, measured) for claim, measured in here.items()]
    for name, r in poisoning_summary(poi).iterrows():
        here = {
            "OP faster than the baselines (up to 3.06x)": f"RP/OP {number(r.op_vs_rp)}x, SR/OP {number(r.op_vs_sr)}x",
            "OP's poisoning rate is the lowest": f"lowest in {int(r.op_lowest)} of {int(r.reps)} repetitions; "
            f"mean rate OP {number(r.rate_op)}, SR {number(r.rate_sr)}, RP {number(r.rate_rp)}",
        }
        rows += [(name, claim, measured) for claim, measured in here.items()]
    return [
        "## The paper's claims beside the numbers measured here",
        "",
        f"Times are measured on integer-coded tables (the encoding every method shares is timed "
        f"separately, method `encode` in the tables); k = {k} test points unless stated.",
        "",
        *table(rows, "| data set | claim (paper) | here |"),
        "",
    ]


COUNTEREXAMPLE = pd.DataFrame({"y": list("BBABBBB"), "f0": list("abbbabc"), "f1": list("aabbbab")})


def certificates(cert: pd.DataFrame) -> list:
    """How many of the certify runs' answers a referee can check without nbcert."""
    robust = int(cert.robust.sum())
    return [
        "## Certificates",
        "",
        f"{int(cert.checked.sum())} of {int(cert.answers.sum())} answers checked by nbcert's "
        f"standalone checker (`verify.py`, the Python standard library alone), in {len(cert)} "
        f"certificates, one per perturbed table (`results/certificates/`): {robust} robust points, "
        "each with a bound per rival label, and every possible label of the others with a world "
        "in which it wins. The checker reads the tables itself and recomputes every claim in "
        "exact fractions; `python3 verify.py CERTIFICATE` repeats it.",
        "",
    ]


def corrections(poi: pd.DataFrame) -> list:
    """Where the paper's algebra fails, and what that changed on this run's tables."""
    cells = poi.pivot_table(index=["dataset", "rep"], columns="method", values="cells")
    lines = [
        "## Where the paper is wrong",
        "",
        "* **Extreme worlds** (formulas (1)-(2)) assume every missing cell can take the test value "
        "and another one. A test value never seen in training cannot be taken (both extremes are "
        "the observed count), and a one-value domain forces every missing cell to its value (the "
        "smallest count already includes them). nbcert uses the true extremes.",
        "* **One-point poisoning** (Section 5.1.3, Algorithms 3-4) argues that one of two pure "
        "strategies is optimal: blank only the predicted label's agreeing cells in its rarest "
        "column (A2), or only a rival's disagreeing cells (A1). That fails when a strategy runs "
        "out of cells. Test point f0 = b, f1 = a on:",
        "",
        *table(COUNTEREXAMPLE),
        "",
        "  B is predicted in the one world (S(B) = 6/7 · 3/6 · 3/6 = 3/14 > S(A) = 1/7 · 1 · 0). "
        "A has one row, so A1 can raise its f1 count to 1 at most; the pure strategies need 3 cells "
        "(A2: B's three f0 = b cells). Blanking B's agreeing f1 cell in row 0 and A's f1 cell (row 2) "
        "is enough: in the world where row 0 gets b and row 2 gets a, S(B) = 6/7 · 3/6 · 2/6 = 1/7 = "
        "S(A) = 1/7 · 1 · 1, a tie, so 2 cells suffice. OP here tries every split of the blanks "
        'between the two labels exactly (`docs/design.md`, "One-point poisoning"), checked '
        "against brute force on every table of up to 7 rows.",
    ]
    need = {"OP", "OP (pure strategies)", "OP (authors' code)"}
    if cells.empty or not need <= set(cells.columns):
        return lines + [""]
    both = cells[["OP", "OP (pure strategies)"]].dropna()
    fewer = both[both["OP"] < both["OP (pure strategies)"]]
    listed = ", ".join(
        f"{d} rep {r} ({int(v['OP (pure strategies)'])} -> {int(v['OP'])})"
        for (d, r), v in fewer.iterrows()
    )
    theirs = poi[poi.method == "OP (authors' code)"].set_index(["dataset", "rep"])
    valid = theirs[theirs.valid.fillna(False).astype(bool)]
    ok = sum(cells.loc[i, "OP"] <= v.cells for i, v in valid.iterrows())
    lines += [
        f"* On this run's {len(both)} OP runs, OP needed fewer cells than the paper's pure "
        f"strategies in {len(fewer)}{': ' + listed if listed else ''}; the same in the others. "
        "The authors' published code (`greedy_poisoning`) raises and lowers counts with no "
        f"capacity (past a label's rows): its answer was a valid blanking in {len(valid)} of "
        f"{len(theirs)} runs, and OP used no more cells than it in {ok} of those {len(valid)}.",
    ]
    return lines + [""]


def figure_caption(stem: str, settings: dict) -> str:
    """The caption of one of Figures 6-10: what it draws and the settings it holds fixed."""
    reps = f"mean over {settings['repetitions']} repetitions, min to max shaded"
    methods = "AD, Iterate and Iterate+Index as the paper describes them; Plain (CategoricalNB, one point) dashed"
    captions = {
        "fig6": f"Figure 6: time to certify against the missing rate, uniform perturbation, k = "
        f"{settings['points_for_rates']} test points; {methods}; {reps}.",
        "fig7": f"Figure 7: time to certify against the missing rate, feature perturbation (a share "
        f"{settings['feature_share']:g} of the features), k = {settings['points_for_rates']} test points; "
        f"{methods}; {reps}.",
        "fig8": f"Figure 8: time to certify against the number of test points, uniform perturbation, missing rate "
        f"{settings['rate_for_points']:g}; {methods}; {reps}.",
        "fig9": f"Figure 9: time to certify against the number of test points, feature perturbation, missing rate "
        f"{settings['rate_for_points']:g}; {methods}; {reps}.",
        "fig10": "Figure 10: (a) time and (b) poisoning rate of RP, SR and OP for one test point per repetition on "
        "the complete training rows; RP and SR check robustness by Iterate after every cell, RP with no "
        f"limit on the cells; {reps.replace('shaded', 'as error bars')}.",
    }
    return captions.get(stem, "")


@dataclass
class ReportInputs:
    """Everything the report says something about (tables already checked).  The studies'
    tables are None for the paper's part alone (results/paper.md)."""

    settings: dict  # seed, repetitions, missing_rates, points, points_for_rates, subsample
    sources: list  # config files and --config values used
    statuses: list  # fetch status of every selected data set
    infos: list  # discretize's record per obtained data set (sha256 verified, cells missing)
    certify: pd.DataFrame
    poisoning: pd.DataFrame
    certified: pd.DataFrame  # the certify runs' certificates, as verify.py checked them
    figures: list
    timings: pd.DataFrame  # per stage: jobs, wall and CPU seconds, peak memory (report.timing)
    provenance: str  # the commit and the library versions that computed it
    poisoning_together: pd.DataFrame | None = None
    counting: pd.DataFrame | None = None
    scaling: pd.DataFrame | None = None
    cleaning: pd.DataFrame | None = None
    cpclean: pd.DataFrame | None = None
    equivalents_certify: pd.DataFrame | None = None  # cheaper equivalents' certify_run rows
    equivalents_poisoning: pd.DataFrame | None = None  # and their poisoning_run rows
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
    timed = [r.certify, r.poisoning] + (
        [
            r.equivalents_certify,
            r.equivalents_poisoning,
            r.poisoning_together,
            r.counting,
            r.scaling,
            r.cleaning,
        ]
        if r.whole
        else []
    )
    lines = header(r.sources, r.settings, r.provenance, r.whole)
    lines += datasets(r.statuses, r.infos, r.stale)
    cpu = {"certify": calls(r.certify), "poisoning": r.poisoning}
    if r.whole:
        cpu["cheaper equivalents"] = pd.concat(
            [calls(r.equivalents_certify), r.equivalents_poisoning], ignore_index=True
        )
        cpu["poisoning together"] = r.poisoning_together
    lines += machine(cpu, [t for t in timed if len(t)]) + timing_section(r.timings, this_machine())
    lines += claims(r.certify, r.poisoning, r.settings["points_for_rates"])
    lines += certificates(r.certified)
    lines += corrections(r.poisoning)
    lines += ["## Figures", ""] + [
        line for f in r.figures for line in _figure(f, figure_caption(Path(f).stem, r.settings))
    ]
    if r.whole:
        lines += _beyond(r)
    return "\n".join(lines) + "\n"


def _beyond(r: ReportInputs) -> list:
    lines = ["## Beyond the paper", ""]
    certify = pd.concat([r.certify, r.equivalents_certify], ignore_index=True)
    poisoning = pd.concat([r.poisoning, r.equivalents_poisoning], ignore_index=True)
    lines += [equivalents_section(certify, poisoning).strip(), ""]
    for name, section in (
        ("poisoning_together", poisoning_together_section(r.poisoning_together)),
        ("counting", counting_section(r.counting)),
        ("scaling", scaling_section(r.scaling)),
        ("cleaning", cleaning_section(r.cleaning)),
        ("cpclean", cpclean_section(r.cpclean)),
    ):
        lines += [section.strip(), ""] + _figure(r.beyond_figures[name])
    return lines


def beyond(i) -> dict:
    """The studies' tables, where this report has them."""
    if "beyond_figures" not in i.keys():
        return {}
    return dict(
        equivalents_certify=read_tables(i.equivalents_certify, "certify_run"),
        equivalents_poisoning=read_tables(i.equivalents_poisoning, "poisoning_run"),
        poisoning_together=read_table(i.poisoning_together, "poisoning_together_run"),
        counting=load_counting(i.counting),
        scaling=read_table(i.scaling, "scaling_run"),
        cleaning=read_tables(i.cleaning, "cleaning"),
        cpclean=read_tables(i.cpclean, "cpclean"),
        beyond_figures={Path(f).stem: f for f in i.beyond_figures},
    )


def main(snakemake):
    i, p = snakemake.input, snakemake.params
    inputs = ReportInputs(
        settings=json.loads(p.settings),
        sources=list(p.sources),
        statuses=json.loads(Path(i.status).read_text()),
        infos=[json.loads(Path(f).read_text()) for f in i.info],
        certify=read_tables(i.certify, "certify_run"),
        poisoning=read_tables(i.poisoning, "poisoning_run"),
        certified=read_tables(i.certified, "certified"),
        figures=list(i.figures),
        timings=stage_times(i.timings),
        provenance=describe(snakemake.scriptdir),
        stale=list(p.stale),
        **beyond(i),
    )
    write_text(render(inputs), snakemake.output[0])


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
