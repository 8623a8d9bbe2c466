"""Fetching CPClean's spaces: every listed file copied and its sha256 checked, a changed
file refused in one line, a space that cannot be obtained recorded (skip) or fatal (fail)."""

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from common.errors import FetchError
from studies.cpclean.fetch import fetch, listed, main

FILES = {"X_train_dirty.csv": b"a\n1\n\n", "X_train_repairs/mean.csv": b"a\n1\n1\n"}


@pytest.fixture
def mirror(tmp_path):
    lines = []
    for name, data in FILES.items():
        path = tmp_path / "mirror" / "cpclean" / "Demo" / "real" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        lines.append(f"{hashlib.sha256(data).hexdigest()}  ./Demo/real/{name}")
    lines.append(f"{'0' * 64}  ./Other/real/X_train_dirty.csv")
    (tmp_path / "sums").write_text("\n".join(lines) + "\n")
    return tmp_path


SOURCE = {"repository": "chu-data-lab/CPClean", "commit": "0" * 40, "folder": "data"}


def test_only_the_space_listed_is_fetched_each_file_checked(mirror):
    assert set(listed(mirror / "sums", "Demo/real")) == set(FILES)
    how = fetch("Demo/real", mirror / "out", SOURCE, mirror / "sums", mirror / "mirror")
    assert how.startswith("mirror")
    for name, data in FILES.items():
        assert (mirror / "out" / name).read_bytes() == data
    assert not (mirror / "out" / "Other").exists()


def test_a_changed_file_is_refused_in_one_line(mirror):
    (mirror / "mirror/cpclean/Demo/real/X_train_dirty.csv").write_bytes(b"a\n2\n\n")
    with pytest.raises(FetchError, match=r"Demo/real/X_train_dirty.csv: sha256 is .* lists"):
        fetch("Demo/real", mirror / "out", SOURCE, mirror / "sums", mirror / "mirror")


def test_a_space_not_listed_is_named(mirror):
    with pytest.raises(FetchError, match="no file of the space 'Bank/systematic'"):
        listed(mirror / "sums", "Bank/systematic")


def _job(mirror, on_unavailable, space="Demo/real"):
    options = {"mirror": str(mirror / "mirror"), "on_unavailable": on_unavailable}
    return SimpleNamespace(
        params=SimpleNamespace(source=json.dumps(SOURCE), options=json.dumps(options)),
        input=SimpleNamespace(checksums=str(mirror / "sums")),
        output=[str(mirror / "out" / space)],
        wildcards=SimpleNamespace(space=space),
    )


def test_unobtainable_space_is_recorded_with_skip_and_fatal_with_fail(mirror, monkeypatch):
    (mirror / "mirror/cpclean/Demo/real/X_train_dirty.csv").unlink()

    def offline(*a, **k):
        raise OSError("no network here")

    monkeypatch.setattr("urllib.request.urlopen", offline)
    main(_job(mirror, "skip"))
    status = json.loads(Path(mirror / "out/Demo/real/status.json").read_text())
    assert status == {
        "space": "Demo/real",
        "ok": False,
        "reason": "Demo/real: cannot download X_train_dirty.csv (no network here)",
    }
    assert sorted(p.name for p in (mirror / "out/Demo/real").iterdir()) == ["status.json"]
    with pytest.raises(FetchError, match="cannot download X_train_dirty.csv"):
        main(_job(mirror, "fail"))
