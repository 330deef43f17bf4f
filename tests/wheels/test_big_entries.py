"""The paths taken only by entries over `BIG_ENTRY` (64 MiB), exercised on small entries by
lowering the threshold: the split raw compare (two halves on two cores) and the patch side's
read-ahead thread during a content proof. Both must reach the same verdict as the small path."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import wheelkit

from k3diff.wheels import proof
from k3diff.wheels.proof import How, Status
from k3diff.zip.archive import ZipArchive

SIZE = 40_000
CONTENT = os.urandom(SIZE // 2) + bytes(SIZE // 2)  # half incompressible, half deflates well


@pytest.fixture(autouse=True)
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proof, "RAW_CHUNK", 1024)
    monkeypatch.setattr(proof, "BIG_ENTRY", 4096)
    monkeypatch.setattr(proof, "SMALL_ENTRY", 1024)


def _zip(path: Path, data: bytes, method: int) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("pkg/blob.bin", date_time=wheelkit.FIXED_DATE)
        archive.writestr(info, data, compress_type=method)
    return path


def _raw_equal(tmp_path: Path, base_data: bytes, patch_data: bytes) -> bool:
    base = _zip(tmp_path / "base.zip", base_data, zipfile.ZIP_STORED)
    patch = _zip(tmp_path / "patch.zip", patch_data, zipfile.ZIP_STORED)
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        return proof.raw_equal(b, b.entries[0], p, p.entries[0])


def test_split_raw_compare_finds_equal_halves_equal(tmp_path: Path) -> None:
    assert _raw_equal(tmp_path, CONTENT, CONTENT)


@pytest.mark.parametrize("position", [0, SIZE // 2 - 1, SIZE // 2, SIZE - 1])
def test_split_raw_compare_finds_a_byte_in_either_half(tmp_path: Path, position: int) -> None:
    changed = bytearray(CONTENT)
    changed[position] ^= 0xFF
    assert not _raw_equal(tmp_path, CONTENT, bytes(changed))


def test_read_ahead_content_proof_of_a_recompressed_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[int] = []
    original = proof._read_ahead

    def counted(chunks: Iterator[bytes]) -> Iterator[bytes]:
        used.append(1)
        return original(chunks)

    monkeypatch.setattr(proof, "_read_ahead", counted)
    base = _zip(tmp_path / "base.zip", CONTENT, zipfile.ZIP_DEFLATED)
    patch = _zip(tmp_path / "patch.zip", CONTENT, zipfile.ZIP_STORED)
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        result = proof.prove(b, b.entries[0], p, p.entries[0], "sha256")
    assert used == [1]
    assert (result.status, result.how, result.recompressed) == (Status.IDENTICAL, How.CONTENT, True)


def test_read_ahead_content_proof_reports_a_corrupt_patch_stream(tmp_path: Path) -> None:
    base = _zip(tmp_path / "base.zip", CONTENT, zipfile.ZIP_DEFLATED)
    patch = _zip(tmp_path / "patch.zip", CONTENT, zipfile.ZIP_STORED)
    data = bytearray(patch.read_bytes())
    start = data.index(CONTENT[:64])
    data[start + SIZE - 10] ^= 0xFF  # the stored bytes no longer match the CRC-32
    patch.write_bytes(bytes(data))
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        result = proof.prove(b, b.entries[0], p, p.entries[0])
    assert (result.status, result.how) == (Status.CHANGED, How.CORRUPT)
    assert result.corrupt is not None and "patch" in result.corrupt
