"""A stderr that cannot take k3diff's lines (a full device, a closed descriptor) changes no exit
code: a report written with `--output` keeps its verdict (0 or 1) although the line repeating
it could not be said, and a run that fails is still exit 2. Before, either raised a traceback
nobody could read and exited 1: 'differences' for a passing report (review56)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit

FULL = Path("/dev/full")


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A base wheel, an identical patch and one whose native library differs."""
    tmp = tmp_path_factory.mktemp("stderr")
    files = {"engine/__init__.py": b"VERSION = 1\n"}
    native = {**files, "engine/_C.so": wheelkit.elf_bytes(b"\x90" * 64)}
    return {
        "base": wheelkit.make_wheel(tmp / "base", "engine", "1.0", files),
        "same": wheelkit.make_wheel(tmp / "same", "engine", "1.0", files),
        "native": wheelkit.make_wheel(tmp / "native", "engine", "1.0", native),
    }


def _run(args: list[str], stderr: str, cwd: Path) -> int:
    """Run `python -m k3diff ARGS` with stderr on /dev/full ('full') or closed ('closed')."""
    command = [sys.executable, "-m", "k3diff", *args]
    if stderr == "closed":
        command = ["sh", "-c", 'exec "$@" 2>&-', "sh", *command]
        return subprocess.run(command, cwd=cwd, timeout=300).returncode
    with FULL.open("w") as full:
        return subprocess.run(command, cwd=cwd, stderr=full, timeout=300).returncode


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("stderr", ["full", "closed"])
@pytest.mark.parametrize(("patch", "code"), [("same", 0), ("native", 1)])
def test_a_report_written_keeps_its_verdict(
    wheels: dict[str, Path], tmp_path: Path, stderr: str, patch: str, code: int
) -> None:
    args = ["wheels", str(wheels["base"]), str(wheels[patch]), "--format", "json", "-o", "r.json"]
    assert _run(args, stderr, tmp_path) == code
    assert json.loads((tmp_path / "r.json").read_text())["verdict"]["exit_code"] == code


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_failed_run_is_still_exit_2(wheels: dict[str, Path], tmp_path: Path, stderr: str) -> None:
    assert _run(["wheels", "missing.whl", str(wheels["base"])], stderr, tmp_path) == 2
