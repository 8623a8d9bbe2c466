"""A certificate changed after the fact is rejected: every claim field flipped, dropped or
added, the evidence's numbers altered, the data files edited, a newer format.

Each honest certificate of a random small instance (``strategies.dirty_instances``: the
dirty table for certify and clean --truth, its truth for poison) is first accepted, then
every applicable tampering of it must be rejected: ``verify.check`` raises ``Unreadable``
(a file or the document) or reports a claim that does not hold.  A tampering that could
leave a true claim (weakening "impossible" to "none found", say) is not one of them.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import dirty_instances
from test_certificates import bare_python, blank_test_cells, holds, write

import nbcert
from nbcert import verify

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def rejected(path: Path) -> str | None:
    """Why the checker rejects the certificate at ``path``, or None when it accepts it."""
    try:
        claims = verify.check(path)
    except verify.Unreadable as e:
        return str(e)
    bad = [c for c in claims if c.ok is False]
    return f"{bad[0].claim}: {bad[0].message}" if bad else None


def _other_label(labels, *not_these):
    return next((x for x in labels if x not in not_these), None)


def _cells_tampered(r, key, all_cells):
    """Drop the last cell, add one the answer does not have (and claim them the fewest: one
    more cell alone may still be a true answer), or miscount them."""
    yield "one more in num_cells", {**r, key: r[key] + 1}
    if r["cells"]:
        yield "a cell dropped", {**r, key: r[key] - 1, "cells": r["cells"][:-1]}
    extra = next((c for c in all_cells if c not in r["cells"]), None)
    if extra is not None:
        more = {**r, key: r[key] + 1, "cells": [*r["cells"], extra]}
        if "optimal" in r:  # all points together
            more.update(optimal=True, lower_bound=r[key] + 1)
        else:
            more["evidence"] = {**r["evidence"], "lower_bound": r[key] + 1}
        yield "a cell added, the cells said the fewest", more


def _certify_row(r, labels):
    yield "robust flipped", {**r, "robust": not r["robust"]}
    other = _other_label(labels, r["label"])
    if r["robust"] and other is not None:
        yield "another label", {**r, "label": other}
    if not r["robust"]:
        yield "a label though not robust", {**r, "label": labels[0]}
    if r["possible_labels"]:
        yield "a possible label dropped", {**r, "possible_labels": r["possible_labels"][1:]}
    extra = _other_label(labels, *r["possible_labels"])
    if extra is not None:
        yield "a possible label added", {**r, "possible_labels": [*r["possible_labels"], extra]}
    tie = {True: False, False: True, None: True}[r["tie_possible"]]
    yield "tie_possible flipped", {**r, "tie_possible": tie}
    ev = r["evidence"]
    if ev.get("bounds") and ev["bounds"][0]["largest"]["counts"]:
        changed = copy.deepcopy(r)
        counts = changed["evidence"]["bounds"][0]["largest"]["counts"]
        counts[next(iter(counts))] += 1
        yield "a bound's counts changed", changed
    if ev.get("bounds"):
        yield "a bound dropped", {**r, "evidence": {**ev, "bounds": ev["bounds"][1:]}}
    if ev.get("worlds"):
        yield "a world dropped", {**r, "evidence": {**ev, "worlds": ev["worlds"][1:]}}
    wins = [i for i, w in enumerate(ev.get("worlds", [])) if "wins" in w]
    if wins and len(labels) > 1:
        changed = copy.deepcopy(r)
        w = changed["evidence"]["worlds"][wins[0]]
        w["wins"] = _other_label(labels, w["wins"])
        yield "a witness's winner changed", changed


def _poison_row(r, all_cells):
    if r["status"] == "poisoned":
        yield from _cells_tampered(r, "num_cells", all_cells)
        yield "said impossible", {**r, "status": "impossible"}
        yield "said already not robust", {**r, "status": "already_nonrobust"}
    elif r["status"] == "already_nonrobust":
        yield "said poisoned", {**r, "status": "poisoned"}
        yield "said impossible", {**r, "status": "impossible", "num_cells": None}
    elif r["status"] == "impossible":
        yield "said poisoned", {**r, "status": "poisoned", "num_cells": 0}
        if all_cells:
            yield (
                "a cell claimed",
                {**r, "status": "poisoned", "num_cells": 1, "cells": all_cells[:1]},
            )


def _together(r, all_cells):
    if r["status"] == "poisoned":
        yield from _cells_tampered(r, "num_cells", all_cells)
        yield "lower bound above the cells", {**r, "lower_bound": r["num_cells"] + 1}
        if not r["optimal"]:
            yield "said optimal", {**r, "optimal": True}
    if r["status"] == "impossible":
        yield "said poisoned", {**r, "status": "poisoned", "num_cells": 0}


def _clean_row(r, labels, missing):
    if r["num_cells"] is None:
        yield "a label though impossible", {**r, "label": labels[0]}
        return
    yield from _cells_tampered(r, "num_cells", missing)
    yield "another label", {**r, "label": _other_label(labels, r["label"])}
    yield "said impossible", {**r, "num_cells": None, "cells": [], "label": None}


def _clean_parts(doc, missing):
    tg, path = doc["together"], doc["path"]
    if tg["num_cells"] is not None:
        for what, t in _cells_tampered(tg, "num_cells", missing):
            yield f"together: {what}", {**doc, "together": t}
        yield (
            "together: bound above",
            {**doc, "together": {**tg, "lower_bound": tg["num_cells"] + 1}},
        )
        if not tg["optimal"]:
            yield "together: said optimal", {**doc, "together": {**tg, "optimal": True}}
    aside = [r["test_index"] for r in doc["results"] if r["num_cells"] is None]
    if tg["excluded"]:
        yield (
            "together: a row no longer set aside",
            {
                **doc,
                "together": {**tg, "excluded": tg["excluded"][1:]},
            },
        )
    kept = [r["test_index"] for r in doc["results"] if r["test_index"] not in aside]
    if kept:
        yield (
            "together: a cleanable row set aside",
            {
                **doc,
                "together": {**tg, "excluded": [*tg["excluded"], kept[0]]},
            },
        )
    yield (
        "path: certifies flipped",
        {
            **doc,
            "path": {**path, "certifies_all": not path["certifies_all"]},
        },
    )
    if path["certifies_all"] and path["cells"]:
        cut = {**path, "num_cells": path["num_cells"] - 1, "cells": path["cells"][:-1]}
        yield "path: its last cell dropped", {**doc, "path": cut}


def tamperings(doc: dict, labels: list, cells: dict):
    """(what, tampered document) for every tampering that applies to ``doc``; ``cells``:
    the training table's observed and missing cells as {"row", "column"}."""
    yield "a newer format", {**doc, "version": doc["version"] + 1}
    yield "not a certificate", {**doc, "format": "something else"}
    results = doc["results"]
    yield "a result dropped", {**doc, "results": results[1:]}
    yield "a result repeated", {**doc, "results": [*results, results[0]]}
    command = doc["command"]
    for i, r in enumerate(results):
        for key in [k for k in r if k not in ("evidence", "id", "method", "time_limited")]:
            yield f"row {i}: {key} dropped", _with(doc, i, {k: v for k, v in r.items() if k != key})
        yield f"row {i}: a claim added", _with(doc, i, {**r, "proven": True})
        if command == "certify":
            rows = _certify_row(r, labels)
        elif command == "poison":
            rows = _poison_row(r, cells["observed"])
        elif command == "poison --together":
            rows = _together(r, cells["observed"])
        else:
            rows = _clean_row(r, labels, cells["missing"])
        for what, changed in rows:
            yield f"row {i}: {what}", _with(doc, i, changed)
    if command == "clean --truth":
        yield from _clean_parts(doc, cells["missing"])


