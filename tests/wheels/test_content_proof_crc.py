"""Content proofs check one side's CRC-32 when the contents compare equal (issue 14).

Equal declared size and CRC-32 on both sides, equal content, and a base stream that passes its
own CRC-32 check imply the patch stream passes it too; every other outcome must still read and
check both sides, so a forged CRC-32 stays a change and a corrupt stream stays corruption.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest
import wheelkit

from k3diff.wheels import proof
from k3diff.wheels.proof import How, Status, prove
from k3diff.zip.archive import ZipArchive

CONTENT = b"".join(b"line %d of a module that compresses well\n" % i for i in range(4000))


@pytest.fixture(autouse=True, params=["whole", "streamed"])
def proof_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs on both paths: entries read whole (up to SMALL_ENTRY) and streamed."""
    if request.param == "streamed":
        monkeypatch.setattr(proof, "SMALL_ENTRY", 0)


def _zip(path: Path, data: bytes, level: int) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        archive.writestr("pkg/mod.py", data)
    return path


def _declare_crc(path: Path, crc: int) -> None:
    """Overwrite the CRC-32 that the local and central headers declare; the stream stays."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("pkg/mod.py")
    data = bytearray(path.read_bytes())
    struct.pack_into("<I", data, info.header_offset + 14, crc)
    central = data.rindex(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 16, crc)
    path.write_bytes(bytes(data))


def _prove(base: Path, patch: Path) -> tuple[Status, How, str | None]:
    with ZipArchive.open(base) as old, ZipArchive.open(patch) as new:
        result = prove(old, old.entries[0], new, new.entries[0], "sha256")
    return result.status, result.how, result.corrupt


def test_recompressed_equal_content_is_identical(tmp_path: Path) -> None:
    base = _zip(tmp_path / "base.zip", CONTENT, 9)
    patch = _zip(tmp_path / "patch.zip", CONTENT, 1)
    assert _prove(base, patch) == (Status.IDENTICAL, How.CONTENT, None)


def test_equal_content_under_a_wrong_declared_crc_is_corruption(tmp_path: Path) -> None:
    """Both streams carry the same bytes, both declare the same wrong CRC-32: not identical."""
    base = _zip(tmp_path / "base.zip", CONTENT, 9)
    patch = _zip(tmp_path / "patch.zip", CONTENT, 1)
    for path in (base, patch):
        _declare_crc(path, 0x12345678)
    status, how, corrupt = _prove(base, patch)
    assert (status, how) == (Status.CHANGED, How.CORRUPT)
    assert corrupt is not None and "base" in corrupt and "patch" in corrupt


@pytest.mark.parametrize("forged_side", ["base", "patch"])
def test_forged_crc_on_either_side_is_a_content_change(tmp_path: Path, forged_side: str) -> None:
    forged = wheelkit.forge_same_crc(CONTENT, tamper_at=500, patch_at=9000)
    contents = {"base": CONTENT, "patch": CONTENT}
    contents[forged_side] = forged
    base = _zip(tmp_path / "base.zip", contents["base"], 9)
    patch = _zip(tmp_path / "patch.zip", contents["patch"], 1)
    assert _prove(base, patch) == (Status.CHANGED, How.CONTENT, None)
