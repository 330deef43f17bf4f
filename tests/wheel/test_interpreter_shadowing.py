"""A script that takes the name of a virtual environment's own interpreter, pip or activation
script fails both commands (W703), whatever `--protected-commands` says: pip, installing into
the environment, replaces the environment's file with the wheel's script."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.test_installed_view import BASE_FILES, audit_code, codes, wheels_json
from wheel.tricks import build

ENTRY_POINTS = "demo-2.0.dist-info/entry_points.txt"
VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"


@pytest.mark.parametrize(
    "script",
    [f"python{VERSION}", "python3", "pythonw", f"pip{VERSION}", "pip3", "activate", "Activate.ps1"],
)
def test_a_console_script_named_like_the_environment_fails_both_commands(
    tmp_path: Path, script: str
) -> None:
    ep = f"[console_scripts]\n{script} = demo.cli:main\n".encode()
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, ENTRY_POINTS: ep})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W703" in codes(report), report["findings"]
    # The user's list replaces the common commands, never the environment's own names.
    assert run_k3diff("wheels", base, patch, "--protected-commands", "ls").exit_code == 1
    assert audit_code(patch) == (1, {"W703"})


def test_a_data_script_named_pip3_n_fails_audit(tmp_path: Path) -> None:
    wheel = build(
        tmp_path / "p", "2.0", {**BASE_FILES, f"demo-2.0.data/scripts/pip{VERSION}": b"#!python\n"}
    )
    assert audit_code(wheel) == (1, {"W703"})


def test_an_ordinary_script_passes_audit_and_a_common_name_is_the_users_choice(
    tmp_path: Path,
) -> None:
    ep = (
        b"[console_scripts]\ndemo-tool = demo.cli:main\ngit = demo.cli:main\n"
        b"activate-global-python-argcomplete = demo.cli:main\n"  # argcomplete's real script
    )
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, ENTRY_POINTS: ep})
    assert audit_code(patch) == (0, set())
    assert run_k3diff("wheels", base, patch).exit_code == 1  # git is a common command
    assert run_k3diff("wheels", base, patch, "--protected-commands", "ls").exit_code == 0


def test_pip_replaces_the_environments_interpreter_with_the_script(tmp_path: Path) -> None:
    """The oracle: the newest pip installs the wheel into a fresh virtual environment, and
    `bin/pythonX.Y` is the wheel's script afterwards."""
    ep = f"[console_scripts]\npython{VERSION} = demo.cli:main\n".encode()
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, ENTRY_POINTS: ep})
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(env_dir)
    interpreter = env_dir / "bin" / f"python{VERSION}"
    assert interpreter.exists()
    command = [
        sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install",
        "--no-deps", "--no-index", "--no-compile", "--disable-pip-version-check", "--quiet",
        str(patch),
    ]  # fmt: skip
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not interpreter.is_symlink()
    assert b"demo.cli" in interpreter.read_bytes()
