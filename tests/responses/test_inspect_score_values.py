"""inspect_ai score values read as inspect's own `value_to_float()` reads them (hunt71).

inspect (`src/inspect_ai/scorer/_metric.py`) maps numbers and booleans to themselves, `C` to 1,
`P` to 0.5, `I` and `N` to 0, and then, lower-casing the value, `yes`/`true` to 1, `no`/`false`
to 0 and a string of digits and dots to its float; anything else it warns about and scores 0.
k3diff stripped the value first and read any float: a patch whose judge answered `" yes"` or
`"1e0"` where the base's said `"yes"` or `"1"` scored 1 on both sides, where inspect's accuracy
fell by every such sample, and `--fail-on score-drop` passed it (exit 0). Such a value is now
no score, as every value inspect cannot read: the metric is missing from that sample, which
the gate never passes over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .eval_logs import inspect_sample, write_json_log

SAMPLES = 1000
CHANGED = 100


def _logs(tmp_path: Path, base_value: Any, patch_value: Any) -> tuple[Path, Path]:
    """1,000 samples scored `base_value` by the base's judge; the patch's scored the first 100
    `patch_value` and the rest as the base's."""
    base = [inspect_sample(i, 1, f"q{i}", "42", {"judge": base_value}) for i in range(SAMPLES)]
    patch = [
        inspect_sample(i, 1, f"q{i}", "42", {"judge": patch_value if i < CHANGED else base_value})
        for i in range(SAMPLES)
    ]
    return write_json_log(tmp_path / "b.json", base), write_json_log(tmp_path / "p.json", patch)


def _gate(base: Path, patch: Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("responses", base, patch, "--fail-on", "score-drop", "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize(
    ("base_value", "patch_value"),
    [("yes", " yes"), ("yes", "yes "), ("1", "1e0"), ("1", " 1"), ("1", "+1"), ("1", "1_0")],
)
def test_a_value_inspect_scores_0_never_passes_as_1(
    tmp_path: Path, base_value: str, patch_value: str
) -> None:
    code, document = _gate(*_logs(tmp_path, base_value, patch_value))
    assert code == 1, document["score_gate"]
    assert [f["name"] for f in document["score_gate"]["findings"]] == ["score-one-sided"]


@pytest.mark.parametrize(
    ("base_value", "patch_value"),
    [
        ("yes", "Yes"),
        ("true", "TRUE"),
        ("no", "false"),
        ("1", "1.0"),
        ("1", "1."),
        ("0", ".0"),
        ("C", 1),
    ],
)
def test_values_inspect_reads_alike_still_compare_equal(
    tmp_path: Path, base_value: Any, patch_value: Any
) -> None:
    code, document = _gate(*_logs(tmp_path, base_value, patch_value))
    assert code == 0, document["score_gate"]
    [test] = document["summary"]["scores"]["tests"]
    assert (test["lost"], test["gained"], test["n"]) == (0, 0, SAMPLES)
