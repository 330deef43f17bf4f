"""The real entry point, in a subprocess: `python -m k3diff` exits with the code `main` returns.

Every other CLI test calls `k3diff.cli.main(argv)` in-process; these few prove the process
boundary (sys.exit, stdout/stderr, no traceback) behaves the same.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import wheelkit
from cli_support import run_k3diff, run_k3diff_process


def _wheels(tmp_path: Path) -> tuple[Path, Path]:
    base_files = {"engine/_C.so": wheelkit.elf_bytes(b"\x31\xc0\xc3")}
    patch_files = {"engine/_C.so": wheelkit.elf_bytes(b"\x31\xc0\x90\xc3")}
    paths = []
    for side, files in (("base", base_files), ("patch", patch_files)):
        entries = wheelkit.wheel_files("engine", "1.0", files, tag="py3-none-any")
        path = tmp_path / f"{side}.whl"
        wheelkit.write_zip(path, entries, method=zipfile.ZIP_STORED)
        paths.append(path)
    return paths[0], paths[1]


def test_version_exits_0(tmp_path: Path) -> None:
    result = run_k3diff_process("--version")
    assert result.exit_code == 0 and "k3diff" in result.stdout


def test_native_change_exits_1_in_a_process_as_in_process(tmp_path: Path) -> None:
    base, patch = _wheels(tmp_path)
    in_process = run_k3diff("wheels", base, patch, cwd=tmp_path)
    in_a_process = run_k3diff_process("wheels", base, patch, cwd=tmp_path)
    assert in_a_process.exit_code == in_process.exit_code == 1
    assert in_a_process.stdout == in_process.stdout
    assert in_a_process.stderr == in_process.stderr == ""


def test_missing_input_exits_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    base, _ = _wheels(tmp_path)
    result = run_k3diff_process("wheels", base, tmp_path / "nope.whl")
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and "nope.whl" in result.stderr
    assert "Traceback" not in result.stderr
