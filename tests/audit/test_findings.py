"""Each way a wheel can lie or trap an installer gives its own finding, and exit 1."""

from __future__ import annotations

import warnings
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from wheelkit import elf_bytes, forge_same_crc, make_wheel, record_hash, wheel_files, write_zip

from audit.helpers import all_findings, audit_json, codes, entries_with
from audit.zipcraft import RawEntry, bomb_stream, build, deflated, wheel_entries
from k3diff.audit import audit
from k3diff.wheel.record import parse_record
from k3diff.zip.archive import ZipArchive

NAME = "demo-1.0-py3-none-any.whl"
FILES = {
    "demo/__init__.py": b"from demo._core import run\n",
    "demo/_core.so": elf_bytes(b"\x90" * 4000 + bytes(range(256)) * 8),
    "demo/data/table.txt": b"a,b\n1,2\n" * 50,
}
DIST = "demo-1.0.dist-info"


def _entries(**overrides: bytes | None) -> dict[str, bytes]:
    entries = wheel_files("demo", "1.0", FILES)
    for path, data in overrides.items():
        if data is None:
            del entries[path]
        else:
            entries[path] = data
    return entries


def _wheel(tmp_path: Path, entries: dict[str, bytes]) -> Path:
    return write_zip(tmp_path / NAME, entries)


def test_clean_wheel_passes(tmp_path: Path) -> None:
    code, report = audit_json(make_wheel(tmp_path, "demo", "1.0", FILES))
    assert (code, all_findings(report)) == (0, [])
    assert report["artifacts"][0]["entry_count"] == 6
    assert report["verdict"] == {"ok": True, "exit_code": 0, "errors": 0, "warnings": 0}


def test_native_altered_with_size_and_crc_kept(tmp_path: Path) -> None:
    original = FILES["demo/_core.so"]
    forged = forge_same_crc(original, 100, 200)
    assert (len(forged), zlib.crc32(forged)) == (len(original), zlib.crc32(original))
    entries = wheel_files("demo", "1.0", FILES)  # RECORD of the original
    entries["demo/_core.so"] = forged
    code, report = audit_json(_wheel(tmp_path, entries))
    assert code == 1
    assert codes(report) == {"A103": 1}
    assert entries_with(report, "A103") == {"demo/_core.so"}


def test_file_removed(tmp_path: Path) -> None:
    code, report = audit_json(_wheel(tmp_path, _entries(**{"demo/data/table.txt": None})))
    assert code == 1
    assert codes(report) == {"A106": 1}
    assert entries_with(report, "A106") == {"demo/data/table.txt"}


def test_unlisted_file_added(tmp_path: Path) -> None:
    code, report = audit_json(_wheel(tmp_path, _entries(**{"demo/extra.py": b"import os\n"})))
    assert code == 1
    assert codes(report) == {"A105": 1}
    assert entries_with(report, "A105") == {"demo/extra.py"}


def test_size_in_record_lies(tmp_path: Path) -> None:
    data = FILES["demo/__init__.py"]
    path = make_wheel(
        tmp_path,
        "demo",
        "1.0",
        FILES,
        record_overrides={"demo/__init__.py": f"demo/__init__.py,{record_hash(data)},999"},
    )
    code, report = audit_json(path)
    assert (code, codes(report)) == (1, {"A104": 1})


@pytest.mark.parametrize("algorithm", ["md5", "sha1"])
def test_weak_record_algorithms_are_refused(tmp_path: Path, algorithm: str) -> None:
    row = f"demo/__init__.py,{algorithm}=AAAAAAAAAAAAAAAAAAAAAA,27"
    path = make_wheel(tmp_path, "demo", "1.0", FILES, record_overrides={"demo/__init__.py": row})
    code, report = audit_json(path)
    assert (code, codes(report)) == (1, {"A108": 1})


def test_malformed_record_rows_are_all_reported(tmp_path: Path) -> None:
    overrides = {
        "demo/__init__.py": "demo/__init__.py,sha256=not-base64!,27",
        "demo/data/table.txt": "demo/data/table.txt,sha256=abc,xyz",
        "demo/_core.so": "demo/_core.so,,",
    }
    path = make_wheel(tmp_path, "demo", "1.0", FILES, record_overrides=overrides)
    code, report = audit_json(path)
    assert code == 1
    assert codes(report) == {"A102": 3, "A107": 1}


