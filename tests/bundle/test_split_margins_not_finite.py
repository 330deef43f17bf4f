"""A split margin that is not finite is bundled, not drawn: the margin is the chosen token's
logprob minus the runner-up's, and servers write a runner-up's logprob as -Infinity (so triage
writes an infinite margin). fuzz69: the margins histogram raised on it, and `report` stopped
with an internal error (exit 2) on a triage document it had read and checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

EVIDENCE = Path(__file__).parent / "data" / "triage_3e8bbca" / "base_flaky"


@pytest.mark.parametrize("margin", ["Infinity", "-Infinity", "NaN"])
def test_a_margin_that_is_not_finite_is_left_off_the_plot(tmp_path: Path, margin: str) -> None:
    triage = tmp_path / "triage.json"
    run = run_k3diff(
        "triage", EVIDENCE / "cmp.json", EVIDENCE / "run" / "samples.jsonl", "--format", "json"
    )
    document = json.loads(run.stdout)
    branches = [
        branch
        for record in document["records"]
        for mode in record["modes"]
        for tree in (mode.get("splits") or {}).values()
        for branch in tree["branches"]
    ]
    assert branches  # the base's outputs split: the plot is drawn
    branches[0]["margin"] = margin
    triage.write_text(json.dumps(document))
    result = run_k3diff("report", triage, "--out", tmp_path / "bundle")
    assert result.exit_code == run.exit_code, result.stderr
    html = (tmp_path / "bundle" / "report.html").read_text()
    assert "margins not drawn: 1 not finite" in html
