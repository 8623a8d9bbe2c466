"""The nbcert command line: JSON and text contracts, --missing, and one-line input errors.

Most tests call ``nbcert.cli.main`` in-process; a few run the real console script.
The tiny tables are small enough to check against a brute-force enumeration of worlds.
"""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys
from fractions import Fraction
from importlib.metadata import version
from itertools import combinations, product
from pathlib import Path

import pytest

import nbcert
from nbcert.cli import build_parser, main
from nbcert.count import WorldCounts

# Counting example (alpha = 0).  Label p: 1 row, label e: 4 rows, n = 5; two missing
# 'cap' cells in e rows, domain {s, x}, so 4 worlds.
#   test (n, s): S(p) = 1/5; S(e) = 4/5 * 2/4 * (1+k)/4 = (1+k)/10 with k = holes filled s:
#                k=0 -> p (1 world), k=1 -> tie (2 worlds), k=2 -> e (1 world): not robust.
#   test (n, x): S(p) = 0 < S(e) in every world: robust, e.
# With alpha = 1 the first row becomes robust e too.
TRAIN = "odor,cap,y\nn,s,p\nn,,e\nn,,e\nf,s,e\nf,x,e\n"
TEST = "odor,cap,y\nn,s,?\nn,x,\n"  # the label column in the test file is ignored

# Poisoning example: a complete table whose rows are not grouped by label, so a row
# position after grouping (0,1,4,5 | 2,3) differs from the CSV data row.
#   test (n, s) is robust e; the only minimum poisoning blanks odor of data rows 1 and 4.
#   test (z, s) has an unseen value: both supports are 0, a tie, already not robust.
#   test (f, x) is robust p.
PTRAIN = "odor,cap,y\nf,x,e\nn,s,e\nf,x,p\nf,s,p\nn,s,e\nf,s,e\n"
PTEST = "odor,cap\nn,s\nz,s\nf,x\n"


# ---------------------------------------------------------------------------------------
# helpers


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def hints_only(err: str) -> bool:
    """Nothing on stderr but the data hints (tested in tests/test_user_inputs.py)."""
    return all(line.startswith("nbcert: warning: ") for line in err.splitlines())


def run_json(capsys, *argv):
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    assert hints_only(err)
    data = json.loads(out)
    assert list(data) == ["results"]
    return data["results"]


def files(tmp_path, train=TRAIN, test=TEST):
    return [
        "--train",
        write(tmp_path, "train.csv", train),
        "--test",
        write(tmp_path, "test.csv", test),
        "--label",
        "y",
    ]


def parse(text: str, missing=("",)):
    """Rows of a CSV text as (features dict, label); missing cells are None."""
    lines = [line.split(",") for line in text.strip().splitlines()]
    header = lines[0]
    feats = [h for h in header if h != "y"]
    rows = []
    for values in lines[1:]:
        rec = dict(zip(header, values))
        rows.append(({f: None if rec[f] in missing else rec[f] for f in feats}, rec["y"]))
    return feats, rows


def brute_predict(feats, rows, t, alpha):
    labels = list(dict.fromkeys(y for _, y in rows))
    dom = {f: {r[f] for r, _ in rows if r[f] is not None} for f in feats}
    sup = {}
    for lab in labels:
        Nl = sum(y == lab for _, y in rows)
        s = Fraction(Nl, len(rows))
        for f in feats:
            c = sum(y == lab and r[f] == t[f] for r, y in rows)
            s *= (c + alpha) / (Nl + alpha * len(dom[f]))
        sup[lab] = s
    top = [lab for lab in labels if sup[lab] == max(sup.values())]
    return top[0] if len(top) == 1 else None


def brute_count(feats, rows, t, alpha=Fraction(0)):
    """(counts per label, ties, total) by enumerating every world."""
    dom = {f: sorted({r[f] for r, _ in rows if r[f] is not None}) for f in feats}
    holes = [(i, f) for i, (r, _) in enumerate(rows) for f in feats if r[f] is None]
    counts = dict.fromkeys(dict.fromkeys(y for _, y in rows), 0)
    ties = total = 0
    for fill in product(*[dom[f] for _, f in holes]):
        world = [(dict(r), y) for r, y in rows]
        for (i, f), v in zip(holes, fill):
            world[i][0][f] = v
        p = brute_predict(feats, world, t, alpha)
        total += 1
        if p is None:
            ties += 1
        else:
            counts[p] += 1
    return counts, ties, total


def brute_robust(feats, rows, t, alpha=Fraction(0)):
    counts, ties, total = brute_count(feats, rows, t, alpha)
    winners = [lab for lab, c in counts.items() if c]
    return winners[0] if not ties and len(winners) == 1 else None


def brute_min_poison(feats, rows, t, max_k=3):
    cells = [(i, f) for i in range(len(rows)) for f in feats]
    for k in range(max_k + 1):
        sols = []
        for chosen in combinations(cells, k):
            new = [(dict(r), y) for r, y in rows]
            for i, f in chosen:
                new[i][0][f] = None
            if any(all(r[f] is None for r, _ in new) for f in feats):
                continue
            if brute_robust(feats, new, t) is None:
                sols.append(set(chosen))
        if sols:
            return k, sols
    return None, []


