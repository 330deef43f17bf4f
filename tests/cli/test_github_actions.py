"""Under GitHub Actions (`GITHUB_ACTIONS=true`) a finding command also speaks the runner's
language: each failing finding an `::error` workflow command, the others `::notice`, and the
Markdown report appended to the job summary — with values escaped so no input can end the
command early or start another, and the exit code still the result's."""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_bytes(b"\x31\xc0\xc3\x90" * 512)
TAG = "cp311-cp311-linux_x86_64"
MEMBER = "engine/_C.cpython-311-x86_64-linux-gnu.so"


@pytest.fixture
def actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    return summary


def _pair(tmp_path: Path, extra: dict[str, bytes] | None = None) -> tuple[Path, Path]:
    files = {"engine/__init__.py": b"x = 1\n", MEMBER: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=TAG)
    changed = {**files, MEMBER: SO_CHANGED, **(extra or {})}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", changed, tag=TAG)
    return base, patch


def test_a_failing_finding_is_an_error_annotation_and_the_report_a_summary(
    tmp_path: Path, actions: Path
) -> None:
    base, patch = _pair(tmp_path, {"engine/new.py": b"y = 2\n"})
    result = run_k3diff("wheels", base, patch, "--no-file-hash", "--format", "json")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert errors == [
        f"::error file={patch},title=W101::{MEMBER}: native entry changed: "
        + errors[0].split(": native entry changed: ", 1)[1]
    ]
    assert any(line.startswith("::notice ") and "title=W203" in line for line in lines)
    summary = actions.read_text(encoding="utf-8")
    assert summary.startswith("earlier step\n")  # appended, never replaced
    assert "Verdict: FAIL (exit 1)" in summary and "W101" in summary
    assert result.stdout.lstrip().startswith("{")  # stdout keeps the report alone


def test_annotation_values_cannot_forge_workflow_commands(tmp_path: Path, actions: Path) -> None:
    hostile = "engine/x%0A::warning::forged,title=1:2\n::error::also.py"
    base, patch = _pair(tmp_path, {hostile: b"z = 3\n"})
    result = run_k3diff("wheels", base, patch, "--no-file-hash")
    commands = [line for line in result.stderr.splitlines() if line.startswith("::")]
    forged = [line for line in commands if "forged" in line]
    assert forged, result.stderr
    for line in forged:
        # One command per line: the name's newline is shown as '\n', its '%0A' cannot decode
        # to one ('%' is '%25'), and the ',' and ':' of properties are escaped too.
        assert line.startswith(("::error ", "::notice "))
        assert "%250A" in line and "\\n" in line
    assert {line.split(" ", 1)[0] for line in commands} <= {"::error", "::notice"}


def test_without_github_actions_nothing_extra_is_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    base, patch = _pair(tmp_path)
    result = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert result.exit_code == 1 and "::error" not in result.stderr


def test_an_unwritable_summary_is_one_line_and_keeps_the_verdict(
    tmp_path: Path, actions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no" / "such" / "dir" / "s.md"))
    base, patch = _pair(tmp_path)
    result = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert result.exit_code == 1
    assert "cannot append to GITHUB_STEP_SUMMARY" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_artifact_path_cannot_forge_annotation_properties(tmp_path: Path, actions: Path) -> None:
    """The `file=` property is the artifact path (a wheel found in a directory names itself):
    its `,` and `:` are `%2C` and `%3A`, so it cannot add a property such as `title=`."""
    base, patch = _pair(tmp_path / "d,title=forged:x%0A")
    result = run_k3diff("wheels", base, patch, "--no-file-hash")
    errors = [line for line in result.stderr.splitlines() if line.startswith("::error ")]
    assert errors and all(line.count(",title=") == 1 for line in errors)
    props = errors[0].split("::")[1]
    assert "d%2Ctitle=forged%3Ax%250A" in props and ",title=W101" in props
