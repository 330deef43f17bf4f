"""Both commands read a wheel's own files the same way and within the same bounds: one RECORD
reader, METADATA capped in bytes and header lines, the directory capped in records, and an
encrypted METADATA or RECORD a W603 finding rather than an error. A cap hit is exit 2 in both
commands, with the cap named."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheelkit import make_wheel, raw_zip, record_hash, wheel_files, write_zip

from k3diff.zip import directory
from zip import crafted

FILES = {"demo/__init__.py": b"x = 1\n", "demo/a,b.txt": b"comma in the name\n"}
DIST = "demo-1.0.dist-info"


def _wheel(tmp_path: Path, entries: dict[str, bytes], where: str = "w") -> Path:
    (tmp_path / where).mkdir(parents=True, exist_ok=True)
    return write_zip(tmp_path / where / crafted.WHEEL, entries)


def test_a_fully_quoted_record_with_cr_line_ends_passes_both(tmp_path: Path) -> None:
    entries = wheel_files("demo", "1.0", FILES)
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r")
    for path, data in entries.items():
        if not path.endswith("/RECORD"):
            writer.writerow([path, record_hash(data), len(data)])
    writer.writerow([f"{DIST}/RECORD", "", ""])
    entries[f"{DIST}/RECORD"] = out.getvalue().encode()
    patch = _wheel(tmp_path, entries, "patch")
    base = make_wheel(tmp_path / "base", "demo", "1.0", FILES)
    assert run_k3diff("wheels", base, patch).exit_code == 0
    assert run_k3diff("audit", patch).exit_code == 0


def test_500000_requires_dist_lines_are_refused_by_both(tmp_path: Path) -> None:
    requires = [f"dep{i}" for i in range(500_000)]
    big = make_wheel(tmp_path / "big", "demo", "1.0", FILES, requires=requires)
    base = make_wheel(tmp_path / "base", "demo", "1.0", FILES)
    for args in (("wheels", base, big), ("audit", big)):
        result = run_k3diff(*args)
        assert result.exit_code == 2
        assert "METADATA has more than 20000 header lines (k3diff's cap)" in result.stderr


def test_metadata_over_16_mib_is_refused_by_both(tmp_path: Path) -> None:
    entries = wheel_files("demo", "1.0", FILES)
    entries[f"{DIST}/METADATA"] += b"\n" + b"x" * (16 << 20)
    big = _wheel(tmp_path, entries)
    base = make_wheel(tmp_path / "base", "demo", "1.0", FILES)
    for args in (("wheels", base, big), ("audit", big)):
        result = run_k3diff(*args)
        assert result.exit_code == 2
        assert "over the 16,777,216-byte cap for reading whole" in result.stderr


@pytest.mark.parametrize("member", ["METADATA", "RECORD"])
def test_an_encrypted_metadata_or_record_is_w603_in_both(tmp_path: Path, member: str) -> None:
    members = crafted.honest_members()
    for raw in members:
        if raw.name == f"{DIST}/{member}".encode():
            raw.flags |= 0x1
    patch = tmp_path / "patch" / crafted.WHEEL
    patch.parent.mkdir()
    patch.write_bytes(raw_zip(members))
    base = crafted.base_wheel(tmp_path / "base")
    for args in (("wheels", base, patch), ("audit", patch)):
        result = run_k3diff(*args, "--format", "json")
        assert (result.exit_code, result.stderr) == (1, "")
        report = json.loads(result.stdout)
        found = report["findings"] if args[0] == "wheels" else report["artifacts"][0]["findings"]
        assert "W603" in {f["code"] for f in found}


def test_a_directory_over_the_record_cap_is_refused_by_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(directory, "MAX_ENTRIES", 4)
    wheel = make_wheel(tmp_path / "w", "demo", "1.0", FILES)
    base = make_wheel(tmp_path / "base", "demo", "1.0", {})
    for args in (("wheels", base, wheel), ("audit", wheel)):
        result = run_k3diff(*args)
        assert result.exit_code == 2
        assert "holds more than k3diff's cap of 4 records" in result.stderr
