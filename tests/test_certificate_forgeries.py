"""False claims built as a referee builds them (an honest certificate, its JSON edited) are
rejected: exit status 1 and a FAIL line naming the false claim.

The claims that matter most to a reader are "optimal", "fewest", "impossible" and "no cleaning
makes it robust"; each forged one here was accepted with every line ``ok`` before its check
was tied to what it bounds.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from brute import brute_min_clean, min_poison_by_groups, min_poison_together_by_groups
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import dirty_instances
from test_certificates import write

import nbcert
from nbcert import verify

TRUTH = "f,g,y\na,x,p\nb,x,p\nb,y,q\na,y,q\nb,y,p\na,x,q\nb,x,p\n"
TEST = "f,g\na,x\na,x\n,x\n"  # points 0 and 1 need one blank each, point 2 two


def verdict(folder: Path, doc: dict) -> tuple:
    """(exit status, the FAIL lines) of the copied-out checker on ``doc``."""
    cert = folder / "forged.json"
    cert.write_text(json.dumps(doc))
    shutil.copy(verify.__file__, folder / "verify.py")
    done = subprocess.run(
        [sys.executable, "-I", "-S", "verify.py", cert.name],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, [x for x in done.stdout.splitlines() if x.startswith("FAIL")]


@pytest.fixture
def together(tmp_path) -> tuple:
    """An honest poison --together certificate: 2 cells, optimal, its bound point 2's own
    minimum."""
    (tmp_path / "truth.csv").write_text(TRUTH)
    (tmp_path / "test.csv").write_text(TEST)
    cert = tmp_path / "together.json"
    nbcert.poison_together(tmp_path / "truth.csv", tmp_path / "test.csv", "y", certificate=cert)
    doc = json.loads(cert.read_text())
    assert verdict(tmp_path, doc) == (0, [])
    r = doc["results"][0]
    assert (r["num_cells"], r["optimal"], r["lower_bound"]) == (2, True, 2)
    return tmp_path, doc


def test_a_bound_whose_source_is_not_among_the_points_answered(together):
    """The points are cut to 0 and 1 (whose optimum is 1 cell); the bound still cites point
    2's minimum of 2: "optimal 2" is false."""
    folder, doc = together
    r = doc["results"][0]
    doc["inputs"]["test_indices"] = r["test_indices"] = [0, 1]
    r["evidence"]["after"] = [a for a in r["evidence"]["after"] if a["test_index"] in (0, 1)]
    assert r["evidence"]["lower_bound"] == {"test_index": 2}
    rc, failed = verdict(folder, doc)
    assert rc == 1 and len(failed) == 1
    assert failed[0].startswith("FAIL  2 cells are the fewest: ")
    assert "the bound's source, test point 2, is not one of the points" in failed[0]


def test_a_bare_impossible_for_all_points_together(together):
    folder, doc = together
    r = doc["results"][0]
    r.update(status="impossible", optimal=False, lower_bound=None, num_cells=None, cells=[])
    r["evidence"] = {}
    rc, failed = verdict(folder, doc)
    assert rc == 1 and len(failed) == 1
    assert failed[0].startswith("FAIL  no blanking makes all 3 test points not robust")


# ---------------------------------------------------------------------------------------
# false claims of every kind, on random tiny tables, each false by brute force

ALPHAS = st.sampled_from([0, Fraction(1, 2), 1])


def rejected(doc: dict, folder: Path) -> bool:
    """Whether the checker refuses the certificate ``doc`` (a claim fails, or it is
    unreadable)."""
    path = folder / "forged.json"
    path.write_text(json.dumps(doc))
    try:
        return not all(c.ok for c in verify.check(path))
    except verify.Unreadable:
        return True


def _with(doc: dict, i: int, **changed) -> dict:
    out = copy.deepcopy(doc)
    out["results"][i].update(changed)
    return out