def blank_cells(text: str, cells) -> str:
    """The CSV text with the given (data row, column) cells emptied."""
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    for r, c in cells:
        rows[r][header.index(c)] = ""
    return "\n".join([lines[0]] + [",".join(r) for r in rows]) + "\n"


def points(text):
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, line.split(","))) for line in lines[1:]]


# ---------------------------------------------------------------------------------------
# certify


def test_certify_json_contract(tmp_path, capsys):
    res = run_json(capsys, "certify", *files(tmp_path))
    # row 0: worlds predict p (k=0), tie (k=1) and e (k=2); row 1: e in every world
    assert res == [
        {
            "test_index": 0,
            "robust": False,
            "label": None,
            "possible_labels": ["e", "p"],
            "tie_possible": True,
        },
        {
            "test_index": 1,
            "robust": True,
            "label": "e",
            "possible_labels": ["e"],
            "tie_possible": False,
        },
    ]


@pytest.mark.parametrize("alpha", ["0", "1", "0.5", "1/3", "0.001", "1e308", "1e300", "1e-400"])
@pytest.mark.parametrize("method", ["index", "iterate"])
def test_certify_matches_brute_force(tmp_path, capsys, method, alpha):
    res = run_json(capsys, "certify", *files(tmp_path), "--alpha", alpha, "--method", method)
    feats, rows = parse(TRAIN)
    expected = [brute_robust(feats, rows, t, Fraction(alpha)) for t in points(TEST)]
    assert [r["label"] for r in res] == expected
    assert [r["robust"] for r in res] == [e is not None for e in expected]
    if alpha == "1":
        assert expected == ["e", "e"]  # smoothing changes the answer for row 0


def test_certify_ad(tmp_path, capsys):
    res = run_json(
        capsys, "certify", *files(tmp_path), "--method", "ad", "--worlds", "200", "--seed", "0"
    )
    assert [r["not_robust"] for r in res] == [True, False]
    assert res[1]["label"] == "e"


def test_certify_ad_rows_say_what_the_sampled_worlds_saw(tmp_path, capsys):
    """An AD row never says "robust": no sampled world disagreeing is no proof (AD printed
    "robust yes" for rows the exact method finds not robust).  Text and JSON say what its
    worlds saw ("no other label in N sampled worlds"), the labels they predicted, labelled
    as sampled, and "not robust" only where a sampled world proves it."""
    argv = ["certify", *files(tmp_path), "--method", "ad", "--worlds", "50", "--seed", "1"]
    res = run_json(capsys, *argv)
    for r in res:
        assert r["method"] == "ad" and "possible_labels" not in r and "tie_possible" not in r
        assert "robust" not in r
        assert r["not_robust"] == (r["sampled_labels"] != [r["label"]] or r["sampled_tie"])
    assert res[1] == {
        "test_index": 1,
        "method": "ad",
        "answer": "no other label in 50 sampled worlds",
        "not_robust": False,
        "label": "e",
        "sampled_labels": ["e"],
        "sampled_tie": False,
        "worlds_sampled": 50,
    }
    assert res[0]["answer"].startswith("not robust: ")
    rc, out, err = run(capsys, *argv)
    lines = out.splitlines()
    assert rc == 0 and re.split(r"\s{2,}", lines[0].strip()) == [
        "test_index",
        "answer (--method ad)",
        "label",
        "sampled_labels",
        "sampled_tie",
    ]
    assert re.split(r"\s{2,}", lines[2].strip()) == [
        "1",
        "no other label in 50 sampled worlds",
        "e",
        "e",
        "no",
    ]
    assert "yes" not in [re.split(r"\s{2,}", line.strip())[1] for line in lines[1:3]]
    assert "not a proof" in lines[-1] and "possible_labels" not in out


def test_certify_text_table(tmp_path, capsys):
    rc, out, err = run(capsys, "certify", *files(tmp_path))
    assert rc == 0 and err == ""
    lines = out.rstrip("\n").splitlines()
    assert [line.split() for line in lines] == [
        ["test_index", "robust", "label", "possible_labels", "tie"],
        ["0", "no", "-", "e,", "p", "yes"],
        ["1", "yes", "e", "e", "no"],
    ]
    # aligned: every column starts at the same offset on every line
    assert lines[1].index("no") == lines[0].index("robust") == lines[2].index("yes")
    assert lines[2].index("e", lines[0].index("label")) == lines[0].index("label")


def test_values_are_reported_as_written(tmp_path, capsys):
    # NA and 007 are ordinary categories, not missing and not numbers
    train = "a,y\nNA,007\nNA,007\nb,NA\n"
    test = "a\nNA\nb\n"
    rc, out, err = run(capsys, "certify", *files(tmp_path, train, test), "--json")
    assert rc == 0 and err == (
        "nbcert: warning: column 'a' holds 'NA', a common missing token, as a category; "
        "if it means missing, give --missing 'NA'\n"
    )  # a hint, the answer unchanged
    assert [r["label"] for r in json.loads(out)["results"]] == ["007", "NA"]


