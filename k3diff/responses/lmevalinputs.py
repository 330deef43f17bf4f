"""What two lm-eval runs were given for one doc, compared: its prompt, the requests'
other arguments, its gold target and its document.

- The prompt: lm-eval's `prompt_hash` when both logs have it, else each log's `prompt_hash` or
  first context hashed as lm-eval hashes it, else the requests' arguments; where one log holds
  one of them and the other none it can be compared with, the prompt is unknown, not changed.
- The requests' arguments (multiple-choice continuations, generation settings such as `until`,
  `max_gen_toks`, `temperature`), the prompt alike: the prompt hash covers the first context
  only, so a log holding them against one holding only the hash differs (settings unknown).
- `target` and `doc`: their values; where a log holds only lm-eval's `target_hash` or
  `doc_hash`, the other's value hashed as lm-eval hashes it (`hash_string`: SHA-256 of
  `str(target)`, of `json.dumps(doc, indent=2, ensure_ascii=False)`, of the first context).

The two layouts lm-eval has written are read as the same request: 0.4.0-0.4.2's list of
argument lists and 0.4.3's `{"gen_args_i": {"arg_j": ...}}`; 0.4.4's `str(target)` and an
older log's number or list whose `str` it is.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from k3diff.responses.model import LmEvalParts, text_digest
from k3diff.responses.parts import canonical

INPUT_WORDS = {
    "prompt": "prompt",
    "prompt-unknown": "prompt held by one log only",
    "arguments": "request arguments",
    "arguments-unknown": "request arguments missing from one log or both",
    "target": "gold target",
    "doc": "document",
}
"""Each input a not-comparable record names (`LmEvalDiff.inputs_differ`, and the prompt), as
the reports word it."""


def request_arguments(obj: dict[str, Any]) -> Any:
    """The line's `arguments` as lm-eval held them before writing: a list of argument lists,
    one a request (context, then a continuation or the generation settings). 0.4.0-0.4.2
    wrote that list; 0.4.3 and later write each request as `gen_args_i` and its arguments as
    `arg_j`, in order (`EvaluationTracker.save_results_samples`): the same request, read alike
    (lmeval67: every doc of an old log against a new one was not comparable). Anything else
    is kept as written. Arguments that hold no argument (`{}`, `[]`, `[{}]`, `[[]]`,
    `{"gen_args_0": {}}`, or not a list or object at all) state no request: None, as a line
    without them (review69c: two logs with `arguments: {}` matched, exit 0, where two without
    them are `arguments-unknown`)."""
    arguments = obj.get("arguments")
    if not _holds_an_argument(arguments):
        return None
    if not isinstance(arguments, dict):
        return arguments
    requests = list(arguments.values())
    if list(arguments) != [f"gen_args_{i}" for i in range(len(requests))]:
        return arguments
    if not all(
        isinstance(request, dict) and list(request) == [f"arg_{j}" for j in range(len(request))]
        for request in requests
    ):
        return arguments
    return [list(request.values()) for request in requests]


def _holds_an_argument(arguments: Any) -> bool:
    """True where `arguments` is a list or object holding, at some depth, a value that is not
    a list, an object or null (a context, a continuation, a setting)."""
    if not isinstance(arguments, (dict, list)):
        return False
    stack = [arguments]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif value is not None:
            return True
    return False


def first_context(obj: dict[str, Any]) -> str | None:
    """The first request's context (what a sampler would send; what lm-eval hashes into
    `prompt_hash`); None where the line holds none as text."""
    arguments = request_arguments(obj)
    if isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        first = arguments[0][0] if arguments[0] else None
        return first if isinstance(first, str) else None
    return None


def lm_eval_hash(text: str) -> str:
    """lm-eval's `hash_string`: SHA-256 (hex) of the text's UTF-8 (a lone surrogate, which
    lm-eval could not have written, kept rather than a traceback)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _target_text(target: Any) -> str:
    """What lm-eval hashes of a target: `str(target)` (written so since 0.4.3; an older log's
    number or list is the JSON of a Python value whose `str` this is)."""
    return target if isinstance(target, str) else str(target)


def _doc_text(doc: Any) -> str:
    """What lm-eval hashes of a doc: its JSON, indented by 2, non-ASCII kept."""
    return json.dumps(doc, indent=2, ensure_ascii=False)


_INPUTS = (("target", "target_hash", _target_text), ("doc", "doc_hash", _doc_text))
"""The eval's inputs beside its prompt, each with lm-eval's hash of it (0.4.3 and later) and
the text lm-eval hashes into it."""


