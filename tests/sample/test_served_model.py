"""Every sample records the model the server said it answered as: a whole answer's `model`, a
stream's where all its chunks agree, and, where they do not, each model its chunks named
(`stream_models`) and no `model`: no one model answered it. The log's reader keeps them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .support import headline, read_samples, sample, write_prompts


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("route", ["completions", "chat"])
def test_each_sample_records_the_model_its_answer_named(
    fault_server: Any, tmp_path: Path, route: str, stream: bool
) -> None:
    base = fault_server("--model", "ckpt-7")
    record = (
        {"prompt": "p"}
        if route == "completions"
        else {"messages": [{"role": "user", "content": "p"}]}
    )
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k", **record}])
    out = tmp_path / "out"
    flags = ["--stream"] if stream else []
    result = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "2", "--out", out, *flags
    )
    assert result.exit_code == 0, result.stderr
    _, lines = read_samples(out)
    assert [line["model"] for line in lines] == ["ckpt-7", "ckpt-7"]
    assert not any("stream_models" in line for line in lines)


def test_a_stream_whose_chunks_disagree_records_every_model_and_none_as_the_answer(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    fault = {"model": ["ckpt-7", "ckpt-8"], "pieces": 3}
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k", "prompt": "abc", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "1", "--out", out, "--stream"
    )
    # Recorded, not failed; but triage refuses a stream that no one model answered, so the
    # run that took it is no pass (exit 1, `MIXED MODELS`).
    assert result.exit_code == 1, result.stderr
    assert headline(result.stdout).startswith("MIXED MODELS: 1 of 1 planned samples taken")
    _, (line,) = read_samples(out)
    assert line["stream_models"] == ["ckpt-7", "ckpt-8"] and "model" not in line, line
    assert line["error"] is None
    # The log's one reader keeps the field and refuses an edited one.
    log = out / "samples.jsonl"
    header, body = log.read_text().split("\n", 1)
    edited = json.loads(body.splitlines()[0]) | {"stream_models": "ckpt-7"}
    log.write_text(header + "\n" + json.dumps(edited) + "\n")
    refused = run_k3diff("telemetry", str(log))
    assert refused.exit_code == 2
    assert "'stream_models' is neither null nor a list of strings" in refused.stderr


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_an_answer_naming_its_model_as_an_object_is_a_failed_sample(
    hostile_server: str, tmp_path: Path, stream: bool
) -> None:
    """A `model` that is no name was logged as no model at all, a sample whose model triage
    cannot hold to the capture's (only flagged, where one named "ckpt-8" is refused)."""
    named = {"name": "ckpt-8"}
    choice = {"index": 0, "text": "ok", "finish_reason": "stop"}
    answer = {"id": "a", "object": "text_completion", "model": named, "choices": [choice]}
    body = f"data: {json.dumps(answer)}\n\ndata: [DONE]\n\n" if stream else json.dumps(answer)
    ctype = "text/event-stream" if stream else "application/json"
    records = [
        {"key": "bad", "prompt": "p", "hostile": "raw", "body": body, "ctype": ctype},
        {"key": "good", "prompt": "q"},
    ]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    out = tmp_path / "out"
    flags = ["--stream"] if stream else []
    result = sample("--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--out", out,
                    *flags)  # fmt: skip
    assert result.exit_code == 1, result.stderr
    _, lines = read_samples(out)
    by_key = {line["key"]: line for line in lines}
    assert by_key["good"]["error"] is None and by_key["good"]["text"] == "ok"
    bad = by_key["bad"]
    assert bad["text"] is None and "model" not in bad
    assert 'names its model as {"name": "ckpt-8"}, not as a name' in bad["error"]