def test_test_columns_in_any_order(tmp_path, capsys):
    res = run_json(capsys, "certify", *files(tmp_path, test="cap,odor\ns,n\nx,n\n"))
    assert [r["robust"] for r in res] == [False, True]


# ---------------------------------------------------------------------------------------
# --missing


def test_missing_tokens(tmp_path, capsys):
    train_q = TRAIN.replace("n,,e\nn,,e", "n,?,e\nn,unknown,e")
    assert train_q != TRAIN
    (tmp_path / "plain").mkdir()
    plain = run_json(capsys, "count", *files(tmp_path / "plain"))
    args = files(tmp_path, train=train_q)
    tokens = run_json(capsys, "count", *args, "--missing", "?", "--missing", "unknown")
    assert tokens == plain
    assert tokens[0]["total"] == "4"
    # without the tokens '?' and 'unknown' are categories: no missing cell, one world
    assert run_json(capsys, "count", *args)[0]["total"] == "1"
    # a token in the test file is missing too: a blank test cell (refused when asked)
    test_q = files(tmp_path, train_q, "odor,cap\nn,s\nn,?\n")
    rc, out, err = run(capsys, "certify", *test_q, "--missing", "?", "--test-missing", "error")
    assert rc == 2 and "data row 1" in err and "'cap'" in err
    blank = files(tmp_path / "plain", TRAIN, "odor,cap\nn,s\nn,\n")
    assert run_json(capsys, "certify", *test_q, "--missing", "?", "--missing", "unknown") == (
        run_json(capsys, "certify", *blank)
    )


# ---------------------------------------------------------------------------------------
# count


@pytest.mark.parametrize("method", ["exact", "batch", "auto"])
def test_count_json_contract(tmp_path, capsys, method):
    res = run_json(capsys, "count", *files(tmp_path), "--method", method)
    assert res == [
        {
            "test_index": 0,
            "counts": {"p": "1", "e": "1"},
            "ties": "2",
            "total": "4",
            "method": "exact" if method == "auto" else method,
        },
        {
            "test_index": 1,
            "counts": {"p": "0", "e": "4"},
            "ties": "0",
            "total": "4",
            "method": "exact" if method == "auto" else method,
        },
    ]


@pytest.mark.parametrize("alpha", ["1", "1/2", "0.001", "1e308"])
def test_count_matches_brute_force(tmp_path, capsys, alpha):
    res = run_json(capsys, "count", *files(tmp_path), "--alpha", alpha)
    feats, rows = parse(TRAIN)
    for r, t in zip(res, points(TEST)):
        counts, ties, total = brute_count(feats, rows, t, Fraction(alpha))
        assert r["counts"] == {k: str(v) for k, v in counts.items()}
        assert r["ties"] == str(ties) and r["total"] == str(total)
        assert sum(map(int, r["counts"].values())) + int(r["ties"]) == int(r["total"])


def test_count_every_training_label_listed(tmp_path, capsys):
    train = "a,y\nx,e\nx,e\nz,p\n,q\n"
    res = run_json(capsys, "count", *files(tmp_path, train, "a\nx\n"))
    assert set(res[0]["counts"]) == {"e", "p", "q"}
    assert all(isinstance(v, str) for v in res[0]["counts"].values())
    assert (
        sum(map(int, res[0]["counts"].values())) + int(res[0]["ties"]) == int(res[0]["total"]) == 2
    )


def test_count_montecarlo_json(tmp_path, capsys):
    res = run_json(
        capsys,
        "count",
        *files(tmp_path),
        "--method",
        "montecarlo",
        "--worlds",
        "400",
        "--seed",
        "1",
    )
    assert len(res) == 2
    for r in res:
        assert r["method"] == "montecarlo"
        assert r["total"] == "4" and r["log10_total"] == pytest.approx(math.log10(4))
        assert r.get("counts") is None and r.get("ties") is None
        assert r["n_worlds"] == 400
        assert set(r["fractions"]) == {"p", "e"}
        assert sum(r["fractions"].values()) + r["tie_fraction"] == pytest.approx(1)
        for lab, (lo, hi) in r["intervals"].items():
            assert 0 <= lo <= r["fractions"][lab] <= hi <= 1
    assert res[1]["fractions"] == {"p": 0.0, "e": 1.0}
    assert res[0]["tie_fraction"] == pytest.approx(0.5, abs=0.15)


def test_count_text_table(tmp_path, capsys):
    rc, out, err = run(capsys, "count", *files(tmp_path))
    assert rc == 0 and err == ""
    assert [line.split() for line in out.splitlines()] == [
        ["test_index", "e", "p", "ties", "total", "method"],
        ["0", "1", "(25.0%)", "1", "(25.0%)", "2", "(50.0%)", "4", "exact"],
        ["1", "4", "(100%)", "0", "(0%)", "0", "(0%)", "4", "exact"],
    ]
    rc, out, err = run(
        capsys,
        "count",
        *files(tmp_path),
        "--method",
        "montecarlo",
        "--seed",
        "0",
        "--worlds",
        "100",
    )
    assert rc == 0 and "montecarlo" in out
    row = out.splitlines()[2].split()  # row 1: every sampled world predicts e
    assert (row[:2], row[4], row[-2:]) == (["1", "~100%"], "~0%", ["4", "montecarlo"])
    assert "0.95 confidence interval" in out


