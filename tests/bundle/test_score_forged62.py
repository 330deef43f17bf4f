"""The score gate under review62's forgeries (stop 62), through the CLI on lm-eval logs.

- `summary.scores.power` and `score_gate.power` edited from 0.8 to 0.3, every MDE recomputed
  at it: a 300-doc run the gate holds (it could only detect 2.6 points) read as a pass within
  the 2-point tolerance, and `report` judged alone exited 0. `responses` has no option for the
  power: any other is refused, with the inputs or without.
- A document whose eval logs carry a metric with no number on either side (NaN, a corpus
  metric) was refused by `report` given with its own inputs: the run again encoded the NaN
  as bare JSON `NaN`, the document as the string `"NaN"` (`k3diff.jsontext`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from responses.test_score_gate import GATE, SIDES, _lm_eval

from k3diff.responses.scoretests import mcnemar_mde


def _made(tmp_path: Path) -> dict[str, Any]:
    made = run_k3diff("responses", *SIDES, *GATE, "--format", "json", cwd=tmp_path)
    document: dict[str, Any] = json.loads(made.stdout)
    assert made.exit_code == document["verdict"]["exit_code"], made.stderr
    return document


def _report(tmp_path: Path, document: dict[str, Any], *inputs: str) -> Any:
    (tmp_path / "d.json").write_text(json.dumps(document))
    return run_k3diff("report", "d.json", *inputs, "--out", "b", cwd=tmp_path)


def test_a_power_edited_into_a_gate_pass_is_refused_alone_and_with_the_inputs(
    tmp_path: Path,
) -> None:
    _lm_eval(tmp_path, 300, lost=0, gained=0)
    document = _made(tmp_path)
    (decision,) = document["score_gate"]["decisions"]
    assert decision["decision"] == "score-undecided" and decision["mde"] > 0.02
    mde = mcnemar_mde(300, 0, 0.05, 0.3)
    assert mde is not None and mde < 0.02  # within the tolerance at power 0.3
    document["summary"]["scores"]["power"] = document["score_gate"]["power"] = 0.3
    document["summary"]["scores"]["tests"][0]["mde"] = mde
    decision.update(mde=mde, decision="pass", items_needed=None)
    document["score_gate"].update(findings=[], passes=True)
    document["verdict"] = {"ok": True, "exit_code": 0, "reasons": []}
    for inputs in ((), SIDES):
        result = _report(tmp_path, document, *inputs)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "scores: power 0.3, but k3diff responses states every MDE at power 0.8" in (
            result.stderr
        )


def test_a_document_with_nan_scores_follows_from_its_own_inputs(tmp_path: Path) -> None:
    _lm_eval(tmp_path, 1000, lost=5, gained=5)
    for side in SIDES:
        rows = [json.loads(line) for line in (tmp_path / side).read_text().splitlines()]
        for row in rows:
            row["bleu"], row["metrics"] = float("nan"), ["exact_match", "bleu"]
        (tmp_path / side).write_text("".join(json.dumps(row) + "\n" for row in rows))
    document = _made(tmp_path)
    assert document["summary"]["scores"]["unscored"] == ["bleu [strict-match]"]
    result = _report(tmp_path, document, *SIDES)
    assert result.exit_code == 1, result.stderr  # held by the unscored metric, believed
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert "(cross-checked; responses run again)" in json.dumps(summary["matrix"])
