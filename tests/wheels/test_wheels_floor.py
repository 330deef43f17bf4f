"""scripts/wheels_floor.py, the bytes-kept verdict floor `bench_wheels.py` times: it must do the
reading it claims (every entry, every RECORD row, every pair's bytes compared), or the ratio
printed against it would flatter k3diff."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
import wheels_floor
from wheelkit import make_wheel


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    big = os.urandom(300_000)
    files = {"pkg/__init__.py": b"x = 1\n", "pkg/big.bin": big, "pkg/same.txt": b"same\n" * 50}
    base = make_wheel(tmp_path / "base", "pkg", "1.0", files, method=zipfile.ZIP_STORED)
    edited = {**files, "pkg/big.bin": big[:-1] + bytes([big[-1] ^ 1]), "pkg/new.py": b"y = 2\n"}
    patch = make_wheel(tmp_path / "patch", "pkg", "1.0", edited, method=zipfile.ZIP_STORED)
    return base, patch


@pytest.mark.parametrize("step", [8 << 20, 4096, 1000])
def test_floor_counts_every_entry_row_and_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: int
) -> None:
    base, patch = _pair(tmp_path)
    # small steps send the 300 kB entry through the chunked comparison, last step partial
    monkeypatch.setattr(wheels_floor, "STEP", step)
    monkeypatch.setattr(wheels_floor, "SMALL", min(step, wheels_floor.SMALL))
    counts = wheels_floor.floor(base, patch)
    with zipfile.ZipFile(base) as b, zipfile.ZipFile(patch) as p:
        base_names, patch_names = set(b.namelist()), set(p.namelist())
        common = base_names & patch_names
        differ = sum(b.read(name) != p.read(name) for name in common)
    assert counts["base_entries"] == len(base_names) == counts["base_record_rows"]
    assert counts["patch_entries"] == len(patch_names) == counts["patch_record_rows"]
    assert counts["pairs"] == len(common)
    # big.bin (one byte) and RECORD (a new row) differ; the rest is equal
    assert counts["differ"] == differ >= 2
    assert counts["equal"] == len(common) - differ


def test_floor_compares_bytes_not_only_sizes(tmp_path: Path) -> None:
    files = {"pkg/a.bin": b"a" * 5000}
    base = make_wheel(tmp_path / "base", "pkg", "1.0", files, method=zipfile.ZIP_STORED)
    patch = make_wheel(
        tmp_path / "patch", "pkg", "1.0", {"pkg/a.bin": b"a" * 4999 + b"b"}, method=0
    )
    counts = wheels_floor.floor(base, patch)
    assert counts["differ"] == 2  # a.bin and RECORD: same sizes, other bytes