def read_inputs(obj: dict[str, Any]) -> tuple[tuple[str, str | None, str], ...]:
    """(name, value digest, lm-eval hash) of each input the line holds (`LmEvalParts`). A
    target that lm-eval's writer made a string (since 0.4.4 it writes `str(target)`, in the
    lines whose `arguments` it rewrites as `gen_args_i`) is only that string: it compares as
    lm-eval hashes it, so an older log's `0` is the same target as its `"0"` (lmeval67)."""
    stringified = isinstance(obj.get("arguments"), dict)
    found: list[tuple[str, str | None, str]] = []
    for name, hash_name, hashed_text in _INPUTS:
        if name in obj:
            value = obj[name]
            written_as_str = name == "target" and stringified and isinstance(value, str)
            digest = None if written_as_str else text_digest(canonical(value))
            found.append((name, digest, lm_eval_hash(hashed_text(value))))
        elif isinstance(obj.get(hash_name), str):
            found.append((name, None, obj[hash_name]))
    return tuple(found)


def _input_differs(
    base: tuple[str, str | None, str] | None, patch: tuple[str, str | None, str] | None
) -> bool:
    """Two values compare as values; where a side holds only lm-eval's hash (or a target the
    writer made a string), the other's value compares as lm-eval hashes it (resp67: a target
    against a `target_hash` went uncompared, a changed target passed). Every lm-eval version
    writes `target` and `doc` on every line, so a line without one (neither value nor hash)
    against one that holds it differs: nothing says its input was the same (lmeval67: it went
    unchecked); two lines without it have nothing to tell apart."""
    if base is None or patch is None:
        return base is not patch
    if base[1] is not None and patch[1] is not None:
        return base[1] != patch[1]
    return base[2] != patch[2]


def prompt_differs(base: LmEvalParts, patch: LmEvalParts) -> bool:
    """lm-eval's prompt hashes when both logs have them, else each log's prompt hash or first
    context hashed as lm-eval hashes it, else the requests' arguments when both have them;
    False where nothing compares (`prompt_unknown`)."""
    if base.prompt_hash is not None and patch.prompt_hash is not None:
        return base.prompt_hash != patch.prompt_hash
    base_hash = base.prompt_hash or base.context_hash
    patch_hash = patch.prompt_hash or patch.context_hash
    if base_hash is not None and patch_hash is not None:
        return base_hash != patch_hash
    if base.arguments_digest is not None and patch.arguments_digest is not None:
        return base.arguments_digest != patch.arguments_digest
    return False


def prompt_unknown(base: LmEvalParts, patch: LmEvalParts) -> bool:
    """True where a log holds its prompt (a hash, a context or the requests' arguments) and
    the other none that compares with it (a line with neither `arguments` nor `prompt_hash`,
    whose prompt was read as changed: left68): nothing says the prompt changed, nor that it
    did not. Two logs holding none have nothing to tell apart."""
    base_hash = base.prompt_hash or base.context_hash
    patch_hash = patch.prompt_hash or patch.context_hash
    if None not in (base_hash, patch_hash):
        return False
    if None not in (base.arguments_digest, patch.arguments_digest):
        return False
    return (base_hash, base.arguments_digest) != (patch_hash, patch.arguments_digest)


def inputs_differ(base: LmEvalParts, patch: LmEvalParts, prompt_differs: bool) -> tuple[str, ...]:
    """The inputs beside the prompt that differ: `target` and `doc` (`_input_differs`), and,
    the prompt alike, the requests' `arguments`: a continuation of a multiple-choice doc or a
    generation setting (`until`, `max_gen_toks`, `temperature`) the prompt hash does not cover
    (lmeval67: another setting matched, exit 0). Every lm-eval version writes `arguments` on
    every line, so a line holding them against one holding only `prompt_hash` cannot be
    compared on its settings (`arguments-unknown`; lmrep68: another temperature matched,
    exit 0), and neither can two lines both without them (triage69: they matched, exit 0, a
    claim of equal settings that neither log supports). A prompt one log does not say is
    `prompt-unknown`, which says the arguments' with it."""
    base_inputs = {held[0]: held for held in base.inputs}
    patch_inputs = {held[0]: held for held in patch.inputs}
    differ = [
        name
        for name, _, _ in _INPUTS
        if _input_differs(base_inputs.get(name), patch_inputs.get(name))
    ]
    if prompt_unknown(base, patch):
        differ.insert(0, "prompt-unknown")
    elif not prompt_differs:
        unstated = None in (base.arguments_digest, patch.arguments_digest)
        if unstated:
            differ.insert(0, "arguments-unknown")
        elif base.arguments_digest != patch.arguments_digest:
            differ.insert(0, "arguments")
    return tuple(differ)
