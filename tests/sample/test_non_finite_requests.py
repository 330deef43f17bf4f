"""A request that holds NaN or an infinity cannot be sent: a request body is RFC 8259 JSON, and
httpx refuses to encode one. Python's lenient JSON read `"temperature": Infinity` in a prompts
line and `--param temperature=NaN`, and the run stopped at the first request with "internal
error (a bug in k3diff ...)". Both are refused before any request, naming the line or the
option and the field (exit 2), as a boolean temperature is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .support import sample, write_prompts


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"key": "a", "prompt": "a", "temperature": Infinity}', "temperature is Infinity"),
        (
            '{"key": "a", "prompt": "a", "logit_bias": {"50256": -Infinity}}',
            "logit_bias.50256 is -Infinity",
        ),
        ('{"key": "a", "prompt": "a", "stop": ["x", NaN]}', "stop[1] is NaN"),
    ],
)
def test_a_prompts_line_holding_a_non_finite_number_is_refused(
    fault_server: Any, tmp_path: Path, line: str, field: str
) -> None:
    write_prompts(tmp_path / "ok.jsonl", [{"key": "b", "prompt": "b"}])
    prompts = tmp_path / "p.jsonl"
    prompts.write_text((tmp_path / "ok.jsonl").read_text() + line + "\n")
    result = sample(
        "--base", fault_server().url, "--prompts", prompts, "--repeats", "1",
        "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 2, result.stderr
    assert result.stderr == (
        f"k3diff: error: {prompts}:2: {field}, which a JSON request cannot hold: give the "
        "number the request means\n"
    )
    assert not (tmp_path / "out" / "samples.jsonl").exists()


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_param_is_a_usage_error(fault_server: Any, tmp_path: Path, value: str) -> None:
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    result = sample(
        "--base", fault_server().url, "--prompts", prompts, "--repeats", "1",
        "--param", f"temperature={value}", "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"k3diff: error: --param 'temperature={value}': temperature is {value}, which a JSON "
        "request cannot hold: give the number the request means"
    )


def test_a_param_of_more_digits_than_python_converts_is_a_usage_error(
    fault_server: Any, tmp_path: Path
) -> None:
    """review71e: `--param seed=` and 5,001 digits stopped the run as "internal error (a bug in
    k3diff ...)": `json` refuses to convert the integer (CPython's 4,300-digit limit)."""
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    result = sample(
        "--base", fault_server().url, "--prompts", prompts, "--repeats", "1",
        "--param", "seed=1" + "0" * 5000, "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "k3diff: error: --param seed=...: an integer of more than 4,300 digits"
    )
    assert not (tmp_path / "out" / "samples.jsonl").exists()
