"""A wheel whose tags and Requires-Python admit no Python in common installs nowhere (W616,
both commands): pip refuses a `cp313-cp313` wheel requiring `>=3.14` on 3.13 by its
Requires-Python and on 3.14 by its tags (left67c: both commands passed it, exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.rawwheel import metadata, write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

TAG = "cp313-cp313-manylinux_2_17_x86_64"


def _wheel(directory: Path, requires_python: str, tag: str = TAG) -> Path:
    meta = metadata("demo", "1.0", f"Requires-Python: {requires_python}")
    files = {"demo/__init__.py": b""}
    return write_wheel(directory, "demo", "1.0", files, tag=tag, meta=meta)


@pytest.mark.parametrize("requires_python", [">=3.14", "<3.13", "==3.12.*", ">=4"])
def test_a_wheel_no_python_installs_fails_audit(tmp_path: Path, requires_python: str) -> None:
    wheel = _wheel(tmp_path, requires_python)
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    found = [f for a in report["artifacts"] for f in a["findings"] if f["code"] == "W616"]
    assert len(found) == 1, found
    assert found[0]["path"] == "demo-1.0.dist-info/METADATA"
    assert TAG in found[0]["detail"] and repr(requires_python) in found[0]["detail"]
    assert audit_code(wheel)[0] == 1


def test_a_patch_no_python_installs_fails_wheels(tmp_path: Path) -> None:
    base = _wheel(tmp_path / "b", ">=3.13")
    patch = _wheel(tmp_path / "p", ">=3.14")
    exit_code, report = wheels_json(base, patch)
    found = [f for f in report["findings"] if f["code"] == "W616"]
    assert exit_code == 1 and len(found) == 1, found
    assert "in the patch wheel" in found[0]["detail"] and "'>=3.14'" in found[0]["detail"]


@pytest.mark.parametrize(
    ("tag", "requires_python"),
    [(TAG, ">=3.13"), (TAG, "~=3.13.1"), ("py3-none-any", ">=3.30"), (TAG, "3.14 please")],
)
def test_a_wheel_some_python_installs_passes(
    tmp_path: Path, tag: str, requires_python: str
) -> None:
    """The tags' Pythons and the specifier's meet (an open run past the horizon too; a
    specifier pip cannot read narrows nothing)."""
    wheel = _wheel(tmp_path / "p", requires_python, tag)
    assert "W616" not in audit_code(wheel)[1]  # A122: a pure wheel under a platform tag
    assert "W616" not in codes(wheels_json(_wheel(tmp_path / "b", requires_python, tag), wheel)[1])
