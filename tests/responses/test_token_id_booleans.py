"""A JSON `true` or `false` is no token id: `responses` refuses a capture that holds one (exit 2,
one line naming the file and line), on the fast reader's path and the general reader's alike.

Both token-id packers (`array("q", ...)`, `struct`) take `true` as 1 and `false` as 0, since
Python's `bool` is an `int`: a patch whose ids read `[true, false]` where its base read `[1, 0]`
was a token-id match (readers72: "no paired record differs", exit 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .fixtures import completion, write_jsonl


def _vllm(ids: list[Any]) -> dict[str, Any]:
    """vLLM's offline `RequestOutput` as JSON (the general reader's engine shape)."""
    output = {"index": 0, "text": "ab", "token_ids": ids, "finish_reason": "stop"}
    return {"request_id": "r1", "prompt": "p", "outputs": [output]}


def _sglang(ids: list[Any]) -> dict[str, Any]:
    """SGLang's `/generate` response, its ids in `output_ids`."""
    return {"text": "ab", "output_ids": ids, "meta_info": {"id": "r1", "finish_reason": None}}


SHAPES = {
    "openai completion (fast reader)": lambda ids: completion("r1", "ab", token_ids=ids),
    "vllm engine output": _vllm,
    "sglang output_ids": _sglang,
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("patch_ids", [[True, 0], [1, False]], ids=["true", "false"])
def test_a_boolean_token_id_is_refused_not_read_as_1_or_0(
    tmp_path: Path, shape: str, patch_ids: list[Any]
) -> None:
    make = SHAPES[shape]
    write_jsonl(tmp_path / "base.jsonl", [make([1, 0])])
    write_jsonl(tmp_path / "patch.jsonl", [make(patch_ids)])

    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)

    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("k3diff: error: patch.jsonl:1: "), result.stderr
    assert "token_ids" in result.stderr or "output_ids" in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_integer_token_ids_of_1_and_0_still_match(tmp_path: Path) -> None:
    """The fast reader looks for a boolean only where the packed ids hold a 1 or a 0: ids that
    do are read as before."""
    for side in ("base", "patch"):
        write_jsonl(tmp_path / f"{side}.jsonl", [completion("r1", "ab", token_ids=[1, 0, 256])])

    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)

    assert result.exit_code == 0, result.stderr
    assert "1 of 1 token-id match" in result.stdout
