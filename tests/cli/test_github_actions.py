"""Under GitHub Actions (`GITHUB_ACTIONS=true`) a finding command also speaks the runner's
language: each failing finding an `::error` workflow command, the others `::notice`, and the
Markdown report appended to the job summary — with values escaped so no input can end the
command early or start another, and the exit code still the result's."""

from __future__ import annotations

import json
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


def _runner_command(line: str) -> str | None:
    """The workflow command a GitHub Actions runner reads in one line of a step's output (its
    `ActionCommand.TryParseV2`, then the older `TryParse`), None where it reads none."""
    trimmed = line.lstrip()
    if trimmed.startswith("::") and trimmed.find("::", 2) >= 0:
        return trimmed[2 : trimmed.find("::", 2)].split(" ")[0]
    start = line.find("##[")
    if start >= 0 and line.find("]", start) >= 0:
        return line[start + 3 : line.find("]", start)].split(" ")[0]
    return None


HOSTILE_SOURCE = (
    "x = 1\n"
    "::warning title=forged::all clear\n"
    "\u3000::add-mask::FAIL\n"
    "# ##[error]forged in the old syntax\n"
    "y = 2\n"
)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_no_input_makes_the_runner_read_a_workflow_command(
    tmp_path: Path, actions: Path, fmt: str
) -> None:
    """A changed source file's context lines, a `.pth` file's content and an entry name reach
    the step's output (review64: a diff's context line ' ::warning title=forged::all clear'
    was a warning annotation, '::stop-commands::' in a `.pth` shown by the Markdown report
    silenced k3diff's own annotations, '##[error]' in an entry name was an error anywhere on
    its line): none is read as a workflow command, and the JSON document's values are the
    inputs' own."""
    odd = "engine/##[error]forged.py"
    files = {"engine/__init__.py": HOSTILE_SOURCE.encode(), MEMBER: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=TAG)
    changed = {
        **files,
        "engine/__init__.py": HOSTILE_SOURCE.replace("y = 2", "y = 3").encode(),
        "engine.pth": b"::stop-commands::token\n",
        odd: b"z = 1\n",
        MEMBER: SO_CHANGED,
    }
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", changed, tag=TAG)
    result = run_k3diff("wheels", base, patch, "--no-file-hash", "--format", fmt)
    assert result.exit_code == 1, result.stderr
    assert "forged" in result.stdout and "stop-commands" in result.stdout
    read = [(line, _runner_command(line)) for line in result.stdout.splitlines()]
    assert [line for line, command in read if command is not None] == []
    for line in result.stderr.splitlines():
        if not line.startswith(("::error ", "::notice ")):
            assert _runner_command(line) is None, line
    if fmt == "json":
        paths = {entry["path"] for entry in json.loads(result.stdout)["entries"]}
        assert odd in paths and "engine.pth" in paths
    missing = run_k3diff("wheels", tmp_path / "##[error]gone.whl", patch)
    assert missing.exit_code == 2 and "gone.whl" in missing.stderr
    assert all(_runner_command(line) is None for line in missing.stderr.splitlines())


def test_a_command_split_across_two_pieces_of_a_report_is_made_inert_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large report is written piece by piece (`emit_chunks`): whatever byte a piece ends at,
    the report written is the one written whole."""
    from k3diff import output

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    report = "a ##[error]x\n  ::warning::y\n::\n b\n #\n##[notice]z ::q::\n"
    whole = "".join(output._workflow_inert([report]))
    assert [_runner_command(line) for line in whole.splitlines()] == [None] * 6
    for one in range(len(report) + 1):
        for two in range(one, len(report) + 1):
            pieces = [report[:one], report[one:two], report[two:]]
            assert "".join(output._workflow_inert(pieces)) == whole, (one, two)
