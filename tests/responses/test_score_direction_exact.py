"""A score test's `direction` and `significant` are recounted exactly from the records' scores
(flake79).

`report` checked a continuous test's direction against the difference of its stated means,
within 1e-9 of their scale (rounding): beside means of 1e12, a significant loss of 1 on every
item was inside that band, so a document with the direction forged to `better` (and its gate
and verdict edited to match) passed `report --fail-on score-drop` with exit 0. The direction
and significance are now compared with the ones the records' scores give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .eval_logs import inspect_sample, write_json_log
from .fixtures import write_jsonl
from .lm_eval_logs import bleu_row

ITEMS = 40


def _genuine(tmp_path: Path) -> dict[str, Any]:
    """f1 (known higher-is-better) of about 1e12 on 40 samples, 1 lower on each in the patch."""
    base = [inspect_sample(i, 1, f"q{i}", "42", {"f1": 1e12 + i}) for i in range(ITEMS)]
    patch = [inspect_sample(i, 1, f"q{i}", "42", {"f1": 1e12 + i - 1}) for i in range(ITEMS)]
    write_json_log(tmp_path / "b.json", base)
    write_json_log(tmp_path / "p.json", patch)
    result = run_k3diff(
        "responses", "b.json", "p.json", "--format", "json", "-o", "d.json",
        "--fail-on", "score-drop", "--score-tolerance", "f1=0.5", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "d.json").read_text())
    return document


def test_the_genuine_document_is_read_back_failing(tmp_path: Path) -> None:
    document = _genuine(tmp_path)
    [test] = document["summary"]["scores"]["tests"]
    assert (test["direction"], test["significant"]) == ("worse", True)
    result = run_k3diff("report", "d.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr


def _forge(tmp_path: Path, document: dict[str, Any]) -> Path:
    """The loss relabelled a significant gain, the gate and verdict edited to match."""
    [test] = document["summary"]["scores"]["tests"]
    test["direction"], test["fails"] = "better", False
    gate = document["score_gate"]
    [decision] = gate["decisions"]
    decision["decision"], decision["sentence"] = "pass", "f1: pass: significantly better"
    gate["findings"], gate["passes"] = [], True
    document["verdict"] = {"ok": True, "exit_code": 0, "reasons": []}
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document))
    return path


def test_a_loss_relabelled_a_gain_inside_the_means_rounding_is_refused(tmp_path: Path) -> None:
    forged = _forge(tmp_path, _genuine(tmp_path))
    result = run_k3diff("report", forged.name, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert "direction better but its records' scores give worse" in result.stderr


# BLEU of one decimal on 40 items, the patch exchanging 5 items' scores: Σpatch = Σbase, and
# numpy's mean of the rounded differences (the writer before cbaa67c8) is a hair above 0.
OLDER_BASE = [
    29.6, 33.7, 41.0, 25.8, 51.9, 39.9, 39.4, 36.9, 59.2, 59.4, 52.0, 32.7, 30.6, 36.2, 12.3,
    15.4, 59.8, 16.4, 56.9, 44.0, 55.8, 13.9, 25.3, 49.9, 10.4, 15.3, 27.5, 18.7, 17.3, 43.5,
    14.6, 58.6, 42.5, 12.5, 54.9, 22.1, 34.1, 37.9, 16.9, 35.1,
]  # fmt: skip
OLDER_PATCH = {3: 12.5, 12: 25.8, 33: 30.6, 34: 35.1, 39: 54.9}


def test_a_tie_written_by_an_older_k3diff_is_read(tmp_path: Path) -> None:
    """review79e: the writer before cbaa67c8 stated this tie `better` (numpy's mean of the
    differences), the current one `worse` (the counts, 2 gained and 3 lost); the test is not
    significant, so neither decides anything, and `report` refused the genuine older document
    (exit 2) since flake79. It reads it again (exit 1: records differ); a significant test's
    direction stays exact (above)."""
    patch = [OLDER_PATCH.get(i, score) for i, score in enumerate(OLDER_BASE)]
    write_jsonl(tmp_path / "b.jsonl", [bleu_row(i, s) for i, s in enumerate(OLDER_BASE)])
    write_jsonl(tmp_path / "p.jsonl", [bleu_row(i, s) for i, s in enumerate(patch)])
    result = run_k3diff(
        "responses", "b.jsonl", "p.jsonl", "--format", "json", "-o", "d.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    document = json.loads((tmp_path / "d.json").read_text())
    [test] = document["summary"]["scores"]["tests"]
    assert (test["direction"], test["significant"]) == ("worse", False)
    test["direction"] = "better"  # as the older writer stated it
    (tmp_path / "older.json").write_text(json.dumps(document))
    result = run_k3diff("report", "older.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    test["direction"] = "unchanged"  # no writer stated that
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle2", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
