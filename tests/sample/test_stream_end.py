"""How a stream ends, against a real server process on loopback (`hostile_server.py`'s `raw`
answers): output after the chunk that finished its choice, or a finish_reason no server ends a
request with, fails the sample (a malformed stream counted as an output makes the base look
nondeterministic); what real servers send after the finish (a usage chunk, an empty delta,
[DONE]) keeps it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .support import read_samples, sample, write_prompts


def _event(choice: dict[str, Any], **rest: Any) -> str:
    return "data: " + json.dumps({"id": "c1", "choices": [choice], **rest}) + "\n\n"


def _text(text: str, finish: str | None = None) -> str:
    return _event({"index": 0, "text": text, "finish_reason": finish})


def _delta(delta: dict[str, Any], finish: str | None = None) -> str:
    return _event({"index": 0, "delta": delta, "finish_reason": finish})


USAGE = (
    'data: {"id": "c1", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}\n\n'
)
DONE = "data: [DONE]\n\n"


def _samples(server: str, tmp_path: Path, body: str, chat: bool = False) -> list[dict[str, Any]]:
    """The samples of a run of one request answered with BODY (an event stream)."""
    request: dict[str, Any] = {
        "key": "k",
        "hostile": "raw",
        "body": body,
        "ctype": "text/event-stream",
    }
    request |= {"messages": [{"role": "user", "content": "p"}]} if chat else {"prompt": "p"}
    prompts = write_prompts(tmp_path / "prompts.jsonl", [request])
    out = tmp_path / "out"
    result = sample(
        "--base", server, "--prompts", prompts, "--repeats", "1", "--stream",
        "--retries", "0", "--out", out,
    )  # fmt: skip
    _, samples = read_samples(out)
    assert result.exit_code == (0 if samples[0]["error"] is None else 1), result.stderr
    return samples


@pytest.mark.parametrize(
    ("body", "chat"),
    [
        (_text("ab", "stop") + _text("cd") + DONE, False),
        (_text("ab", "length") + _text("cd") + DONE, False),
        (_text("ab", "stop") + _text("cd", "stop") + DONE, False),
        (_text("ab", "stop") + _text("cd") + _text("", "stop") + DONE, False),
        (_delta({"content": "ab"}, "stop") + _delta({"content": "cd"}) + DONE, True),
        (_text("ab", "stop") + USAGE + _text("cd") + USAGE + DONE, False),
        (_text("ab", "stop") + _text("cd"), False),
    ],
)
def test_output_after_the_finish_fails_the_sample(
    hostile_server: str, tmp_path: Path, body: str, chat: bool
) -> None:
    """Text in a chunk after the one that finished its choice: the stream went on after its
    end (before, the sample's text was "abcd")."""
    (bad,) = _samples(hostile_server, tmp_path, body, chat)
    assert bad["text"] is None
    assert bad["error"].startswith("the stream went on after it finished (finish_reason "), bad


@pytest.mark.parametrize(
    ("body", "chat"),
    [
        (_text("ab", "stop") + USAGE + DONE, False),
        (_text("ab", "length") + USAGE + DONE, False),
        (_text("ab", "stop") + _text("") + _text("", "stop") + USAGE + DONE, False),
        (
            _event({"index": 0, "text": "ab", "logprobs": None, "finish_reason": "stop"}) + DONE,
            False,
        ),
        (
            _delta({"role": "assistant"}) + _delta({"content": "ab"}) + _delta({}, "stop") + DONE,
            True,
        ),
        (
            _delta({"content": "ab"}, "stop") + _delta({}) + _delta({"content": ""}) + USAGE + DONE,
            True,
        ),
        (_delta({"content": "ab"}, "stop") + _delta({"content": None}, "stop") + DONE, True),
        (_text("ab", "stop") + USAGE, False),
    ],
)
def test_what_servers_send_after_the_finish_keeps_the_sample(
    hostile_server: str, tmp_path: Path, body: str, chat: bool
) -> None:
    """A usage chunk (vLLM, SGLang, TensorRT-LLM, transformers serve), an empty delta or text,
    a repeated finish and [DONE] after the finish carry no output: the sample stands."""
    (good,) = _samples(hostile_server, tmp_path, body, chat)
    assert (good["error"], good["text"]) == (None, "ab")


@pytest.mark.parametrize(
    "reason", ["\u200b", "null", "None", "undefined", "0", "stop\u200b", "end"]
)
def test_a_finish_reason_no_server_ends_with_fails_the_sample(
    hostile_server: str, tmp_path: Path, reason: str
) -> None:
    """A finish_reason that is none a server ends a request with says no more than none
    (before, any non-blank string made the text whole)."""
    (bad,) = _samples(hostile_server, tmp_path, _text("par") + _text("", reason) + DONE)
    assert bad["text"] is None
    assert bad["error"].startswith(f"the stream ended with an unknown finish_reason {reason!r}")


@pytest.mark.parametrize(
    "reason",
    [
        "stop", "length", "tool_calls", "function_call", "content_filter", "eos", "eos_token",
        "stop_sequence",
    ],
)  # fmt: skip
def test_the_finish_reasons_servers_end_with_keep_the_sample(
    hostile_server: str, tmp_path: Path, reason: str
) -> None:
    """OpenAI's, vLLM's, SGLang's, TensorRT-LLM's, llama.cpp's, transformers serve's and TGI's
    reasons for a request run to its end."""
    (good,) = _samples(hostile_server, tmp_path, _text("fin") + _text("", reason) + DONE)
    assert (good["error"], good["text"], good["finish_reason"]) == (None, "fin", reason)