def _short(value) -> str:
    """A test id for a huge integer (str() refuses more than 4300 digits)."""
    return value if isinstance(value, str) else f"{value.bit_length()}bits"


@pytest.mark.parametrize(
    "n, shown",
    [
        (0, "0"),
        (999_999, "999999"),
        (10**6, "1.00e+6"),
        (1_234_567, "1.23e+6"),
        (1_235_000, "1.24e+6"),
        (1_234_999, "1.23e+6"),
        (9_995_000, "1.00e+7"),
        (9_994_999, "9.99e+6"),
        (102 * 10**7001, "1.02e+7003"),
        (10**7003 - 1, "1.00e+7003"),
        (2**64, "1.84e+19"),
    ],
    ids=_short,
)
def test_scientific_is_rounded_from_the_integer(n, shown):
    from nbcert.cli.render import scientific

    assert scientific(n) == shown


@pytest.mark.parametrize(
    "part, whole, shown",
    [
        (0, 5, "0%"),
        (5, 5, "100%"),
        (1, 4, "25.0%"),
        (1, 3, "33.3%"),
        (2, 3, "66.7%"),
        (1, 1000, "0.1%"),
        (1, 2000, "0.050%"),
        (1, 2001, "0.050%"),
        (1, 10**4, "0.010%"),
        (66, 10**7, "6.6e-04%"),  # a possible label never shows as 0.0%
        (1, 10**5 - 1, "1.0e-03%"),
        (999_499, 10**9, "0.10%"),
        (1999, 2000, ">99.9%"),
        (1, 10**7000, "1.0e-6998%"),
        (3, 10**7000, "3.0e-6998%"),
        (10**7000 - 1, 10**7000, ">99.9%"),
    ],
    ids=_short,
)
def test_percent_is_exact(part, whole, shown):
    from nbcert.cli.render import percent

    assert percent(part, whole) == shown


def test_count_big_integers_in_full(tmp_path, capsys, monkeypatch):
    total = 3**10_000  # more digits than Python's default int-to-str limit (4300)
    wc = WorldCounts(
        method="exact",
        total=total,
        log10_total=math.log10(total),
        counts={"p": total - 7, "e": 5},
        ties=2,
    )
    monkeypatch.setattr(nbcert, "count_worlds", lambda *a, **k: [wc, wc])
    setter = getattr(sys, "set_int_max_str_digits", None)
    res = run_json(capsys, "count", *files(tmp_path))
    rc, out, _ = run(capsys, "count", *files(tmp_path))
    if setter:
        old = sys.get_int_max_str_digits()
        setter(0)
    try:
        digits = str(total)
        assert res[0]["total"] == digits and res[0]["counts"] == {"p": str(total - 7), "e": "5"}
        assert digits[:10] not in out  # text shows 3 significant digits
        e = len(digits) - 1
        mantissa = math.floor(Fraction(total, 10 ** (e - 2)) + Fraction(1, 2))
        shown = f"{mantissa // 100}.{mantissa % 100:02d}e+{e}"
        from nbcert.cli.render import percent

        assert percent(5, total) == "3.1e-4769%"  # 5 / 3^10000 of the worlds: not 0
        assert out.splitlines()[1].split() == [
            "0",
            shown,
            "(>99.9%)",
            "5",
            f"({percent(5, total)})",
            "2",
            f"({percent(2, total)})",
            shown,
            "exact",
        ]
    finally:
        if setter:
            setter(old)


def test_count_text_of_a_total_too_large_to_compute(tmp_path, capsys, monkeypatch):
    wc = WorldCounts(
        method="montecarlo",
        total=None,
        log10_total=7003.0086,
        fractions={"p": 0.25, "e": 0.5},
        tie_fraction=0.25,
        intervals={"p": (0.2, 0.3), "e": (0.45, 0.55)},
        n_worlds=100,
    )
    monkeypatch.setattr(nbcert, "count_worlds", lambda *a, **k: [wc, wc])
    rc, out, _ = run(capsys, "count", *files(tmp_path))
    assert out.splitlines()[0].split() == ["test_index", "p", "e", "ties", "total", "method"]
    assert out.splitlines()[1].split() == [
        "0",
        "~25.0%",
        "[20.0%,",
        "30.0%]",
        "~50.0%",
        "[45.0%,",
        "55.0%]",
        "~25.0%",
        "~1.02e+7003",
        "montecarlo",
    ]
    [res, _] = run_json(capsys, "count", *files(tmp_path))
    assert res["total"] is None and res["log10_total"] == 7003.0086


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_count_progress_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    rc, out, err = run(capsys, "count", *files(tmp_path))
    assert rc == 0 and err == ""  # stderr is not a terminal here: nothing is printed
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    rc, out, _ = run(capsys, "count", *files(tmp_path))
    assert rc == 0 and "test_index" in out  # results stay on stdout
    shown = tty.getvalue()
    assert "nbcert: counting test points" in shown  # tqdm's bar
    assert shown.endswith("\r")  # the bar is erased when done (leave=False)
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    rc, out, _ = run(capsys, "count", *files(tmp_path), "--json")
    assert rc == 0 and tty.getvalue() == ""  # --json: nothing but the JSON, even on a terminal