def _with(doc, i, row):
    return {**doc, "results": [*doc["results"][:i], row, *doc["results"][i + 1 :]]}


def _cells_of(inst, table) -> dict:
    out = {"observed": [], "missing": []}
    for f in inst.features:
        for r, v in enumerate(table[f]):
            key = "missing" if v != v or v is None else "observed"
            out[key].append({"row": r, "column": f})
    return out


def _expect_rejected(folder: Path, cert: Path, labels, cells) -> int:
    doc = json.loads(cert.read_text())
    n = 0
    for what, tampered in tamperings(doc, labels, cells):
        bad = folder / "tampered.json"
        bad.write_text(json.dumps(tampered))
        assert rejected(bad), f"accepted after {what}"
        n += 1
    return n


@SETTINGS
@given(data=st.data(), alpha=st.sampled_from([0, Fraction(1, 2), 1]))
def test_every_tampering_is_rejected(tmp_path_factory, data, alpha):
    inst = data.draw(dirty_instances(max_rows=5, max_missing=4, min_labels=2))
    inst = data.draw(blank_test_cells(inst))
    folder = tmp_path_factory.mktemp("tamper")
    paths = write(folder, inst, inst.truth)
    labels = sorted({str(x) for x in inst.truth[inst.label]})
    dirty, truth = _cells_of(inst, inst.train), _cells_of(inst, inst.truth)
    certs = {
        "certify": folder / "certify.json",
        "poison": folder / "poison.json",
        "clean": folder / "clean.json",
    }
    nbcert.certify(
        paths["train"], paths["test"], inst.label, alpha=alpha, certificate=certs["certify"]
    )
    nbcert.poison(
        paths["truth"], paths["test"], inst.label, alpha=alpha, certificate=certs["poison"]
    )
    nbcert.clean_with_truth(
        paths["train"],
        paths["truth"],
        paths["test"],
        inst.label,
        alpha=alpha,
        certificate=certs["clean"],
    )
    if alpha == 0:
        certs["together"] = folder / "together.json"
        nbcert.poison_together(
            paths["truth"], paths["test"], inst.label, certificate=certs["together"]
        )
    for name, cert in certs.items():
        holds(cert)
        _expect_rejected(folder, cert, labels, dirty if name in ("certify", "clean") else truth)


