"""What a `k3diff.logs/1` document claims is held to the document itself, and what a scan left out
is said wherever its verdict is (hunt75). A patch finding is new exactly when the base lists no
finding of its rule and message, and a finding's severity is its rule's: one that says otherwise
is refused by every reader (a patch's CUDA error marked `new: false` with no base finding to
excuse it, its `new` removed, or written as a warning, the counts and verdict edited to agree,
made the bundle's runtime-logs row pass, exit 0). Rules left out with `--ignore-rule` are named
on the verdict line and in the bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

PATCH_LOG = (
    "INFO start\n"
    "Traceback (most recent call last):\n"
    '  File "worker.py", line 1, in <module>\n'
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


def _excused(document: dict[str, Any], drop: bool) -> dict[str, Any]:
    """The patch's new error called not new (or its `new` dropped), every count agreeing."""
    (finding,) = [f for f in document["findings"] if f["side"] == "patch"]
    assert finding["new"] is True
    if drop:
        del finding["new"]
    else:
        finding["new"] = False
    document["summary"].update(new_on_patch=0, new_errors_on_patch=0)
    for rule in document["rules"]:
        rule["new_on_patch"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0, "strict": False, "failures": []}
    return document


@pytest.mark.parametrize("drop", [False, True], ids=["new-false", "new-removed"])
def test_a_patch_error_excused_by_no_base_finding_is_refused(tmp_path: Path, drop: bool) -> None:
    (tmp_path / "base.log").write_text("INFO start\nINFO ok\n")
    (tmp_path / "patch.log").write_text(PATCH_LOG)
    scan = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "logs.json", cwd=tmp_path
    )
    assert scan.exit_code == 1, scan.stderr
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(_excused(json.loads(path.read_text()), drop)))
    refused = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    said = "says new: false" if not drop else "leaves out new"
    assert refused.stderr == (
        "k3diff: error: logs.json: the document disagrees with itself (the patch's cuda-error "
        f"finding 'RuntimeError: CUDA error: an illegal memory access was encountered (in a "
        f"traceback)' {said}, but the base lists no finding of its rule and message): it "
        "was edited or is corrupt; regenerate it with the command that wrote it\n"
    )
    assert not (tmp_path / "bundle").exists()


def test_a_patch_error_the_base_shares_is_read_as_written(tmp_path: Path) -> None:
    """The same error on both sides is not new, as `logs` wrote it: read, and not failing."""
    (tmp_path / "base.log").write_text(PATCH_LOG)
    (tmp_path / "patch.log").write_text(PATCH_LOG + "INFO more\n")
    scan = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "logs.json", cwd=tmp_path
    )
    assert scan.exit_code == 0, scan.stderr
    bundle = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr


def _scanned(folder: Path, *options: str) -> dict[str, Any]:
    (folder / "base.log").write_text("INFO start\nINFO ok\n")
    (folder / "patch.log").write_text(PATCH_LOG)
    scan = run_k3diff(
        "logs", "base.log", "patch.log", *options, "--format", "json", "-o", "logs.json", cwd=folder
    )
    assert scan.exit_code == (0 if options else 1), scan.stderr
    return dict(json.loads((folder / "logs.json").read_text()))


@pytest.mark.parametrize("rule_too", [False, True], ids=["finding", "finding-and-rule"])
def test_an_error_finding_relabelled_a_warning_is_refused(tmp_path: Path, rule_too: bool) -> None:
    """hunt75: the patch's new CUDA error written as a `warning` (and its built-in rule too),
    the counts and verdict edited to agree, passed the runtime-logs row, exit 0."""
    document = _scanned(tmp_path)
    (finding,) = [f for f in document["findings"] if f["side"] == "patch"]
    finding["severity"] = "warning"
    document["summary"]["new_errors_on_patch"] = 0
    if rule_too:
        (rule,) = [r for r in document["rules"] if r["name"] == "cuda-error"]
        rule["severity"] = "warning"
    document["verdict"] = {"ok": True, "exit_code": 0, "strict": False, "failures": []}
    (tmp_path / "logs.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    said = (
        "the built-in rule cuda-error is an error rule, listed as a warning"
        if rule_too
        else "the patch's cuda-error finding is a warning, but its rule is an error rule"
    )
    assert refused.stderr.startswith(
        f"k3diff: error: logs.json: the document disagrees with itself ({said}"
    ), refused.stderr


def test_rules_left_out_are_said_wherever_the_verdict_is(tmp_path: Path) -> None:
    """hunt75: `--ignore-rule cuda-error --ignore-rule traceback` on a log whose patch hit a
    CUDA error said `Verdict: OK (exit 0): no error finding on the patch`, and the bundle's
    runtime-logs row passed, with nothing said of the rules left out."""
    options = ("--ignore-rule", "cuda-error", "--ignore-rule", "traceback")
    document = _scanned(tmp_path, *options)
    assert document["rerun"]["ignored"] == ["cuda-error", "traceback"]
    said = "rules ignored (--ignore-rule cuda-error --ignore-rule traceback): not scanned for"
    text = run_k3diff("logs", "base.log", "patch.log", *options, cwd=tmp_path)
    assert text.exit_code == 0
    assert text.stdout.rstrip().endswith(
        f"Verdict: OK (exit 0): no error finding on the patch; {said}"
    ), text.stdout
    markdown = run_k3diff(
        "logs", "base.log", "patch.log", *options, "--format", "markdown", cwd=tmp_path
    )
    assert f"; {said}**" in markdown.stdout
    bundle = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    # docs77: held, no longer passed with a qualification (tests/logs/test_logs_downgrade_held)
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert (
        "; held: built-in error rules ignored (--ignore-rule cuda-error --ignore-rule "
        "traceback): not scanned for; the bundle judges logs by k3diff's own error rules (a "
        "document's rules are its author's word): run k3diff logs without those --ignore-rule "
        "options"
    ) in report, report
