"""A sampled mode's stated power is checked at the level its test is judged at (review77d):
aa77 judges a sampled distribution test at α / 2 over its family, but `report` still refused a
claimed `detectable_shift` only where no test of the sizes reaches p ≤ α. At 3 samples a side
the smallest p is 1/C(6, 3) = 1/20 = α, so a document claiming power there (none at α / 2)
with its no-power hold dropped passed report with exit 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples
from triage.test_relabelled_candidate import report_passed


def test_a_detectable_shift_claimed_below_half_alpha_is_refused(tmp_path: Path) -> None:
    cmp = compare_texts(tmp_path, {"q": ("A", "Z")})
    samples = [S("base", "q", t) for t in "ABC"] + [S("patch", "q", t) for t in "ZYX"]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    document: dict[str, Any] = json.loads(result.stdout)
    record = document["records"][0]
    mode = record["modes"][0]
    assert "no-power" in record["flags"] and mode["distribution"]["detectable_shift"] is None
    mode["distribution"]["detectable_shift"] = 0.3  # at or below --shift 0.35: clears the hold
    for item in (record, mode):
        item["flags"] = [f for f in item["flags"] if f != "no-power"]
    document["summary"]["held"] = 0
    out = report_passed(tmp_path, document)
    assert out.exit_code == 2, out.stdout + out.stderr
    assert (
        "records[0].modes[0].distribution.detectable_shift is 0.3 but no test of 3 and 3 "
        "samples reaches p ≤ 0.025 (its smallest p is 1/20)"
    ) in out.stderr, out.stderr