def test_one_strict_record_parser_collects_every_problem_in_row_order() -> None:
    record = f"{DIST}/RECORD"
    text = "\n".join(
        [
            f"demo/a.py,{record_hash(b'a')},1",
            "demo/b.py,md5=AAAAAAAAAAAAAAAAAAAAAA,1",
            f"demo/a.py,{record_hash(b'other')},5",
            "demo/c.py,sha256=abc,+7",
            "demo/d.py,,",
            "just-a-path",
        ]
    )
    parsed = parse_record(text + "\n", record)
    assert [(f.code.name, f.path) for f in parsed.findings] == [
        ("A108", "demo/b.py"),
        ("A112", "demo/a.py"),
        ("A102", "demo/c.py"),  # the size
        ("A102", "demo/c.py"),  # the digest's length
        ("A107", "demo/d.py"),
        ("A102", record),
        ("A110", record),
    ]
    assert parsed.rows["demo/a.py"].size == 1  # the first row of a path is the one checked
    assert parsed.rows["demo/a.py"].digest is not None and parsed.rows["demo/b.py"].digest is None
    assert parsed.unreadable == "4: malformed size '+7'"


def test_a_record_row_wheels_cannot_read_is_exit_2_there_and_a102_here(tmp_path: Path) -> None:
    """Both commands read RECORD with the one parser: `audit` reports the row (A102, exit 1),
    `wheels` refuses to compare against a RECORD it cannot read (exit 2, naming the line)."""
    row = f"demo/data/table.txt,{record_hash(FILES['demo/data/table.txt'])},40O"
    overrides = {"demo/data/table.txt": row}
    patch = make_wheel(tmp_path / "patch", "demo", "1.0", FILES, record_overrides=overrides)
    base = make_wheel(tmp_path / "base", "demo", "1.0", FILES)
    code, report = audit_json(patch)
    assert (code, codes(report)) == (1, {"A102": 1})
    assert entries_with(report, "A102") == {"demo/data/table.txt"}
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 2
    assert result.stderr.startswith("k3diff: error: ") and result.stderr.count("\n") == 1
    assert f"{DIST}/RECORD:" in result.stderr and "malformed size '40O'" in result.stderr


def test_record_listing_itself_with_a_hash(tmp_path: Path) -> None:
    entries = _entries()
    record = (
        entries[f"{DIST}/RECORD"]
        .decode()
        .replace(f"{DIST}/RECORD,,", f"{DIST}/RECORD,{record_hash(b'x')},1")
    )
    code, report = audit_json(_wheel(tmp_path, _entries(**{f"{DIST}/RECORD": record.encode()})))
    assert (code, codes(report)) == (1, {"A110": 1})


def test_signature_file_is_reported(tmp_path: Path) -> None:
    code, report = audit_json(_wheel(tmp_path, _entries(**{f"{DIST}/RECORD.jws": b"{}"})))
    assert code == 1
    assert codes(report) == {"A111": 1}
    assert entries_with(report, "A111") == {f"{DIST}/RECORD.jws"}


def test_traversal_absolute_drive_and_backslash_names(tmp_path: Path) -> None:
    hostile = {
        "../escape.py": b"x\n",
        "/etc/cron.d/evil": b"x\n",
        "C:/Windows/evil.dll": b"x\n",
        "demo\\win.py": b"x\n",
    }
    code, report = audit_json(_wheel(tmp_path, wheel_files("demo", "1.0", {**FILES, **hostile})))
    assert code == 1
    assert entries_with(report, "W601") == {
        "../escape.py",
        "/etc/cron.d/evil",
        "C:/Windows/evil.dll",
    }
    assert entries_with(report, "W607") == {"demo\\win.py"}
    assert entries_with(report, "W619") == {"C:/Windows/evil.dll"}  # a colon Windows reads
    assert set(codes(report)) == {"W601", "W607", "W619"}


def test_duplicate_names(tmp_path: Path) -> None:
    path = _wheel(tmp_path, _entries())
    with warnings.catch_warnings(), zipfile.ZipFile(path, "a") as archive:
        warnings.simplefilter("ignore")
        archive.writestr("demo/__init__.py", b"import evil\n")
    code, report = audit_json(path)
    assert code == 1
    assert entries_with(report, "W608") == {"demo/__init__.py"}
    assert entries_with(report, "A103") == {"demo/__init__.py"}  # the second one lies


