"""`vllm bench serve --save-result --save-detailed` results as a response format.

vLLM writes one JSON object (vllm-project/vllm, ``vllm/benchmarks/serve.py``: the ``result``
dict of ``benchmark()``) whose per-request lists run in request order: ``generated_texts``,
``errors`` (``""`` when the request succeeded), ``ttfts``, ``itls`` (each request's inter-token
latencies), ``latencies``, ``start_times``, ``input_lens``, ``output_lens``; ``--save-detailed``
keeps them (without it they are dropped and there is nothing to compare).

The file stores no prompts and no request ids, so request *i* of the base is paired with request
*i* of the patch (pairing field ``position``, keys ``#1``, ``#2``, ...): this is only sound when
both runs drew the same prompts in the same order (the same dataset, ``--seed`` and
``--num-prompts``), which the file cannot prove, and both sides must hold as many requests
(otherwise the run stops, exit 2). Token counts (``input_lens``, ``output_lens``) are compared as
usage; ``ttft``, ``latency``, ``start_time`` and the inter-token latencies (count, mean, max) are
run state: reported, never a difference.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.assemble import records_from_parts
from k3diff.responses.model import LoadOptions, ResponseRecord
from k3diff.responses.parts import Parts

FORMAT = "vllm-bench"
KEY_FIELD = "position"
PER_REQUEST = ("errors", "ttfts", "itls", "latencies", "start_times", "input_lens", "output_lens")
_RUN_STATE = {"ttfts": "ttft", "latencies": "latency", "start_times": "start_time"}


def is_bench_result(first: dict[str, Any] | None) -> bool:
    """A `vllm bench serve` result saved with its per-request detail."""
    return first is not None and isinstance(first.get("generated_texts"), list)


def _columns(result: dict[str, Any], display: str) -> dict[str, list[Any]]:
    texts = result["generated_texts"]
    columns: dict[str, list[Any]] = {}
    for name in PER_REQUEST:
        value = result.get(name)
        if value is None:
            continue
        if not isinstance(value, list):
            # review66: worded with `{count:,}` of a string, an internal error
            raise ResponseFormatError(f"{display}: '{name}' is not a list (one entry a request)")
        if len(value) != len(texts):
            raise ResponseFormatError(
                f"{display}: '{name}' holds {len(value):,} entries but 'generated_texts' "
                f"{len(texts):,}: the per-request lists of a vllm bench result must run in step"
            )
        columns[name] = value
    return columns


def _parts(index: int, text: Any, columns: dict[str, list[Any]], where: str) -> Parts:
    if not isinstance(text, str):
        raise ResponseFormatError(f"{where}: generated text is not a string")
    error = columns.get("errors", [""] * (index + 1))[index]
    parts = Parts(
        text="" if error else text,
        error=str(error) if error else None,
        client_keyable=False,
    )
    if "input_lens" in columns or "output_lens" in columns:
        parts.usage = {
            "prompt_tokens": columns.get("input_lens", [None] * (index + 1))[index],
            "completion_tokens": columns.get("output_lens", [None] * (index + 1))[index],
        }
    for name, label in _RUN_STATE.items():
        if name in columns:
            parts.run_state[label] = columns[name][index]
    itl = columns.get("itls", [None] * (index + 1))[index]
    if isinstance(itl, list) and all(isinstance(v, int | float) for v in itl):
        parts.run_state["itl_count"] = len(itl)
        if itl:
            parts.run_state["itl_mean"] = sum(itl) / len(itl)
            parts.run_state["itl_max"] = max(itl)
    parts.client_key = (f"#{index + 1}", KEY_FIELD)
    parts.member = f"generated_texts[{index}]"
    return parts


def bench_records(
    result: dict[str, Any], display: str, options: LoadOptions
) -> Iterator[ResponseRecord]:
    """One record per request, in request order."""
    columns = _columns(result, display)
    for index, text in enumerate(result["generated_texts"]):
        where = f"{display}:generated_texts[{index}]"
        parts = _parts(index, text, columns, where)
        yield from records_from_parts([parts], {}, where, options)
