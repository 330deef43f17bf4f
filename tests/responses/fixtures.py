"""Builders for response captures in every supported format, written into a test's tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return path


def completion(
    rid: str,
    text: str,
    *,
    token_ids: list[int] | None = None,
    finish: str = "stop",
    logprobs: dict[str, Any] | None = None,
    completion_tokens: int = 5,
) -> dict[str, Any]:
    """A /v1/completions response object as vLLM returns it."""
    choice: dict[str, Any] = {
        "index": 0,
        "text": text,
        "logprobs": logprobs,
        "finish_reason": finish,
    }
    if token_ids is not None:
        choice["token_ids"] = token_ids
    return {
        "id": rid,
        "object": "text_completion",
        "created": 1_700_000_000,
        "model": "m",
        "system_fingerprint": "fp-1",
        "choices": [choice],
        "usage": {"prompt_tokens": 3, "completion_tokens": completion_tokens, "total_tokens": 8},
    }


def chat(rid: str, text: str, *, finish: str = "stop", logprobs: Any = None) -> dict[str, Any]:
    """A /v1/chat/completions response object."""
    return {
        "id": rid,
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "logprobs": logprobs,
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
    }


def chat_logprobs(entries: list[tuple[str, float, list[tuple[str, float]]]]) -> dict[str, Any]:
    """Chat-shaped logprobs from (token, logprob, [(alternative, logprob), ...])."""
    return {
        "content": [
            {
                "token": token,
                "logprob": lp,
                "top_logprobs": [{"token": t, "logprob": v} for t, v in top],
            }
            for token, lp, top in entries
        ]
    }


def sse_transcript(streams: list[list[dict[str, Any]]]) -> str:
    """`data:` lines for each stream's chunks, each stream ended by [DONE]."""
    lines: list[str] = []
    for chunks in streams:
        for chunk in chunks:
            lines += [f"data: {json.dumps(chunk)}", ""]
        lines += ["data: [DONE]", ""]
    return "\n".join(lines)


def completion_chunks(rid: str, pieces: list[str], finish: str = "stop") -> list[dict[str, Any]]:
    """A streamed completion: one chunk per piece, then a usage chunk."""
    chunks: list[dict[str, Any]] = [
        {
            "id": rid,
            "object": "text_completion",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "text": piece,
                    "token_ids": [100 + n],
                    "finish_reason": finish if n == len(pieces) - 1 else None,
                }
            ],
        }
        for n, piece in enumerate(pieces)
    ]
    usage = {"prompt_tokens": 3, "completion_tokens": len(pieces), "total_tokens": 3 + len(pieces)}
    chunks.append(
        {"id": rid, "object": "text_completion", "model": "m", "choices": [], "usage": usage}
    )
    return chunks


def lm_eval_sample(doc_id: int, prompt: str, response: str, filt: str = "none") -> dict[str, Any]:
    """One line of lm-evaluation-harness samples_<task>_<date>.jsonl."""
    return {
        "doc_id": doc_id,
        "doc": {"question": prompt, "answer": "42"},
        "target": "42",
        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["\n"]}}},
        "resps": [[response]],
        "filtered_resps": [response],
        "filter": filt,
        "metrics": ["exact_match"],
        "exact_match": 1.0,
    }


def assert_report_reads(path: Path) -> None:
    """`report`'s check of a `responses` document accepts it (the one `responses` wrote)."""
    import pytest

    from k3diff.errors import InputError
    from k3diff.responses.doccheck import parse_comparison

    try:
        parse_comparison(path.read_bytes(), path)
    except InputError as error:
        pytest.fail(f"report refuses the document responses wrote: {error}")
