"""A report that cannot reach stdout ends the run with exit 2, never a traceback and never the
report's own verdict: a reader that went away (`| head`, a closed pipe) or a full device
(`> /dev/full`). Click turns a broken pipe raised in a command into `sys.exit(1)`, which for a
passing report said "differences" (review55a); a full device raised a traceback with exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit


@pytest.fixture(scope="module")
def same(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two identical wheels: the report's verdict is exit 0."""
    tmp = tmp_path_factory.mktemp("stdout")
    files = {"engine/__init__.py": b"VERSION = 1\n"}
    return (
        wheelkit.make_wheel(tmp / "base", "engine", "1.0", files),
        wheelkit.make_wheel(tmp / "patch", "engine", "1.0", files),
    )


def _command(pair: tuple[Path, Path], fmt: str) -> list[str]:
    return [sys.executable, "-m", "k3diff", "wheels", *map(str, pair), "--format", fmt]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_closed_pipe_is_exit_2_without_a_word(same: tuple[Path, Path], fmt: str) -> None:
    child = subprocess.Popen(
        _command(same, fmt), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    child.stdout.close()
    _, err = child.communicate(timeout=300)
    assert (child.returncode, err) == (2, "")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_device_is_exit_2_and_one_line(same: tuple[Path, Path]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            _command(same, "text"), stdout=full, stderr=subprocess.PIPE, text=True, timeout=300
        )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "No space left on device" in done.stderr, done.stderr


def test_a_passing_report_still_reaches_stdout(same: tuple[Path, Path]) -> None:
    done = subprocess.run(_command(same, "json"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("{") and done.stderr == ""
