"""Memory stays bounded: every enumeration is sized before it is built, and a search past
its limit stops with one line naming the limit and the way on.

Two enumerations took the machine's memory on CPClean's benchmark spaces: the per-row
search's column end states (a column with 148 values seen only among its missing cells
listed 2^148 of them before its limit was checked), and the exhaustive search's vectors of
group counts (their number, counted in floats, came out 0 where it was 168,245, so the
search took them all at once)."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbcert
from nbcert.milp import count_vectors, vectors_between


def _peak(call) -> tuple:
    """(what ``call()`` returned or raised, the peak of Python's traced allocations in MB)."""
    tracemalloc.start()
    try:
        try:
            got = call()
        except Exception as e:  # noqa: BLE001 - the caller checks what it was
            got = e
        return got, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _many_new_values(k: int) -> tuple:
    """A dirty table whose column ``brand`` holds k values only among its missing cells
    (their truths), a test row that is not robust, at alpha 1."""
    brands = [f"b{i}" for i in range(k)]
    truth = pd.DataFrame(
        {
            "brand": ["a", "a", "c", "c"] + brands,
            "size": ["s", "l", "s", "l"] + ["s"] * k,
            "y": ["p", "q", "q", "p"] + ["p", "q"] * (k // 2) + ["p"] * (k % 2),
        }
    )
    dirty = truth.copy()
    dirty.loc[4:, "brand"] = None
    return dirty, truth, pd.DataFrame({"brand": ["a"], "size": ["s"]})


def test_column_end_states_are_counted_before_they_are_listed():
    """18 values seen only among one column's missing cells: 2^18 end states of that column
    (the limit is 4,096); the search refuses before listing one of them."""
    dirty, truth, test = _many_new_values(18)
    assert not nbcert.certify(dirty, test, "y", alpha=1).robust.iloc[0]
    got, mb = _peak(lambda: nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1))
    assert isinstance(got, nbcert.InputError) and "4,096 column domain outcomes" in str(got)
    assert "'brand' (18)" in str(got) and "alpha 0" in str(got)
    assert mb < 20, f"{mb:.0f} MB traced"


def test_a_column_with_few_new_values_is_still_searched_exactly():
    """Below the limit the end states are listed as before: the minimum is exact."""
    from brute import brute_min_clean

    dirty, truth, test = _many_new_values(3)
    (pt,) = nbcert.clean_with_truth(dirty, truth, test, "y", alpha=1).points
    want = brute_min_clean(dirty, truth, "y", [{"brand": "a", "size": "s"}], 1)
    assert pt.num_cells == want


# the group sizes of CPClean's Bank space (binned, 5 bins): 2,022 cells in 20 groups
BANK_CAPS = [52, 72, 23, 148, 61, 175, 21, 158, 49, 79, 131, 88, 113, 31, 116, 85, 122, 1, 340, 157]


def test_vectors_near_the_top_are_counted_exactly():
    """Vectors of 20 group counts summing to 2,016 of 2,022: as many as ways to leave out 6
    cells (168,245); in floats the count was 0, so the exhaustive search thought the
    instance small and built every vector at once (20 GB)."""
    caps = np.array(BANK_CAPS)
    ways = [1] + [0] * 6  # vectors of the cells left out, by their number: plain integers
    for c in BANK_CAPS:
        ways = [sum(ways[s - b] for b in range(min(c, s) + 1)) for s in range(7)]
    want = ways[6]
    assert vectors_between(caps, 2016, 2016) == want == 168_245
    assert vectors_between(caps, 2016, 2019, limit=1000) == math.inf
    assert max(len(X) for X in count_vectors(caps, 2016, rows=260)) <= 260


def test_vector_blocks_never_build_rows_they_drop():
    """Two groups of 2,000 cells, 2,000 in all: 2,001 vectors, and no intermediate array
    larger than them (the old build made 2 million rows to keep 2,001)."""
    caps = np.array([2000, 2000])
    got, mb = _peak(lambda: sum(len(X) for X in count_vectors(caps, 2000, rows=1 << 15)))
    assert got == 2001 and mb < 5, f"{mb:.1f} MB traced"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 4), max_size=5),
    st.integers(0, 20),
    st.integers(0, 20),
    st.integers(1, 6),
    st.one_of(st.none(), st.integers(0, 8)),
)
def test_vector_counts_and_lists_match_enumeration(caps, lo, hi, rows, limit):
    caps = np.array(caps, np.int64)
    every = list(itertools.product(*[range(c + 1) for c in caps.tolist()]))
    want = sum(1 for x in every if lo <= sum(x) <= hi)
    got = vectors_between(caps, lo, hi, math.inf if limit is None else limit)
    assert got == (want if limit is None or want <= limit else math.inf)
    blocks = list(count_vectors(caps, hi, rows))
    listed = sorted(tuple(r) for X in blocks for r in X.tolist())
    assert listed == sorted(x for x in every if sum(x) == hi)
    assert all(len(X) <= rows for X in blocks) or len(caps) == 0


