"""An audit document is checked against itself: its verdict's counts against its findings, and
its manifest's names against its A201-A203 findings (`k3diff report` refuses one that was
edited to pass)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from wheelkit import make_wheel


def _audit(tmp_path: Path) -> dict[str, Any]:
    make_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
    (tmp_path / "notes.txt").write_text("v1\n")
    names = ["demo-1.0-py3-none-any.whl", "notes.txt"]
    wrote = run_k3diff("audit", *names, "--write-manifest", "SUMS", cwd=tmp_path)
    assert wrote.exit_code == 0, wrote.stderr
    (tmp_path / "notes.txt").write_text("v2\n")  # now it mismatches its pinned digest
    result = run_k3diff(
        "audit", *names, "--manifest", "SUMS", "--format", "json", "-o", "audit.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1
    document: dict[str, Any] = json.loads((tmp_path / "audit.json").read_text())
    assert [f["code"] for f in document["findings"]] == ["A201"]
    return document


def _passing(document: dict[str, Any]) -> None:
    document["verdict"].update(ok=True, exit_code=0)


def _no_a201(document: dict[str, Any]) -> None:
    document["findings"] = []
    document["verdict"].update(ok=True, exit_code=0, errors=0)


def _errors_without_findings(document: dict[str, Any]) -> None:
    document["findings"] = []
    document["verdict"].update(ok=True, exit_code=0, errors=1)


def _errors_as_text(document: dict[str, Any]) -> None:
    document["verdict"]["errors"] = "1"


CASES = {
    "ok with an error finding": (
        _passing,
        "verdict.exit_code 0 does not follow from its findings (1 failing: A201",
    ),
    "mismatch without its A201": (_no_a201, "manifest.mismatched names 1 but 0 A201"),
    "errors counted that are not there": (_errors_without_findings, "verdict.errors is 1"),
    "errors as a string": (_errors_as_text, "field 'verdict.errors' must be an integer"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_edited_audit_document_is_refused(tmp_path: Path, case: str) -> None:
    edit, message = CASES[case]
    document = _audit(tmp_path)
    assert run_k3diff("report", "audit.json", "--out", "b0", cwd=tmp_path).exit_code == 1
    edit(document)
    (tmp_path / "edited.json").write_text(json.dumps(document))
    result = run_k3diff("report", "edited.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
