"""A stream is compared by its whole answer, not its first chunk's (review65): a choice that
carries a whole `message` in more than one chunk (cumulative or a piece? nothing says) is
refused, naming the file and line; a refusal's token logprobs are continued chunk by chunk as
`content`'s are; SGLang's `meta_info`, on a choice or on the chunk itself, is the last chunk's
(its counts are the request's so far)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff, twin

from .fixtures import sse_transcript, write_jsonl


def _chunk(rid: str, choice: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, **choice, "finish_reason": finish}],
    }


def _write(tmp_path: Path, name: str, chunks: list[dict[str, Any]]) -> str:
    (tmp_path / name).write_text(sse_transcript([chunks]))
    return name


def _message_stream(rid: str, contents: list[str]) -> list[dict[str, Any]]:
    """A server that sends a whole `message` in every chunk instead of a delta."""
    last = len(contents) - 1
    return [
        _chunk(rid, {"message": {"role": "assistant", "content": text}}, "stop" if i == last else None)
        for i, text in enumerate(contents)
    ]  # fmt: skip


def test_messages_in_several_chunks_are_refused_not_read_as_the_first(tmp_path: Path) -> None:
    # review65: only the first chunk's message was read: these matched (exit 0).
    base = _write(tmp_path, "base.sse", _message_stream("a", ["The", "The answer is 4"]))
    patch = _write(tmp_path, "patch.sse", _message_stream("b", ["The", "The answer is 5"]))
    result = run_k3diff("responses", base, patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: base.sse:3: a streamed choice carries a whole 'message' after an "
        "earlier message: k3diff cannot tell whether each is the answer so far or the next "
        "piece of it\n"
    )


def test_a_message_after_deltas_is_refused(tmp_path: Path) -> None:
    chunks = [
        _chunk("a", {"delta": {"role": "assistant", "content": "The"}}),
        _chunk("a", {"message": {"role": "assistant", "content": "The answer"}}, "stop"),
    ]
    base = _write(tmp_path, "base.sse", chunks)
    result = run_k3diff("responses", base, twin(base, tmp_path), "--by-order", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("k3diff: error: base.sse:3: a streamed choice carries a ")
    assert result.stderr.count("\n") == 1, result.stderr


def test_one_whole_message_reads_as_the_non_streamed_answer(tmp_path: Path) -> None:
    def stream(rid: str, text: str) -> list[dict[str, Any]]:
        message = {"role": "assistant", "content": text}
        return [_chunk(rid, {"message": message}), _chunk(rid, {}, "stop")]

    answer = {
        "id": "x",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}
        ],
    }
    write_jsonl(tmp_path / "whole.jsonl", [answer])
    same = _write(tmp_path, "same.sse", stream("a", "4"))
    other = _write(tmp_path, "other.sse", stream("b", "5"))
    assert run_k3diff("responses", "whole.jsonl", same, "--by-order", cwd=tmp_path).exit_code == 0
    result = run_k3diff("responses", same, other, "--by-order", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert record["status"] == "text-differs", record
    assert (record["divergence"]["base_context"], record["divergence"]["patch_context"]) == (
        "4",
        "5",
    ), record


def _entry(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "top_logprobs": []}


def _refusal_stream(rid: str, tokens: list[list[tuple[str, float]]]) -> list[dict[str, Any]]:
    """A refusal streamed in pieces, each with its tokens' `logprobs.refusal`."""
    last = len(tokens) - 1
    return [
        _chunk(
            rid,
            {
                "delta": {"refusal": "".join(t for t, _ in piece)},
                "logprobs": {"content": None, "refusal": [_entry(t, lp) for t, lp in piece]},
            },
            "stop" if i == last else None,
        )
        for i, piece in enumerate(tokens)
    ]


