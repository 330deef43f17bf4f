"""A flat capture's `n` must be the integer 1 (fix58 item 2): a JSON `true` or `1.0` is no count
of one answer, though Python's `True == 1` and `1.0 == 1` would let it through; `k3diff sample`
refuses either with exit 2 and one line naming the file and record, before any request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff


@pytest.mark.parametrize("n", [True, 1.0, "1", None, 2])
def test_a_flat_capture_whose_n_is_not_the_integer_1_is_refused(tmp_path: Path, n: object) -> None:
    prompts = tmp_path / "cap.jsonl"
    prompts.write_text(json.dumps({"key": "a", "prompt": "x", "text": "4", "n": n}) + "\n")
    result = run_k3diff(
        "sample", "--base", "http://127.0.0.1:1", "--prompts", str(prompts), "--repeats", "2",
        "--out", str(tmp_path / "run"), cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout + result.stderr
    line = result.stderr.strip()
    assert "\n" not in line
    assert f"{prompts}:1: the capture asked for n = {json.dumps(n)} choices" in line, line


def test_the_integer_1_is_sent(tmp_path: Path) -> None:
    from k3diff.sample.prompts import read_prompts

    prompts = tmp_path / "cap.jsonl"
    prompts.write_text(json.dumps({"key": "a", "prompt": "x", "text": "4", "n": 1}) + "\n")
    assert read_prompts(prompts)[0].body == {"prompt": "x", "n": 1}


@pytest.mark.parametrize("field", ["temperature", "top_p", "seed", "max_tokens", "n"])
@pytest.mark.parametrize("value", [True, False])
def test_a_bool_in_a_numeric_request_field_is_refused(
    tmp_path: Path, field: str, value: bool
) -> None:
    """A prompts file of requests, and --param: `temperature: true` is no temperature of 1 (a
    server may read it as 1 or refuse it, and k3diff, whose `True == 1`, would not know which
    condition it sampled)."""
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "a", "prompt": "x", field: value}) + "\n")
    common = ("sample", "--base", "http://127.0.0.1:1", "--repeats", "2")
    result = run_k3diff(*common, "--prompts", str(prompts), "--out", "r1", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    word = json.dumps(value)
    assert f"{prompts}:1: {field} is {word}, not a number" in result.stderr, result.stderr
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"key": "a", "prompt": "x"}) + "\n")
    option = run_k3diff(
        *common, "--prompts", str(plain), "--param", f"{field}={word}", "--out", "r2",
        cwd=tmp_path,
    )  # fmt: skip
    assert option.exit_code == 2, option.stdout + option.stderr
    assert f"{field} is {word}, not a number" in option.stderr, option.stderr
    assert "\n" not in option.stderr.strip() and "\n" not in result.stderr.strip()