def test_edited_or_missing_files_are_refused(tmp_path):
    """The data changed after the fact, a file gone, a malformed or newer document: one line
    on stderr and exit status 2 from the copied-out checker, never a traceback."""
    train, test, cert = tmp_path / "train.csv", tmp_path / "test.csv", tmp_path / "c.json"
    train.write_text("a,b,y\nx,1,p\ny,,q\nx,2,p\ny,1,q\n")
    test.write_text("a,b\nx,1\ny,2\n")
    nbcert.certify(train, test, "y", certificate=cert)
    saved = {p: p.read_bytes() for p in (train, test, cert)}
    doc = json.loads(cert.read_text())
    cases = {
        "edited": (train, train.read_text().replace("x,2,p", "x,2,q")),
        "gone": (test, None),
        "not JSON": (cert, "{"),
        "newer": (cert, json.dumps({**doc, "version": verify.VERSION + 1})),
        "no inputs": (cert, json.dumps({"format": "nbcert certificate", "version": 1})),
        "no label": (cert, json.dumps({**doc, "inputs": {**doc["inputs"], "label": "zz"}})),
    }
    assert bare_python(tmp_path, cert).returncode == 0
    said = {}
    for what, (path, text) in cases.items():
        for p, data in saved.items():
            p.write_bytes(data)
        if text is None:
            path.unlink()
        else:
            path.write_text(text)
        done = bare_python(tmp_path, cert)
        assert done.returncode == 2, (what, done.stdout, done.stderr)
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1, (what, done.stderr)
        assert "Traceback" not in done.stderr
        said[what] = done.stderr
    assert "SHA-256" in said["edited"] and "newer" in said["newer"]


