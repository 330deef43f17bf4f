"""Bounded work on overlapping and compression bombs: an overlapping ("quine") bomb, whose
entries share one kernel, ends in seconds in both commands; entries that overlap (W611) or
declare a bomb's ratio (W612) are never inflated; an archive's inflated bytes are capped."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from wheelkit import central_record, end_record, raw_layout, raw_member, raw_zip

from k3diff.errors import CorruptEntryError
from k3diff.zip import bounds
from k3diff.zip.archive import ZipArchive
from zip import crafted

SECONDS = 5.0


def _timed(*args: str | Path) -> tuple[float, int, dict[str, Any]]:
    started = time.monotonic()
    result = run_k3diff(*args, "--format", "json")
    elapsed = time.monotonic() - started
    assert result.stderr == ""
    return elapsed, result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("hashed_record", [False, True], ids=["plain-record", "hashed-record"])
def test_a_quine_bomb_ends_in_seconds_in_wheels(tmp_path: Path, hashed_record: bool) -> None:
    base = crafted.base_wheel(tmp_path / "base")
    bomb = crafted.quine_bomb(tmp_path / "bomb", hashed_record=hashed_record)
    assert bomb.stat().st_size < 4 << 20  # a few MB that would inflate to 4 TB
    elapsed, code, report = _timed("wheels", base, bomb)
    assert code == 1
    codes = {f["code"] for f in report["findings"]}
    # Overlapping entries are never inflated: one whose RECORD hash asks to be read is W604.
    assert ({"W611", "W604"} if hashed_record else {"W611"}) <= codes
    assert elapsed < SECONDS, f"wheels took {elapsed:.1f} s"


def test_a_quine_bomb_ends_in_seconds_in_audit(tmp_path: Path) -> None:
    bomb = crafted.quine_bomb(tmp_path, hashed_record=True)
    elapsed, code, report = _timed("audit", bomb)
    assert code == 1
    (artifact,) = report["artifacts"]
    assert {"W611", "W604"} <= {f["code"] for f in artifact["findings"]}
    assert elapsed < SECONDS, f"audit took {elapsed:.1f} s"


def test_an_overlapping_entry_is_never_read(tmp_path: Path) -> None:
    member = raw_member("a.txt", b"x" * 1000)
    body, layout = raw_layout([member])
    twice = layout.directory + central_record(member, 0)  # a second record, same bytes
    path = tmp_path / "a.zip"
    path.write_bytes(
        body
        + central_record(member, 0)
        + end_record(2, len(twice), len(body) - len(layout.directory))
    )
    with ZipArchive.open(path) as archive:
        readable = 0
        for entry in archive.entries:
            try:
                readable += b"".join(archive.content_chunks(entry)) == b"x" * 1000
            except CorruptEntryError as exc:
                assert "overlapping entries, W611" in exc.problem
        assert (len(archive.entries), readable) == (2, 1)


def test_an_archive_inflates_a_bounded_multiple_of_what_it_declares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_FACTOR", 2)
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_SLACK", 0)
    path = tmp_path / "a.zip"
    path.write_bytes(raw_zip([raw_member("a.txt", b"x" * 1000)]))
    with ZipArchive.open(path) as archive:
        (entry,) = archive.entries
        for _ in range(2):
            assert b"".join(archive.content_chunks(entry)) == b"x" * 1000
        with pytest.raises(CorruptEntryError, match="inflate budget of 2,000 bytes"):
            b"".join(archive.content_chunks(entry))


def test_a_small_read_stops_once_the_budget_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`small_content` spends as `content_chunks` does, from its first read (the budget made
    then) to the ones after: the read that would pass the budget gives None (the stream then
    says why), and so does every later one."""
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_FACTOR", 2)
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_SLACK", 0)
    path = tmp_path / "a.zip"
    path.write_bytes(raw_zip([raw_member("a.txt", b"x" * 1000)]))
    with ZipArchive.open(path) as archive:
        (entry,) = archive.entries
        assert [archive.small_content(entry) for _ in range(4)] == [b"x" * 1000] * 2 + [None] * 2
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_FACTOR", 1)
    with ZipArchive.open(path) as archive:
        (entry,) = archive.entries
        assert archive.small_content(entry) == b"x" * 1000
        assert archive.small_content(entry) is None
