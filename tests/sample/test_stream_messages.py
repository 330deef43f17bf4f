"""A sampled stream whose chunks each carry a whole `message` (instead of a delta) is a failed
sample: nothing says whether each is the answer so far or its next piece (review65: the first
chunk's was read, so answers that differed after it were counted as the same answer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .support import read_samples, sample, write_prompts


def _body(contents: list[str]) -> str:
    chunks = [
        {
            "id": "a",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop" if i == len(contents) - 1 else None,
                }
            ],
        }
        for i, text in enumerate(contents)
    ]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def test_a_stream_of_whole_messages_is_a_failed_sample(hostile_server: str, tmp_path: Path) -> None:
    def record(key: str, contents: list[str]) -> dict[str, Any]:
        body = _body(contents)
        return {"key": key, "prompt": key, "hostile": "raw", "body": body,
                "ctype": "text/event-stream"}  # fmt: skip

    records = [record("several", ["The", "The answer is 4"]), record("one", ["The answer is 4"])]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    out = tmp_path / "out"
    result = sample("--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--out", out,
                    "--stream")  # fmt: skip
    assert result.exit_code == 1, result.stderr
    _, lines = read_samples(out)
    by_key = {line["key"]: line for line in lines}
    assert by_key["one"]["error"] is None and by_key["one"]["text"] == "The answer is 4"
    several = by_key["several"]
    assert several["text"] is None, several
    assert "carries a whole 'message' after an earlier message" in several["error"], several


def test_an_answer_with_a_text_beside_a_differing_message_is_a_failed_sample(
    hostile_server: str, tmp_path: Path
) -> None:
    """stream66: the message's content was sampled, whatever the `text` a completions client
    reads said; `k3diff responses` refuses such a choice, and sample reads with its reader."""
    choice = {"index": 0, "text": "5", "message": {"role": "assistant", "content": "4"},
              "finish_reason": "stop"}  # fmt: skip
    answer = {"id": "a", "object": "text_completion", "model": "m", "choices": [choice]}
    record = {"key": "k", "prompt": "k", "hostile": "raw", "body": json.dumps(answer),
              "ctype": "application/json"}  # fmt: skip
    prompts = write_prompts(tmp_path / "p.jsonl", [record])
    out = tmp_path / "out"
    result = sample("--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--out", out,
                    "--retries", "0")  # fmt: skip
    assert result.exit_code == 1, result.stderr
    _, (line,) = read_samples(out)
    assert line["text"] is None, line
    assert "holds both a 'text' and a 'message' whose content differs" in line["error"], line


def test_a_streamed_text_beside_a_differing_delta_is_a_failed_sample(
    hostile_server: str, tmp_path: Path
) -> None:
    """resp67: the delta's content was sampled, the chunk's `text` (what a completions client
    reads) dropped; `k3diff responses` refuses such a chunk, and sample reads with its reader."""

    def chunk(delta: dict[str, Any], text: str | None, finish: str | None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        if text is not None:
            choice["text"] = text
        body = {"id": "a", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
        return f"data: {json.dumps(body)}\n\n"

    def record(key: str, beside: str | None) -> dict[str, Any]:
        body = chunk({"content": "4"}, beside, None) + chunk({}, None, "stop") + "data: [DONE]\n\n"
        return {"key": key, "prompt": key, "hostile": "raw", "body": body,
                "ctype": "text/event-stream"}  # fmt: skip

    records = [record("differs", "5"), record("same", "4"), record("plain", None)]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    out = tmp_path / "out"
    result = sample("--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--out", out,
                    "--stream", "--retries", "0")  # fmt: skip
    assert result.exit_code == 1, result.stderr
    _, lines = read_samples(out)
    by_key = {line["key"]: line for line in lines}
    assert by_key["same"]["error"] is None and by_key["same"]["text"] == "4"
    assert by_key["plain"]["error"] is None and by_key["plain"]["text"] == "4"
    differs = by_key["differs"]
    assert differs["text"] is None, differs
    assert "holds both a 'text' and a 'delta' whose content differs" in differs["error"], differs


def test_a_stream_mixing_text_chunks_and_delta_chunks_is_a_failed_sample(
    hostile_server: str, tmp_path: Path
) -> None:
    """lmeval67: `4` as a plain `text`, then `2` as a delta, was sampled as `42`, a text
    neither a chat nor a completions client read; `k3diff responses` refuses such a stream by
    the same rule."""

    def chunk(choice: dict[str, Any]) -> str:
        body = {"id": "a", "object": "chat.completion.chunk", "model": "m",
                "choices": [{"index": 0, "finish_reason": None, **choice}]}  # fmt: skip
        return f"data: {json.dumps(body)}\n\n"

    def record(key: str, first: dict[str, Any]) -> dict[str, Any]:
        body = (
            chunk(first)
            + chunk({"delta": {"content": "2"}})
            + chunk({"delta": {}, "finish_reason": "stop"})
            + "data: [DONE]\n\n"
        )
        return {"key": key, "prompt": key, "hostile": "raw", "body": body,
                "ctype": "text/event-stream"}  # fmt: skip

    records = [record("mixed", {"text": "4"}), record("deltas", {"delta": {"content": "4"}})]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    out = tmp_path / "out"
    result = sample("--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--out", out,
                    "--stream", "--retries", "0")  # fmt: skip
    assert result.exit_code == 1, result.stderr
    _, lines = read_samples(out)
    by_key = {line["key"]: line for line in lines}
    assert by_key["deltas"]["error"] is None and by_key["deltas"]["text"] == "42"
    mixed = by_key["mixed"]
    assert mixed["text"] is None, mixed
    assert "carries text as a plain 'text' in some chunks and has 'delta' chunks" in mixed["error"]
