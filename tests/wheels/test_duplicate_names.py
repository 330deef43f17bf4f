"""W608 in `k3diff wheels`: a name given twice is a finding that `--select W608` reports and
fails on, and the later entry, the file pip leaves on disk, is the one compared (README's
findings table)."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

FILES = {"engine/__init__.py": b"", "engine/model.py": b"def run(x):\n    return x\n"}


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    """A wheel and a copy with `engine/model.py` given a second time, changed."""
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    dup = tmp_path / "dup" / base.name
    dup.parent.mkdir()
    shutil.copy(base, dup)
    with zipfile.ZipFile(dup, "a") as archive, pytest.warns(UserWarning):
        archive.writestr(zipfile.ZipInfo("engine/model.py"), b"evil = True\n")
    return base, dup


@pytest.mark.parametrize("selected", [("--select", "W608"), ()])
def test_a_duplicate_name_is_w608_and_fails(tmp_path: Path, selected: tuple[str, ...]) -> None:
    base, dup = _pair(tmp_path)
    result = run_k3diff("wheels", base, dup, *selected, "--format", "json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    w608 = [f for f in report["findings"] if f["code"] == "W608"]
    assert [(f["path"], f["severity"]) for f in w608] == [("engine/model.py", "error")]
    if selected:
        assert {f["code"] for f in report["findings"]} == {"W608"}
    (entry,) = (e for e in report["entries"] if e["path"] == "engine/model.py")
    assert entry["status"] == "changed"  # the later entry, b"evil = True\n", is compared


def test_ignoring_w608_leaves_the_change_it_hides(tmp_path: Path) -> None:
    base, dup = _pair(tmp_path)
    result = run_k3diff("wheels", base, dup, "--ignore", "W608", "--format", "json")
    report = json.loads(result.stdout)
    assert "W608" not in {f["code"] for f in report["findings"]}
    assert "W201" in {f["code"] for f in report["findings"]}


def _raw_wheel(path: Path, members: list[tuple[str, bytes]]) -> Path:
    """A wheel written record by record with the raw zip writer (no zip tool warns or refuses),
    its RECORD honest for the first of each name."""
    files = wheelkit.wheel_files("engine", "1.0", dict(FILES))
    listed = [(name, files[name]) for name in files]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        wheelkit.raw_zip([wheelkit.raw_member(name, data) for name, data in listed + members])
    )
    return path


def test_wheels_reports_w608_as_audit_does_for_a_raw_written_duplicate(tmp_path: Path) -> None:
    """One finding model: `wheels --select W608` and `audit` name the same code, path and
    severity for a name the raw writer gives twice, and both fail (exit 1), not exit 2."""
    base = _raw_wheel(tmp_path / "base" / "engine-1.0-py3-none-any.whl", [])
    dup = _raw_wheel(
        tmp_path / "dup" / "engine-1.0-py3-none-any.whl", [("engine/model.py", b"evil = 1\n")]
    )
    wheels = run_k3diff("wheels", base, dup, "--select", "W608", "--format", "json")
    audit = run_k3diff("audit", dup, "--format", "json")
    assert (wheels.exit_code, audit.exit_code) == (1, 1), wheels.stderr + audit.stderr
    wheels_found = json.loads(wheels.stdout)["findings"]
    (artifact,) = json.loads(audit.stdout)["artifacts"]
    audit_found = [f for f in artifact["findings"] if f["code"] == "W608"]
    assert [f["code"] for f in wheels_found] == ["W608"]
    # The same form in both documents; only the detail names the side in `wheels`.
    assert [{**f, "detail": ""} for f in wheels_found] == [{**f, "detail": ""} for f in audit_found]
    assert wheels_found[0] == {
        "code": "W608",
        "message": "duplicate entry name",
        "path": "engine/model.py",
        "detail": "in the patch wheel: 2 entries share this name",
        "severity": "error",
    }
