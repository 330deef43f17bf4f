"""A corrupt stream both wheels carry never passes the default report.

Equal compressed bytes prove a pair identical without inflating it, so a stream that fails its
own CRC-32 or declared size, present byte for byte in base and patch, used to pass (exit 0)
although pip refuses the wheel (zipfile's "Bad CRC-32" while installing). The default report
(with the whole-file SHA-256) now reads one side of every such pair to its end: W604 naming both
wheels, exit 1. `--no-file-hash` keeps the fast verdict and says in every report how many
identical entries it compared by their compressed bytes only.
"""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wheel.pipinstall import pip_install

from k3diff.wheels.compare import WheelOptions, compare_wheels

from .test_wheel_verdicts import FILES, _flip_inside_stream

SO = "engine/_C.so"
CHANGED = {**FILES, "engine/model.py": b"def run(x):\n    return x + 2\n"}
"""The patch changes one source, so the pair is a real patch with a shared corrupt library."""


def _pair(tmp_path: Path, method: int = zipfile.ZIP_DEFLATED) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, method=method)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", CHANGED, method=method)
    return base, patch


def _declare_size(wheel: Path, name: str, delta: int) -> None:
    """Change the entry's declared uncompressed size in its local header and its central
    record alike (so no W609): its content no longer has the size the directory declares."""
    with zipfile.ZipFile(wheel) as archive:
        info = archive.getinfo(name)
    data = bytearray(wheel.read_bytes())
    local = info.header_offset
    struct.pack_into("<I", data, local + 22, info.file_size + delta)
    encoded = name.encode()
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(encoded)] != encoded:
        central = data.find(b"PK\x01\x02", central + 4)
        assert central >= 0
    struct.pack_into("<I", data, central + 24, info.file_size + delta)
    wheel.write_bytes(bytes(data))


def _damage_both(pair: tuple[Path, Path], how: str, name: str = SO) -> None:
    for wheel in pair:
        if how == "crc":
            _flip_inside_stream(wheel, name, 0.5)
        else:
            _declare_size(wheel, name, -1 if how == "size-" else 1)


