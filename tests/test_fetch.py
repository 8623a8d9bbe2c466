"""Stage 1: fetching from the mirror and through kagglehub (a prepared cache, a fake failure),
and what a fetch records when a data set cannot be obtained."""

import hashlib
import json
from pathlib import Path

import pytest
from common.settings import mirror_folder
from data_status import require_one
from fetch import (
    FetchError,
    Source,
    Unavailable,
    fetch,
    fetch_into,
)

CSV = b"a,b,label\nx,y,p\n"
SHA = hashlib.sha256(CSV).hexdigest()


@pytest.fixture
def mirror(tmp_path):
    folder = tmp_path / "mirror"
    folder.mkdir()
    (folder / "data.csv").write_bytes(CSV)
    return folder


def test_mirror_copy_is_verified(mirror, tmp_path):
    src = Source("demo", "data.csv", kaggle="someone/demo", sha256=SHA)
    status = fetch(src, mirror, tmp_path / "out" / "data.csv")
    assert (tmp_path / "out" / "data.csv").read_bytes() == CSV
    assert status["ok"] and status["sha256"] == SHA and status["source"].startswith("mirror")
    assert status["warning"] is None


def test_checksum_mismatch_is_refused_and_nothing_written(mirror, tmp_path):
    src = Source("demo", "data.csv", kaggle="someone/demo", sha256="0" * 64)
    with pytest.raises(FetchError, match="sha256 .* but the config expects"):
        fetch(src, mirror, tmp_path / "out" / "data.csv")
    assert not (tmp_path / "out" / "data.csv").exists()


def test_missing_checksum_is_recorded_with_a_warning(mirror, tmp_path):
    status = fetch(Source("demo", "data.csv", kaggle="someone/demo"), mirror, tmp_path / "d.csv")
    assert status["sha256"] == SHA and SHA in status["warning"]


def test_environment_variable_wins_over_config(monkeypatch, tmp_path):
    monkeypatch.setenv("NBCERT_DATA_MIRROR", str(tmp_path))
    assert mirror_folder("/elsewhere") == tmp_path
    monkeypatch.delenv("NBCERT_DATA_MIRROR")
    assert mirror_folder("/elsewhere") == Path("/elsewhere")
    assert mirror_folder(None) is None


def test_kagglehub_download_from_a_prepared_cache(monkeypatch, tmp_path):
    """The real kagglehub code path, served by its own cache instead of the network."""
    from kagglehub.cache import Cache
    from kagglehub.handle import parse_dataset_handle

    monkeypatch.setenv("KAGGLEHUB_CACHE", str(tmp_path / "cache"))
    handle = parse_dataset_handle("someone/demo/versions/3")
    cached = Path(Cache().get_path(handle, "data.csv"))
    cached.parent.mkdir(parents=True)
    cached.write_bytes(CSV)
    Cache().mark_as_complete(handle, "data.csv")
    src = Source("demo", "data.csv", kaggle="someone/demo", version=3, sha256=SHA)
    status = fetch(src, None, tmp_path / "out.csv")
    assert status["source"] == "kaggle someone/demo" and (tmp_path / "out.csv").read_bytes() == CSV


def test_unreachable_kaggle_names_both_ways(monkeypatch, tmp_path):
    import kagglehub

    def offline(*args, **kwargs):
        raise ConnectionError("Failed to resolve 'www.kaggle.com'")

    monkeypatch.setattr(kagglehub, "dataset_download", offline)
    src = Source("demo", "data.csv", kaggle="someone/demo", sha256=SHA)
    with pytest.raises(Unavailable) as e:
        fetch(src, tmp_path, tmp_path / "out.csv")
    msg = str(e.value)
    assert "data.csv" in msg and "mirror" in msg and "Kaggle access" in msg and "resolve" in msg
    assert "\n" not in msg


def test_local_file_source(tmp_path):
    f = tmp_path / "mine.csv"
    f.write_bytes(CSV)
    status = fetch(
        Source("mine", "mine.csv", local=str(f), sha256=SHA), None, tmp_path / "o" / "mine.csv"
    )
    assert status["source"] == "local file"
    with pytest.raises(Unavailable, match="does not exist"):
        fetch(
            Source("mine", "mine.csv", local=str(tmp_path / "nope.csv")), None, tmp_path / "x.csv"
        )


def test_a_fetch_records_its_outcome_beside_the_file(mirror, tmp_path):
    src = Source("demo", "data.csv", kaggle="someone/demo", sha256=SHA)
    status = fetch_into(src, mirror, tmp_path / "raw", "fail", say=lambda _: None)
    assert (tmp_path / "raw" / "data.csv").read_bytes() == CSV
    assert json.loads((tmp_path / "raw" / "status.json").read_text()) == status and status["ok"]


def test_an_unavailable_data_set_is_skipped_or_stops_the_run(tmp_path):
    src = Source("mine", "mine.csv", local=str(tmp_path / "nope.csv"))
    said = []
    status = fetch_into(src, None, tmp_path / "skip", "skip", say=said.append)
    assert not status["ok"] and "does not exist" in status["reason"] and "skipping" in said[0]
    assert json.loads((tmp_path / "skip" / "status.json").read_text()) == status
    with pytest.raises(Unavailable, match="does not exist"):
        fetch_into(src, None, tmp_path / "fail", "fail", say=said.append)
    assert not (tmp_path / "fail" / "status.json").exists()


def test_the_run_stops_in_one_line_only_when_no_data_set_was_obtained():
    lost = {"ok": False, "data set": "a", "reason": "a: not in the mirror folder /m"}
    got = {"ok": True, "data set": "b"}
    assert require_one([lost, got]) == [lost, got]
    with pytest.raises(
        FetchError, match=r"^no data set could be obtained \(a, a\).*not in the mirror folder /m$"
    ):
        require_one([lost, dict(lost)])
