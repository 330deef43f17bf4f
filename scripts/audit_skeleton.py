"""A skeleton of a wheel for counting `k3diff audit`'s instructions under callgrind: the same
entry names, order, modes and compression methods, each content of at most 4 KiB kept and
every larger one emptied (ELF contents emptied too; METADATA, WHEEL and `entry_points.txt`
kept whole), and RECORD rewritten to match. The per-entry Python and the start-up stay at full
scale while the inflating and hashing shrink about 25 times on the torch CPU wheel, so a whole
run costs 3 G instructions instead of 35 G (minutes under valgrind, not an hour) and its report
is the real wheel's.

    python scripts/audit_skeleton.py WHEEL OUT_DIR
    valgrind --tool=callgrind python -m k3diff audit OUT_DIR/WHEEL_NAME
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

KEPT = 4096
"""Largest content kept; a larger one is emptied."""
_WHOLE = (".dist-info/METADATA", ".dist-info/WHEEL", "entry_points.txt")


def skeleton(source: Path, target: Path) -> None:
    """Write the skeleton of the wheel `source` to `target`."""
    rows: list[str] = []
    with zipfile.ZipFile(source) as wheel, zipfile.ZipFile(target, "w") as out:
        record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
        for info in wheel.infolist():
            if info.filename == record:
                continue
            whole = info.file_size <= KEPT or info.filename.endswith(_WHOLE)
            data = wheel.read(info) if whole else b""
            data = b"" if data.startswith(b"\x7fELF") else data
            copy = zipfile.ZipInfo(info.filename, info.date_time)
            copy.external_attr, copy.create_system = info.external_attr, info.create_system
            copy.compress_type = info.compress_type
            out.writestr(copy, data)
            if not info.filename.endswith("/"):
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                rows.append(f"{info.filename},sha256={digest.decode()},{len(data)}")
        rows.append(f"{record},,")
        own = zipfile.ZipInfo(record, (2020, 1, 1, 0, 0, 0))
        own.compress_type, own.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
        out.writestr(own, "\n".join(rows) + "\n")


if __name__ == "__main__":
    wheel_path, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    skeleton(wheel_path, out_dir / wheel_path.name)
