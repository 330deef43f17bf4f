"""A `k3diff.logs/1` document judged without its logs, its base edited to carry the patch's new
finding so that it is not new (records76). hunt75 holds each patch finding's `new` to the
base's findings; the base's findings were held to nothing, so the patch's new CUDA error copied
onto the base, `new` made false and the summary and verdict edited to agree passed the bundle's
runtime-logs row, exit 0. What the document alone can check is now checked: the sides' and
rules' counts against the findings, each finding's places in a file its side read and within
its lines. A base finding consistent in all of that names a line only the logs can show: the
bundle says so, and `report` given the logs refuses it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

BASE_LOG = (
    "INFO 12-05 10:00:00 api_server.py:100] Starting vLLM API server\n"
    "INFO 12-05 10:00:01 engine.py:200] Avg prompt throughput: 10.0 tokens/s\n"
    "INFO 12-05 10:00:03 engine.py:200] Avg prompt throughput: 12.0 tokens/s\n"
)
PATCH_LOG = (
    "INFO 12-05 10:00:00 api_server.py:100] Starting vLLM API server\n"
    "INFO 12-05 10:00:01 engine.py:200] Avg prompt throughput: 10.0 tokens/s\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
)


def _scan(folder: Path) -> dict[str, Any]:
    (folder / "base.log").write_text(BASE_LOG)
    (folder / "patch.log").write_text(PATCH_LOG)
    scan = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "logs.json", cwd=folder
    )
    assert scan.exit_code == 1, scan.stderr
    document: dict[str, Any] = json.loads((folder / "logs.json").read_text())
    return document


def _excused_by_the_base(document: dict[str, Any], edit: str) -> dict[str, Any]:
    """The patch's CUDA error copied onto the base; `new` false, summary and verdict agreeing;
    `edit`: how much more the forger edited (the counts, then the place)."""
    (finding,) = [f for f in document["findings"] if f["side"] == "patch"]
    copied = copy.deepcopy(finding)
    copied["side"] = "base"
    del copied["new"]
    finding["new"] = False
    document["findings"].insert(0, copied)
    document["summary"].update(new_on_patch=0, new_errors_on_patch=0)
    document["verdict"] = {"ok": True, "exit_code": 0, "strict": False, "failures": []}
    if edit in ("counts", "line", "place"):
        for rule in document["rules"]:
            if rule["name"] == "cuda-error":
                rule.update(base=1, new_on_patch=0)
        document["base"].update(error_lines=1, distinct=document["base"]["distinct"] + 1)
    if edit in ("line", "place"):
        copied["examples"][0]["file"] = "base.log"
        copied["examples"][0]["line"] = 9 if edit == "line" else 2
    return document


def _report(folder: Path, document: dict[str, Any], *logs: str) -> tuple[int, str]:
    (folder / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", *logs, "--out", "bundle", cwd=folder)
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("finding", "base.error_lines is 0 but its findings give 1"),
        ("counts", "is placed in 'patch.log', which its side did not read"),
        ("line", "is placed at line 9 of 'base.log', which has 3 lines"),
    ],
)
def test_a_base_finding_the_document_contradicts_is_refused(
    tmp_path: Path, edit: str, said: str
) -> None:
    code, stderr = _report(tmp_path, _excused_by_the_base(_scan(tmp_path), edit))
    assert code == 2, stderr
    assert said in stderr
    assert "the document disagrees with itself" in stderr
    assert not (tmp_path / "bundle").exists()


def test_a_rule_count_the_findings_do_not_give_is_refused(tmp_path: Path) -> None:
    """A rule's `new_on_patch` and the summary's `gone_on_patch` are its findings' too."""
    document = _scan(tmp_path)
    for rule in document["rules"]:
        if rule["name"] == "cuda-error":
            rule["new_on_patch"] = 0
    document["summary"]["gone_on_patch"] = 1
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert "the rule cuda-error says 0 new on the patch, but 1 of its patch findings" in stderr
    assert "summary.gone_on_patch is 1 but the base lists 0 findings the patch does not" in stderr


def test_a_consistent_base_finding_is_said_to_be_the_documents_word(tmp_path: Path) -> None:
    """Every count and place agreeing, only the logs can tell: judged alone it passes, and the
    bundle says the base's finding is the document's word; given the logs, it is refused."""
    document = _excused_by_the_base(_scan(tmp_path), "place")
    code, stderr = _report(tmp_path, document)
    assert code == 0, stderr
    markdown = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert (
        "judged without its logs, that the base logged it is the document's word: give both "
        "logs (k3diff report forged.json BASE PATCH) to check it"
    ) in markdown
    code, stderr = _report(tmp_path, document, "base.log", "patch.log")
    assert code == 2, stderr
    assert "does not follow from the logs given with it" in stderr


def test_the_documents_logs_writes_are_read(tmp_path: Path) -> None:
    """A directory side with rotated pieces, a restart (placed at line 0), a CR-split line and a
    last line without its newline: every count and place as `logs` wrote them is read."""
    base, patch = tmp_path / "b", tmp_path / "p"
    base.mkdir()
    patch.mkdir()
    (base / "server.log.1").write_text("INFO Application startup complete\nWARNING x 1\n")
    (base / "server.log").write_text("INFO Application startup complete\nCUDA error: boom")
    (patch / "server.log").write_text("ok\n")
    (patch / "other.log").write_text("a\r RuntimeError: CUDA error: x\rWARNING y\n")
    scan = run_k3diff("logs", "b", "p", "--format", "json", "-o", "logs.json", cwd=tmp_path)
    assert scan.exit_code == 1, scan.stderr
    result = run_k3diff("report", "logs.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
