"""The floor of `k3diff wheels --no-file-hash` on a pair whose compressed bytes are kept, for
`bench_wheels.py`: what any verdict of this design cannot skip, and nothing else.

One fresh process that starts the interpreter, imports click (the CLI every command runs
under) and only the standard library it needs, and then, for both wheels: reads the end
record and the central directory and parses every entry (name, method, CRC-32, sizes, local
header offset); reads every local header (name and extra lengths, to find where each entry's
data starts); inflates and parses both RECORDs (csv); pairs the entries by name; and compares
every pair's compressed bytes, each a slice of the file read once through `mmap` and compared
with `memcmp`. It builds no result objects, checks nothing a finding needs (layout, tags,
metadata, installability), writes no report and uses one thread, so its CPU time is what to
compare k3diff's against: k3diff / floor is how far a verdict is from the reading it must do,
and walk / floor the largest speed-up over the walk any implementation of this design can
reach on the machine. The last stdout line is JSON: entries, pairs, equal and differing pairs,
RECORD rows, per wheel (a check that the floor did the reading it claims).

    python scripts/wheels_floor.py BASE.whl PATCH.whl
"""

from __future__ import annotations

import csv
import json
import mmap
import os
import struct
import sys
import zlib
from pathlib import Path

import click  # noqa: F401  (every `k3diff` command starts by importing click: part of the floor)

_END = struct.Struct("<4s4H2LH")
_END64 = struct.Struct("<4sQ2H2L4Q")
_LOCATOR = struct.Struct("<4sLQL")
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_LOCAL = struct.Struct("<4s5H3L2H")
_MAX32 = 0xFFFFFFFF
STEP = 256 << 10
"""Bytes read and compared at a time of a large entry (k3diff's raw chunk, `proof.RAW_CHUNK`):
two such buffers stay in the CPU cache; 8 MiB steps cost about 1.4x the CPU on the CUDA
wheels' huge libraries (0.86-1.00 against 0.62-0.72 s for the whole floor of case a)."""
SMALL = 1 << 20
"""Entries up to this size are read whole, one `pread` per side."""

Entry = tuple[int, int, int, int, int]
"""(method, CRC-32, compressed size, size, local header offset)."""


def central_directory(data: mmap.mmap) -> dict[str, Entry]:
    """Every entry of the archive by name, from its end record and central directory."""
    tail_start = max(0, len(data) - (1 << 16) - _END.size)
    end = data.rfind(b"PK\x05\x06", tail_start)
    if end < 0:
        raise SystemExit("no end of central directory record")
    _, _, _, _, count, size, offset, _ = _END.unpack_from(data, end)
    if _MAX32 in (size, offset) or count == 0xFFFF:
        locator = _LOCATOR.unpack_from(data, end - _LOCATOR.size)
        end64 = _END64.unpack_from(data, locator[2])
        count, size, offset = end64[7], end64[8], end64[9]
    entries: dict[str, Entry] = {}
    position, stop = offset, offset + size
    unpack = _CENTRAL.unpack_from
    while position < stop:
        fields = unpack(data, position)
        name_end = position + 46 + fields[10]
        raw = data[position + 46 : name_end]
        name = raw.decode("utf-8" if fields[3] & 0x800 else "cp437")
        compressed, size_, header = fields[8], fields[9], fields[16]
        if _MAX32 in (compressed, size_, header):
            compressed, size_, header = _zip64(
                data, name_end, fields[11], size_, compressed, header
            )
        entries[name] = (fields[4], fields[7], compressed, size_, header)
        position = name_end + fields[11] + fields[12]
    if len(entries) != count:
        raise SystemExit(f"central directory lists {len(entries)} names, end record {count}")
    return entries


