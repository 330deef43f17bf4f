"""A wheels document whose failing change is still in its records after its finding was deleted
and its verdict made to pass is refused (exit 2): a native change hidden in its entry (a `.so`
relabelled `other`, its name makes it native whatever its bytes, or `identical` while its sizes
and CRC-32s still differ), and execution surfaces added (an executable `.pth`, a
sitecustomize, an entry point) whose W701, W702 and W704 were deleted. Each read as a
cross-checked pass."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from bundle.helpers import wheels_json
from cli_support import run_k3diff

Edit = Callable[[dict[str, Any]], None]


def _native(document: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = next(e for e in document["entries"] if e["kind"] == "native")
    return entry


def _as_other(document: dict[str, Any]) -> None:
    _native(document)["kind"] = "other"
    summary = document["summary"]
    summary["native"].update(total=0, changed=0)
    summary["other"].update(total=1, changed=1)


def _as_identical(document: dict[str, Any]) -> None:
    _native(document).update(status="identical", how="raw-bytes")
    document["summary"]["native"].update(changed=0, identical=1)


def _as_identical_same_size(document: dict[str, Any]) -> None:
    _as_identical(document)
    entry = _native(document)
    entry["patch_size"] = entry["base_size"]


EDITS: dict[str, tuple[Edit, str]] = {
    "a native entry relabelled other": (
        _as_other,
        "entries[4] pkg/_native.so is 'other' but its name makes it native",
    ),
    "a changed native entry relabelled identical": (
        _as_identical,
        "entries[4] pkg/_native.so is identical but its sizes differ (456 and 464 bytes)",
    ),
    "its sizes made equal too": (
        _as_identical_same_size,
        "entries[4] pkg/_native.so is identical but its CRC-32s differ (016eb57a and 664581a3)",
    ),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_a_native_change_hidden_in_the_entries_is_refused(tmp_path: Path, case: str) -> None:
    edit, message = EDITS[case]
    name = wheels_json(tmp_path, native_changed=True)
    document = json.loads((tmp_path / name).read_text())
    edit(document)
    document["findings"] = [f for f in document["findings"] if f["code"] != "W101"]
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: forged.json: "), line
    assert message in line, line


def test_surface_changes_whose_findings_were_deleted_are_refused(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": b"x = 1\n"}
    added = {
        "sitecustomize.py": b"import os\n",
        "evil.pth": b"import os; os.system('id')\n",
        "pkg-1.0.dist-info/entry_points.txt": b"[pytest11]\nx = pkg:x\n",
    }
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**files, **added})
    run = run_k3diff("wheels", base, patch, "--format", "json", "-o", "s.json", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    document = json.loads((tmp_path / "s.json").read_text())
    assert {f["code"] for f in document["findings"] if f["severity"] == "error"} == {
        "W701", "W702", "W704",
    }  # fmt: skip
    document["findings"] = [f for f in document["findings"] if f["severity"] != "error"]
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    for fragment in (
        "1 pth surfaces added or changed but it lists 0 W701/W706 findings and filters out 0",
        "1 customize surfaces added or changed but it lists 0 W702 findings",
        "1 entry-point surfaces added or changed but it lists 0 W704 findings",
    ):
        assert fragment in line, line


def test_an_audit_whose_shadowing_script_lost_its_finding_is_refused(tmp_path: Path) -> None:
    """`audit` fails a script that replaces a virtual environment's own (W703): the surface
    stays listed in the artifact's `execution_surfaces` when its finding is deleted."""
    wheel = wheelkit.make_wheel(
        tmp_path, "tool", "1.0", {"tool/__init__.py": b"", "tool-1.0.data/scripts/python": b"#!x\n"}
    )
    run = run_k3diff("audit", wheel.name, "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    document = json.loads((tmp_path / "a.json").read_text())
    (artifact,) = document["artifacts"]
    assert [f["code"] for f in artifact["findings"]] == ["W703"]
    artifact["findings"] = []
    document["verdict"].update(ok=True, exit_code=0, errors=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert (
        "artifacts[0] tool-1.0-py3-none-any.whl: 1 script replaces a virtual environment's own "
        "command (bin/python) but it lists 0 W703 findings" in result.stderr
    ), result.stderr


def test_an_audit_whose_shadowing_script_was_relabelled_is_refused(tmp_path: Path) -> None:
    """The same surface's kind spelt in a word `audit` never writes ("Data-Script"): no script
    was left to count and the bundle passed (exit 0)."""
    wheel = wheelkit.make_wheel(
        tmp_path, "tool", "1.0", {"tool/__init__.py": b"", "tool-1.0.data/scripts/python": b"#!x\n"}
    )
    run = run_k3diff("audit", wheel.name, "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    document = json.loads((tmp_path / "a.json").read_text())
    (artifact,) = document["artifacts"]
    artifact["findings"] = []
    for surface in artifact["execution_surfaces"]:
        surface["kind"] = surface["kind"].title()
    document["verdict"].update(ok=True, exit_code=0, errors=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    said = "field 'artifacts[0].execution_surfaces[0].kind' must be one of \"bytecode\", "
    assert said in result.stderr and 'not "Data-Script"' in result.stderr, result.stderr
