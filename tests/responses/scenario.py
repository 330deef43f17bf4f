"""One capture with known divergences, writable in each supported format.

r1  identical
r2  one word changed: "blue" -> "green" at character 14, token index 3
r3  identical text, finish_reason stop -> length
r4  identical token ids, text differs at character 6 (a detokenizer change)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fixtures import chat, completion, lm_eval_sample, sse_transcript, write_json, write_jsonl


@dataclass(frozen=True)
class Spec:
    """One logical response."""

    rid: str
    prompt: str
    text: str
    token_ids: list[int]
    finish: str = "stop"


BASE = [
    Spec("r1", "Say hi", "Hi there!", [11, 12, 13]),
    Spec("r2", "Sky colour?", "The answer is blue today.", [1, 2, 3, 4, 5]),
    Spec("r3", "Count", "one two three", [21, 22, 23]),
    Spec("r4", "Greet", "Hello world", [7, 8]),
]
PATCH = [
    Spec("r1", "Say hi", "Hi there!", [11, 12, 13]),
    Spec("r2", "Sky colour?", "The answer is green today.", [1, 2, 3, 9, 5]),
    Spec("r3", "Count", "one two three", [21, 22, 23], finish="length"),
    Spec("r4", "Greet", "Hello  world", [7, 8]),
]


def _completion(spec: Spec) -> dict[str, Any]:
    return completion(spec.rid, spec.text, token_ids=spec.token_ids, finish=spec.finish)


def _flat(spec: Spec) -> dict[str, Any]:
    return {
        "id": spec.rid,
        "prompt": spec.prompt,
        "output": spec.text,
        "token_ids": spec.token_ids,
        "finish_reason": spec.finish,
        "latency_ms": 12.5 if spec.finish == "stop" else 99.0,  # volatile: never compared
    }


def _chat(spec: Spec) -> dict[str, Any]:
    return chat(spec.rid, spec.text, finish=spec.finish)


def _wrapped(spec: Spec) -> dict[str, Any]:
    request = {"model": "m", "prompt": spec.prompt, "max_tokens": 16, "temperature": 0}
    return {"id": spec.rid, "request": request, "response": _completion(spec)}


def _batch(spec: Spec) -> dict[str, Any]:
    body = {"model": "m", "messages": [{"role": "user", "content": spec.prompt}]}
    return {
        "id": f"batch_req_{spec.rid}_{spec.finish}",
        "custom_id": spec.rid,
        "request": {"method": "POST", "url": "/v1/chat/completions", "body": body},
        "response": {"status_code": 200, "request_id": "x", "body": _chat(spec)},
        "error": None,
    }


def _pieces(text: str, count: int) -> list[str]:
    """Split `text` into `count` non-empty pieces (one per token id)."""
    return [text[i] for i in range(count - 1)] + [text[count - 1 :]]


def _sse_chunks(spec: Spec) -> list[dict[str, Any]]:
    pieces = _pieces(spec.text, len(spec.token_ids))
    chunks: list[dict[str, Any]] = []
    for n, (piece, token) in enumerate(zip(pieces, spec.token_ids, strict=True)):
        last = n == len(pieces) - 1
        choice = {"index": 0, "text": piece, "token_ids": [token], "logprobs": None}
        choice["finish_reason"] = spec.finish if last else None
        chunks.append(
            {"id": spec.rid, "object": "text_completion", "model": "m", "choices": [choice]}
        )
    usage = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    chunks.append(
        {"id": spec.rid, "object": "text_completion", "model": "m", "choices": [], "usage": usage}
    )
    return chunks


def _write_sse(path: Path, specs: list[Spec]) -> Path:
    path.write_text(sse_transcript([_sse_chunks(s) for s in specs]), encoding="utf-8")
    return path


def _write_lm_eval(path: Path, specs: list[Spec]) -> Path:
    return write_jsonl(path, [lm_eval_sample(n, s.prompt, s.text) for n, s in enumerate(specs)])


Writer = Callable[[Path, list[Spec]], Path]


@dataclass(frozen=True)
class Format:
    """How to write the scenario in one format, and what that format carries."""

    name: str
    filename: str
    write: Writer
    loader: str
    token_ids: bool
    finish_reason: bool


FORMATS = {
    "jsonl-completion": Format(
        "jsonl-completion",
        "cap.jsonl",
        lambda p, s: write_jsonl(p, [_completion(x) for x in s]),
        "jsonl",
        True,
        True,
    ),
    "json-array-flat": Format(
        "json-array-flat",
        "cap.json",
        lambda p, s: write_json(p, [_flat(x) for x in s]),
        "json-array",
        True,
        True,
    ),
    "document-responses-chat": Format(
        "document-responses-chat",
        "cap.json",
        lambda p, s: write_json(p, {"model": "m", "responses": [_chat(x) for x in s]}),
        "document",
        False,
        True,
    ),
    "document-records-flat": Format(
        "document-records-flat",
        "cap.json",
        lambda p, s: write_json(p, {"records": [_flat(x) for x in s]}),
        "document",
        True,
        True,
    ),
    "jsonl-wrapped": Format(
        "jsonl-wrapped",
        "cap.jsonl",
        lambda p, s: write_jsonl(p, [_wrapped(x) for x in s]),
        "jsonl",
        True,
        True,
    ),
    "jsonl-batch": Format(
        "jsonl-batch",
        "cap.jsonl",
        lambda p, s: write_jsonl(p, [_batch(x) for x in s]),
        "jsonl",
        False,
        True,
    ),
    "sse": Format("sse", "cap.sse", _write_sse, "sse", True, True),
    "lm-eval": Format("lm-eval", "samples_task.jsonl", _write_lm_eval, "lm-eval", False, False),
}


def write_pair(directory: Path, fmt: Format) -> tuple[Path, Path]:
    """Write base and patch captures of the scenario in `fmt`; returns their paths."""
    base_dir, patch_dir = directory / "base", directory / "patch"
    base_dir.mkdir(exist_ok=True)
    patch_dir.mkdir(exist_ok=True)
    return fmt.write(base_dir / fmt.filename, BASE), fmt.write(patch_dir / fmt.filename, PATCH)


def dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
