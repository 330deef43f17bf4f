"""The default protected command names (wheels61 item 3): a script taking over a name run with
upload or CI credentials, or as root, fails (W703) where another new script is only listed
(W707); the name is compared as a case-blind PATH with Windows suffixes finds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from wheel.pipinstall import pip_install

FILES = {"tool/__init__.py": b"", "tool/cli.py": b"def main():\n    return 0\n"}


def _pair(tmp_path: Path, added: dict[str, bytes]) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "tool", "1.0", FILES, tool="zip")
    patch_files = {**FILES, **{k.replace("VERSION", "1.1"): v for k, v in added.items()}}
    patch = wheelkit.make_wheel(tmp_path / "patch", "tool", "1.1", patch_files, tool="zip")
    return base, patch


def _codes(tmp_path: Path, base: Path, patch: Path, *options: str) -> tuple[int, set[str]]:
    result = run_k3diff("wheels", base, patch, "--format", "json", *options)
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, {f["code"] for f in json.loads(result.stdout)["findings"]}


def test_a_console_script_named_twine_fails(tmp_path: Path) -> None:
    """pip 26 writes `bin/twine`, which a release job runs with its PyPI token."""
    points = b"[console_scripts]\ntwine = tool.cli:main\n"
    base, patch = _pair(tmp_path, {"tool-VERSION.dist-info/entry_points.txt": points})
    installed = pip_install(patch, tmp_path / "env", prefix=True)
    assert installed.ok, installed.output
    assert "bin/twine" in installed.tree
    code, found = _codes(tmp_path, base, patch)
    assert code == 1 and "W703" in found
    code, found = _codes(tmp_path, base, patch, "--protected-commands", "ls")
    assert code == 0 and "W707" in found and "W703" not in found


@pytest.mark.parametrize("name", ["Git.exe", "TOX", "pkexec.cmd"])
def test_a_copied_script_is_protected_whatever_its_case_or_windows_suffix(
    tmp_path: Path, name: str
) -> None:
    base, patch = _pair(tmp_path, {f"tool-VERSION.data/scripts/{name}": b"#!/bin/sh\n"})
    code, found = _codes(tmp_path, base, patch, "--ignore", "W708")
    assert code == 1 and "W703" in found


def test_a_user_list_is_folded_too(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path, {"tool-VERSION.data/scripts/deploy.exe": b"#!/bin/sh\n"})
    code, found = _codes(
        tmp_path, base, patch, "--protected-commands", "DEPLOY", "--ignore", "W708"
    )
    assert code == 1 and "W703" in found
