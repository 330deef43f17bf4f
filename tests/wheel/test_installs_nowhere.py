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


def test_the_next_step_of_a_wheel_no_python_installs_names_its_tags_or_requires_python(
    tmp_path: Path,
) -> None:
    """No entry is to rename: the step says to change the tags or Requires-Python (w408b),
    in the text report and in the bundle alike."""
    base = _wheel(tmp_path / "b", ">=3.13")
    patch = _wheel(tmp_path / "p", ">=3.14")
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 1
    (step,) = [line for line in result.stdout.splitlines() if "no waiver accepts" in line]
    assert step.strip() == (
        "1 × W616: no waiver accepts it (pip installs the wheel on no Python: its tags and "
        "Requires-Python admit none in common): rebuild it with its tags or its Requires-Python "
        "so that they admit the Pythons it is for (the detail names both), then compare the "
        "rebuilt wheel"
    )
    assert "renaming" not in result.stdout
    made = run_k3diff("wheels", base, patch, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1
    run_k3diff("report", "w.json", base, patch, "--out", "bundle", cwd=tmp_path)
    said = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "rebuild it with its tags or its Requires-Python" in said and "renaming" not in said


def test_the_next_step_of_an_abi_paired_with_any_names_the_tags_alone(tmp_path: Path) -> None:
    """`cp313-cp313-any` installs nowhere by its tags alone, whatever its Requires-Python:
    the step names the tags (review68c: it said the tags and Requires-Python 'admit none in
    common', 'the detail names both', while the detail names no Requires-Python)."""
    base = _wheel(tmp_path / "b", ">=3.13", "cp313-none-any")
    patch = _wheel(tmp_path / "p", ">=3.13", "cp313-cp313-any")
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 1
    (step,) = [line for line in result.stdout.splitlines() if "no waiver accepts" in line]
    assert step.strip() == (
        "1 × W616: no waiver accepts it (pip installs the wheel on no Python: its tags pair an "
        "ABI with the platform 'any'): rebuild it with tags pip installs (an ABI with a "
        "platform's tag, or 'none' with 'any'), then compare the rebuilt wheel"
    )
    made = run_k3diff("wheels", base, patch, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1
    run_k3diff("report", "w.json", base, patch, "--out", "bundle", cwd=tmp_path)
    said = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "rebuild it with tags pip installs" in said and "Requires-Python" not in said
