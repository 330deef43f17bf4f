"""The MMD test's stated power where the base gave one answer (newuser74): its bootstrap null is
then all 0, and a threshold at 0 counted every simulated patch, one with no new answer too, as
detected, so 12 samples a side at temperature > 0 claimed 80 % power against 2 % of the answers
moved. The permutation test really run rejects k new answers of 12 only where its p, at least
2 C(12, k) / C(24, k), is at most the level (k = 5 at 0.05): some 55 % of the answers moved. A
patch giving a new answer 1 time in 12 was cleared (exit 0) at the default --shift 0.35."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

ONE_NEW = ["hi there."] * 11 + ["hello there."]


def _triage(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    cmp = compare_texts(tmp_path, {"q": ("hi there.", "hi there.")})
    samples = [S("base", "q", "hi there.") for _ in range(12)]
    samples += [S("patch", "q", text) for text in ONE_NEW]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 0.8})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", *args, cwd=tmp_path)
    record: dict[str, Any] = json.loads(result.stdout)["records"][0]
    return result.exit_code, record


def _needed(level: float) -> int:
    """The fewest new answers of 12 the permutation test can reject at `level`."""
    return min(k for k in range(13) if 2 * math.comb(12, k) / math.comb(24, k) <= level)


def test_one_new_answer_in_12_is_held_no_power_not_cleared(tmp_path: Path) -> None:
    code, record = _triage(tmp_path)
    test = record["modes"][0]["distribution"]
    # The test is judged at α / 2 (shared with the novelty test, aa77): 6 new answers of 12
    # (5 at α before).
    assert test["level"] == 0.025
    assert _needed(test["level"]) == 6
    assert test["detectable_shift"] is None or test["detectable_shift"] > 0.35, test
    assert "no-power" in record["flags"], record["reason"]
    assert code == 1, record["reason"]


def test_a_shift_the_test_can_detect_still_clears(tmp_path: Path) -> None:
    code, record = _triage(tmp_path, "--shift", "0.7")
    assert code == 0, record["reason"]
    assert 0.35 < record["modes"][0]["distribution"]["detectable_shift"] <= 0.7