def test_symlink_entry(tmp_path: Path) -> None:
    path = _wheel(tmp_path, _entries())
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo("demo/link")
        info.create_system = 3
        info.external_attr = 0o120777 << 16
        archive.writestr(info, b"/etc/passwd")
    code, report = audit_json(path)
    assert code == 1
    assert entries_with(report, "W602") == {"demo/link"}


def test_bomb_declaring_one_kilobyte_is_stopped_at_the_cap(tmp_path: Path) -> None:
    stream = bomb_stream(1)  # 1 GiB of zeros in about 1 MB
    entries = wheel_entries(FILES)
    entries.append(RawEntry("demo/model.bin", stream, 8, 0, len(stream), 1024))
    path = build(tmp_path / NAME, entries)
    with ZipArchive.open(path) as archive:
        bomb = archive.entries[-1]
        produced = 0
        with pytest.raises(Exception, match="runs past its declared size"):
            for chunk in archive.content_chunks(bomb):
                produced += len(chunk)
        assert produced <= 1024
    code, report = audit_json(path)
    assert code == 1
    assert entries_with(report, "W604") == {"demo/model.bin"}
    assert "declared size" in next(f["detail"] for f in all_findings(report) if f["code"] == "W604")


def test_bomb_by_declared_ratio(tmp_path: Path) -> None:
    entries = wheel_entries(FILES)
    small = deflated("demo/huge.bin", bytes(4096))
    small.size = 200 << 20
    entries.append(small)
    code, report = audit_json(build(tmp_path / NAME, entries))
    assert code == 1
    assert entries_with(report, "W612") == {"demo/huge.bin"}
    assert entries_with(report, "W604") == {"demo/huge.bin"}  # and it is short of its size


def test_appended_bytes(tmp_path: Path) -> None:
    code, report = audit_json(build(tmp_path / NAME, wheel_entries(FILES), suffix=b"payload"))
    assert (code, codes(report)) == (1, {"W610": 1})
    assert "7 bytes appended" in all_findings(report)[0]["detail"]


def test_prepended_bytes(tmp_path: Path) -> None:
    code, report = audit_json(build(tmp_path / NAME, wheel_entries(FILES), prefix=b"#!/bin/sh\n"))
    assert (code, codes(report)) == (1, {"W610": 1})
    assert "10 bytes before the first entry" in all_findings(report)[0]["detail"]


def test_local_header_naming_another_file(tmp_path: Path) -> None:
    entries = wheel_entries(FILES)
    target = next(e for e in entries if e.name == "demo/__init__.py")
    target.local_name = "demo/evil.py"
    code, report = audit_json(build(tmp_path / NAME, entries))
    assert code == 1
    assert codes(report) == {"W609": 1}
    assert "'demo/evil.py'" in all_findings(report)[0]["detail"]


def test_a_local_headers_crc_is_worded_in_hex_as_w604_words_it(tmp_path: Path) -> None:
    path = make_wheel(tmp_path, "demo", "1.0", FILES)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("demo/__init__.py")
    data = bytearray(path.read_bytes())
    lied = info.CRC ^ 0xF0000001
    data[info.header_offset + 14 : info.header_offset + 18] = lied.to_bytes(4, "little")
    path.write_bytes(bytes(data))
    code, report = audit_json(path)
    assert code == 1
    (finding,) = (f for f in all_findings(report) if f["code"] == "W609")
    assert f"CRC-32 {lied:08x} locally, {info.CRC:08x} in the directory" in finding["detail"]


def test_overlapping_entries(tmp_path: Path) -> None:
    path = build(tmp_path / NAME, wheel_entries(FILES))
    data = bytearray(path.read_bytes())
    # A second central record pointing at the first entry's local header.
    with ZipArchive.open(path) as archive:
        first = archive.entries[0]
        directory = archive.directory_offset
    assert first.header_offset == 0
    record_start = data.index(b"PK\x01\x02", directory)
    record_end = data.index(b"PK\x01\x02", record_start + 4)
    twin = bytearray(data[record_start:record_end])
    count = int.from_bytes(data[-22 + 8 : -22 + 10], "little")
    size = int.from_bytes(data[-22 + 12 : -22 + 16], "little")
    eocd = bytearray(data[-22:])
    eocd[8:10] = eocd[10:12] = (count + 1).to_bytes(2, "little")
    eocd[12:16] = (size + len(twin)).to_bytes(4, "little")
    path.write_bytes(bytes(data[:-22]) + bytes(twin) + bytes(eocd))
    code, report = audit_json(path)
    assert code == 1
    assert "W611" in codes(report)
    assert "W608" in codes(report)


