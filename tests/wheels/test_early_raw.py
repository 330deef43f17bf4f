"""The huge pairs' comparisons started before pairing (`wheels.early`: raw bytes, or the content
of a recompressed pair) reach the same report as the proofs that compare them on the pool: same
entries, field for field, same findings, same exit code, or the same error. Exercised on small
entries by lowering the thresholds, on equal, forged, recompressed, renamed and randomly damaged
wheels."""

from __future__ import annotations

import os
import threading
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given

from k3diff.errors import K3diffError
from k3diff.wheels import early, headstart
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.zip.archive import ZipArchive
from wheels.damage_support import Edit, damage_edits, damage_settings, write_damaged

BIG = os.urandom(6000) + bytes(6000)
FILES = {
    "pkg/lib.so": wheelkit.elf_bytes(BIG),
    "pkg/data/blob.bin": BIG[::-1],
    "pkg/other.bin": BIG[:9000],
    **{f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() * 30 for i in range(12)},
}


pytestmark = pytest.mark.usefixtures("small_proof_thresholds")
"""Entries of a few KiB take the huge entries' paths (split compare, early start: conftest)."""


def _wheel(directory: Path, files: dict[str, bytes], **kwargs: Any) -> Path:
    return wheelkit.make_wheel(directory, "pkg", "1.0", files, **kwargs)


def _outcome(base: Path, patch: Path) -> tuple[Any, ...]:
    try:
        report = compare_wheels(base, patch, WheelOptions(jobs=2, file_hash=False))
    except K3diffError as exc:
        return ("error", type(exc).__name__, str(exc))
    return (report.entries, report.findings, report.filtered, report.exit_code, report.summary)


