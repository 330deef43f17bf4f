"""One pooled rejection is no record's own (newuser61, from stop 59): a mode's pooled MMD test
that rejects says some record of the mode moved, not which, yet every record with an MMD²
above 0 became a `distribution-shift` candidate without a word. The pooled test is not
weakened (those records stay flagged, the run fails), but a record flagged only through the
pool says so, with its own test's figure and the records that carried most of the pooled
statistic; a record whose own test rejects reads as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

N = 12


def _triage(tmp_path: Path) -> tuple[int, dict[str, Any], str]:
    """p1 reworded at temperature 1 (its own test rejects); p2, p3 a slight wobble only."""
    base = {"p1": [f"The answer is {i % 3}. p1" for i in range(N)]}
    patch = {"p1": [f"ANSWER={i % 3} !! p1" for i in range(N)]}
    for key in ("p2", "p3"):
        base[key] = [f"Reply {i % 3} for {key}" for i in range(N)]
        patch[key] = [f"Reply {i % 4} for {key}" for i in range(N)]
    cmp = compare_texts(tmp_path, {key: (base[key][0], patch[key][1]) for key in base})
    samples = [
        S(side, key, text)
        for key in base
        for side, texts in (("base", base[key]), ("patch", patch[key]))
        for text in texts
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    made = run_k3diff("triage", cmp, log, "--format", "json", "-o", "t.json", cwd=tmp_path)
    text = run_k3diff("triage", cmp, log, cwd=tmp_path).stdout
    return made.exit_code, json.loads((tmp_path / "t.json").read_text()), text


def test_a_record_flagged_only_by_the_pool_says_so_and_names_who_carried_it(
    tmp_path: Path,
) -> None:
    code, doc, text = _triage(tmp_path)
    records = {r["key"]: r for r in doc["records"]}
    assert code == 1
    own = records["p1"]["modes"][0]["distribution"]
    assert own["p_adjusted"] <= 0.05 and "pooled test's alone" not in records["p1"]["reason"]
    for key in ("p2", "p3"):
        record = records[key]
        test = record["modes"][0]["distribution"]
        assert test["p_adjusted"] > 0.05 and test["pooled_p_adjusted"] <= 0.05, test
        assert record["category"] == "distribution-shift"  # the pooled test is not weakened
        assert "this rejection is the mode's pooled test's alone" in record["reason"], record
        assert "most of the pooled MMD² from p1 (" in record["reason"], record["reason"]
    assert "pooled test's alone" in text
