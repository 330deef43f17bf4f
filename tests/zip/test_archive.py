"""The in-place zip reader: central directory, ZIP64, raw and inflated streams, damage."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import wheelkit

from k3diff.errors import ArchiveError, InputError
from k3diff.zip.archive import ZipArchive


def _zip(tmp_path: Path, entries: dict[str, bytes], **kwargs: object) -> Path:
    return wheelkit.write_zip(tmp_path / "a.zip", entries, **kwargs)  # type: ignore[arg-type]


def test_entries_match_zipfile_and_content_round_trips(tmp_path: Path) -> None:
    payload = bytes(range(256)) * 5000
    path = _zip(tmp_path, {"a.txt": b"hello\n", "dir/big.bin": payload, "empty": b""})
    with ZipArchive.open(path) as archive, zipfile.ZipFile(path) as reference:
        for entry, info in zip(archive.entries, reference.infolist(), strict=True):
            assert (entry.name, entry.crc32, entry.size, entry.compressed_size) == (
                info.filename,
                info.CRC,
                info.file_size,
                info.compress_size,
            )
            content = b"".join(archive.content_chunks(entry, chunk=4096))
            assert content == reference.read(info)
            assert all(len(c) <= 4096 for c in archive.content_chunks(entry, chunk=4096))


def test_raw_chunks_are_the_stored_compressed_bytes(tmp_path: Path) -> None:
    path = _zip(tmp_path, {"x": b"abc" * 1000})
    with ZipArchive.open(path) as archive:
        entry = archive.entries[0]
        raw = b"".join(archive.raw_chunks(entry))
        assert len(raw) == entry.compressed_size
        assert raw in path.read_bytes()


def test_zip64_archive_with_more_than_65535_entries(tmp_path: Path) -> None:
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for index in range(65_600):
            archive.writestr(f"f{index}", b"")
        archive.writestr("last", b"tail")
    with ZipArchive.open(path) as reader:
        assert len(reader.entries) == 65_601
        assert b"".join(reader.content_chunks(reader.entries[-1])) == b"tail"


def test_head_sniffs_first_bytes_without_inflating_everything(tmp_path: Path) -> None:
    path = _zip(tmp_path, {"lib": wheelkit.elf_bytes(b"\x90" * 100_000)})
    with ZipArchive.open(path) as archive:
        assert archive.head(archive.entries[0], 4) == b"\x7fELF"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_bytes(b"not a zip at all, just text\n" * 3), "not a zip archive"),
        (lambda p: p.write_bytes(b""), "not a zip archive"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: None, "no such file"),
    ],
)
def test_unusable_inputs_name_the_file(tmp_path: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "input.whl"
    make(path)
    with pytest.raises(InputError, match=message) as info:
        ZipArchive.open(path)
    assert str(path) in str(info.value)


def test_truncated_archive_is_an_archive_error(tmp_path: Path) -> None:
    path = _zip(tmp_path, {"a": b"x" * 10_000})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArchiveError, match=r"truncated|not a zip"):
        ZipArchive.open(path)


def test_corrupt_deflate_stream_is_an_archive_error(tmp_path: Path) -> None:
    path = _zip(tmp_path, {"a": bytes(range(256)) * 400})
    with ZipArchive.open(path) as archive:
        offset = archive.data_offset(archive.entries[0])
    data = bytearray(path.read_bytes())
    data[offset : offset + 40] = b"\xff" * 40
    path.write_bytes(bytes(data))
    with ZipArchive.open(path) as archive, pytest.raises(ArchiveError, match=r"corrupt|size|ends"):
        b"".join(archive.content_chunks(archive.entries[0]))


def test_unsupported_method_is_named(tmp_path: Path) -> None:
    path = _zip(tmp_path, {"a": b"data" * 100}, method=zipfile.ZIP_BZIP2)
    with ZipArchive.open(path) as archive, pytest.raises(ArchiveError, match="bzip2"):
        b"".join(archive.content_chunks(archive.entries[0]))


def test_declared_size_lie_is_detected(tmp_path: Path) -> None:
    path = _zip(tmp_path, {"a": b"0123456789" * 10}, method=zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (50).to_bytes(4, "little")  # uncompressed size
    path.write_bytes(bytes(data))
    with ZipArchive.open(path) as archive, pytest.raises(ArchiveError, match="declares 50"):
        b"".join(archive.content_chunks(archive.entries[0]))