def test_count_exact_too_large_is_one_line(tmp_path, capsys):
    """A 50 x 300 table with 10% blanks: exact counting is refused quickly, in one line."""
    import numpy as np

    rng = np.random.default_rng(0)
    cells = rng.choice(["a", "b", "c"], size=(50, 300))
    cells[rng.random(cells.shape) < 0.1] = ""
    header = ",".join(f"f{j}" for j in range(300))
    train = (
        "\n".join([header + ",y"] + [",".join(r) + "," + "pq"[i % 2] for i, r in enumerate(cells)])
        + "\n"
    )
    test = header + "\n" + ",".join(["a"] * 300) + "\n"
    args = files(tmp_path, train, test)
    rc, out, err = run(capsys, "count", *args, "--method", "exact")
    assert_error(rc, out, err, "too large", "montecarlo")
    [res] = run_json(capsys, "count", *args, "--worlds", "100", "--time-limit", "1e-9")
    assert res["method"] == "montecarlo"  # auto: proven bounds out of time too


# ---------------------------------------------------------------------------------------
# poison


def test_poison_json_contract(tmp_path, capsys):
    res = run_json(capsys, "poison", *files(tmp_path, PTRAIN, PTEST))
    assert [r["test_index"] for r in res] == [0, 1, 2]
    assert res[0]["num_cells"] == 2 and res[0]["status"] == "poisoned"
    assert {(c["row"], c["column"]) for c in res[0]["cells"]} == {(1, "odor"), (4, "odor")}
    assert res[1] == {
        "test_index": 1,
        "num_cells": 0,
        "cells": [],
        "status": "already_nonrobust",
        "minimal": True,
        "lower_bound": 0,
    }
    assert res[0]["minimal"] is True and res[0]["lower_bound"] == 2  # the checker proves it
    feats, rows = parse(PTRAIN)
    k, sols = brute_min_poison(feats, rows, points(PTEST)[2])
    assert res[2]["num_cells"] == k == len(res[2]["cells"])
    assert {(c["row"], c["column"]) for c in res[2]["cells"]} in sols


@pytest.mark.parametrize("method", ["op", "sr", "rp"])
def test_poison_cells_break_robustness(tmp_path, capsys, method):
    """Blanking the reported cells in the CSV (by data row) makes the test row non-robust."""
    res = run_json(
        capsys, "poison", *files(tmp_path, PTRAIN, PTEST), "--method", method, "--seed", "3"
    )
    n_rows = len(PTRAIN.strip().splitlines()) - 1
    for r in res:
        assert r["num_cells"] == len(r["cells"])
        cells = [(c["row"], c["column"]) for c in r["cells"]]
        assert all(0 <= row < n_rows and col in ("odor", "cap") for row, col in cells)
        assert len(set(cells)) == len(cells)
        if not cells:
            continue
        poisoned = blank_cells(PTRAIN, cells)
        t = points(PTEST)[r["test_index"]]
        point = f"odor,cap\n{t['odor']},{t['cap']}\n"
        cert = run_json(
            capsys,
            "certify",
            "--train",
            write(tmp_path, "poisoned.csv", poisoned),
            "--test",
            write(tmp_path, "point.csv", point),
            "--label",
            "y",
        )
        assert cert[0]["robust"] is False
    if method != "op":
        op = run_json(capsys, "poison", *files(tmp_path, PTRAIN, PTEST))
        assert all(r["num_cells"] >= o["num_cells"] for r, o in zip(res, op))


def test_poison_impossible(tmp_path, capsys):
    # one label only: every world predicts it, no blanking can change that
    res = run_json(capsys, "poison", *files(tmp_path, "a,b,y\nx,u,e\nz,v,e\n", "a,b\nx,u\n"))
    assert res == [
        {
            "test_index": 0,
            "num_cells": None,
            "cells": [],
            "status": "impossible",
            "minimal": False,
            "lower_bound": None,
        }
    ]
    rc, out, err = run(capsys, "poison", *files(tmp_path, "a,b,y\nx,u,e\nz,v,e\n", "a,b\nx,u\n"))
    assert rc == 0 and out.splitlines()[1].split()[:2] == ["0", "-"] and "impossible" in out


# OP blanks one 'a' of p (a tie with r); RP blanks cells in a random order and, for some
# seeds, every prefix of that order leaves the row robust: it found none, which proves nothing.
RP_TRAIN = "f0,class\na,r\nb,p\na,p\na,p\n"
RP_TEST = "f0\na\n"


