"""A logprob the server sent as NaN is a number that failed (a broken computation), not a
logprob the server did not give: it differs from every real logprob (review63: a patch whose
first token's logprob came back NaN where the base's was -0.1 was `match`, exit 0, "0 of 1 with
logprobs beyond --logprob-tol 0"). A position where both sides gave none (null) is skipped,
and NaN on both sides agrees; one where only one side gave none differs (review64)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff


def _completion(logprobs: Sequence[float | None]) -> dict[str, Any]:
    tokens = ["a", "b"]
    return {
        "id": "k0",
        "object": "text_completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "text": "ab",
                "logprobs": {
                    "tokens": tokens,
                    "token_logprobs": list(logprobs),
                    "top_logprobs": None,
                    "text_offset": [0, 1],
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def _compare(tmp_path: Path, base: Sequence[float | None], patch: Sequence[float | None]) -> Any:
    for name, values in (("base", base), ("patch", patch)):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(_completion(values)) + "\n")
    return run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "id", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("base", "patch"),
    [([-0.1, -0.2], [math.nan, -0.2]), ([math.nan, -0.2], [-0.1, -0.2])],
)
def test_a_nan_logprob_against_a_number_differs(
    tmp_path: Path, base: list[float], patch: list[float]
) -> None:
    result = _compare(tmp_path, base, patch)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert record["status"] == "logprobs-differ"


@pytest.mark.parametrize(
    ("base", "patch"),
    [([math.nan, -0.2], [math.nan, -0.2]), ([None, -0.2], [None, -0.2])],
)
def test_nan_on_both_sides_or_a_logprob_neither_gave_is_no_difference(
    tmp_path: Path, base: list[float | None], patch: list[float | None]
) -> None:
    result = _compare(tmp_path, base, patch)
    assert result.exit_code == 0, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert record["status"] == "match"


@pytest.mark.parametrize(
    ("base", "patch"),
    [([-0.1, -0.2], [None, None]), ([-0.1, -0.2], [None, -0.2]), ([None, -0.2], [-0.1, -0.2])],
)
def test_a_logprob_one_side_did_not_give_differs(
    tmp_path: Path, base: list[float | None], patch: list[float | None]
) -> None:
    """review64: a patch giving null for every logprob the base gave was `match`, exit 0
    ("0 of 1 with logprobs beyond --logprob-tol 0"), where a patch giving no logprobs at all
    fails: each position was skipped as not given. The logprobs' shape counts the positions
    without one, so a side that gave fewer differs."""
    result = _compare(tmp_path, base, patch)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert record["status"] == "fields-differ"
    assert any(c["path"].startswith("logprobs.not_given") for c in record["field_changes"]), record


def test_one_text_sampled_as_other_tokens_differs(tmp_path: Path) -> None:
    # review66: without token ids, the logprobs' sampled tokens are the only evidence of the
    # token path; `Hel`+`lo` against `He`+`llo` (one text, one count) was `match`, exit 0.
    def chat(tokens: list[str]) -> dict[str, Any]:
        content = [{"token": t, "logprob": -0.25, "top_logprobs": []} for t in tokens]
        message = {"role": "assistant", "content": "".join(tokens)}
        choice = {"index": 0, "message": message, "logprobs": {"content": content}}
        return {"id": "c1", "object": "chat.completion", "model": "m", "choices": [choice]}

    for name, tokens in (("base", ["Hel", "lo"]), ("patch", ["He", "llo"])):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(chat(tokens)) + "\n")
    args = ("responses", "base.jsonl", "patch.jsonl", "--format", "json")
    result = run_k3diff(*args, cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    record = json.loads(result.stdout)["records"][0]
    assert record["status"] == "tokens-differ" and record["text_match"] is True
    assert record["divergence"]["token_index"] == 0
    # The same tokens are a match, as ever.
    (tmp_path / "patch.jsonl").write_text(json.dumps(chat(["Hel", "lo"])) + "\n")
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 0