def test_refusal_logprobs_that_differ_in_a_later_chunk_differ(tmp_path: Path) -> None:
    # review65: only `logprobs.content` was continued; the refusal's were dropped (exit 0).
    base = _write(tmp_path, "base.sse", _refusal_stream("a", [[("No", -0.1)], [(".", -0.2)]]))
    patch = _write(tmp_path, "patch.sse", _refusal_stream("b", [[("No", -0.1)], [(".", -3.0)]]))
    result = run_k3diff("responses", base, patch, "--by-order", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert [c["path"] for c in record["field_changes"]] == ["choice.logprobs.refusal[1].logprob"], (
        record
    )
    cut = [[("No", -0.1), (".", -0.2)]]  # the same tokens in one chunk: the same answer
    same = _write(tmp_path, "same.sse", _refusal_stream("c", cut))
    assert run_k3diff("responses", base, same, "--by-order", cwd=tmp_path).exit_code == 0


def _meta_stream(rid: str, accepted: int) -> list[dict[str, Any]]:
    """SGLang: each chunk's per-choice `meta_info` holds the request's counts so far."""
    return [
        _chunk(rid, {"delta": {"content": "4"}, "meta_info": {"spec_accept_token_num": 0}}),
        _chunk(rid, {"delta": {}, "meta_info": {"spec_accept_token_num": accepted}}, "stop"),
    ]


def test_meta_info_is_the_last_chunks(tmp_path: Path) -> None:
    # review65: the first chunk's meta_info stood, so later counts never differed (exit 0).
    base = _write(tmp_path, "base.sse", _meta_stream("a", 3))
    patch = _write(tmp_path, "patch.sse", _meta_stream("b", 7))
    result = run_k3diff("responses", base, patch, "--by-order", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    changes = {c["path"]: c for c in record["field_changes"]}
    assert list(changes) == ["choice.meta_info.spec_accept_token_num"], record


def _chunk_meta_stream(rid: str, accepted: int, verified: int = 2) -> list[dict[str, Any]]:
    """`meta_info` on the chunk itself (beside `choices`), the request's counts so far; the last
    chunk leaves out a field an earlier one gave."""
    first = _chunk(rid, {"delta": {"content": "4"}})
    first["meta_info"] = {"spec_accept_token_num": 0, "spec_verify_ct": verified}
    last = _chunk(rid, {"delta": {}}, "stop")
    last["meta_info"] = {"spec_accept_token_num": accepted}
    return [first, last]


def _changes(tmp_path: Path, base: str, patch: str) -> dict[str, tuple[Any, Any]]:
    result = run_k3diff("responses", base, patch, "--by-order", "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    (record,) = json.loads(result.stdout)["records"]
    changes = {c["path"]: (c["base"], c["patch"]) for c in record.get("field_changes") or []}
    assert (result.exit_code == 1) == bool(changes), record
    return changes


def test_a_chunks_own_meta_info_is_the_last_chunks_and_compared(tmp_path: Path) -> None:
    # review66: a chunk's own meta_info was dropped, so streams whose counts differed matched
    # (exit 0), where the same answers whole differ.
    base = _write(tmp_path, "base.sse", _chunk_meta_stream("a", 3))
    patch = _write(tmp_path, "patch.sse", _chunk_meta_stream("b", 7))
    assert _changes(tmp_path, base, patch) == {"meta_info.spec_accept_token_num": (3, 7)}
    # A field the last chunk leaves out stands from the chunk before.
    verified = _write(tmp_path, "verified.sse", _chunk_meta_stream("c", 3, verified=5))
    assert _changes(tmp_path, base, verified) == {"meta_info.spec_verify_ct": (2, 5)}
    same = _write(tmp_path, "same.sse", _chunk_meta_stream("d", 3))
    assert _changes(tmp_path, base, same) == {}


def test_token_ids_that_are_no_list_are_refused_not_read_as_absent(tmp_path: Path) -> None:
    # stream66: a chunk's `"token_ids": 7` was dropped: the ids went uncompared (exit 0).
    def stream(rid: str, ids: Any) -> list[dict[str, Any]]:
        return [
            _chunk(rid, {"text": "4", "token_ids": ids}),
            _chunk(rid, {"text": "", "token_ids": [9]}, "stop"),
        ]

    base = _write(tmp_path, "base.sse", stream("a", [8]))
    patch = _write(tmp_path, "patch.sse", stream("b", 7))
    result = run_k3diff("responses", base, patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: patch.sse:1: a streamed choice's token_ids is a number, not a list\n"
    )
