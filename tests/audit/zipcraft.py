"""Hand-made zip archives whose headers say whatever a test needs them to say.

Real zip tools never write a local header naming another file, a size that lies or bytes before
the first entry; an attacker does, so these are built byte by byte.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from wheelkit import wheel_files

LOCAL = struct.Struct("<4s5H3L2H")
CENTRAL = struct.Struct("<4s6H3L5H2L")
EOCD = struct.Struct("<4s4H2LH")


@dataclass
class RawEntry:
    """One entry: its stored bytes and every field a header declares."""

    name: str
    stored: bytes
    method: int
    crc: int
    compressed_size: int
    size: int
    local_name: str | None = None


def deflated(name: str, content: bytes) -> RawEntry:
    """An honest deflated entry."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    stored = compressor.compress(content) + compressor.flush()
    return RawEntry(name, stored, 8, zlib.crc32(content), len(stored), len(content))


def bomb_stream(gigabytes: int = 1) -> bytes:
    """A raw deflate stream of `gigabytes` GiB of zeros, made without ever holding it: after a
    full flush the compressor restarts, so one flushed MiB block repeated is a valid stream."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * (1024 * gigabytes) + compressor.flush(zlib.Z_FINISH)


def build(path: Path, entries: list[RawEntry], *, prefix: bytes = b"", suffix: bytes = b"") -> Path:
    """Write the archive: `prefix`, local records, central directory, end record, `suffix`.
    Offsets count the prefix, as a self-extracting archive's do."""
    body = bytearray(prefix)
    central = bytearray()
    for entry in entries:
        offset = len(body)
        local_name = (entry.local_name if entry.local_name is not None else entry.name).encode()
        body += LOCAL.pack(
            b"PK\x03\x04", 20, 0x800, entry.method, 0, 0x21,
            entry.crc, entry.compressed_size, entry.size, len(local_name), 0,
        )  # fmt: skip
        body += local_name + entry.stored
        name = entry.name.encode()
        central += CENTRAL.pack(
            b"PK\x01\x02", 0x314, 20, 0x800, entry.method, 0, 0x21,
            entry.crc, entry.compressed_size, entry.size, len(name), 0, 0, 0, 0,
            0o100644 << 16, offset,
        )  # fmt: skip
        central += name
    directory_offset = len(body)
    body += central
    body += EOCD.pack(
        b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), directory_offset, 0
    )
    path.write_bytes(bytes(body) + suffix)
    return path


def wheel_entries(
    files: dict[str, bytes], name: str = "demo", version: str = "1.0"
) -> list[RawEntry]:
    """Honest deflated entries of a wheel holding `files` with a correct RECORD."""
    return [deflated(path, data) for path, data in wheel_files(name, version, files).items()]