def test_stream_failing_its_own_crc_is_w604_in_audit_and_wheels(tmp_path: Path) -> None:
    base = make_wheel(tmp_path / "base", "demo", "1.0", FILES, compresslevel=0)
    entries = wheel_entries(FILES)
    core = next(e for e in entries if e.name == "demo/_core.so")
    flipped = bytearray(core.stored)
    flipped[len(flipped) // 2] ^= 0x10  # inside the deflate stream; the directory is untouched
    core.stored = bytes(flipped)
    patch = build(tmp_path / NAME, entries)
    code, report = audit_json(patch)
    assert (code, codes(report)) == (1, {"W604": 1})
    code, wheels = _wheels_json(base, patch)
    assert code == 1
    assert {f["code"] for f in wheels["findings"] if f["path"] == "demo/_core.so"} == {"W604"}


def test_local_header_lie_is_the_same_code_in_wheels(tmp_path: Path) -> None:
    base = make_wheel(tmp_path / "base", "demo", "1.0", FILES)
    entries = wheel_entries(FILES)
    next(e for e in entries if e.name == "demo/__init__.py").local_name = "demo/evil.py"
    code, wheels = _wheels_json(base, build(tmp_path / NAME, entries))
    assert code == 1
    assert "W609" in {f["code"] for f in wheels["findings"]}


def _wheels_json(base: Path, patch: Path) -> tuple[int, dict[str, Any]]:
    import json

    from cli_support import run_k3diff

    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def test_not_a_zip_is_a_finding_and_plain_files_are_hashed(tmp_path: Path) -> None:
    broken = tmp_path / NAME
    broken.write_bytes(b"not a zip at all")
    notes = tmp_path / "NOTES.txt"
    notes.write_text("release notes\n")
    code, report = audit_json(broken, notes)
    assert code == 1
    assert [a["kind"] for a in report["artifacts"]] == ["wheel", "file"]
    assert codes(report) == {"A001": 1}


def test_filename_contradicting_metadata_is_w605(tmp_path: Path) -> None:
    path = make_wheel(tmp_path, "demo", "1.0", FILES, filename="demo-2.0-py3-none-any.whl")
    code, report = audit_json(path)
    assert (code, codes(report)) == (1, {"W605": 1})


def test_all_problems_are_collected(tmp_path: Path) -> None:
    entries = _entries(**{"demo/data/table.txt": None, "demo/extra.py": b"x\n"})
    entries["demo/_core.so"] = forge_same_crc(FILES["demo/_core.so"], 100, 200)
    code, report = audit_json(_wheel(tmp_path, entries))
    assert code == 1
    assert codes(report) == {"A103": 1, "A105": 1, "A106": 1}


def test_library_verdict_matches_cli(tmp_path: Path) -> None:
    clean = make_wheel(tmp_path / "ok", "demo", "1.0", FILES)
    assert audit([clean]).exit_code == 0
    bad = _wheel(tmp_path, _entries(**{"demo/extra.py": b"x\n"}))
    result = audit([clean, bad])
    assert result.exit_code == 1
    assert [len(a.findings) for a in result.artifacts] == [0, 1]


def test_directory_entry_holding_content_is_a_file(tmp_path: Path) -> None:
    path = _wheel(tmp_path, _entries())
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(zipfile.ZipInfo("demo/empty/"), b"")
        archive.writestr(zipfile.ZipInfo("demo/hidden/"), b"payload an extractor skips")
    code, report = audit_json(path)
    assert code == 1
    assert entries_with(report, "A105") == {"demo/hidden/"}


def test_unreadable_archive_does_not_claim_zero_entries(tmp_path: Path) -> None:
    """A .whl that is no zip has entries nobody could count: its header and markdown row say
    so instead of '0 entries' (JSON keeps entry_count 0 beside its A001)."""
    broken = tmp_path / NAME
    broken.write_bytes(b"not a zip at all")
    text = run_k3diff("audit", broken)
    assert text.exit_code == 1
    assert f"{broken}: wheel, 16 bytes, entries unreadable, sha256 " in text.stdout
    assert "0 entries" not in text.stdout
    markdown = run_k3diff("audit", broken, "--format", "markdown")
    assert "| wheel  |      16 | unreadable |" in markdown.stdout.replace("`", "")
