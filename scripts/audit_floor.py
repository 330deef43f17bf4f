"""The floor of `k3diff audit` on one wheel, for `bench_audit.py`: every entry inflated (ISA-L
when installed) and SHA-256 hashed, largest first on all cores, from the file with `os.pread`;
with `--file-hash`, the whole file's SHA-256 in a thread beside them (the artifact digest the
audit reports). It imports only what that reading needs, so its process costs the interpreter's
start-up and the reading, nothing else.

    python scripts/audit_floor.py WHEEL [--file-hash]
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


def floor(path: Path, with_file_hash: bool = False) -> None:
    """Every entry inflated (ISA-L when installed) and SHA-256 hashed, largest first, all cores;
    with `with_file_hash`, the whole file's SHA-256 too (the artifact hash audit reports)."""
    try:
        from isal import isal_zlib as inflater
    except ImportError:  # pragma: no cover - depends on the platform
        import zlib as inflater
    fd = os.open(path, os.O_RDONLY)
    with zipfile.ZipFile(path) as archive:
        jobs = sorted(archive.infolist(), key=lambda info: -info.compress_size)
    queue = iter(jobs)
    lock = threading.Lock()

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

    def worker() -> None:
        while True:
            with lock:
                info = next(queue, None)
            if info is None:
                return
            one(info)

    threads = [threading.Thread(target=worker) for _ in range(os.cpu_count() or 1)]
    if with_file_hash:
        threads.append(threading.Thread(target=_file_hash, args=(path,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    os.close(fd)


def _file_hash(path: Path) -> None:
    with open(path, "rb") as handle:
        hashlib.file_digest(handle, "sha256")


if __name__ == "__main__":
    floor(Path(sys.argv[1]), with_file_hash="--file-hash" in sys.argv[2:])
