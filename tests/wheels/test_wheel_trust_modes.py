"""Entry permissions as pip installs them (issue 20, item 2): an exec bit or file type that
changes what pip puts on disk is a change, judged against what pip really installs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_json, run_k3diff

from wheels.trust_support import FILES, failing_codes, finding_codes, orjson_wheel

# Item 2: entry permissions as pip installs them ----------------------------------------------

EXECUTABLE = 0o100755
PLAIN = 0o100644


def _pip_installs_executable(wheel: Path, target: Path, path: str) -> bool:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-compile",
            "--no-index",
            "--disable-pip-version-check",
            # The wheel's true tags are CPython 3.12's (its extension is named for 3.12): pip
            # installs it into a target for that Python, whatever Python runs the test.
            "--only-binary=:all:",
            "--python-version=3.12",
            "--implementation=cp",
            "--abi=cp312",
            "--platform=manylinux2014_x86_64",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    return bool(os.stat(target / path).st_mode & stat.S_IXUSR)


@pytest.mark.parametrize(
    ("base_mode", "patch_mode", "codes"),
    [
        (EXECUTABLE, PLAIN, ["W620"]),  # ptxas lost its exec bit: installs a file that cannot run
        (PLAIN, EXECUTABLE, ["W620"]),
        (0o755, PLAIN, ["W622"]),  # exec bits without a file type: pip ignores them
        (EXECUTABLE, 0o100700, ["W622"]),  # pip installs both executable
        (EXECUTABLE, 0o100775, []),  # other bits: pip installs both with the umask's mode
    ],
)
def test_exec_bits_are_judged_as_pip_installs_them(
    tmp_path: Path, base_mode: int, patch_mode: int, codes: list[str]
) -> None:
    helper = "orjson/bin/helper"
    base = orjson_wheel(tmp_path, "base", modes={helper: base_mode})
    patch = orjson_wheel(tmp_path, "patch", modes={helper: patch_mode})
    code, report = run_json("wheels", base, patch)
    mode_codes = [c for c in finding_codes(report) if c in ("W620", "W621", "W622")]
    assert mode_codes == codes
    installed_differently = _pip_installs_executable(
        base, tmp_path / "site-base", helper
    ) != _pip_installs_executable(patch, tmp_path / "site-patch", helper)
    assert installed_differently == ("W620" in codes)
    assert code == (1 if installed_differently else 0)
    (entry,) = [e for e in report["entries"] if e["path"] == helper]
    assert entry["status"] == ("changed" if installed_differently else "identical")
    assert entry["base_mode"] == f"0o{base_mode:o}"
    assert entry["patch_mode"] == f"0o{patch_mode:o}"


def test_a_lost_exec_bit_is_a_change_in_the_headline_and_names_both_modes(
    tmp_path: Path,
) -> None:
    helper = "orjson/bin/helper"
    base = orjson_wheel(tmp_path, "base", modes={helper: EXECUTABLE})
    patch = orjson_wheel(tmp_path, "patch", modes={helper: PLAIN})
    _, report = run_json("wheels", base, patch)
    (finding,) = [f for f in report["findings"] if f["code"] == "W620"]
    assert finding["detail"] == (
        "mode 0o100755 -> 0o100644: pip installs it executable from the base, "
        "not executable from the patch"
    )
    assert report["summary"]["other"]["changed"] == 1
    text = run_k3diff("wheels", base, patch)
    assert text.exit_code == 1
    assert "every entry is identical" not in text.stdout
    assert "mode 0o100755 -> 0o100644" in text.stdout


def test_an_exec_bit_change_on_a_native_entry_fails_even_when_native_changes_are_allowed(
    tmp_path: Path,
) -> None:
    library = "orjson/orjson.cpython-312-x86_64-linux-gnu.so"
    base = orjson_wheel(tmp_path, "base", modes={library: EXECUTABLE})
    patch = orjson_wheel(tmp_path, "patch", modes={library: PLAIN})
    code, report = run_json("wheels", base, patch, "--allow-native-changes")
    assert (code, failing_codes(report)) == (1, ["W620"])
    assert "W101" not in finding_codes(report)  # the content is identical: nothing else to say


def test_a_regular_file_that_became_a_symbolic_link_is_w621(tmp_path: Path) -> None:
    helper = "orjson/bin/helper"
    base = orjson_wheel(tmp_path, "base", modes={helper: PLAIN})
    patch = orjson_wheel(tmp_path, "patch", modes={helper: 0o120644})
    code, report = run_json("wheels", base, patch)
    assert code == 1
    assert "W621" in failing_codes(report)


# Item 2 in audit: entry permissions that install, but not as meant -----------------------------


def _pie(interp: bool) -> bytes:
    """An ELF64 of type DYN with one program header: PT_INTERP (a program) or PT_LOAD (a
    library)."""
    import struct

    header = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    program = struct.pack("<IIQQQQQQ", 3 if interp else 1, 4, 0, 0, 0, 0, 0, 1)
    return header + program + b"\0" * 200


@pytest.mark.parametrize(
    ("content", "mode", "codes"),
    [
        (_pie(interp=True), PLAIN, ["A121"]),  # ptxas that will not run once installed
        (_pie(interp=True), EXECUTABLE, []),
        (_pie(interp=False), PLAIN, []),  # a shared library needs no exec bit
        (b"#!/bin/sh\necho hi\n", 0o755, ["A120"]),  # exec bits pip ignores
        (b"#!/bin/sh\necho hi\n", PLAIN, []),
    ],
)
def test_audit_warns_where_pip_installs_a_program_not_executable(
    tmp_path: Path, content: bytes, mode: int, codes: list[str]
) -> None:
    path = "triton/backends/nvidia/bin/ptxas"
    wheel = orjson_wheel(tmp_path, "dist", {**FILES, path: content}, modes={path: mode})
    code, report = run_json("audit", wheel)
    findings = report["artifacts"][0]["findings"]
    assert [f["code"] for f in findings] == codes
    assert all(f["severity"] == "info" for f in findings)
    assert code == 0
    if codes:
        target = tmp_path / "site"
        assert not _pip_installs_executable(wheel, target, path)
