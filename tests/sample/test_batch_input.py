"""An OpenAI Batch input file (`{"custom_id", "method", "url", "body"}` a line, the file a Batch
run was given) is a prompts file: each line's body is sent, named by its `custom_id`, so the
samples join the comparison of that run's Batch output by the same key (newuser66: refused as
`record has no text field (… name it with --text-field PATH)`, an option `sample` has not)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .support import inference, read_samples, sample, write_prompts


def _line(custom_id: str, content: str, url: str = "/v1/chat/completions") -> dict[str, Any]:
    body = {"model": "m", "messages": [{"role": "user", "content": content}], "max_tokens": 4}
    return {"custom_id": custom_id, "method": "POST", "url": url, "body": body}


def test_batch_input_lines_are_sent_by_their_custom_id(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server()
    prompts = write_prompts(tmp_path / "batch-in.jsonl", [_line("q1", "hi"), _line("q2", "bye")])
    out = tmp_path / "out"
    result = sample("--base", base.url, "--prompts", prompts, "--repeats", "2", "--out", out)
    assert result.exit_code == 0, result.stderr
    sent = inference(base)
    assert {r["path"] for r in sent} == {"/v1/chat/completions"}
    assert sorted(r["prompt"] for r in sent) == sorted(
        2 * [json.dumps([{"role": "user", "content": c}]) for c in ("hi", "bye")]
    )
    _, samples = read_samples(out)
    assert sorted(s["key"] for s in samples) == ["q1", "q1", "q2", "q2"]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (_line("q1", "hi", url="/v1/embeddings"), 'a Batch input line for "POST" "/v1/embeddings"'),
        (
            _line("q1", "hi", url="/v1/completions"),
            "a Batch input line for /v1/completions whose body has no 'prompt'",
        ),
        ({**_line("q1", "hi"), "method": "GET"}, 'a Batch input line for "GET"'),
    ],
)
def test_a_batch_line_sample_cannot_send_is_refused_in_one_line(
    tmp_path: Path, line: dict[str, Any], said: str
) -> None:
    prompts = write_prompts(tmp_path / "batch-in.jsonl", [line])
    result = sample(
        "--base", "http://127.0.0.1:1", "--prompts", prompts, "--repeats", "2",
        "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stderr.strip().count("\n") == 0
    assert f"{prompts}:1: {said}" in result.stderr, result.stderr
