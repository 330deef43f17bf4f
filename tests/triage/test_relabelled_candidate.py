"""A triage document whose numbers make a mode a regression candidate is refused when its
category says otherwise (review77d): `report` recounted a mode's candidacy from its category
alone, so a sampled shift (distribution p_adjusted 0.0005, novelty p_adjusted 1e-05) relabelled
`both-nondeterministic`, no candidate, passed report with exit 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples


def report_passed(where: Path, document: dict[str, Any]) -> Any:
    """`k3diff report` on `document` with its verdict edited to a pass."""
    document["verdict"] = {"ok": True, "exit_code": 0}
    forged = where / "forged.json"
    forged.write_text(json.dumps(document))
    return run_k3diff("report", str(forged), "--out", str(where / "bundle"), cwd=where)


def _triaged(tmp_path: Path) -> dict[str, Any]:
    """Base answers 0, 1, 2 and patch 3, 4, 5 at temperature 1, 20 a side: a candidate."""
    cmp = compare_texts(tmp_path, {"q": ("The answer is 0.", "The answer is 3.")})
    samples = [S("base", "q", f"The answer is {i % 3}.") for i in range(20)]
    samples += [S("patch", "q", f"The answer is {3 + i % 3}.") for i in range(20)]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@pytest.mark.parametrize("test", ["distribution", "novelty"])
def test_a_candidate_relabelled_by_its_category_is_refused(tmp_path: Path, test: str) -> None:
    document = _triaged(tmp_path)
    record = document["records"][0]
    mode = record["modes"][0]
    assert mode["sampled"] and mode["distribution"]["p_adjusted"] <= 0.025
    assert mode["novelty"] == 20 and mode["novelty_p_adjusted"] <= 0.025
    if test == "novelty":  # the distribution test's rejection taken out: the novelty test's alone
        mode["distribution"]["p_adjusted"] = mode["distribution"]["p"] = 0.5
        mode["distribution"]["detectable_shift"] = 0.3
    was = record["category"]
    for item in (record, mode):
        item["category"] = "both-nondeterministic"
        item["regression_candidate"] = False
    summary = document["summary"]
    summary[was] -= 1
    summary["both-nondeterministic"] += 1
    summary["regression_candidates"] = 0
    out = report_passed(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert (
        "records[0].modes[0].regression_candidate is false but its category both-nondeterministic"
    ) in out.stderr, out.stderr