def test_randomized_search_never_claims_impossible(tmp_path, capsys):
    args = [
        "--train",
        write(tmp_path, "t.csv", RP_TRAIN),
        "--test",
        write(tmp_path, "q.csv", RP_TEST),
        "--label",
        "class",
    ]
    assert (
        run_json(capsys, "poison", *args)[0]["num_cells"] == 1
    )  # OP: a poisoning of one cell exists
    statuses = set()
    for seed in range(8):
        [res] = run_json(capsys, "poison", *args, "--method", "rp", "--seed", seed)
        statuses.add(res["status"])
        assert res["status"] in ("poisoned", "none_found")
        assert (res["num_cells"] is None) == (res["status"] == "none_found")
        rc, out, _ = run(capsys, "poison", *args, "--method", "rp", "--seed", seed)
        assert rc == 0 and "impossible" not in out
        if res["status"] == "none_found":
            assert "none found" in out
    assert "none_found" in statuses, "the example should make RP come back empty for some seed"


def test_poison_text_table(tmp_path, capsys):
    rc, out, err = run(capsys, "poison", *files(tmp_path, PTRAIN, PTEST))
    assert rc == 0 and "never occurs in training" in err and hints_only(err)  # PTEST's unseen z
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["test_index", "num_cells"]
    assert lines[1].split()[:2] == ["0", "2"]
    assert "1:odor" in lines[1] and "4:odor" in lines[1]
    assert lines[2].split()[:2] == ["1", "0"] and "already not robust" in lines[2]


# ---------------------------------------------------------------------------------------
# errors: one line on stderr, exit status 2, naming the file, column or row


def assert_error(rc, out, err, *names):
    assert rc == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("nbcert: error: ")
    for name in names:
        assert name in lines[0], (name, lines[0])


ALL_COMMANDS = ["certify", "count", "poison"]

ERROR_CASES = {
    # name: (train text or None for absent, test text or None, extra args, expected fragments)
    "no train file": (None, TEST, [], ["train.csv", "no such file"]),
    "no test file": (TRAIN, None, [], ["test.csv", "no such file"]),
    "unknown label": (TRAIN, TEST, ["--label", "class"], ["train.csv", "'class'"]),
    "ragged long row": (
        "odor,cap,y\nn,s,p\nn,s,e,9\n",
        TEST,
        [],
        ["train.csv", "data row 1", "4 fields", "expected 3"],
    ),
    "ragged short row": (
        "odor,cap,y\nn,s,p\nn,s\n",
        TEST,
        [],
        ["train.csv", "data row 1", "2 fields", "expected 3"],
    ),
    "every row long": (
        "odor,cap,y\nn,s,p,\nf,s,e,\n",
        TEST,
        [],
        ["train.csv", "data row 0", "4 fields", "expected 3"],
    ),
    "ragged after a blank line": (
        "odor,cap,y\nn,s,p\n\nn,s\n",
        TEST,
        [],
        ["train.csv", "data row 1 (line 4)", "2 fields"],
    ),
    "ragged test row": (
        TRAIN,
        "odor,cap\nn,s\nn,s,x\n",
        [],
        ["test.csv", "data row 1", "3 fields"],
    ),
    "test lacks a feature": (TRAIN, "odor,y\nn,e\n", [], ["test.csv", "'cap'"]),
    "test has an extra column": (TRAIN, "odor,cap,shape\nn,s,x\n", [], ["test.csv", "'shape'"]),
    "header only": ("odor,cap,y\n", TEST, [], ["train.csv", "no data rows"]),
    "empty file": ("", TEST, [], ["train.csv", "empty"]),
    "empty test table": (TRAIN, "odor,cap\n", [], ["test.csv", "no data rows"]),
    "feature with no values": ("odor,cap,y\nn,,p\nf,,e\n", TEST, [], ["train.csv", "'cap'"]),
    "test row with a missing cell, refused as asked": (
        TRAIN,
        "odor,cap\nn,s\n,x\n",
        ["--test-missing", "error"],
        ["test.csv", "data row 1", "'odor'"],
    ),
    "missing label value": (
        "odor,cap,y\nn,s,p\nf,s,\n",
        TEST,
        [],
        ["train.csv", "data row 1", "'y'"],
    ),
    "duplicate column": ("odor,odor,y\nn,s,p\n", TEST, [], ["train.csv", "duplicate", "'odor'"]),
    "unnamed column": ("odor,,y\nn,s,p\n", TEST, [], ["train.csv", "column 2"]),
    "only the label column": ("y\np\ne\n", "y\np\n", [], ["train.csv", "feature"]),
}


@pytest.mark.parametrize("command", ALL_COMMANDS)
@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_input_errors(tmp_path, capsys, case, command):
    train, test, extra, names = ERROR_CASES[case]
    args = [
        "--train",
        str(tmp_path / "train.csv"),
        "--test",
        str(tmp_path / "test.csv"),
        "--label",
        "y",
    ]
    if train is not None:
        write(tmp_path, "train.csv", train)
    if test is not None:
        write(tmp_path, "test.csv", test)
    rc, out, err = run(capsys, command, *args, *extra)
    assert_error(rc, out, err, *names)


@pytest.mark.parametrize("alpha", ["-1", "-0.5", "abc", "nan", "inf", "1/0", "", "1e400", "-inf"])
@pytest.mark.parametrize("command", ["certify", "count"])
def test_bad_alpha(tmp_path, capsys, command, alpha):
    rc, out, err = run(capsys, command, *files(tmp_path), f"--alpha={alpha}")
    assert_error(rc, out, err, "--alpha", repr(alpha))


