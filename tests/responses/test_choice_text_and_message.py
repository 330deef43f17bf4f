"""A choice that holds both a `text` (what a completions client reads) and a `message` (what a
chat client reads) whose content differs is refused as bad input, as other shapes that say two
things are (a file with both a `responses` and a `records` list, a stream's whole message after
a delta): k3diff cannot tell which text the client got (stream66: the message's was compared, so
the counts line said "exact text match" against a base whose text was the patch's message).
A streamed chunk is held to the same rule: its `text` beside its delta or its whole message
(resp67: the delta was read, the text dropped, exit 0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .fixtures import sse_transcript, write_jsonl


def _completion(choice: dict[str, Any]) -> dict[str, Any]:
    body = {"index": 0, "finish_reason": "stop", **choice}
    return {"id": "a", "object": "text_completion", "model": "m", "choices": [body]}


MESSAGE = {"role": "assistant", "content": "4"}


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_text_beside_a_message_that_differs_is_refused(tmp_path: Path, wrapped: bool) -> None:
    patch = _completion({"text": "5", "message": MESSAGE})
    write_jsonl(tmp_path / "base.jsonl", [_completion({"text": "4"})] * 2)
    rows = [_completion({"text": "4"}), {"response": patch} if wrapped else patch]
    write_jsonl(tmp_path / "patch.jsonl", rows)
    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", "--by-order", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: patch.jsonl:2: choices[0] holds both a 'text' and a 'message' whose "
        "content differs: k3diff cannot tell which one the client read\n"
    )


def test_a_text_equal_to_its_message_is_read(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [_completion({"text": "4"})])
    write_jsonl(tmp_path / "patch.jsonl", [_completion({"text": "4", "message": MESSAGE})])
    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", "--by-order", "--format",
                        "json", cwd=tmp_path)  # fmt: skip
    (record,) = json.loads(result.stdout)["records"]
    # The same text either way; the message the base lacks is a field that differs.
    assert (result.exit_code, record["status"], record["text_match"]) == (1, "fields-differ", True)


# Streamed: a chunk's `text` beside its delta (or its whole message) is the same rule.


def _stream(tmp_path: Path, name: str, chunks: list[dict[str, Any]]) -> str:
    (tmp_path / name).write_text(sse_transcript([chunks]))
    return name


def _chunk(choice: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    body = {"index": 0, **choice, "finish_reason": finish}
    return {"id": "a", "object": "chat.completion.chunk", "model": "m", "choices": [body]}


def _chat_stream(pieces: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """One chunk a (delta content, text beside it or None) pair, then the finish."""
    chunks = [
        _chunk({"delta": {"content": piece}, **({} if text is None else {"text": text})})
        for piece, text in pieces
    ]
    return [*chunks, _chunk({"delta": {}}, "stop")]


@pytest.mark.parametrize("beside", ["5", ""])
def test_a_streamed_text_beside_a_delta_that_differs_is_refused(
    tmp_path: Path, beside: str
) -> None:
    """resp67: the delta was read and the chunk's `text` dropped: exit 0 against a base whose
    stream said "4" where a completions client of the patch read "5" (or nothing)."""
    base = _stream(tmp_path, "base.sse", _chat_stream([("4", None), ("2", None)]))
    patch = _stream(tmp_path, "patch.sse", _chat_stream([("4", "4"), ("2", beside)]))
    result = run_k3diff("responses", base, patch, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: patch.sse:3: choices[0] holds both a 'text' and a 'delta' whose "
        "content differs: k3diff cannot tell which one the client read\n"
    )


def test_a_streamed_whole_message_beside_a_differing_text_is_refused(tmp_path: Path) -> None:
    """resp67: a chunk's one whole `message` was the answer, the `text` beside it dropped."""
    chunk = _chunk({"text": "5", "message": {"role": "assistant", "content": "4"}}, "stop")
    _stream(tmp_path, "patch.sse", [chunk])
    base = _stream(tmp_path, "base.sse", _chat_stream([("4", None)]))
    result = run_k3diff("responses", base, "patch.sse", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(
        "k3diff: error: patch.sse:1: choices[0] holds both a 'text' and a 'message' whose "
    )


def test_a_streamed_text_equal_to_its_delta_is_read(tmp_path: Path) -> None:
    base = _stream(tmp_path, "base.sse", _chat_stream([("4", None), ("2", None)]))
    patch = _stream(tmp_path, "patch.sse", _chat_stream([("4", "4"), ("2", "2")]))
    result = run_k3diff("responses", base, patch, "--format", "json", cwd=tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert (result.exit_code, record["status"]) == (0, "match"), result.stderr


@pytest.mark.parametrize("text_first", [True, False])
def test_a_stream_mixing_text_chunks_and_delta_chunks_is_refused(
    tmp_path: Path, text_first: bool
) -> None:
    """lmeval67: `4` as a plain `text` and `2` as a delta were joined into `42`, exit 0 against
    a stream that said `42`, though a chat client read `2` and a completions client `4`."""
    plain, delta = _chunk({"text": "4"}), _chunk({"delta": {"content": "2"}})
    chunks = [plain, delta] if text_first else [delta, plain]
    patch = _stream(tmp_path, "patch.sse", [*chunks, _chunk({"delta": {}}, "stop")])
    said = "42" if text_first else "24"
    base = _stream(tmp_path, "base.sse", _chat_stream([(said[0], None), (said[1], None)]))
    result = run_k3diff("responses", base, patch, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: patch.sse:3: choices[0] carries text as a plain 'text' in some chunks "
        "and has 'delta' chunks too: a completions client and a chat client read different "
        "texts, and k3diff cannot tell which one the client read\n"
    )


def test_an_empty_text_chunk_in_a_delta_stream_is_read(tmp_path: Path) -> None:
    """A chunk whose `text` is empty carries nothing either client reads: the deltas are the
    answer."""
    chunks = _chat_stream([("4", None), ("2", None)])
    base = _stream(tmp_path, "base.sse", chunks)
    patch = _stream(tmp_path, "patch.sse", [*chunks[:-1], _chunk({"text": ""}, "stop")])
    result = run_k3diff("responses", base, patch, "--format", "json", cwd=tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert (result.exit_code, record["status"]) == (0, "match"), result.stderr
