"""The α a comparison's score tests were judged at (alpha60): `summary.scores.alpha` (and
`score_gate.alpha`) named in the bundle's bottom line when it is not `--score-alpha`'s
default, and one outside (0, 1) refused, naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .test_eval_scores import SIDES, _lm_eval_sides


def _compare(tmp_path: Path, *args: str) -> int:
    _lm_eval_sides(tmp_path, lost=12, gained=2)
    made = run_k3diff("responses", *SIDES, *args, "--format", "json", "-o", "c.json", cwd=tmp_path)
    return made.exit_code


def test_score_tests_at_another_alpha_are_named_beside_the_verdict(tmp_path: Path) -> None:
    # McNemar p = 0.0129: significantly worse at 0.05, not at 0.01 (the text differs either way).
    _compare(tmp_path, "--score-alpha", "0.01")
    (test,) = json.loads((tmp_path / "c.json").read_text())["summary"]["scores"]["tests"]
    assert not test["significant"]
    result = run_k3diff("report", "c.json", "--out", "b", cwd=tmp_path)
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    named = "c.json score tests judged at α = 0.01 (default 0.05)"
    assert summary["bottom_line"][1] == named, result.stderr
    markdown = (tmp_path / "b" / "REPORT.md").read_text()
    assert f"- {named}" in markdown.split("## Evidence matrix")[0]


def test_score_tests_at_the_default_alpha_are_not_named(tmp_path: Path) -> None:
    _compare(tmp_path)
    assert run_k3diff("report", "c.json", "--out", "b", cwd=tmp_path).exit_code == 1
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert not any("judged at α" in line for line in summary["bottom_line"])


@pytest.mark.parametrize(
    ("field", "alpha"),
    [("summary.scores.alpha", 0), ("summary.scores.alpha", 1.5), ("score_gate.alpha", -1)],
)
def test_a_score_alpha_outside_0_1_is_refused(tmp_path: Path, field: str, alpha: Any) -> None:
    _compare(tmp_path, "--fail-on", "score-drop")
    document = json.loads((tmp_path / "c.json").read_text())
    *path, last = field.split(".")
    target = document
    for key in path:
        target = target[key]
    target[last] = alpha
    (tmp_path / "c.json").write_text(json.dumps(document))
    result = run_k3diff("report", "c.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert f"c.json: field '{field}' must be a number strictly between 0 and 1" in line, line
