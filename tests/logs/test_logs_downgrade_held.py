"""A `--warn-rule` over a built-in error rule, or a built-in error rule left out with
`--ignore-rule`, holds the bundle's runtime-logs row (docs77).

`logs` keeps the user's exit code and says the downgrade (records76); the bundle said it too,
as a qualification, and passed. But a document's rules are its author's word: a `--warn-rule
gpu-noise=CUDA` written into `rerun.rules` made the patch's new CUDA error a warning, and the
bundle passed, judged alone or run again on its logs (which `logs` then reads with that rule
too). The bundle judges by k3diff's own error rules, as it judges triage at the house α and
`--shift`: where a side whose errors the verdict counts (the patch; the base too under
`--strict`) had error lines counted as warnings, or where a built-in error rule was not scanned
for, the row fails (exit 1). A document stating fewer `downgraded` lines than its findings quote
is refused (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

BASE_LOG = "INFO start\nINFO serving\n"
ERROR_LINE = "ERROR 12-05 10:00:02 worker.py:12] RuntimeError: CUDA error: an illegal memory access"
PATCH_LOG = f"INFO start\n{ERROR_LINE}\nINFO serving\n"
WARN = ("--warn-rule", "gpu-noise=CUDA|cuBLAS")


def _document(folder: Path, base: str, patch: str, *options: str) -> int:
    (folder / "base.log").write_text(base)
    (folder / "patch.log").write_text(patch)
    result = run_k3diff(
        "logs", "base.log", "patch.log", *options, "--format", "json", "-o", "logs.json",
        cwd=folder,
    )  # fmt: skip
    return result.exit_code


def _report(folder: Path, *given: str) -> tuple[int, str]:
    result = run_k3diff("report", "logs.json", *given, "--out", "bundle", cwd=folder)
    markdown = folder / "bundle" / "REPORT.md"
    return result.exit_code, result.stderr + (markdown.read_text() if markdown.exists() else "")


def test_a_warn_rule_over_the_patchs_error_holds_the_row(tmp_path: Path) -> None:
    assert _document(tmp_path, BASE_LOG, PATCH_LOG, *WARN) == 0  # the user's choice, kept
    for given in ((), ("base.log", "patch.log")):  # judged alone, and run again on its logs
        code, text = _report(tmp_path, *given)
        assert code == 1, text
        assert (
            "| runtime logs | FAIL | server logs: 0 error findings new on the patch" in text
            and "; held: --warn-rule gpu-noise counted as a warning 1 patch line that the "
            "built-in error rule cuda-error matches (user rules are tried first); the bundle "
            "judges logs by k3diff's own error rules"
            in text
        )


def test_a_downgrade_on_the_base_alone_is_said_not_held(tmp_path: Path) -> None:
    """A base line counted as a warning excuses no patch error (the patch's would be the same
    rule's, or an error new on the patch): said, the row passes; under `--strict` it holds."""
    base = f"INFO start\n{ERROR_LINE}\n"
    assert _document(tmp_path, base, BASE_LOG, *WARN) == 0
    code, text = _report(tmp_path)
    assert code == 0, text
    assert "- logs.json: --warn-rule gpu-noise counted as a warning 1 base line" in text
    assert _document(tmp_path, base, BASE_LOG, *WARN, "--strict") == 0
    code, text = _report(tmp_path)
    assert code == 1 and "held: --warn-rule gpu-noise counted as a warning 1 base line" in text


def test_a_document_understating_its_downgraded_lines_is_refused(tmp_path: Path) -> None:
    patch = f"INFO start\n{ERROR_LINE}\n{ERROR_LINE.replace('illegal', 'odd')}\n"
    assert _document(tmp_path, BASE_LOG, patch, *WARN) == 0
    path = tmp_path / "logs.json"
    document = json.loads(path.read_text())
    assert document["patch"]["downgraded"] == [
        {"rule": "gpu-noise", "over": "cuda-error", "lines": 2}
    ]
    document["patch"]["downgraded"][0]["lines"] = 1
    path.write_text(json.dumps(document))
    code, text = _report(tmp_path)
    assert code == 2, text
    assert (
        "patch.downgraded counts 1 gpu-noise lines, but its gpu-noise findings quote 2 lines a "
        "built-in error rule matches" in text
    )


def test_a_built_in_error_rule_ignored_holds_the_row(tmp_path: Path) -> None:
    """The same shape with `--ignore-rule`: `cuda-error` written into `rerun.ignored` left the
    patch's new CUDA error unscanned, and the bundle passed with a qualification, judged alone
    or run again on its logs (hunt75 made `logs` say it)."""
    patch = "INFO start\nRuntimeError: CUDA error: an illegal memory access\n"
    assert _document(tmp_path, BASE_LOG, patch, "--ignore-rule", "cuda-error") == 0
    for given in ((), ("base.log", "patch.log")):
        code, text = _report(tmp_path, *given)
        assert code == 1, text
        assert (
            "; held: built-in error rules ignored (--ignore-rule cuda-error): not scanned for; "
            "the bundle judges logs by k3diff's own error rules (a document's rules are its "
            "author's word): run k3diff logs without that --ignore-rule" in text
        )


def test_a_built_in_warning_rule_ignored_is_said_not_held(tmp_path: Path) -> None:
    patch = "INFO start\nWARNING slow step\n"
    assert _document(tmp_path, BASE_LOG, patch, "--ignore-rule", "engine-warning") == 0
    code, text = _report(tmp_path)
    assert code == 0, text
    assert "- logs.json: rules ignored (--ignore-rule engine-warning): not scanned for" in text


def test_a_warn_rule_over_a_built_in_warning_rule_passes(tmp_path: Path) -> None:
    """review77c: a `--warn-rule` over TensorRT-LLM's warnings took `[TRT-LLM] [W] … ERROR …`,
    which trtllm-warning takes before engine-error without it (a warning either way), and `logs`
    counted it as an engine-error line made a warning: the bundle held the row, exit 1."""
    patch = "INFO start\n[TRT-LLM] [W] request 7 failed: ERROR status from client, retrying\n"
    assert _document(tmp_path, BASE_LOG, patch) == 0
    assert _document(tmp_path, BASE_LOG, patch, "--warn-rule", r"trt-noise=\[TRT-LLM\] \[W\]") == 0
    assert "downgraded" not in json.loads((tmp_path / "logs.json").read_text())["patch"]
    for given in ((), ("base.log", "patch.log")):
        code, text = _report(tmp_path, *given)
        assert code == 0 and "held" not in text and "counted as a warning" not in text, text
