"""A wheels document read by `report` must hold together, and a pass under a relaxed policy says
so in the bundle.

Found by the new-user trial: (1) a `wheels` document whose W101 finding was deleted and whose
verdict was edited to pass, its entry still `native changed`, read "artifact identity | pass"
(exit 0): no run writes a changed native entry without its finding, so the reader refuses it;
(2) a comparison run with `--ignore W101` or `--allow-native-changes` read "pass" in the bundle
with no word of the relaxed policy ("filtered findings are never silent", docs/findings.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import wheels_json

WHEEL = "pkg-1.0-py3-none-any.whl"


def _wheels(tmp_path: Path, name: str, *options: str) -> str:
    wheels_json(tmp_path, native_changed=True)  # builds base/ and patch/
    result = run_k3diff(
        "wheels", f"base/{WHEEL}", f"patch/{WHEEL}", *options, "--format", "json", "-o", name,
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return name


def _identity(tmp_path: Path, document: str) -> tuple[int, dict[str, Any], str]:
    """Exit code, the identity row with the bundle's qualifications, and REPORT.md."""
    result = run_k3diff("report", document, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    summary = json.loads((tmp_path / "bundle/summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "artifact identity")
    row = {**row, "qualifications": summary["qualifications"]}
    return result.exit_code, row, (tmp_path / "bundle/REPORT.md").read_text()


def test_a_changed_native_whose_finding_was_deleted_is_refused(tmp_path: Path) -> None:
    name = _wheels(tmp_path, "wheels.json")
    document = json.loads((tmp_path / name).read_text())
    assert any(f["code"] == "W101" for f in document["findings"])
    assert run_k3diff("report", name, "--out", "real", cwd=tmp_path).exit_code == 1
    document["findings"] = [f for f in document["findings"] if f["code"] != "W101"]
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2
    assert "forged.json" in result.stderr
    assert "1 native entry is changed but it lists 0 W101 findings" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_findings_left_out_by_ignore_are_named_in_the_bundle(tmp_path: Path) -> None:
    name = _wheels(tmp_path, "ignored.json", "--ignore", "W101")
    code, row, report = _identity(tmp_path, name)
    assert code == 0 and row["status"] == "pass"  # the run's own verdict, as it was asked
    expected = "--select/--ignore left out findings that would fail the run: 1 × W101"
    assert any(expected in q for q in row["qualifications"]), row["qualifications"]
    assert expected in report


def test_native_changes_allowed_are_named_in_the_bundle(tmp_path: Path) -> None:
    name = _wheels(tmp_path, "allowed.json", "--allow-native-changes")
    code, row, report = _identity(tmp_path, name)
    assert code == 0 and row["status"] == "pass"
    expected = "native changes were allowed (--allow-native-changes): 1 × W101 reported"
    assert any(expected in q for q in row["qualifications"]), row["qualifications"]
    assert expected in report


def test_the_default_policy_adds_no_such_qualification(tmp_path: Path) -> None:
    code, row, _ = _identity(tmp_path, _wheels(tmp_path, "plain.json"))
    assert code == 1 and row["status"] == "FAIL"
    assert not any("--select/--ignore" in q or "allowed" in q for q in row["qualifications"])