def both_ways(base: Path, patch: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The outcome with the early start and without; asserts they are the same."""
    fast = _outcome(base, patch)
    with monkeypatch.context() as patched:
        patched.setattr(headstart, "EARLY_BYTES", 1 << 62)
        slow = _outcome(base, patch)
    assert fast == slow
    return fast


def _started(base: Path, patch: Path) -> int:
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        return len(early._candidates(b, p))


def _content_started(base: Path, patch: Path) -> int:
    """How many of the started comparisons are of content (recompressed pairs)."""
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        return sum(
            (x.method, x.compressed_size) != (y.method, y.compressed_size)
            for x, y in early._candidates(b, p)
        )


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each content answer the pool asked for had been started."""
    asked: list[bool] = []
    original = early.EarlyRaw.content

    def content(self: early.EarlyRaw, *entries: Any) -> Any:
        found = original(self, *entries)
        asked.append(found is not None)
        return found

    monkeypatch.setattr(early.EarlyRaw, "content", content)
    return asked


def test_equal_huge_entries_are_proven_by_the_early_compare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _wheel(tmp_path / "b", FILES)
    patch = _wheel(tmp_path / "p", FILES)
    assert _started(base, patch) == 3
    asked: list[bool] = []
    original = early.EarlyRaw.answer

    def answer(self: early.EarlyRaw, *entries: Any) -> Any:
        found = original(self, *entries)
        asked.append(found is not None)
        return found

    monkeypatch.setattr(early.EarlyRaw, "answer", answer)
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    assert sum(asked) >= 3  # the pool took the started answers
    assert {(e.status.value, e.how.value) for e in entries} == {("identical", "raw-bytes")}
    assert code == 0


def test_a_forged_huge_entry_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size and CRC-32, other bytes: the early compare says unequal, the content proof
    finds the change."""
    lib = FILES["pkg/lib.so"]
    forged = wheelkit.forge_same_crc(lib, tamper_at=300, patch_at=5000)
    base = _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    patch = _wheel(tmp_path / "p", {**FILES, "pkg/lib.so": forged}, method=zipfile.ZIP_STORED)
    assert _started(base, patch) == 3
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert (result.status.value, result.how.value, code) == ("changed", "content", 1)


def test_recompressed_and_renamed_entries_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other compressed sizes start content comparisons, which the pool takes; a renamed entry
    pairs with nothing started."""
    base = _wheel(tmp_path / "b", FILES)
    files = {**FILES, "pkg/renamed.bin": FILES["pkg/other.bin"]}
    del files["pkg/other.bin"]
    patch = _wheel(tmp_path / "p", files, method=zipfile.ZIP_STORED)
    assert _content_started(base, patch) == 2  # lib.so, blob.bin: other.bin is renamed
    asked = _asked(monkeypatch)
    entries, _, _, _, _ = both_ways(base, patch, monkeypatch)
    assert sum(asked) >= 2
    by_path = {e.path: (e.status.value, e.how.value, e.recompressed) for e in entries}
    assert by_path["pkg/lib.so"] == ("identical", "content", True)
    assert by_path["pkg/data/blob.bin"] == ("identical", "content", True)


def test_a_forged_recompressed_entry_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size and CRC-32, other content, other compressed bytes: the started content
    comparison says unequal, and the checked proof finds the change (and hashes it for
    RECORD), as without the early start."""
    lib = FILES["pkg/lib.so"]
    forged = wheelkit.forge_same_crc(lib, tamper_at=300, patch_at=5000)
    base = _wheel(tmp_path / "b", FILES)
    patch = _wheel(tmp_path / "p", {**FILES, "pkg/lib.so": forged}, method=zipfile.ZIP_STORED)
    assert _content_started(base, patch) == 3
    asked = _asked(monkeypatch)
    entries, findings, _, code, _ = both_ways(base, patch, monkeypatch)
    assert sum(asked) >= 3
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert (result.status.value, result.how.value, code) == ("changed", "content", 1)
    assert result.patch_digest is not None or any(f.path == "pkg/lib.so" for f in findings)


def test_equal_recompressed_contents_that_fail_their_crc_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both contents equal, both directories (and local headers) declaring the same wrong
    CRC-32: the content comparison must not call the pair identical; the proof names the
    corruption, as without the early start."""
    base = _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    patch = _wheel(tmp_path / "p", FILES)
    for damaged in (base, patch):
        _declare_crc(damaged, "pkg/lib.so", 0x5A5A5A5A)
    assert _content_started(base, patch) >= 1
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert (result.status.value, result.how.value) == ("changed", "corrupt")
    assert code != 0


def _declare_crc(path: Path, name: str, crc: int) -> None:
    """Overwrite the CRC-32 that `name`'s local header and central record declare."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    wrong = crc.to_bytes(4, "little")
    data[info.header_offset + 14 : info.header_offset + 18] = wrong
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.find(b"PK\x01\x02", central + 1)
        assert central != -1
    data[central + 16 : central + 20] = wrong
    path.write_bytes(bytes(data))


@damage_settings(30)
@given(edits=damage_edits())
def test_damaged_copies_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: list[Edit]
) -> None:
    """A copy of the base with a few bytes overwritten (headers, data, directory): the started
    comparisons meet the same damage, or the same error, as the proofs."""
    base = tmp_path / "b" / "pkg-1.0-py3-none-any.whl"
    if not base.exists():
        _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    _damaged_the_same_both_ways(base, base, tmp_path, monkeypatch, edits)


@damage_settings(30)
@given(edits=damage_edits())
def test_damaged_recompressed_copies_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: list[Edit]
) -> None:
    """The base against a recompressed copy with a few bytes overwritten: the started content
    comparisons meet the same damage, or the same error, as the proofs."""
    base = tmp_path / "b" / "pkg-1.0-py3-none-any.whl"
    patch = tmp_path / "p" / "pkg-1.0-py3-none-any.whl"
    if not base.exists():
        _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
        _wheel(tmp_path / "p", FILES)
    _damaged_the_same_both_ways(base, patch, tmp_path, monkeypatch, edits)


def _damaged_the_same_both_ways(
    base: Path,
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    edits: list[Edit],
) -> None:
    patch = write_damaged(source, tmp_path / "damaged.whl", edits)
    fast = _outcome(base, patch)
    with monkeypatch.context() as patched:
        patched.setattr(headstart, "EARLY_BYTES", 1 << 62)
        slow = _outcome(base, patch)
    if fast[0] == slow[0] == "error":
        assert fast[1] == slow[1]  # the problem named may be the first a thread meets
    else:
        assert fast == slow


def test_a_comparison_not_begun_is_taken_back_by_the_asking_thread() -> None:
    """While the early thread is busy, a later pair's comparison is run by the thread that asks
    for it (a pool worker), once: the worker does not wait for the one early thread."""
    gate = threading.Event()
    calls: list[threading.Thread] = []

    def compare() -> bool:
        calls.append(threading.current_thread())
        return True

    with ThreadPoolExecutor(max_workers=1) as worker:
        worker.submit(gate.wait)
        future = worker.submit(compare)
        assert early._take(future, compare) is True
        assert future.cancelled()
        assert calls == [threading.current_thread()]
        gate.set()
        done = worker.submit(compare)
        done.result()
        assert early._take(done, compare) is True
        assert len(calls) == 2  # a comparison already run is not run again
