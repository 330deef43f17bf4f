"""Score tests and the score gate judged again at the house α (alpha61): a comparison made with
`--score-alpha 0.01 --fail-on score-drop` passes a drop that McNemar's test finds at 0.05
(p ≈ 0.02), and `report` used to exit 0 on it. At the house α the drop fails the bundle, and
the bottom line says what changed; at 0.05 itself nothing is added."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .test_eval_scores import SIDES, _lm_eval_sides


def _bundle(tmp_path: Path, alpha: str) -> tuple[int, int, dict[str, Any]]:
    _lm_eval_sides(tmp_path, lost=25, gained=10, n=3000)
    made = run_k3diff(
        "responses", *SIDES, "--score-alpha", alpha, "--fail-on", "score-drop",
        "--format", "json", "-o", "c.json", cwd=tmp_path,
    )  # fmt: skip
    result = run_k3diff("report", "c.json", "--out", "b", cwd=tmp_path)
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    return made.exit_code, result.exit_code, summary


def test_a_score_drop_passed_at_alpha_0_01_fails_at_the_house_alpha(tmp_path: Path) -> None:
    responses, report, summary = _bundle(tmp_path, "0.01")
    document = json.loads((tmp_path / "c.json").read_text())
    (test,) = document["summary"]["scores"]["tests"]
    assert 0.01 < test["p_adjusted"] <= 0.05, test
    assert responses == 0 and document["score_gate"]["passes"], document["score_gate"]
    assert report == 1, summary["bottom_line"]
    line = next(line for line in summary["bottom_line"] if "house α" in line)
    assert line.startswith(
        "at the house α (the α every k3diff command defaults to, 0.05; report holds each "
        "document to it) c.json fails (its score tests at α = 0.01 found no significant "
        "drop): "
    ), line  # polish61c: said on its first use; newuser61c: what passed at 0.01
    assert "exact_match [strict-match] dropped (p_adjusted 0.0" in line, line
    assert "score gate score-drop on exact_match [strict-match]" in line, line
    assert summary["bottom_line"][0].startswith("FAIL: "), summary["bottom_line"]


def test_the_same_comparison_at_the_house_alpha_is_not_rejudged(tmp_path: Path) -> None:
    responses, report, summary = _bundle(tmp_path, "0.05")
    assert responses == 1 and report == 1
    assert not any("house α" in line for line in summary["bottom_line"])
