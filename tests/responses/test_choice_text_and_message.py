"""A choice that holds both a `text` (what a completions client reads) and a `message` (what a
chat client reads) whose content differs is refused as bad input, as other shapes that say two
things are (a file with both a `responses` and a `records` list, a stream's whole message after
a delta): k3diff cannot tell which text the client got (stream66: the message's was compared, so
the counts line said "exact text match" against a base whose text was the patch's message)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .fixtures import write_jsonl


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
