"""A wheel written exactly as told: any filename, METADATA, WHEEL and entries, with a RECORD
made from the entries unless one is given (for wheels pip refuses: a blank RECORD line, METADATA
that is not UTF-8, a version PEP 440 cannot parse)."""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from pathlib import Path

from wheelkit import FIXED_DATE, record_hash


def metadata(name: str, version: str, *extra: str, metadata_version: str = "2.1") -> bytes:
    """A METADATA header block."""
    lines = [f"Metadata-Version: {metadata_version}", f"Name: {name}", f"Version: {version}"]
    return ("\n".join([*lines, *extra]) + "\n").encode()


def wheel_file(tag: str = "py3-none-any", *, purelib: bool = True) -> bytes:
    """A WHEEL file with one tag line per `.`-separated part of a compressed tag set."""
    python, abi, platform = tag.split("-")
    tags = [
        f"Tag: {p}-{a}-{pl}"
        for p in python.split(".")
        for a in abi.split(".")
        for pl in platform.split(".")
    ]
    root = "true" if purelib else "false"
    return ("\n".join(["Wheel-Version: 1.0", f"Root-Is-Purelib: {root}", *tags]) + "\n").encode()


def write_wheel(
    directory: Path,
    name: str,
    version: str,
    files: Mapping[str, bytes],
    *,
    tag: str = "py3-none-any",
    filename: str | None = None,
    meta: bytes | None = None,
    wheel: bytes | None = None,
    record: bytes | None = None,
    dist_info: str | None = None,
) -> Path:
    """`NAME-VERSION-TAG.whl` (or `filename`) holding `files`, then METADATA, WHEEL and RECORD
    (`record` replaces the RECORD made from the entries)."""
    dist_info = dist_info or f"{name}-{version}.dist-info"
    entries = dict(files)
    entries.setdefault(
        f"{dist_info}/METADATA", meta if meta is not None else metadata(name, version)
    )
    entries.setdefault(f"{dist_info}/WHEEL", wheel if wheel is not None else wheel_file(tag))
    if record is None:
        rows = [f"{path},{record_hash(data)},{len(data)}" for path, data in entries.items()]
        record = ("\n".join([*rows, f"{dist_info}/RECORD,,"]) + "\n").encode()
    entries[f"{dist_info}/RECORD"] = record
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (filename or f"{name}-{version}-{tag}.whl")
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in entries.items():
            info = zipfile.ZipInfo(member, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            archive.writestr(info, data)
    return path


def record_of(dist_info: str, entries: Mapping[str, bytes]) -> bytes:
    """The RECORD `write_wheel` would make, for a test to alter."""
    rows = [f"{path},{record_hash(data)},{len(data)}" for path, data in entries.items()]
    return ("\n".join([*rows, f"{dist_info}/RECORD,,"]) + "\n").encode()
