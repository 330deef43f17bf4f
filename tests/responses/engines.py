"""Captures in the field layouts inference engines write themselves (from their docs and
source): vLLM `RequestOutput`, TensorRT-LLM batch records, SGLang `/generate` answers."""

from __future__ import annotations

from typing import Any


def vllm_output(
    request_id: str,
    prompt: str,
    outputs: list[tuple[str, list[int]]],
    *,
    logprobs: list[list[dict[str, Any]]] | None = None,
    cached: int = 0,
) -> dict[str, Any]:
    """`vllm.outputs.RequestOutput` as `dataclasses.asdict`/JSON writes it (LLM.generate)."""
    return {
        "request_id": request_id,
        "prompt": prompt,
        "prompt_token_ids": [1, 450, 7483],
        "prompt_logprobs": None,
        "outputs": [
            {
                "index": n,
                "text": text,
                "token_ids": ids,
                "cumulative_logprob": None,
                "logprobs": None if logprobs is None else logprobs[n],
                "finish_reason": "stop",
                "stop_reason": None,
            }
            for n, (text, ids) in enumerate(outputs)
        ],
        "finished": True,
        "metrics": {"arrival_time": 1728338377.1, "first_token_time": 1728338377.2},
        "num_cached_tokens": cached,
    }


def vllm_logprob(entries: list[tuple[int, float, str]]) -> dict[str, Any]:
    """One position of `CompletionOutput.logprobs`: {token_id: Logprob(logprob, rank, decoded)}."""
    return {
        str(token_id): {"logprob": lp, "rank": rank, "decoded_token": text}
        for rank, (token_id, lp, text) in enumerate(entries, 1)
    }


def trtllm_record(prompt: str, beams: list[tuple[str, list[int]]]) -> dict[str, Any]:
    """A TensorRT-LLM batch record: one text and one output-id list per beam."""
    return {
        "input_text": prompt,
        "text": [text for text, _ in beams],
        "output_ids": [ids for _, ids in beams],
        "sequence_lengths": [len(ids) for _, ids in beams],
    }


def sglang_answer(
    text: str,
    output_ids: list[int],
    *,
    rid: str = "a1b2",
    logprobs: list[float] | None = None,
    cached: int = 0,
    latency: float = 0.25,
    key: str | None = None,
) -> dict[str, Any]:
    """SGLang `/generate` (`return_logprob: true`): logprob entries are [logprob, id, text]."""
    meta: dict[str, Any] = {
        "id": rid,
        "finish_reason": {"type": "stop", "matched": 2},
        "prompt_tokens": 6,
        "completion_tokens": len(output_ids),
        "cached_tokens": cached,
        "e2e_latency": latency,
    }
    if logprobs is not None:
        meta["output_token_logprobs"] = [
            [lp, token, None] for lp, token in zip(logprobs, output_ids, strict=True)
        ]
        meta["output_top_logprobs"] = [
            [[lp, token, None], [lp - 2.0, token + 1, None]]
            for lp, token in zip(logprobs, output_ids, strict=True)
        ]
    answer: dict[str, Any] = {"text": text, "output_ids": output_ids, "meta_info": meta}
    if key is not None:
        answer = {"key": key, **answer}
    return answer