def test_negative_alpha_as_separate_argument(tmp_path, capsys):
    rc, out, err = run(capsys, "certify", *files(tmp_path), "--alpha", "-1")
    assert_error(rc, out, err, "--alpha", "-1")


def test_poison_needs_a_complete_table(tmp_path, capsys):
    rc, out, err = run(capsys, "poison", *files(tmp_path))
    assert_error(rc, out, err, "train.csv", "data row 1", "'cap'")


def test_directory_instead_of_file(tmp_path, capsys):
    rc, out, err = run(
        capsys,
        "certify",
        "--train",
        str(tmp_path),
        "--test",
        write(tmp_path, "test.csv", TEST),
        "--label",
        "y",
    )
    assert_error(rc, out, err, str(tmp_path))


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["certify"],
        ["certify", "--train", "a.csv", "--test", "b.csv"],
        ["certify", "--train", "a.csv", "--test", "b.csv", "--label", "y", "--method", "exact"],
        ["count", "--train", "a.csv", "--test", "b.csv", "--label", "y", "--worlds", "0"],
        ["count", "--train", "a.csv", "--test", "b.csv", "--label", "y", "--worlds", "many"],
        ["certify", "--train", "a.csv", "--test", "b.csv", "--label", "y", "--worlds", "-3"],
        ["poison", "--train", "a.csv", "--test", "b.csv", "--label", "y", "--seed", "x"],
        ["certify", "--train", "a.csv", "--test", "b.csv", "--label", "y", "--bogus"],
    ],
)
def test_usage_errors(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert err.count("\n") == 1 and "error:" in err and "--help)" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------
# --version and help


def test_version(capsys):
    rc, out, err = run(capsys, "--version")
    assert rc == 0 and out.strip() == f"nbcert {version('nbcert')}"


@pytest.mark.parametrize(
    "argv, words",
    [
        (["-h"], ["certify", "count", "poison", "robust", "possible world", "blank"]),
        (
            ["certify", "-h"],
            ["robust", "possible world", "--alpha", "--method", "--missing", "--json"],
        ),
        (["count", "-h"], ["possible worlds", "tie", "--worlds", "--seed", "montecarlo"]),
        (["poison", "-h"], ["fewest", "blank", "robust", "row:column", "--method"]),
    ],
)
def test_help(capsys, argv, words):
    rc, out, err = run(capsys, *argv)
    assert rc == 0
    for w in words:
        assert w in out, w


# ---------------------------------------------------------------------------------------
# the real console script


def _script() -> list:
    exe = Path(sys.executable).with_name("nbcert")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "nbcert.cli"]


