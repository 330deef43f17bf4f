"""Stretches of back-to-back records are proven identical in one compare — and only when every
byte agrees: a forged entry inside a stretch, or a header-only difference, falls back to
entry-by-entry proof with the right answer."""

from __future__ import annotations

import zipfile
from pathlib import Path

import wheelkit

from k3diff.wheels.compare import compare_wheels
from k3diff.wheels.pairing import pair_entries
from k3diff.wheels.spans import plan_spans
from k3diff.zip.archive import ZipArchive

LIB = wheelkit.elf_bytes(bytes(range(256)) * 64)
FILES = {f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() * 20 for i in range(30)}
FILES["pkg/lib.so"] = LIB


def _stored(
    path: Path, files: dict[str, bytes], date: tuple[int, ...] = wheelkit.FIXED_DATE
) -> Path:
    entries = wheelkit.wheel_files("pkg", "1.0", files)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=date)  # type: ignore[arg-type]
            archive.writestr(info, data, compress_type=zipfile.ZIP_STORED)
    return path


def test_rebuilt_wheel_is_covered_by_spans(tmp_path: Path) -> None:
    base = _stored(tmp_path / "base.whl", FILES)
    patch = _stored(tmp_path / "patch.whl", FILES)
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        spans, singles = plan_spans(b, p, pair_entries(b.entries, p.entries))
    assert singles == []
    assert sum(len(span.indices) for span in spans) == len(FILES) + 3
    report = compare_wheels(base, patch)
    assert {(e.status.value, e.how.value) for e in report.entries} == {("identical", "raw-bytes")}
    assert next(e for e in report.entries if e.path == "pkg/lib.so").kind.value == "native"


def test_forged_entry_inside_a_span_is_changed(tmp_path: Path) -> None:
    forged = wheelkit.forge_same_crc(LIB, tamper_at=300, patch_at=2000)
    base = _stored(tmp_path / "base.whl", FILES)
    patch = _stored(tmp_path / "patch.whl", {**FILES, "pkg/lib.so": forged})
    report = compare_wheels(base, patch)
    lib = next(e for e in report.entries if e.path == "pkg/lib.so")
    assert (lib.status.value, lib.how.value) == ("changed", "content")
    others = [e for e in report.entries if e.path not in ("pkg/lib.so", "pkg-1.0.dist-info/RECORD")]
    assert {e.status.value for e in others} == {"identical"}
    assert int(report.exit_code) == 1


def test_header_only_difference_falls_back_and_stays_identical(tmp_path: Path) -> None:
    base = _stored(tmp_path / "base.whl", FILES)
    patch = _stored(tmp_path / "patch.whl", FILES, date=(2025, 6, 1, 12, 0, 0))
    report = compare_wheels(base, patch)
    assert {(e.status.value, e.how.value) for e in report.entries} == {("identical", "raw-bytes")}