def test_the_exact_program_is_given_up_at_its_size_limit(monkeypatch):
    """The exact program is built point by point and given up as soon as it passes its
    column limit: the answer is greedy's with its proven bound, and a warning says which
    limit stopped it."""
    from nbcert.cleaning import program

    dirty = pd.DataFrame(
        {
            "f0": ["b", "a", None, "a", "b", "a"],
            "f1": ["a", None, "a", "a", None, "b"],
            "y": ["p", "q", "p", "p", "p", "q"],
        }
    )
    truth = dirty.assign(f0=["b", "a", "a", "a", "b", "a"], f1=["a", "b", "a", "a", "b", "b"])
    test = pd.DataFrame({"f0": ["a", "b"], "f1": ["a", "b"]})
    monkeypatch.setattr(program, "ONE_HOT_MAX_COLUMNS", 3)
    monkeypatch.setattr("nbcert.cleaning.together.small", lambda *a: False)  # no enumeration
    with pytest.warns(nbcert.DataWarning, match="size limit"):
        tg = nbcert.clean_with_truth(dirty, truth, test, "y", method="exact").together
    assert tg.memory_limited and tg.possible and tg.lower_bound <= tg.num_cells


def _nursery_like(folder) -> list:
    """A table of Nursery's shape (12,960 rows, 8 features of 3-5 values, labels tied to
    them), 10-30 % of each column's cells missing, and two test rows: the paths of the
    dirty table, its truth and the test rows."""
    rng = np.random.default_rng(12960)
    n, sizes = 12_960, [3, 5, 4, 4, 3, 3, 3, 4]
    X = np.column_stack([rng.integers(0, s, n + 2) for s in sizes])
    z = X @ rng.normal(0.6, 0.4, len(sizes)) + rng.normal(0, 1.0, n + 2)
    table = pd.DataFrame({f"f{j}": [f"v{v}" for v in X[:, j]] for j in range(len(sizes))})
    table["y"] = [f"L{v}" for v in np.digitize(z, np.quantile(z, [0.3, 0.6, 0.85]))]
    truth, test = table.iloc[:n], table.iloc[n:, :-1]
    dirty = truth.copy()
    for c in table.columns[:-1]:
        dirty.loc[rng.random(n) < rng.uniform(0.1, 0.3), c] = None
    paths = [folder / f for f in ("dirty.csv", "truth.csv", "test.csv")]
    for frame, path in zip((dirty, truth, test), paths):
        frame.to_csv(path, index=False)
    return [str(p) for p in paths]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux has it")
