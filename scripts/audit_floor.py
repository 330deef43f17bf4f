"""The floor of `k3diff audit` on one wheel, for `bench_audit.py`: every entry inflated (ISA-L
when installed) and SHA-256 hashed, largest first on all cores, from the file with `os.pread`;
with `--file-hash`, the whole file's SHA-256 in a thread beside them (the artifact digest the
audit reports). It imports only what that reading needs, so its process costs the interpreter's
start-up and the reading, nothing else.

With `--reachable`, the stricter floor: also what any RECORD verifier must do beyond the
reading, each part as plainly as the standard library does it, so the ratio to it says how
close the audit is to the floor it can actually reach: RECORD read and parsed (`csv`, every
row's digest decoded), every entry's local header read with its name and compared with the
directory's, every entry's CRC-32 computed and compared, and its digest and size compared with
its RECORD row. (The directory is parsed by `zipfile` in both floors.)

    python scripts/audit_floor.py WHEEL [--file-hash] [--reachable]
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import zipfile
from pathlib import Path

INFLATE_STEP = 512 << 10
"""Compressed bytes read and inflated per step."""


def floor(path: Path, with_file_hash: bool = False, reachable: bool = False) -> None:
    """Every entry inflated (ISA-L when installed) and SHA-256 hashed, largest first, all cores;
    with `with_file_hash`, the whole file's SHA-256 too (the artifact hash audit reports); with
    `reachable`, RECORD parsed and every entry's local name, CRC-32, digest and size checked."""
    try:
        from isal import isal_zlib as inflater
    except ImportError:  # pragma: no cover - depends on the platform
        import zlib as inflater
    fd = os.open(path, os.O_RDONLY)
    with zipfile.ZipFile(path) as archive:
        jobs = sorted(archive.infolist(), key=lambda info: -info.compress_size)
        record = _record(archive) if reachable else {}
    queue = iter(jobs)
    lock = threading.Lock()
    mismatches: list[str] = []

    def one(info: zipfile.ZipInfo) -> None:
        header = os.pread(fd, 30, info.header_offset)
        position = info.header_offset + 30 + int.from_bytes(header[26:28], "little")
        position += int.from_bytes(header[28:30], "little")
        end = position + info.compress_size
        digest = hashlib.sha256()
        decompressor = inflater.decompressobj(-15) if info.compress_type == 8 else None
        while position < end:
            data = os.pread(fd, min(INFLATE_STEP, end - position), position)
            position += len(data)
            digest.update(decompressor.decompress(data) if decompressor else data)

    def checked(info: zipfile.ZipInfo) -> None:
        """`one`, and the checks every RECORD verifier makes beside the reading."""
        name = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
        header = os.pread(fd, 30 + len(name), info.header_offset)
        name_length = int.from_bytes(header[26:28], "little")
        position = info.header_offset + 30 + name_length
        position += int.from_bytes(header[28:30], "little")
        end = position + info.compress_size
        digest = hashlib.sha256()
        decompressor = inflater.decompressobj(-15) if info.compress_type == 8 else None
        crc = produced = 0
        while position < end:
            data = os.pread(fd, min(INFLATE_STEP, end - position), position)
            position += len(data)
            out = decompressor.decompress(data) if decompressor else data
            digest.update(out)
            crc = inflater.crc32(out, crc)
            produced += len(out)
        row = record.get(info.filename)
        if header[30 : 30 + name_length] != name or crc != info.CRC:
            mismatches.append(info.filename)  # what the audit would report
        elif row is not None and row != (digest.digest(), produced):
            mismatches.append(info.filename)

    read = checked if reachable else one

    def worker() -> None:
        while True:
            with lock:
                info = next(queue, None)
            if info is None:
                return
            read(info)

    threads = [threading.Thread(target=worker) for _ in range(os.cpu_count() or 1)]
    if with_file_hash:
        threads.append(threading.Thread(target=_file_hash, args=(path,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    os.close(fd)


def _record(archive: zipfile.ZipFile) -> dict[str, tuple[bytes, int]]:
    """RECORD's rows with a SHA-256 digest: path -> (digest, size)."""
    import base64
    import csv

    name = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
    rows: dict[str, tuple[bytes, int]] = {}
    for row in csv.reader(archive.read(name).decode("utf-8").splitlines()):
        if len(row) == 3 and row[1].startswith("sha256="):
            text = row[1][7:]
            rows[row[0]] = (base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), int(row[2]))
    return rows


def _file_hash(path: Path) -> None:
    with open(path, "rb") as handle:
        hashlib.file_digest(handle, "sha256")


if __name__ == "__main__":
    floor(
        Path(sys.argv[1]),
        with_file_hash="--file-hash" in sys.argv[2:],
        reachable="--reachable" in sys.argv[2:],
    )