def test_console_script_json(tmp_path):
    proc = subprocess.run(
        _script() + ["count", *files(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)["results"]
    assert res[0]["counts"] == {"p": "1", "e": "1"} and res[0]["ties"] == "2"


def test_module_entry_point_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "nbcert.cli", "certify", *files(tmp_path), "--label", "class"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"nbcert: error: {tmp_path / 'train.csv'}: no label column "
        f"'class' (columns: 'odor', 'cap', 'y')"
    ]


CLEAN = "odor,cap,y\nn,s,p\nn,x,p\nn,s,e\nf,s,e\nf,x,e\nf,x,e\n"
CLEAN_TEST = "odor,cap\nn,s\nn,x\n"


def test_poison_together_json(tmp_path, capsys):
    res = run_json(
        capsys, "poison", *files(tmp_path, CLEAN, CLEAN_TEST), "--together", "--method", "exact"
    )
    assert len(res) == 1
    r = res[0]
    assert r["test_indices"] == [0, 1] and r["method"] == "exact"
    assert (
        r["num_cells"] == len(r["cells"])
        and r["search_bound"] == r["num_cells"]
        and r["optimal"] == (r["lower_bound"] == r["num_cells"])
    )
    assert r["status"] == "poisoned"
    # blanking the reported cells makes both rows non-robust
    rows = [line.split(",") for line in CLEAN.strip().splitlines()]
    for c in r["cells"]:
        rows[1 + c["row"]][rows[0].index(c["column"])] = ""
    write(tmp_path, "poisoned.csv", "\n".join(",".join(x) for x in rows) + "\n")
    out = run_json(
        capsys,
        "certify",
        "--train",
        str(tmp_path / "poisoned.csv"),
        "--test",
        str(tmp_path / "test.csv"),
        "--label",
        "y",
    )
    assert [x["robust"] for x in out] == [False, False]


def test_poison_together_rejects_single_point_methods(tmp_path, capsys):
    rc, out, err = run(
        capsys, "poison", *files(tmp_path, CLEAN, CLEAN_TEST), "--together", "--method", "sr"
    )
    assert rc == 2 and "--together" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------
# --id


ID_TEST = "name,odor,cap\nA,n,s\n,n,x\n"  # the second row's id is empty


@pytest.mark.parametrize("command", ["certify", "count", "poison"])
def test_id_carried_to_json_and_text(tmp_path, capsys, command):
    train = PTRAIN if command == "poison" else TRAIN
    args = files(tmp_path, train, ID_TEST)
    res = run_json(capsys, command, *args, "--id", "name")
    assert [(r["test_index"], r["id"]) for r in res] == [(0, "A"), (1, None)]
    (tmp_path / "plain").mkdir()
    plain = run_json(capsys, command, *files(tmp_path / "plain", train, "odor,cap\nn,s\nn,x\n"))
    assert [{k: v for k, v in r.items() if k != "id"} for r in res] == plain  # not a feature
    rc, out, err = run(capsys, command, *args, "--id", "name")
    lines = out.splitlines()
    assert rc == 0 and lines[0].split()[:2] == ["test_index", "name"]
    assert lines[1].split()[:2] == ["0", "A"] and lines[2].split()[:3] == ["1", "(no", "id)"]


def test_id_with_poison_together_and_clean(tmp_path, capsys):
    args = files(tmp_path, CLEAN, "id,odor,cap\nr1,n,s\nr2,n,x\n")
    [res] = run_json(capsys, "poison", *args, "--together", "--id", "id")
    assert res["test_indices"] == [0, 1] and res["ids"] == ["r1", "r2"]
    rc, out, _ = run(capsys, "poison", *args, "--together", "--id", "id")
    assert out.splitlines()[-1] == "test points (id): r1, r2"
    dirty = write(tmp_path, "dirty.csv", blank_cells(CLEAN, [(2, "cap")]))
    truth = write(tmp_path, "truth.csv", CLEAN)
    clean_args = [
        "--train",
        dirty,
        "--test",
        args[3],
        "--label",
        "y",
        "--truth",
        truth,
        "--id",
        "id",
    ]
    rc, out, err = run(capsys, "clean", *clean_args, "--json")
    res = json.loads(out)["results"]
    assert rc == 0 and [(r["test_index"], r["id"]) for r in res] == [(0, "r1"), (1, "r2")]
    rc, out, _ = run(capsys, "clean", *clean_args)
    assert out.splitlines()[0].split()[:2] == ["test_index", "id"] and out.splitlines()[1].split()[
        :2
    ] == ["0", "r1"]


def test_id_errors(tmp_path, capsys):
    rc, out, err = run(capsys, "certify", *files(tmp_path, TRAIN, ID_TEST), "--id", "nom")
    assert_error(rc, out, err, "test.csv", "'nom'")
    rc, out, err = run(capsys, "certify", *files(tmp_path), "--id", "odor")
    assert_error(rc, out, err, "train.csv", "'odor'", "feature")


def test_the_label_column_may_name_the_test_rows(tmp_path, capsys):
    """--id naming the label column said "is a feature column of it"; the label is no
    feature, and the API takes it (the test file's label column is left out anyway)."""
    args = files(tmp_path, TRAIN, "odor,cap,y\nn,s,first\nn,x,second\n")
    res = run_json(capsys, "certify", *args, "--id", "y")
    assert [r["id"] for r in res] == ["first", "second"]
    assert [r["robust"] for r in res] == [r["robust"] for r in run_json(capsys, "certify", *args)]


def test_the_id_hint_is_quoted_for_the_shell(tmp_path, capsys):
    """A test column that is no training column is named with the flag that names the test
    rows, as a shell takes it: --id 'car id', not --id car id."""
    rc, out, err = run(capsys, "certify", *files(tmp_path, TRAIN, "car id,odor,cap\nA,n,s\n"))
    assert_error(rc, out, err, "(if it names the test points, pass --id 'car id')")


@pytest.mark.parametrize(
    "argv",
    [
        ["certify", "--train", "x.csv"],
        ["count", "--train", "x.csv", "--test", "y.csv", "--label", "c", "--worlds", "0"],
        ["bogus"],
        [],
    ],
)
def test_a_usage_error_is_one_line_with_a_pointer_to_help(argv, capsys):
    """A usage error is one line (not argparse's usage block) naming where to read more,
    begun ``nbcert: error:`` as the README and every other error say it (not ``nbcert
    certify: error:``)."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert re.fullmatch(r"nbcert: error: .+ \(see nbcert( \w+)? --help\)\n", err), err


@pytest.mark.parametrize("command", ["certify", "count", "poison", "clean"])
def test_each_command_s_help_ends_with_its_own_example(command, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"example: nbcert {command} "), last


def test_the_package_has_a_version():
    assert nbcert.__version__ == version("nbcert")


def test_a_library_warning_is_shown_once_and_the_command_ends():
    """A warning that is not a DataWarning is shown once after the command; replaying it
    inside the recording appended it to the list being replayed, forever."""
    code = (
        "import warnings\n"
        "from nbcert.cli import commands\n"
        "ran = commands._hinting(lambda a, s: warnings.warn('odd', RuntimeWarning) or 5)\n"
        "print(ran(None, None))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "5\n" and done.stderr.count("RuntimeWarning: odd") == 1


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--method", "sr"], ["'sr'", "alpha = 0"]),
        (["--together"], ["--alpha", "together"]),
    ],
)
def test_poison_alpha_needs_op_on_single_rows(tmp_path, capsys, extra, words):
    rc, out, err = run(capsys, "poison", *files(tmp_path), "--alpha", "1", *extra)
    assert_error(rc, out, err, *words)