def _zip64(
    data: mmap.mmap, start: int, length: int, size: int, compressed: int, header: int
) -> tuple[int, int, int]:
    """The 64-bit sizes and offset from an entry's zip64 extra field."""
    position, stop = start, start + length
    while position + 4 <= stop:
        tag, field_length = struct.unpack_from("<2H", data, position)
        if tag == 1:
            values = iter(struct.unpack_from(f"<{field_length // 8}Q", data, position + 4))
            size = next(values) if size == _MAX32 else size
            compressed = next(values) if compressed == _MAX32 else compressed
            header = next(values) if header == _MAX32 else header
            break
        position += 4 + field_length
    return compressed, size, header


def data_offsets(data: mmap.mmap, entries: dict[str, Entry]) -> dict[str, int]:
    """Where each entry's compressed bytes start, from its local header."""
    unpack = _LOCAL.unpack_from
    offsets: dict[str, int] = {}
    for name, (_, _, _, _, header) in entries.items():
        fields = unpack(data, header)
        if fields[0] != b"PK\x03\x04":
            raise SystemExit(f"{name}: no local header at {header}")
        offsets[name] = header + 30 + fields[9] + fields[10]
    return offsets


def record_rows(data: mmap.mmap, entries: dict[str, Entry], offsets: dict[str, int]) -> int:
    """The rows of the wheel's RECORD (inflated and parsed as csv)."""
    name = next(n for n in entries if n.endswith(".dist-info/RECORD") and n.count("/") == 1)
    method, _, compressed, _, _ = entries[name]
    raw = data[offsets[name] : offsets[name] + compressed]
    text = (zlib.decompress(raw, -15) if method == 8 else raw).decode("utf-8")
    return sum(1 for _ in csv.reader(text.splitlines()))


def floor(base_path: Path, patch_path: Path) -> dict[str, int]:
    """Everything above, for one pair; the counts it found."""
    counts: dict[str, int] = {}
    with open(base_path, "rb") as base_file, open(patch_path, "rb") as patch_file:
        sides = []
        for label, handle in (("base", base_file), ("patch", patch_file)):
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                entries = central_directory(data)
                offsets = data_offsets(data, entries)
                counts[f"{label}_record_rows"] = record_rows(data, entries, offsets)
            counts[f"{label}_entries"] = len(entries)
            sides.append((entries, offsets))
        (base_entries, base_offsets), (patch_entries, patch_offsets) = sides
        base_fd, patch_fd = base_file.fileno(), patch_file.fileno()
        buffers = (bytearray(STEP), bytearray(STEP))
        equal = differ = 0
        for name, (method, _, compressed, _, _) in base_entries.items():
            other = patch_entries.get(name)
            if other is None:
                continue
            same = method == other[0] and compressed == other[2]
            start_b, start_p = base_offsets[name], patch_offsets[name]
            if same and compressed <= SMALL:
                same = os.pread(base_fd, compressed, start_b) == os.pread(
                    patch_fd, compressed, start_p
                )
            elif same:
                same = _equal_large(base_fd, patch_fd, start_b, start_p, compressed, buffers)
            equal += same
            differ += not same
        counts |= {"pairs": equal + differ, "equal": equal, "differ": differ}
    return counts


def _equal_large(
    base_fd: int,
    patch_fd: int,
    start_b: int,
    start_p: int,
    length: int,
    buffers: tuple[bytearray, bytearray],
) -> bool:
    """Whether `length` bytes at `start_b` and `start_p` are equal, read a step at a time into
    the two reused buffers (no fresh memory per read)."""
    base_buffer, patch_buffer = buffers
    done = 0
    while done < length:
        step = min(STEP, length - done)
        if step < STEP:
            base_buffer, patch_buffer = bytearray(step), bytearray(step)
        got_b = os.preadv(base_fd, [base_buffer], start_b + done)
        got_p = os.preadv(patch_fd, [patch_buffer], start_p + done)
        if got_b != step or got_p != step or base_buffer != patch_buffer:
            return False
        done += step
    return True


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: wheels_floor.py BASE.whl PATCH.whl", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(floor(Path(sys.argv[1]), Path(sys.argv[2]))))
