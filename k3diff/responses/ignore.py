"""`--ignore-field PATH`: compared fields a user takes out of the comparison.

A path names a field as the report names it in `fields` (`model`, `usage.total_tokens`,
`choice.message.role`; a top-level field is named as in the raw record, a choice's fields under
`choice.`), dotted as `--key` takes it, a number indexing a list. The field is dropped from both
sides' compared fields after loading, so the identical-pair check, the field diff and the noise
band all see the same records. Ignoring lets a run pass that would fail, so it is said in every
output; what decides a record — the text, token ids, finish reason, logprobs, a failed
request's error, a tool call or refusal — cannot be ignored, by name or inside a field a path
would drop whole (vLLM's `output` holds `stop_reason`: exit 2 on the first record that shows it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from k3diff.errors import UsageError
from k3diff.responses.packed import FINGERPRINT, OTHER, USAGE, Packed
from k3diff.responses.parts import canonical

DECIDING_NAMES = frozenset(
    {
        "text",
        "content",
        "reasoning_content",
        "token_ids",
        "output_ids",
        "tokens",
        "finish_reason",
        "stop_reason",
        "logprobs",
        "top_logprobs",
        "error",
        # A chat answer's output besides its content: a tool call, a refusal, audio.
        "tool_calls",
        "function_call",
        "refusal",
        "audio",
        "reasoning",
        # Log-probabilities a format keeps among its fields (TensorRT-LLM's, vLLM's sum).
        "log_probs",
        "cum_log_probs",
        "cumulative_logprob",
    }
)
"""Field names that hold what decides a record (or its evidence), at any depth: refused in a
path, and inside the value a path would drop (`vLLM`'s `output` holds `stop_reason`)."""
DECIDING_HOLDERS = frozenset({"choice", "choices", "choice.message", "message", "outputs"})
"""Paths whose whole value holds the text: ignoring them would ignore the output."""
_FINGERPRINTS = frozenset({"fingerprint", "system_fingerprint"})

IgnorePath = tuple[str, ...]


def why_deciding(path: str, text_paths: Sequence[str] = ()) -> str | None:
    """Why `path` cannot be ignored (None: it can, by its name; `text_paths`: the `--text-field`
    and `--tokens-field` paths)."""
    parts = path.split(".")
    named = next((part for part in parts if part in DECIDING_NAMES), None)
    if named is not None:
        return f"'{named}' is part of what decides a record"
    if path in DECIDING_HOLDERS:
        return "it holds the compared text"
    for text_path in text_paths:
        if text_path == path or text_path.startswith(path + "."):
            return f"it holds {text_path}, read as the text or token ids"
    return None


def parse_ignore_fields(paths: Sequence[str], text_paths: Sequence[str] = ()) -> tuple[str, ...]:
    """The `--ignore-field` paths, deduplicated in the order given; UsageError naming each path
    that is empty in part or names what decides a record (`text_paths`: the `--text-field` and
    `--tokens-field` paths)."""
    problems = []
    kept: list[str] = []
    for path in paths:
        if not path or not all(path.split(".")):
            problems.append(f"--ignore-field {path!r}: empty field name in the dotted path")
            continue
        why = why_deciding(path, text_paths)
        if why is not None:
            problems.append(
                f"--ignore-field {path}: {why} (the text, token ids, finish reason and logprobs "
                "cannot be ignored)"
            )
        elif path not in kept:
            kept.append(path)
    if problems:
        raise UsageError("; ".join(problems))
    return tuple(kept)


def _deciding_inside(value: Any) -> str | None:
    """The first field name of `DECIDING_NAMES` at any depth inside `value` (None: none)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            named = next((key for key in item if key in DECIDING_NAMES), None)
            if named is not None:
                return str(named)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _refuse_deciding(value: Any, parts: IgnorePath) -> None:
    """UsageError when `value`, about to be dropped, holds what decides a record."""
    named = _deciding_inside(value)
    if named is not None:
        raise UsageError(
            f"--ignore-field {'.'.join(parts)}: it holds '{named}', part of what decides a "
            "record (the text, token ids, finish reason and logprobs cannot be ignored)"
        )


def _drop(value: Any, parts: IgnorePath, whole: IgnorePath | None = None) -> bool:
    """Remove the value at `parts` inside `value`; True when there was one. UsageError when
    that value holds what decides a record (`whole`: the path as given, for the message)."""
    whole = parts if whole is None else whole
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if isinstance(value, dict):
            if part not in value:
                return False
            if last:
                _refuse_deciding(value[part], whole)
                del value[part]
                return True
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            if last:
                _refuse_deciding(value[int(part)], whole)
                value[int(part)] = None  # the other items keep their indexes
                return True
            value = value[int(part)]
        else:
            return False
    return False


def drop_ignored(packed: Packed, paths: Sequence[IgnorePath]) -> Packed:
    """`packed` without the fields at `paths` among its compared fields (the rest of the record,
    `usage`, the fingerprint)."""
    values = list(packed)
    other = json.loads(values[OTHER])
    usage = values[USAGE]
    usage = None if usage is None else json.loads(json.dumps(usage))
    for parts in paths:
        if parts[0] == "usage":
            if len(parts) == 1:
                _refuse_deciding(usage, parts)
                usage = None
            elif usage is not None:
                _drop(usage, parts[1:], parts)
        elif len(parts) == 1 and parts[0] in _FINGERPRINTS:
            values[FINGERPRINT] = None
            other.pop(parts[0], None)
        else:
            _drop(other, parts)
    values[OTHER] = canonical(other)
    values[USAGE] = usage
    return tuple(values)


def ignored_qualification(paths: Sequence[str]) -> str | None:
    """What a reader of a comparison made with `--ignore-field` must be told (None: none)."""
    if not paths:
        return None
    named = " ".join(f"--ignore-field {path}" for path in paths)
    return f"the comparison left fields out ({named}): a record it calls a match may differ in them"
