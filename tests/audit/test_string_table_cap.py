"""Loader strings past the part of a dynamic string table a second pass keeps (tf78).

tensorflow_cpu 2.21.0's `libtensorflow_cc.so.2` has an 82 MB `.dynstr` whose RUNPATH lies past
`PREFIX_CAP` (64 MiB): `audit` refused it (A116, exit 1) and the message did not name the cap.
The strings the dynamic table names are kept past the cap now, within limits
(`tablestrings`); one past the limits is still A116, and the refusal names the caps. Here a
gcc-built library with a 10 KiB `.dynstr` stands for it: the kept prefix shrunk to 4 KiB (the
tables lie past it, as a big library's lie past 1 MiB) and the cap to 8 KiB (its RUNPATH lies
near the table's end)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff

from audit.test_rpath_hijack import demo_wheel
from k3diff.audit import elfneeds
from k3diff.native import platform as native
from k3diff.native import tablestrings
from k3diff.native.platform import read_needs_from_stream

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

CAP = 8192


@pytest.fixture(autouse=True)
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "KEPT_PREFIX", 4096)
    monkeypatch.setattr(elfneeds, "KEPT_PREFIX", 4096)
    monkeypatch.setattr(native, "PREFIX_CAP", CAP)
    monkeypatch.setattr(elfneeds, "PREFIX_CAP", CAP, raising=False)  # its copy, before tf78


def _library(directory: Path, runpath: str) -> bytes:
    """300 exported functions (a 7 KiB `.dynsym`, a 10 KiB `.dynstr`), RUNPATH `runpath`."""
    directory.mkdir(parents=True, exist_ok=True)
    source = "\n".join(
        f"int fn_{i:04d}_abcdefghijklmnopqrstuvwxyz(void) {{ return {i}; }}" for i in range(300)
    )
    (directory / "big.c").write_text(source + "\n")
    target = directory / "big.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(target), str(directory / "big.c"),
         "-Wl,-soname,libbig.so", f"-Wl,--enable-new-dtags,-rpath,{runpath}"],
        check=True, capture_output=True,
    )  # fmt: skip
    data = target.read_bytes()
    assert data.find(runpath.encode()) > 4096 + CAP  # past the kept prefix and the cap
    return data


def _audit(data: bytes, directory: Path) -> tuple[int, list[dict[str, str]]]:
    wheel = demo_wheel(directory, "1.0", {"demo/_ext.so": data})
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, [
        f for a in json.loads(result.stdout)["artifacts"] for f in a["findings"]
    ]


def test_a_runpath_past_the_cap_is_read(tmp_path: Path) -> None:
    data = _library(tmp_path / "c", "$ORIGIN/../libs")
    exit_code, findings = _audit(data, tmp_path / "w")
    assert exit_code == 0 and not [f for f in findings if f["code"] == "A116"], findings  # was 1
    chunks = [data[at : at + 1024] for at in range(0, len(data), 1024)]
    needs = read_needs_from_stream(chunks, len(data))
    assert needs.runpath == "$ORIGIN/../libs" and needs.soname == "libbig.so"


def test_a_risky_runpath_past_the_cap_is_judged(tmp_path: Path) -> None:
    """Read, not passed: RUNPATH /tmp/... past the cap is A139 as anywhere else."""
    exit_code, findings = _audit(_library(tmp_path / "c", "/tmp/tf78-planted"), tmp_path / "w")
    assert exit_code == 1 and {f["code"] for f in findings} == {"A139"}, findings


def test_strings_past_the_limit_are_refused_naming_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tablestrings, "PAST_CAP_STRINGS", 0)
    exit_code, findings = _audit(_library(tmp_path / "c", "$ORIGIN/../libs"), tmp_path / "w")
    (refused,) = (f for f in findings if f["code"] == "A116")
    assert exit_code == 1 and f"reads its first {CAP:,}" in refused["detail"], refused
    assert "at most 0 loader strings past that" in refused["detail"]


def test_the_byte_limit_holds_a_hostile_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every string range past the byte limit is dropped: refused, never read short."""
    monkeypatch.setattr(tablestrings, "PAST_CAP_BYTES", 16)
    exit_code, findings = _audit(_library(tmp_path / "c", "$ORIGIN/../libs"), tmp_path / "w")
    assert exit_code == 1 and "A116" in {f["code"] for f in findings}, findings


def test_past_cap_limits() -> None:
    """65,536 distinct strings: at most `PAST_CAP_STRINGS` kept, merged, within the bytes."""
    past = tablestrings.past_cap(1000, 200 << 20, range(64 << 20, (64 << 20) + 65536), 64 << 20)
    assert sum(length for _, length in past.ranges) <= tablestrings.PAST_CAP_BYTES
    assert past.ranges == ((1000 + (64 << 20), 1024 + tablestrings.STRING_CAP - 1),)
    assert tablestrings.past_cap(0, 100, [99], 100) == tablestrings.PastCap((), "")
