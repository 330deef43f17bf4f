"""The central directory as zipfile reads it, each contradiction named (W613), names with control
characters flagged (W614), and the directory capped before any entry is built."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import pytest
from wheelkit import end_record, raw_layout, raw_member, raw_zip, zip64_end

from k3diff.errors import ArchiveError
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.soundness import soundness_findings
from k3diff.zip import directory
from k3diff.zip.archive import ZipArchive


def _open(tmp_path: Path, data: bytes) -> tuple[ZipArchive, list[Finding]]:
    path = tmp_path / "a.zip"
    path.write_bytes(data)
    archive = ZipArchive.open(path)
    return archive, list(soundness_findings(archive, "patch"))


def _codes(findings: list[Finding]) -> list[Code]:
    return [finding.code for finding in findings]


def _members() -> list:  # type: ignore[type-arg]
    return [raw_member("pkg/a.py", b"a = 1\n"), raw_member("pkg/b.py", b"b = 2\n")]


def test_an_honest_zip64_archive_agrees_with_itself(tmp_path: Path) -> None:
    archive, findings = _open(tmp_path, raw_zip(_members(), zip64=True))
    assert [e.name for e in archive.entries] == ["pkg/a.py", "pkg/b.py"]
    assert findings == []


def test_saturated_classic_fields_defer_to_zip64(tmp_path: Path) -> None:
    body, layout = raw_layout(_members())
    data = body + zip64_end(2, len(layout.directory), layout.directory_offset, len(body))
    data += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    archive, findings = _open(tmp_path, data)
    assert len(archive.entries) == 2
    assert findings == []


def test_a_locator_pointing_elsewhere_is_a_disagreement(tmp_path: Path) -> None:
    body, layout = raw_layout(_members())
    data = body + zip64_end(
        2, len(layout.directory), layout.directory_offset, len(body), points_at=0
    )
    data += end_record(2, len(layout.directory), layout.directory_offset)
    _, findings = _open(tmp_path, data)
    assert set(_codes(findings)) == {Code.W613}
    assert "the ZIP64 locator points at offset 0" in findings[0].detail


def test_prepended_bytes_shift_every_offset_as_zipfile_does(tmp_path: Path) -> None:
    path = tmp_path / "a.zip"
    path.write_bytes(b"#!/bin/sh\nexit 0\n" + raw_zip(_members()))
    with ZipArchive.open(path) as archive, zipfile.ZipFile(path) as reference:
        findings = list(soundness_findings(archive, "patch"))
        assert [e.header_offset for e in archive.entries] == [
            info.header_offset for info in reference.infolist()
        ]
    assert _codes(findings) == [Code.W613]
    assert "zipfile shifts every entry offset by 17" in findings[0].detail


def test_a_comment_length_past_the_end_is_a_disagreement(tmp_path: Path) -> None:
    data = raw_zip(_members())
    data = data[:-2] + struct.pack("<H", 30)
    _, findings = _open(tmp_path, data)
    assert _codes(findings) == [Code.W613]
    assert "30-byte comment, only 0 bytes follow it" in findings[0].detail


def test_a_unicode_path_field_that_renames_the_entry_is_a_disagreement(tmp_path: Path) -> None:
    members = _members()
    body = struct.pack("<BL", 1, zlib.crc32(members[0].name)) + b"pkg/evil.py"
    members[0].central_extra = struct.pack("<HH", 0x7075, len(body)) + body
    _, findings = _open(tmp_path, raw_zip(members))
    assert _codes(findings) == [Code.W613]
    assert "naming it 'pkg/evil.py'" in findings[0].detail


@pytest.mark.parametrize(
    ("name", "flags"),
    [(b"pkg/a\x1b[2J.py", 0x800), (b"pkg/a\x7f.py", 0), ("pkg/a\x85.py".encode(), 0x800)],
)
def test_control_characters_in_names(tmp_path: Path, name: bytes, flags: int) -> None:
    member = raw_member(name, b"x", flags=flags)
    _, findings = _open(tmp_path, raw_zip([member]))
    assert _codes(findings) == [Code.W614]


def test_cp437_bytes_that_look_like_c1_are_letters(tmp_path: Path) -> None:
    member = raw_member(b"pkg/caf\x82.py", b"x", flags=0)  # CP437 0x82 is 'é'
    archive, findings = _open(tmp_path, raw_zip([member]))
    assert archive.entries[0].name == "pkg/café.py"
    assert findings == []


def test_the_directory_is_capped_in_bytes_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(directory, "MAX_DIRECTORY_BYTES", 100)
    with pytest.raises(ArchiveError, match=r"central directory of \d+ bytes is over k3diff's cap"):
        _open(tmp_path, raw_zip([raw_member(f"m{i}", b"") for i in range(5)]))


def test_the_directory_is_capped_in_records_before_any_entry_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(directory, "MAX_ENTRIES", 3)
    built: list[object] = []
    monkeypatch.setattr(directory, "ZipEntry", lambda *fields: built.append(fields))
    with pytest.raises(ArchiveError, match="more than k3diff's cap of 3 records"):
        _open(tmp_path, raw_zip([raw_member(f"m{i}", b"") for i in range(5)]))
    assert built == []


@pytest.mark.skipif(shutil.which("zip") is None, reason="needs Info-ZIP's zip")
def test_info_zip_forced_zip64_archive_is_clean(tmp_path: Path) -> None:
    source = tmp_path / "src" / "pkg"
    source.mkdir(parents=True)
    (source / "a.py").write_text("a = 1\n")
    (source / "b.py").write_text("b = 2\n")
    path = tmp_path / "z64.zip"
    subprocess.run(["zip", "-q", "-fz", "-r", str(path), "pkg"], cwd=source.parent, check=True)
    assert b"PK\x06\x06" in path.read_bytes()  # it does carry a ZIP64 end record
    with ZipArchive.open(path) as archive, zipfile.ZipFile(path) as reference:
        assert list(soundness_findings(archive, "patch")) == []
        assert [(e.name, e.header_offset) for e in archive.entries] == [
            (i.filename, i.header_offset) for i in reference.infolist()
        ]


def _info_zip_extra(mtime: int) -> bytes:
    """The central extra Info-ZIP `zip` writes for a Unix file: extended time, then UID/GID."""
    return struct.pack("<HHBL", 0x5455, 5, 3, mtime) + struct.pack(
        "<HHBBLBL", 0x7875, 11, 1, 4, 1000, 4, 1000
    )


def _info_zip_archive(path: Path, extras: list[bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for number, extra in enumerate(extras):
            info = zipfile.ZipInfo(f"pkg/f{number}.h")
            info.extra = extra
            archive.writestr(info, b"/* header */\n" * (number + 1))
    return path


Outcome = tuple[str, tuple[directory.ZipEntry, ...] | str]


def _both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Outcome, Outcome]:
    """(entries or the error) with the Info-ZIP fast path and with every extra parsed."""

    def outcome() -> Outcome:
        try:
            with ZipArchive.open(path) as archive:
                return ("entries", archive.entries)
        except ArchiveError as exc:
            return ("error", str(exc))

    fast = outcome()
    with monkeypatch.context() as patched:
        patched.setattr(directory, "_INFO_ZIP_FIELDS", (-1, -1, -1, -1))
        slow = outcome()
    return fast, slow


def test_info_zip_extras_read_as_every_extra_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The central records `zip` writes (the torch CUDA wheels' 11,269) skip the extra parser:
    same entries as when each extra is parsed, and as zipfile's; other extras beside them."""
    extras = [_info_zip_extra(1_700_000_000 + n) for n in range(5)]
    extras += [b"", struct.pack("<HHBL", 0x5455, 5, 3, 0), _info_zip_extra(0)[:13] + b"\0" * 11]
    path = _info_zip_archive(tmp_path / "a.zip", extras)
    fast, slow = _both_ways(path, monkeypatch)
    assert fast == slow and fast[0] == "entries"
    with zipfile.ZipFile(path) as archive:
        expected = [(i.filename, i.compress_size, i.file_size) for i in archive.infolist()]
    assert not isinstance(fast[1], str)
    got = [(e.name, e.compressed_size, e.size) for e in fast[1]]
    assert got == expected


def test_info_zip_extras_with_a_saturated_size_are_refused_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _info_zip_archive(tmp_path / "a.zip", [_info_zip_extra(7)] * 2)
    data = bytearray(path.read_bytes())
    record = data.index(b"PK\x01\x02")
    data[record + 20 : record + 24] = b"\xff\xff\xff\xff"  # compressed size: needs ZIP64
    path.write_bytes(bytes(data))
    fast, slow = _both_ways(path, monkeypatch)
    assert fast == slow and fast[0] == "error" and "ZIP64" in str(fast[1])
