"""Wheels with the tricks that make the archive listing and the installed tree disagree.

`build` writes a wheel with zipfile (a correct RECORD unless told otherwise) and then applies
header-level tricks zipfile will not write: an extra field that runs past its area, a local
header whose UTF-8 flag differs from the central directory's.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Mapping
from pathlib import Path

from wheelkit import FIXED_DATE, record_hash

NAME = "demo"
DIST_INFO = "demo-{version}.dist-info"


def build(
    directory: Path,
    version: str,
    files: Mapping[str, bytes],
    *,
    wheel_version: str = "1.0",
    purelib: bool = True,
    extra_files: Mapping[str, bytes] | None = None,
    duplicate_record_row: str | None = None,
    corrupt_extra: str | None = None,
    local_utf8_clear: str | None = None,
    modes: Mapping[str, int] | None = None,
    tag: str = "py3-none-any",
) -> Path:
    """`demo-VERSION-py3-none-any.whl` holding `files` (in order), its dist-info, and
    `extra_files` written after RECORD (not listed in it: a directory entry with data, a second
    `.dist-info`)."""
    dist_info = DIST_INFO.format(version=version)
    entries = dict(files)
    entries[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n".encode()
    )
    entries[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: {wheel_version}\nGenerator: tricks\n"
        f"Root-Is-Purelib: {'true' if purelib else 'false'}\nTag: {tag}\n"
    ).encode()
    rows = [f"{path},{record_hash(data)},{len(data)}" for path, data in entries.items()]
    if duplicate_record_row is not None:
        rows.insert(0, f"{duplicate_record_row},{record_hash(b'wrong')},5")
    rows.append(f"{dist_info}/RECORD,,")
    entries[f"{dist_info}/RECORD"] = ("\n".join(rows) + "\n").encode()
    entries.update(extra_files or {})
    path = directory / f"{NAME}-{version}-{tag}.whl"
    directory.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = (modes or {}).get(name, 0o40755 if name.endswith("/") else 0o100644)
            info.external_attr = mode << 16
            info.create_system = 3
            if name == corrupt_extra:
                info.extra = struct.pack("<HH", 0xCAFE, 16) + b"ab"
            archive.writestr(info, data)
        offsets = {info.filename: info.header_offset for info in archive.infolist()}
    if local_utf8_clear is not None:
        raw = bytearray(path.read_bytes())
        flags_at = offsets[local_utf8_clear] + 6
        (flags,) = struct.unpack_from("<H", raw, flags_at)
        struct.pack_into("<H", raw, flags_at, flags & ~0x800)
        path.write_bytes(bytes(raw))
    return path
