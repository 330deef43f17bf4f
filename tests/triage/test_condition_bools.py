"""A sample counts only for the request it repeats (fix58 item 2): a JSON bool is never the
number 1, at any depth of a request field (Python's `True == 1` would take `{"5": true}` for
`{"5": 1}`), while numbers compare by value (`1` is `1.0`: JSON has one number type and an
OpenAI-compatible server parses each into its field's type)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .helpers import S, completion, write_samples


def _triage(tmp_path: Path, captured: dict[str, Any], sent: dict[str, Any]) -> Any:
    for side in ("base", "patch"):
        line = {
            "custom_id": "k0",
            "request": {"prompt": "p0", **captured},
            "response": completion("r", "same"),
        }
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(line) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 0, compared.stderr
    samples = [S(side, "k0", "same") for side in ("base", "patch") for _ in range(3)]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params=sent)
    return run_k3diff("triage", "cmp.json", str(log), cwd=tmp_path)


@pytest.mark.parametrize(
    ("captured", "sent"),
    [
        ({"temperature": 0, "logit_bias": {"5": 1}}, {"temperature": 0, "logit_bias": {"5": True}}),
        ({"temperature": 0, "stop": [1]}, {"temperature": 0, "stop": [True]}),
        ({"temperature": 0, "seed": 1}, {"temperature": 0, "seed": True}),
    ],
    ids=["nested-dict", "nested-list", "top-level"],
)
def test_true_is_not_1_in_a_request_field(
    tmp_path: Path, captured: dict[str, Any], sent: dict[str, Any]
) -> None:
    result = _triage(tmp_path, captured, sent)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "but the captured request's" in result.stderr, result.stderr


def test_1_and_1_0_are_one_condition(tmp_path: Path) -> None:
    result = _triage(tmp_path, {"temperature": 0, "seed": 1}, {"temperature": 0.0, "seed": 1.0})
    assert result.exit_code == 0, result.stdout + result.stderr
