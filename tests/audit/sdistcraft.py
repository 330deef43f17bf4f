"""Building sdists on the fly for `audit` tests: a `.tar.gz` of chosen members, written with
`tarfile` directly, so that hostile shapes (links out of the tree, devices, names given twice)
can be made as an attacker would."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PKG_INFO = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
"""A PKG-INFO PyPI takes, for `demo-1.0.tar.gz`."""


@dataclass(frozen=True)
class Member:
    """One tar member to write."""

    name: str
    data: bytes = b""
    type: bytes = tarfile.REGTYPE
    linkname: str = ""


def link(name: str, target: str) -> Member:
    """A symbolic link member."""
    return Member(name, type=tarfile.SYMTYPE, linkname=target)


def hardlink(name: str, target: str) -> Member:
    """A hard link member."""
    return Member(name, type=tarfile.LNKTYPE, linkname=target)


def tar_bytes(members: Sequence[Member]) -> bytes:
    """The uncompressed tar of `members`, in order."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.type = member.type
            info.linkname = member.linkname
            info.size = len(member.data) if member.type == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(member.data) if info.size else None)
    return buffer.getvalue()


def make_sdist(
    directory: Path,
    members: Sequence[Member] = (),
    *,
    filename: str = "demo-1.0.tar.gz",
    pkg_info: bytes | None = PKG_INFO,
    top: str = "demo-1.0",
) -> Path:
    """`directory/filename`: a gzip-compressed tar of `top/PKG-INFO` (unless None) and
    `top/setup.py`, then `members`."""
    base = [Member(f"{top}/PKG-INFO", pkg_info)] if pkg_info is not None else []
    base.append(Member(f"{top}/setup.py", b"from setuptools import setup\nsetup()\n"))
    path = directory / filename
    path.write_bytes(gzip.compress(tar_bytes([*base, *members]), mtime=0))
    return path
