"""A `k3diff.logs/1` document's patch error moved out of its error rule is refused (review75f):
hunt75 held each finding's severity to its rule's as the document lists them, so an error
finding moved to a built-in warning rule, to a made-up user warning rule, or relabelled a
warning with the document's `rules` removed, its counts and verdict edited to agree, still
made the bundle's runtime-logs row pass, exit 0. Genuine warning findings are read as before."""

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


def _scan(folder: Path, base: str, patch: str, *options: str) -> dict[str, Any]:
    (folder / "base.log").write_text(base)
    (folder / "patch.log").write_text(patch)
    scan = run_k3diff(
        "logs", "base.log", "patch.log", *options, "--format", "json", "-o", "logs.json", cwd=folder
    )
    assert scan.exit_code in (0, 1), scan.stderr
    return dict(json.loads((folder / "logs.json").read_text()))


def _moved(document: dict[str, Any], how: str) -> dict[str, Any]:
    """The patch's CUDA error made a warning (`how`), every count and the verdict agreeing."""
    (finding,) = [f for f in document["findings"] if f["side"] == "patch"]
    finding["severity"] = "warning"
    if how == "engine-warning":
        finding["rule"] = "engine-warning"
    elif how == "user-rule":
        finding["rule"] = "gpu-note"
        document["rules"].insert(
            0,
            {"name": "gpu-note", "severity": "warning", "builtin": False, "pattern": "CUDA"}
            | {"base": 0, "patch": 1, "new_on_patch": 1},
        )
    else:
        del document["rules"]
    for rule in document.get("rules", ()):
        if rule["name"] == "cuda-error":
            rule.update(patch=0, new_on_patch=0)
    document["patch"].update(error_lines=0, warning_lines=1)
    document["summary"]["new_errors_on_patch"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0, "strict": False, "failures": []}
    return document


@pytest.mark.parametrize("how", ["engine-warning", "user-rule", "rules-removed"])
def test_a_patch_error_moved_to_a_warning_rule_is_refused(tmp_path: Path, how: str) -> None:
    document = _scan(tmp_path, "INFO start\nINFO ok\n", PATCH_LOG)
    assert document["verdict"]["exit_code"] == 1
    (tmp_path / "logs.json").write_text(json.dumps(_moved(document, how)))
    refused = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    said = {
        "engine-warning": "the document disagrees with itself (the patch's engine-warning "
        "finding quotes the line 'RuntimeError: CUDA error: an illegal memory access was "
        "encountered', which its rule does not match before every other rule tried)",
        "user-rule": "the document disagrees with itself (its rules list the user's rules "
        "gpu-note (warning), but it ran with none)",
        "rules-removed": "field 'rules' is missing",
    }[how]
    # records76: the counts the forgery left (the rule's own) may be named after it
    assert refused.stderr.startswith(f"k3diff: error: logs.json: {said.removesuffix(')')}"), (
        refused.stderr
    )
    assert not (tmp_path / "bundle").exists()


WARNINGS = (
    "INFO start\n"
    "WARNING 05-12 10:00:04 [scheduler.py:1500] Sequence group 7 is preempted\n"
    "(EngineCore_DP0 pid=104) WARNING 05-12 10:00:05 [gpu.py:9] CUDA graph capture is slow\n"
    "[2025-05-12 10:11:12 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1\n"
    "[TRT-LLM] [W] Engine warning: kv cache 0.9\n"
    "ERROR 05-12 10:00:05 [core.py:42] Traceback (most recent call last):\n"
    "ERROR 05-12 10:00:05 [core.py:42]   KV cache pool is full. Retract requests. 2\n"
    "ERROR 05-12 10:00:05 [core.py:42] ValueError: bad input\n"
    "WARN slow step " + "x" * 400 + " CUDA error\n"
)


def test_genuine_warning_findings_are_read(tmp_path: Path) -> None:
    """Warnings as vLLM, SGLang and TensorRT-LLM log them (a worker's prefix, a level word
    before a CUDA word that is no error, a retraction inside a traceback, a line cut at the
    kept length) are read, with a user warning rule too."""
    options = ("--warn-rule", "slow=slow step", "--ignore-rule", "nan-inf")
    document = _scan(tmp_path, "INFO start\n", WARNINGS, *options)
    rules = {f["rule"] for f in document["findings"] if f["severity"] == "warning"}
    assert {"engine-warning", "kv-retract", "trtllm-warning", "slow"} <= rules, rules
    bundle = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == document["verdict"]["exit_code"], bundle.stderr
    # docs77: held too, for the built-in error rule left out (--ignore-rule nan-inf)
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "held: built-in error rules ignored (--ignore-rule nan-inf)" in report


def test_a_rule_left_out_is_said_though_rerun_ignored_was_emptied(tmp_path: Path) -> None:
    """review75f: `rerun.ignored` emptied hid from the bundle that cuda-error was not scanned
    for (its `rules` did not list it); a built-in rule the rules leave out is said as ignored."""
    document = _scan(tmp_path, "INFO start\n", PATCH_LOG, "--ignore-rule", "cuda-error")
    document["rerun"]["ignored"] = []
    (tmp_path / "logs.json").write_text(json.dumps(document))
    bundle = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == 1, bundle.stderr  # the traceback still fails it
    assert (
        "; held: built-in error rules ignored (--ignore-rule cuda-error): not scanned for; "
        "the bundle judges logs by k3diff's own error rules"
    ) in (tmp_path / "bundle" / "REPORT.md").read_text()
