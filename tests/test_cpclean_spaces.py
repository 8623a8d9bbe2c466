"""The command line on CPClean's benchmark spaces, where they are beside the clone
(``../shared/datasets/cpclean``): the five ways it broke there, each run as a user runs it,
in a process of its own whose memory is capped (it must never take the machine) and whose
peak resident memory (VmHWM) is read back; and candidate repairs beside the domain.

The small self-contained versions of the same failures are in ``test_bounded_memory.py``,
``test_cleaning.py`` and ``test_user_inputs.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPACES = ROOT / "../shared/datasets/cpclean"
pytestmark = pytest.mark.skipif(
    not SPACES.is_dir(), reason="CPClean's spaces are not beside the clone"
)

CAP = 6_000_000_000  # address space of each run: a blow-up fails here, not on the machine
PEAK = 2 * 2**30  # the most resident memory a run may reach

RUN = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from nbcert.cli import main
rc = main(sys.argv[1:])
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM"))
sys.stderr.write("peak-kb " + peak.split()[1] + "\\n")
sys.exit(rc)
"""


def nbcert(*argv, timeout: int = 300) -> tuple:
    """(exit status, stdout, stderr lines but the peak's, peak resident bytes) of one run."""
    code = RUN.format(cap=CAP)
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = done.stderr.splitlines()
    peak = [int(line.split()[1]) * 1024 for line in lines if line.startswith("peak-kb")]
    assert peak, done.stderr  # no traceback ended the run before its last line
    return done.returncode, done.stdout, [x for x in lines if not x.startswith("peak-kb")], peak[0]


def _joined(X: Path, y: Path, out: Path) -> str:
    """A training file as a user makes it: CPClean's features and labels side by side."""
    rows = [a + "," + b for a, b in zip(X.read_text().splitlines(), y.read_text().splitlines())]
    out.write_text("\n".join(rows) + "\n")
    return str(out)


@pytest.fixture(scope="module")
def spaces(tmp_path_factory) -> dict:
    """Per space: its training file, its truth (CPClean's X_train_clean.csv with the
    labels), its first 1000 validation rows, its first non-robust one at alpha 1, its
    repairs folder and its label column."""
    tmp = tmp_path_factory.mktemp("cpclean")
    out = {}
    for name, folder in (("baby", "BabyProduct/real"), ("bank", "Bank/systematic")):
        src = SPACES / folder
        label = (src / "y_train.csv").read_text().splitlines()[0]
        val = (src / "X_val.csv").read_text().splitlines()
        (tmp / f"{name}_val.csv").write_text("\n".join(val[:1001]) + "\n")
        (tmp / f"{name}_row.csv").write_text("\n".join([val[0], val[6]]) + "\n")
        out[name] = {
            "train": _joined(src / "X_train_dirty.csv", src / "y_train.csv", tmp / f"{name}.csv"),
            "truth": _joined(src / "X_train_clean.csv", src / "y_train.csv", tmp / f"{name}_t.csv"),
            "val": str(tmp / f"{name}_val.csv"),
            "row": str(tmp / f"{name}_row.csv"),
            "repairs": str(src / "X_train_repairs"),
            "label": label,
        }
    return out


def _clean(s: dict, test: str, *extra) -> list:
    return ["clean", "--train", s["train"], "--truth", s["truth"], "--test", s[test],
            "--label", s["label"], "--bins", "5", *extra]  # fmt: skip


def test_alpha_one_on_brandproduct_stops_in_one_line_before_listing(spaces):
    """One validation row at alpha 1: brand's 148 values seen only among its missing cells
    gave 2^148 column end states, listed before the 4,096 limit was checked (24 GB, then a
    MemoryError traceback under a cap).  Now one line, at once."""
    rc, out, err, peak = nbcert(*_clean(spaces["baby"], "row", "--alpha", "1"))
    assert rc == 2 and out == "" and peak < PEAK
    (line,) = [e for e in err if e.startswith("nbcert: error:")]
    assert "4,096 column domain outcomes" in line and "'brand' (148)" in line
    assert "alpha 0" in line and not any("Traceback" in e for e in err)


def test_exact_on_bank_stays_bounded(spaces):
    """--method exact on Bank (alpha 0) built every vector of group counts at once
    (ArrayMemoryError at 4 GB): now an answer within the memory bound."""
    rc, out, err, peak = nbcert(*_clean(spaces["bank"], "val", "--method", "exact", "--json"))
    assert rc == 0 and peak < PEAK, err
    together = json.loads(out)["together"]
    assert together["num_cells"] and together["lower_bound"] <= together["num_cells"]


def test_babyproduct_truth_rounding_unseen_values_and_rows_set_aside(spaces):
    """CPClean's own X_train_clean.csv is read (its rounded floats: one warning with the raw
    values); the unseen-value warning counts the 663 values no observed training cell
    holds (24 of them nowhere, not even in the truth); those 24 rows are set aside and the
    answer for the others is given, optimal with its bound."""
    rc, out, err, peak = nbcert(*_clean(spaces["baby"], "val", "--json"))
    assert rc == 0 and peak < PEAK, err
    differ = [e for e in err if "observed cells of" in e]
    assert (
        len(differ) == 1
        and "'19.21407939' where" in differ[0]
        and "'19.2140793918919'" in differ[0]
    )
    (unseen,) = [e for e in err if "never occur" in e]
    assert unseen.startswith(
        "nbcert: warning: 663 test values (in 663 of 1000 test points; column 'brand')"
    )
    assert "at alpha = 0" in unseen and unseen.endswith("24 occur nowhere, not even in the truth")
    doc = json.loads(out)
    together = doc["together"]
    assert len(together["excluded"]) == 24 and together["num_cells"] is not None
    assert together["optimal"] == (together["lower_bound"] == together["num_cells"])
    excluded = {r["test_index"] for r in doc["results"] if r["num_cells"] is None}
    assert set(together["excluded"]) == excluded


def test_the_unseen_warning_at_alpha_one_says_what_alpha_does(spaces):
    rc, _, err, _ = nbcert(
        "certify", "--train", spaces["baby"]["train"], "--test", spaces["baby"]["val"],
        "--label", spaces["baby"]["label"], "--bins", "5", "--alpha", "1", "--json",
    )  # fmt: skip
    (unseen,) = [e for e in err if "never occur" in e]
    assert rc == 0 and "alpha = 0" not in unseen and "at alpha = 1" in unseen


@pytest.mark.parametrize("name", ["baby", "bank"])
def test_candidate_repairs_beside_the_domain(spaces, name):
    """With CPClean's repairs as candidates (binned, as the numbers are) the share of
    certain validation rows is given; on Bank every candidate is a bin of the observed
    domain, so it cannot fall below the share without them."""
    s = spaces[name]
    base = ["certify", "--train", s["train"], "--test", s["val"], "--label", s["label"]]
    shares = []
    for extra in ([], ["--candidates", s["repairs"]]):
        rc, out, err, peak = nbcert(*base, "--bins", "5", "--json", *extra)
        assert rc == 0 and peak < PEAK, err
        robust = [r["robust"] for r in json.loads(out)["results"]]
        shares.append(sum(robust) / len(robust))
    if name == "bank":
        assert shares[1] >= shares[0]
