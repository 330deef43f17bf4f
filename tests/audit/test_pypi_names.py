"""A wheel file name or platform tag PyPI's upload refuses though pip 26 installs the wheel and
twine check passes it (warehouse's `forklift/legacy.py`: `_valid_platform_tag`, the normalised
name, `NAME-VERSION.dist-info/WHEEL` read at the path the file name spells; hunt80: each
passed `audit`, exit 0). A141 fails the audit; a waiver takes it for a wheel another index
serves."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff
from wheel.pipinstall import pip_install
from wheel.rawwheel import metadata, write_wheel
from wheel.test_core_metadata import twine_refuses
from wheel.test_installed_view import audit_code

FILES = {"demo_pkg/__init__.py": b"x = 1\n"}

REFUSED = {
    "linux_x86_64": ("demo_pkg", "1.0", "py3-none-linux_x86_64", None, "'linux_x86_64'"),
    "linux tag in a compressed set": (
        "demo_pkg",
        "1.0",
        "py3-none-manylinux_2_17_x86_64.linux_x86_64",
        None,
        "platform tag 'linux_x86_64', which PyPI does not take",
    ),
    "macOS 11 with a minor": ("demo_pkg", "1.0", "py3-none-macosx_11_1_arm64", None, "macosx_11_1"),
    "manylinux of an unknown architecture": (
        "demo_pkg",
        "1.0",
        "py3-none-manylinux_2_17_mips64",
        None,
        "'manylinux_2_17_mips64'",
    ),
    "capitals in the name": ("Demo_Pkg", "1.0", "py3-none-any", None, "'demo_pkg'"),
    "a dot in the name": ("demo.pkg", "1.0", "py3-none-any", None, "'demo_pkg'"),
    ".dist-info spelt with another version": (
        "demo_pkg",
        "1.0.0",
        "py3-none-any",
        "demo_pkg-1.0.dist-info",
        "no demo_pkg-1.0.0.dist-info/WHEEL or demo_pkg-1.0.0.dist-info/METADATA: the .dist-info",
    ),
    ".dist-info naming no version": (  # review80b: passed, exit 0 (pip reads METADATA's)
        "demo_pkg",
        "1.0",
        "py3-none-any",
        "demo_pkg.dist-info",
        "no demo_pkg-1.0.dist-info/WHEEL or demo_pkg-1.0.dist-info/METADATA: the .dist-info",
    ),
}
TAKEN = (
    "py3-none-any",
    "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64",
    "cp311-cp311-musllinux_1_2_aarch64",
    "cp39-abi3-macosx_10_9_x86_64",
    "cp39-abi3-macosx_11_0_arm64",
    "cp311-cp311-win_amd64",
    "cp313-cp313-ios_13_0_arm64_iphoneos",
    "cp313-cp313-android_24_arm64_v8a",
    "py3-none-linux_armv7l",
    # review80b: both failed A141, and PyPI takes them: PEP 783's Pyodide tag (warehouse since
    # April 2026), and a tag in capitals, which packaging (and so warehouse) reads lower-cased
    "cp313-cp313-pyemscripten_2025_0_wasm32",
    "py3-none-MANYLINUX2014_X86_64",
)
_HERE = {"x86_64": "x86_64", "AMD64": "x86_64"}.get(platform.machine(), "")


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_name_pypi_refuses_fails_audit(tmp_path: Path, case: str) -> None:
    name, version, tag, dist_info, said = REFUSED[case]
    meta = metadata(name, version, metadata_version="2.4")
    wheel = write_wheel(tmp_path, name, version, FILES, tag=tag, meta=meta, dist_info=dist_info)
    assert twine_refuses(wheel, tmp_path) in (False, None)
    if tag.endswith("-any") or (_HERE and tag.endswith(_HERE)):  # pip installs here what it runs on
        assert pip_install(wheel, tmp_path / "target").ok
    assert audit_code(wheel) == (1, {"A141"})
    shown = run_k3diff("audit", wheel).stdout
    assert said in shown and "PyPI refuses it on upload today" in shown
    assert "1 × A141: build the wheel anew" in shown
    # newuser80b: every A141 was told how to repair a linux_* wheel, a name in capitals too
    assert ("auditwheel repair FILE" in shown) == ("'linux_" in said), shown


@pytest.mark.parametrize("tag", TAKEN)
def test_names_pypi_takes_pass(tmp_path: Path, tag: str) -> None:
    meta = metadata("demo_pkg", "1.0", metadata_version="2.4")
    wheel = write_wheel(tmp_path, "demo_pkg", "1.0", FILES, tag=tag, meta=meta)
    assert audit_code(wheel) == (0, set())


def test_build_number_and_waiver(tmp_path: Path) -> None:
    """A build number is no part of the name PyPI reads; a waiver takes A141 for a wheel another
    index serves (path "", the wheel as a whole)."""
    meta = metadata("demo_pkg", "1.0", metadata_version="2.4")
    built = write_wheel(
        tmp_path / "b", "demo_pkg", "1.0", FILES, filename="demo_pkg-1.0-1-py3-none-any.whl",
        meta=meta,
    )  # fmt: skip
    assert audit_code(built) == (0, set())
    wheel = write_wheel(tmp_path, "demo_pkg", "1.0", FILES, tag="py3-none-linux_x86_64", meta=meta)
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(
        '[[waiver]]\ncode = "A141"\npath = ""\nartifact = "demo_pkg-1.0-py3-none-linux_x86_64.whl"'
        '\nreason = "served by the internal index, which takes linux tags"\n'
    )
    result = run_k3diff("audit", wheel, "--waivers", waivers)
    assert result.exit_code == 0 and "1 finding waived: A141" in result.stdout


def test_a_dist_info_version_past_int_digits_is_no_internal_error(tmp_path: Path) -> None:
    """A `.dist-info` whose version has more digits than `int()` converts is no version of the
    file name's (review80b: reading it so raised past `InvalidVersion`, an internal error, exit
    2): the wheel fails on what it is, a `.dist-info` of another version (W605), with no A141."""
    meta = metadata("demo_pkg", "1.0", metadata_version="2.4")
    wide = "demo_pkg-" + "1" * 5000 + ".dist-info"
    wheel = write_wheel(tmp_path, "demo_pkg", "1.0", FILES, meta=meta, dist_info=wide)
    result = run_k3diff("audit", wheel)
    assert result.exit_code == 1 and "internal error" not in result.stderr, result.stderr
    assert audit_code(wheel) == (1, {"W605"})


def _report(tmp_path: Path, document: dict[str, Any]) -> CliResult:
    (tmp_path / "edited.json").write_text(json.dumps(document))
    return run_k3diff("report", "edited.json", "--out", "bundle", cwd=tmp_path)


def test_an_a141_deleted_is_refused_by_report(tmp_path: Path) -> None:
    """A141 of a name or platform tag follows from the artifact's recorded name, so `report`
    holds the document to it (review80b: deleted with the verdict's counts, the audit of a
    `linux_x86_64` wheel passed `report`, exit 0). Waived, it is still listed and passes; a file
    `audit` could not read as a zip (A001) was never checked so, and is held to nothing."""
    meta = metadata("demo_pkg", "1.0", metadata_version="2.4")
    write_wheel(tmp_path / "dist", "demo_pkg", "1.0", FILES, tag="py3-none-linux_x86_64", meta=meta)
    (tmp_path / "dist" / "demo_pkg-1.0-py3-none-win_mips.whl").write_bytes(b"not a zip")
    (tmp_path / "waivers.toml").write_text(
        '[[waiver]]\ncode = "A141"\npath = ""\nartifact = "demo_pkg-1.0-py3-none-linux_x86_64.whl"'
        '\nreason = "served by the internal index"\n'
    )
    made = run_k3diff("audit", "dist", "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "a.json").read_text())
    listed = [[f["code"] for f in a["findings"]] for a in document["artifacts"]]
    assert listed == [["A141"], ["A001"]]
    assert _report(tmp_path, document).exit_code == 1
    document["artifacts"][0]["findings"] = []
    document["verdict"] = {"ok": False, "exit_code": 1, "errors": 1, "warnings": 0}
    edited = _report(tmp_path, document)
    assert edited.exit_code == 2, edited.stdout + edited.stderr
    assert (
        "(dist/demo_pkg-1.0-py3-none-linux_x86_64.whl lists no A141 finding, which its name "
        "gives)" in edited.stderr
    )
    waived = run_k3diff(
        "audit", "dist/demo_pkg-1.0-py3-none-linux_x86_64.whl", "--waivers", "waivers.toml",
        "--format", "json", "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert waived.exit_code == 0, waived.stderr
    assert _report(tmp_path, json.loads((tmp_path / "w.json").read_text())).exit_code == 0