def _point_forgeries(doc: dict, i: int, spare: list, key: str = "num_cells"):
    """(what, forged) for a result of n >= 1 cells, the fewest by brute force: n - 1 cells
    said the fewest, n + 1 cells said the fewest, and "no cells work"."""
    r = doc["results"][i]
    n, ev = r[key], r["evidence"]
    yield "the fewest less one", _with(doc, i, **{key: n - 1}, cells=r["cells"][:-1],
                                       evidence={**ev, "lower_bound": n - 1})  # fmt: skip
    extra = next((c for c in spare if c not in r["cells"]), None)
    if extra is not None:
        yield "the fewest plus one", _with(doc, i, **{key: n + 1}, cells=[*r["cells"], extra],
                                           evidence={**ev, "lower_bound": n + 1})  # fmt: skip
    impossible = {key: None, "cells": [], "evidence": {"lower_bound": None}}
    if "status" in r:
        impossible["status"] = "impossible"
    else:
        impossible["label"] = None
    yield "impossible where possible", _with(doc, i, **impossible)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), alpha=ALPHAS)
def test_false_claims_of_every_kind_are_rejected(tmp_path_factory, data, alpha):
    inst = data.draw(dirty_instances(max_rows=5, max_missing=4, min_labels=2))
    folder = tmp_path_factory.mktemp("false")
    paths = write(folder, inst, inst.truth)
    y = inst.truth[inst.label].tolist()
    cols = [inst.truth[f].tolist() for f in inst.features]
    rows = [[inst.test[f].iloc[i] for f in inst.features] for i in range(len(inst.test))]
    observed = [{"row": r, "column": f} for f in inst.features for r in range(len(y))]
    missing = [
        {"row": r, "column": f}
        for f in inst.features
        for r, v in enumerate(inst.train[f])
        if v != v or v is None
    ]
    made = 0
    nbcert.poison(paths["truth"], paths["test"], inst.label, alpha=alpha,
                  certificate=folder / "p.json")  # fmt: skip
    doc = json.loads((folder / "p.json").read_text())
    for i, r in enumerate(doc["results"]):
        if r["status"] == "poisoned":
            assert r["num_cells"] == min_poison_by_groups(y, cols, rows[i], alpha)
            for what, forged in _point_forgeries(doc, i, observed):
                assert rejected(forged, folder), what
                made += 1
    nbcert.clean_with_truth(paths["train"], paths["truth"], paths["test"], inst.label,
                            alpha=alpha, certificate=folder / "c.json")  # fmt: skip
    doc = json.loads((folder / "c.json").read_text())
    for i, r in enumerate(doc["results"]):
        if r["num_cells"]:
            row = inst.test_rows()[i]
            fewest = brute_min_clean(inst.train, inst.truth, inst.label, [row], alpha)
            assert r["num_cells"] == fewest
            for what, forged in _point_forgeries(doc, i, missing):
                assert rejected(forged, folder), what
                made += 1
    if alpha == 0:
        made += _together_forgeries(folder, paths, inst, y, cols, rows, observed)
    event(f"forged: {min(made, 5)}{'+' if made > 5 else ''}")


def _together_forgeries(folder, paths, inst, y, cols, rows, observed) -> int:
    """All points together: optimal above the optimum (one more cell said optimal),
    impossible where some blanking works, a bound cut from the set it bounds."""
    nbcert.poison_together(paths["truth"], paths["test"], inst.label,
                           certificate=folder / "t.json")  # fmt: skip
    doc = json.loads((folder / "t.json").read_text())
    r = doc["results"][0]
    if r["status"] != "poisoned":
        return 0
    best = min_poison_together_by_groups(y, cols, rows)
    assert best is not None and r["num_cells"] >= best
    made = 0
    extra = next((c for c in observed if c not in r["cells"]), None)
    if extra is not None:
        more = r["num_cells"] + 1
        forged = _with(doc, 0, num_cells=more, cells=[*r["cells"], extra], optimal=True,
                       lower_bound=more)  # fmt: skip
        assert rejected(forged, folder), "optimal above the optimum"
        made += 1
    forged = _with(doc, 0, status="impossible", num_cells=None, cells=[], optimal=True,
                   lower_bound=None)  # fmt: skip
    assert rejected(forged, folder), "impossible where possible"
    source = r["evidence"].get("lower_bound")
    if source is not None and len(r["test_indices"]) > 1:
        keep = [i for i in r["test_indices"] if i != source["test_index"]]
        forged = _with(doc, 0, test_indices=keep)
        forged["inputs"]["test_indices"] = keep
        after = forged["results"][0]["evidence"]["after"]
        forged["results"][0]["evidence"]["after"] = [a for a in after if a["test_index"] in keep]
        assert rejected(forged, folder), "a bound from outside the set"
        made += 1
    return made + 1