def test_a_failed_claim_exits_1_with_its_line(tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("a,y\nx,p\nx,p\ny,q\n,q\n")
    (tmp_path / "test.csv").write_text("a\nx\n")
    cert = tmp_path / "c.json"
    nbcert.certify(train, tmp_path / "test.csv", "y", certificate=cert)
    doc = json.loads(cert.read_text())
    doc["results"][0]["robust"] = not doc["results"][0]["robust"]
    cert.write_text(json.dumps(doc))
    done = bare_python(tmp_path, cert)
    assert done.returncode == 1
    assert any(line.startswith("FAIL") for line in done.stdout.splitlines())
    assert done.stdout.splitlines()[-1].endswith(" fail")


@pytest.mark.parametrize("entry", [["a", 2], [["a", 1]], [["a", 1], ["b", 1], ["a", 0]], "z"])
def test_a_world_must_fill_every_missing_cell_from_the_domain(tmp_path, entry):
    train = tmp_path / "train.csv"
    train.write_text("f,y\na,p\nb,p\n,q\n,q\na,q\n")
    (tmp_path / "test.csv").write_text("f\na\n")
    cert = tmp_path / "c.json"
    nbcert.certify(train, tmp_path / "test.csv", "y", certificate=cert)
    holds(cert)
    doc = json.loads(cert.read_text())
    worlds = doc["results"][0]["evidence"]["worlds"]
    # the world where q's cells hold b, not the test value: z there would change no count
    away = next(w for w in worlds if w["fill"]["q"]["f"] == "b")
    away["fill"]["q"]["f"] = entry  # q has two missing cells
    cert.write_text(json.dumps(doc))
    assert rejected(cert)


def test_tamperings_cover_every_claim_field():
    """The list of tamperings is not empty of any command's claim fields."""
    assert shutil and subprocess and sys  # the helpers above run the checker these ways
    doc = {
        "format": "nbcert certificate",
        "version": 1,
        "command": "certify",
        "inputs": {"alpha": "0"},
        "results": [
            {
                "test_index": 0,
                "robust": True,
                "label": "p",
                "possible_labels": ["p"],
                "tie_possible": False,
                "evidence": {"bounds": []},
            }
        ],
    }
    names = [what for what, _ in tamperings(doc, ["p", "q"], {"observed": [], "missing": []})]
    for key in ("robust", "label", "possible_labels", "tie_possible"):
        assert f"row 0: {key} dropped" in names


def _nodes(value, path=()):
    """Every (path, value) in a JSON document."""
    yield path, value
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, v in items:
        yield from _nodes(v, (*path, key))


def _replaced(doc, path, new):
    if not path:
        return new
    out = copy.copy(doc)
    out[path[0]] = _replaced(doc[path[0]], path[1:], new)
    return out


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> dict:
    """One certificate of each command on a small table."""
    folder = tmp_path_factory.mktemp("honest")
    (folder / "train.csv").write_text("f,g,y\na,x,p\nb,x,p\n,y,q\na,,q\nb,y,p\na,x,q\nb,x,p\n")
    (folder / "truth.csv").write_text("f,g,y\na,x,p\nb,x,p\nb,y,q\na,y,q\nb,y,p\na,x,q\nb,x,p\n")
    (folder / "test.csv").write_text("f,g\na,x\nb,y\n,x\nc,y\n")
    t, tr, tt = (str(folder / f) for f in ("train.csv", "truth.csv", "test.csv"))
    out = {k: folder / f"{k}.json" for k in ("certify", "poison", "together", "clean")}
    nbcert.certify(t, tt, "y", certificate=out["certify"])
    nbcert.poison(tr, tt, "y", certificate=out["poison"])
    nbcert.poison_together(tr, tt, "y", certificate=out["together"])
    nbcert.clean_with_truth(t, tr, tt, "y", certificate=out["clean"])
    return {k: json.loads(p.read_text()) for k, p in out.items()} | {"folder": folder}


JUNK = st.sampled_from([None, 0, -1, 10**6, 1.5, float("inf"), "x", "1/0", "", [], {}, True, [[]]])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), junk=JUNK)
def test_a_malformed_certificate_never_raises(honest, data, junk):
    """Any node of a certificate replaced by junk: the checker answers with claims or one
    Unreadable line, never another exception (never a traceback)."""
    command = data.draw(st.sampled_from(["certify", "poison", "together", "clean"]))
    doc = honest[command]
    path, _ = data.draw(st.sampled_from(list(_nodes(doc))))
    bad = honest["folder"] / f"junk-{command}.json"
    bad.write_text(json.dumps(_replaced(doc, path, junk)))
    try:
        verify.check(bad)
    except verify.Unreadable:
        pass


def test_an_answer_together_that_found_no_cells_holds(tmp_path):
    """No cleaning found for both points together (each alone needs its own, and they pull
    apart): the answer states no certified points, and its certificate holds (the checker
    read ``certified_rows: null`` as malformed)."""
    train = pd.DataFrame(
        {"y": ["p", "q", "r", "p"], "f0": [None, None, None, "a"], "f1": ["b", "b", None, "b"]}
    )
    truth = train.fillna({"f0": "a"}).assign(f0=["a", "b", "c", "a"], f1=["b", "b", "c", "b"])
    test = pd.DataFrame({"f0": ["a", "c"], "f1": ["c", "b"]})
    for name, table in (("train", train), ("truth", truth), ("test", test)):
        table.to_csv(tmp_path / f"{name}.csv", index=False)
    cert = tmp_path / "clean.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbcert.DataWarning)
        report = nbcert.clean_with_truth(
            *(str(tmp_path / f"{n}.csv") for n in ("train", "truth", "test")), "y", certificate=cert
        )
    assert report.together.num_cells is None
    holds(cert)
