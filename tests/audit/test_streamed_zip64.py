"""A wheel written as a stream with ZIP64 extras (CPython's zipfile on an unseekable file with
`force_zip64`) has data descriptors of 8-byte sizes: the layout check reads them so, and a
sound one is no finding (fuzz69: 24-byte descriptors were read as 16, every entry was W609
"size 0 locally" and W610 "8 bytes belong to no entry", a wheel pip installs failed)."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path
from typing import Any

from cli_support import run_json
from wheelkit import make_wheel

DESCRIPTOR = b"PK\x07\x08"


class _Stream(io.RawIOBase):
    """A write-only file without seek: zipfile writes data descriptors to it."""

    def __init__(self) -> None:
        self.sink = io.BytesIO()

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return self.sink.write(b)


def _streamed(wheel: Path, zip64: bool) -> bytes:
    stream = _Stream()
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(stream, "w") as out:
        for info in source.infolist():
            fresh = zipfile.ZipInfo(info.filename, info.date_time)
            fresh.compress_type = zipfile.ZIP_DEFLATED
            with out.open(fresh, "w", force_zip64=zip64) as entry:
                entry.write(source.read(info))
    return stream.sink.getvalue()


def _findings(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    (artifact,) = document["artifacts"]
    return [(f["code"], f["path"], f["detail"]) for f in artifact["findings"]]


def _wheel(tmp_path: Path) -> Path:
    files = {"pkg/__init__.py": b"VALUE = 1\n", "pkg/data.txt": b"x" * 5000}
    return make_wheel(tmp_path / "plain", "pkg", "1.0", files)


def test_a_streamed_zip64_wheel_is_sound(tmp_path: Path) -> None:
    plain = _wheel(tmp_path)
    for zip64 in (False, True):
        streamed = tmp_path / f"zip64-{zip64}" / plain.name
        streamed.parent.mkdir()
        data = _streamed(plain, zip64)
        assert data.count(DESCRIPTOR) == 5  # one per entry (dist-info too): the case under test
        streamed.write_bytes(data)
        code, document = run_json("audit", streamed)
        assert (code, _findings(document)) == (0, []), zip64
        code, document = run_json("wheels", plain, streamed)
        assert code == 0, zip64


def test_a_wide_descriptor_that_disagrees_is_still_a_finding(tmp_path: Path) -> None:
    plain = _wheel(tmp_path)
    data = bytearray(_streamed(plain, zip64=True))
    first = data.index(DESCRIPTOR)
    (size,) = struct.unpack_from("<Q", data, first + 16)
    struct.pack_into("<Q", data, first + 16, size + 1)  # the uncompressed size, one too many
    streamed = tmp_path / "bad" / plain.name
    streamed.parent.mkdir()
    streamed.write_bytes(bytes(data))
    code, document = run_json("audit", streamed)
    assert code == 1
    assert _findings(document) == [
        ("W609", "pkg/__init__.py", f"size {size + 1} locally, {size} in the directory")
    ]