def _json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("wheels", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("how", ["crc", "size-", "size+"])
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_a_shared_corrupt_stream_fails_the_default_report(
    tmp_path: Path, how: str, method: int
) -> None:
    pair = _pair(tmp_path, method)
    _damage_both(pair, how)
    code, report = _json(*pair)
    assert code == 1
    finding = next(f for f in report["findings"] if f["code"] == "W604")
    assert finding["path"] == SO
    assert finding["severity"] == "error"
    assert "both wheels" in finding["detail"]
    entry = next(e for e in report["entries"] if e["path"] == SO)
    assert (entry["status"], entry["how"]) == ("identical", "raw-bytes")
    assert "both wheels" in entry["corrupt"]
    assert "unverified_streams" not in report["verdict"]
    # pip refuses the wheel: zipfile checks the CRC-32 of what it reads, and a declared size
    # below the stream's cuts it short. A declared size above it pip does not check (zipfile
    # stops at the stream's end, whose CRC-32 is right); k3diff fails it as it fails such a
    # changed pair, and as `audit` does: the directory contradicts the stream.
    assert pip_install(pair[1], tmp_path / "installed").ok is (how == "size+")


def test_no_file_hash_keeps_the_fast_verdict_and_says_what_it_left_unchecked(
    tmp_path: Path,
) -> None:
    pair = _pair(tmp_path)
    _damage_both(pair, "crc")
    code, report = _json(*pair, "--no-file-hash")
    assert code == 0
    assert "W604" not in {f["code"] for f in report["findings"]}
    identical = sum(1 for e in report["entries"] if e["how"] == "raw-bytes")
    assert identical >= 1
    assert report["verdict"]["unverified_streams"] == identical
    line = (
        f"{identical} identical entries compared by their compressed bytes only: their "
        "streams' CRC-32 and size were not checked (--no-file-hash); run without it to verify"
    )
    for fmt in ("text", "markdown"):
        result = run_k3diff("wheels", *pair, "--no-file-hash", "--format", fmt)
        assert result.exit_code == 0, result.stderr
        assert line in result.stdout


def test_the_bundle_qualifies_a_verdict_that_left_streams_unchecked(tmp_path: Path) -> None:
    pair = _pair(tmp_path)
    _damage_both(pair, "crc")
    document = tmp_path / "wheels.json"
    result = run_k3diff("wheels", *pair, "--no-file-hash", "--format", "json", "-o", document)
    assert result.exit_code == 0, result.stderr
    result = run_k3diff("report", document, "--out", tmp_path / "bundle")
    assert result.exit_code == 0, result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    said = [q for q in summary["qualifications"] if "compressed bytes only" in q]
    assert len(said) == 1
    assert "(--no-file-hash)" in said[0]
    assert "pip refuses" in said[0]


def test_a_clean_pair_checks_every_stream_and_says_nothing(tmp_path: Path) -> None:
    pair = _pair(tmp_path)
    code, report = _json(*pair)
    assert code == 0
    assert "unverified_streams" not in report["verdict"]
    assert all("corrupt" not in e for e in report["entries"])
    text = run_k3diff("wheels", *pair).stdout
    assert "compressed bytes only" not in text
    fast_code, fast = _json(*pair, "--no-file-hash")
    assert fast_code == 0
    assert fast["verdict"]["unverified_streams"] >= 1
    assert fast["findings"] == report["findings"]


def test_a_release_set_fails_the_pair_that_shares_a_corrupt_stream(tmp_path: Path) -> None:
    pair = _pair(tmp_path)
    _damage_both(pair, "crc")
    code, report = _json(tmp_path / "base", tmp_path / "patch")
    assert code == 1
    assert "W604" in {f["code"] for f in report["pairs"][0]["wheels"]["findings"]}
    code, report = _json(tmp_path / "base", tmp_path / "patch", "--no-file-hash")
    assert code == 0
    assert report["pairs"][0]["wheels"]["verdict"]["unverified_streams"] >= 1


def _installs(wheel: Path) -> bool:
    """Whether zipfile, as pip's installer reads a wheel, reads every entry to its end."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            for info in archive.infolist():
                with archive.open(info) as member:
                    while member.read(1 << 16):
                        pass
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError):
        return False
    return True


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    name=st.sampled_from([SO, "engine/__init__.py", "engine/data/table.json"]),
    fraction=st.floats(0.0, 0.999),
    bit=st.integers(0, 7),
    method=st.sampled_from([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED]),
)
def test_random_damage_to_a_shared_stream_never_passes_unless_zipfile_reads_it(
    tmp_path_factory: pytest.TempPathFactory, name: str, fraction: float, bit: int, method: int
) -> None:
    """Any bit of a shared entry's stored bytes flipped identically in both wheels: the default
    report exits 0 only when zipfile still reads every entry of the patch clean (a flip in a
    deflate stream's unused padding bits changes nothing), and each failure is that entry's
    W604."""
    tmp_path = tmp_path_factory.mktemp("damage")
    pair = _pair(tmp_path, method)
    for wheel in pair:
        with zipfile.ZipFile(wheel) as archive:
            info = archive.getinfo(name)
        data = bytearray(wheel.read_bytes())
        name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
        start = info.header_offset + 30 + name_len + extra_len
        data[start + int(info.compress_size * fraction)] ^= 1 << bit
        wheel.write_bytes(bytes(data))
    report = compare_wheels(*pair, WheelOptions())
    if int(report.exit_code) == 0:
        assert _installs(pair[1]), "exit 0 for a wheel zipfile cannot read"
    else:
        # Stricter than zipfile at times, never looser: a deflate stream cut short whose content
        # still has its CRC-32 (a flipped final-block bit) zipfile reads; k3diff fails it.
        assert any(f.code.name == "W604" and f.path == name for f in report.findings)
    if not _installs(pair[1]):
        assert int(report.exit_code) == 1


def test_a_shared_stream_read_for_its_record_hash_names_both_wheels(tmp_path: Path) -> None:
    """An identical entry whose RECORD row is not the base's is hashed (its stream read to the
    end) in either mode: the corruption it finds is the same W604, naming both wheels, and the
    entry is not counted unchecked."""
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    row = f"{SO},sha512=AAAA,{len(FILES[SO])}"
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", "1.0", CHANGED, record_overrides={SO: row}
    )
    _damage_both((base, patch), "crc")
    for extra in ((), ("--no-file-hash",)):
        code, report = _json(base, patch, *extra)
        assert code == 1
        finding = next(f for f in report["findings"] if f["code"] == "W604")
        assert finding["path"] == SO
        assert "both wheels" in finding["detail"]
    raw_identical = sum(1 for e in report["entries"] if e["how"] == "raw-bytes")
    assert report["verdict"]["unverified_streams"] == raw_identical - 1