@pytest.mark.parametrize("question", [["--alpha", "1"], ["--method", "exact"]])
def test_clean_with_the_truth_stays_under_two_gigabytes(tmp_path, question):
    """clean --truth on a table of 12,960 rows, in a process capped at 2 GB of address space
    (RLIMIT_AS): an answer, never a crash or an out-of-memory error (the exact program's
    solve took HiGHS past the cap; it is now given up where it would not fit, and the
    answer says so)."""
    dirty, truth, test = _nursery_like(tmp_path)
    cap = "import resource as r, sys; r.setrlimit(r.RLIMIT_AS, (2 << 30, 2 << 30)); "
    code = cap + "from nbcert.cli import main; sys.exit(main())"
    args = ["clean", "--train", dirty, "--truth", truth, "--test", test, "--label", "y"]
    run = subprocess.run(
        [sys.executable, "-c", code, *args, "--batch", "100", "--json", *question],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    together = json.loads(run.stdout)["together"]
    assert together["certified_rows"] == together["target_rows"] == 2
    assert together["optimal"] or together["why_not_optimal"]


def test_a_program_that_would_not_fit_is_not_solved(monkeypatch):
    """A program whose solve is expected to take more than the memory left is not handed to
    HiGHS: the solve says so (memory_limited), and the answer for all rows together is
    greedy's with its proven bound, saying which limit stopped the search."""
    from nbcert import milp

    prog = milp.Program()
    x = prog.int_var(0, 3, 1.0)
    prog.row({x: 1.0}, 1, 3)
    assert prog.solve(10).value == 1
    monkeypatch.setattr(milp, "memory_left", lambda: prog.memory() - 1)
    got = prog.solve(10)
    assert got.memory_limited and got.x is None and got.limit == "memory"
    dirty = pd.DataFrame({"f0": ["b", "a", None, "a", "b", "a"], "y": list("pqpppq")})
    dirty.insert(1, "f1", ["a", None, "a", "a", None, "b"])
    truth = dirty.assign(f0=["b", "a", "a", "a", "b", "a"], f1=["a", "b", "a", "a", "b", "b"])
    test = pd.DataFrame({"f0": ["a", "b"], "f1": ["a", "b"]})
    monkeypatch.setattr("nbcert.cleaning.together.small", lambda *a: False)  # no enumeration
    with pytest.warns(nbcert.DataWarning, match="size limit"):
        tg = nbcert.clean_with_truth(dirty, truth, test, "y", method="exact").together
    assert tg.memory_limited and not tg.optimal and tg.why_not_optimal == "size limit"
    assert tg.possible and tg.lower_bound <= tg.num_cells


def test_out_of_memory_is_one_line(monkeypatch, capsys, tmp_path):
    """A MemoryError (the machine's, or ulimit's) is one line naming the ways on."""
    import nbcert.api
    from nbcert.cli import main

    (tmp_path / "t.csv").write_text("f,y\na,p\n,q\n")
    (tmp_path / "q.csv").write_text("f\na\n")

    def full(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(nbcert.api.certification, "certify_index", full)
    argv = ["certify", "--train", str(tmp_path / "t.csv"), "--test", str(tmp_path / "q.csv")]
    assert main([*argv, "--label", "y"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("nbcert: error: out of memory")
    assert "--bins N" in err and "--candidates FILE" in err


# ---------------------------------------------------------------------------------------
# exact counting, sized from the counts


def _capped(cap_mb: int, *argv, cwd) -> tuple:
    """(exit status, stdout, the lines on stderr, peak MB) of the command line run in a
    process capped at ``cap_mb`` of address space (resource's RLIMIT_AS)."""
    from test_not_a_table import _limited

    rc, lines, peak, out = _limited(*argv, cwd=cwd, limit_mb=cap_mb, timeout=600)
    return rc, out, lines, peak


def _numeric_table(folder, rows: int, features: int, blanks: float, seed: int, ints: int = 0):
    """train.csv (a binary label, ``features`` numeric columns: normal floats, or integers
    below ``ints``, a share ``blanks`` of them blank) and test.csv (two rows)."""
    rng = np.random.default_rng(seed)
    draw = (
        (lambda: rng.integers(0, ints, rows)) if ints else (lambda: rng.normal(size=rows).round(3))
    )
    X = pd.DataFrame({f"x{j}": draw() for j in range(features)})
    middle = (ints - 1) / 2 if ints else 0.0
    y = np.where(X["x0"] + rng.normal(size=rows) > middle, "claim", "none")
    X.mask(rng.random(X.shape) < blanks).assign(y=y).to_csv(folder / "train.csv", index=False)
    X.iloc[:2].to_csv(folder / "test.csv", index=False)
    return ["--train", "train.csv", "--test", "test.csv", "--label", "y"]


CAP_MB = 2048  # every command stays under 2 GB
PEAK_MB = 768  # what refusing an exact count may cost (the old code: 1.2-2.5 GB)


def test_exact_counting_on_an_insurance_sized_table_refuses_within_its_memory(tmp_path):
    """20,140 rows, 7 numeric features with 5 % blanks, --bins 5: the supports' residues
    were listed whole before the count said "too large" (2.5 GB on the insurance table);
    now the residues are merged a bounded number at a time and the refusal comes early."""
    files = _numeric_table(tmp_path, 20_140, 7, 0.05, seed=52)
    rc, out, lines, peak = _capped(
        CAP_MB, "count", *files, "--bins", "5", "--method", "exact", cwd=tmp_path
    )
    assert rc == 2 and out == "", lines
    assert lines[-1] == (
        "nbcert: error: exact counting is too large here (more than 2000000 distinct supports "
        "for one label); use the bounds or montecarlo method"
    )
    assert peak < PEAK_MB, f"{peak} MB"


def test_exact_counting_whose_ways_would_not_fit_is_refused_before_it_is_built(tmp_path):
    """40,000 rows, 2 features of 16 values, 5 % blanks: 415,000 distinct supports per label,
    few enough, but each with a number of ways of 7,900 bits: about 3.4 GB, which the old
    code started to build (out of memory under the cap); now refused from the counts."""
    files = _numeric_table(tmp_path, 40_000, 2, 0.05, seed=7, ints=16)
    rc, out, lines, peak = _capped(CAP_MB, "count", *files, "--method", "exact", cwd=tmp_path)
    assert rc == 2 and out == "", lines
    (line,) = lines
    assert line.startswith("nbcert: error: exact counting is too large here (about ")
    assert "distinct supports of one label" in line and "GB exact counting may hold" in line
    assert line.endswith("use the bounds or montecarlo method") and peak < PEAK_MB, peak
    rc, out, lines, peak = _capped(CAP_MB, "count", *files, "--json", cwd=tmp_path)
    assert rc == 0 and peak < CAP_MB  # auto: the proven bounds answer


@settings(max_examples=60, deadline=None)
@given(
    res=st.lists(st.integers(0, 2**31 - 2), min_size=1, max_size=60),
    f=st.lists(st.integers(0, 2**31 - 2), min_size=1, max_size=9),
    cells=st.integers(1, 40),
)
def test_residues_merged_a_part_at_a_time_are_the_residues(res, f, cells):
    """The products formed ``RESIDUE_CELLS`` at a time and merged give the distinct residues
    of all products at once."""
    from nbcert.count import states

    want = np.unique((np.array(res, np.int64)[:, None] * np.array(f, np.int64)) % states._PRIME)
    old, states.RESIDUE_CELLS = states.RESIDUE_CELLS, cells
    try:
        got = states._times(np.unique(res).astype(np.int64), np.array(f, np.int64), 10**9)
    finally:
        states.RESIDUE_CELLS = old
    assert np.array_equal(got, want)
