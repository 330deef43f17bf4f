"""A patch's installed view shares the base's files where both write them from the same names
(`wheel.installedbeside`); what the patch's own new files do to them is still found: a case twin
of a shared file (W615), a new file where a shared one needs a directory or under a shared file
(W616), through the CLI (wheels written by `zipfile`: `zip` writes from a directory, which
cannot hold a file where another needs a directory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_json, run_k3diff

from .test_wheels_cli import FILES, TAG


def _compare(tmp_path: Path, added: dict[str, bytes], tag: str = TAG) -> tuple[int, dict[str, Any]]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=tag)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", {**FILES, **added}, tag=tag)
    text = run_k3diff("wheels", base, patch, "--no-file-hash")
    code, report = run_json("wheels", base, patch, "--no-file-hash")
    assert text.exit_code == code
    return code, report


def _failing(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error")


def test_a_case_twin_of_a_shared_file_collides(tmp_path: Path) -> None:
    """Whatever the tags: a Linux wheel is installed onto case-blind file systems too
    (`pip install --platform … --target` on Windows or macOS; review69d)."""
    twin = {"engine/Model.py": b"X = 1\n"}
    for tag in (f"{TAG}.macosx_11_0_x86_64", TAG):
        code, report = _compare(tmp_path / tag, twin, tag)
        assert code == 1
        assert ("W615", "site-packages/engine/Model.py") in _failing(report)


def test_a_new_file_where_a_shared_file_needs_a_directory_is_refused(tmp_path: Path) -> None:
    code, report = _compare(tmp_path, {"engine/data": b"not a directory\n"})
    assert code == 1
    assert ("W616", "engine/data") in _failing(report)


def test_a_new_file_under_a_shared_file_is_refused(tmp_path: Path) -> None:
    code, report = _compare(tmp_path, {"engine/model.py/inner.py": b"X = 1\n"})
    assert code == 1
    assert ("W616", "engine/model.py") in _failing(report)


def test_a_new_file_beside_the_shared_ones_passes(tmp_path: Path) -> None:
    code, report = _compare(tmp_path, {"engine/extra.py": b"X = 1\n"})
    assert (code, _failing(report)) == (0, [])
