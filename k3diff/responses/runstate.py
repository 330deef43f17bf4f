"""Run state: what a record says about the run rather than about the output.

Cache counters (`usage.prompt_tokens_details.cached_tokens`, SGLang's `meta_info.cached_tokens`,
vLLM's `num_cached_tokens`), latency and server timing (`e2e_latency`, `ttft`, `*_latency`,
`*_ms`, `*_seconds`, vLLM's `metrics`) are evidence about how a request was served — a cache hit,
a slow batch — not a change in what the model said. They are moved out of the compared fields
into the record's `run_state`, reported per record and counted, and never fail the comparison.
Identity fields (ids, timestamps, fingerprints) are left out of the comparison altogether
unless `--include-volatile` (`k3diff.responses.volatile`).
"""

from __future__ import annotations

import functools
from typing import Any

from k3diff.responses.volatile import is_volatile

RUN_STATE_NAMES = frozenset(
    {
        "cached_tokens",
        "num_cached_tokens",
        "prompt_tokens_details",
        "e2e_latency",
        "latency",
        "ttft",
        "duration",
        "elapsed",
        "perf_metrics",
        "timing",
        "timings",
    }
)
RUN_STATE_SUFFIXES = ("_latency", "_ms", "_seconds")


@functools.lru_cache(maxsize=4096)
def is_run_state(name: str) -> bool:
    """True for a field name that describes how the request was served."""
    lowered = name.lower()
    return lowered in RUN_STATE_NAMES or lowered.endswith(RUN_STATE_SUFFIXES)


def split_run_state(
    usage: dict[str, Any] | None, other: dict[str, Any], include_volatile: bool
) -> tuple[dict[str, Any] | None, dict[str, Any], dict[str, Any]]:
    """`usage` and `other` without their run-state fields (and without volatile fields unless
    asked), and the run-state fields by dotted path."""
    run_state: dict[str, Any] = {}
    if usage is not None:
        usage = _split(usage, "usage", run_state, keep_volatile=True)
    return usage, _split(other, "", run_state, include_volatile), run_state


KEEP, RUN_STATE, VOLATILE = 0, 1, 2


@functools.lru_cache(maxsize=4096)
def _kind(name: str) -> int:
    if is_run_state(name):
        return RUN_STATE
    return VOLATILE if is_volatile(name) else KEEP


def _split(
    value: dict[str, Any], path: str, run_state: dict[str, Any], keep_volatile: bool
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, item in value.items():
        kind = _kind(key) if type(key) is str else _kind(str(key))
        if kind == KEEP and type(item) not in (dict, list):
            kept[key] = item  # the common case, decided in one cached lookup
            continue
        name = str(key)
        where = f"{path}.{name}" if path else name
        if kind == RUN_STATE:
            run_state[where] = item
        elif kind == VOLATILE and not keep_volatile:
            continue
        elif isinstance(item, dict):
            kept[key] = _split(item, where, run_state, keep_volatile)
        elif isinstance(item, list) and not keep_volatile:
            kept[key] = _drop_in_list(item)
        else:
            kept[key] = item
    return kept


def field_kind(name: str) -> int:
    """`KEEP`, `RUN_STATE` or `VOLATILE`: what a field of this name is (cached)."""
    return _kind(name)


def split_fields(
    value: dict[str, Any], path: str, run_state: dict[str, Any], keep_volatile: bool
) -> dict[str, Any]:
    """`value` (an object at dotted `path`) without its run-state fields, which go into
    `run_state` by path, and without volatile fields unless `keep_volatile`."""
    return _split(value, path, run_state, keep_volatile)


def drop_in_list(items: list[Any]) -> list[Any]:
    """A list as the compared fields hold it: volatile fields dropped inside its items."""
    return _drop_in_list(items)


def _drop_in_list(items: list[Any]) -> list[Any]:
    # Run state is named by its field; inside lists only volatile identity fields are dropped.
    from k3diff.responses.volatile import drop_volatile

    return [drop_volatile(v) if isinstance(v, dict | list) else v for v in items]
