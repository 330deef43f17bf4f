"""The finish reasons of a sampled answer: which end a request, which give it up, and output
that a stream sends after its choice finished.

An answer's text is whole only when it says the request ran to its end with a reason a server
writes for that (`FINISHED`, and those `--finish-reason` adds: `finishing`): one rule
(`problem`) for a whole answer and a stream alike. One given up (`UNFINISHED`), one with no
reason, a blank or an unknown one (``"null"``, a zero-width space) and a stream that goes on
after its finish (text or token ids in a later chunk of the same choice) or that finishes again
with another reason (`stop`, then `length`: which one ended it?) are malformed: counted,
their text would look like the base's own nondeterminism. What servers send after the finish
carries no output (a usage chunk, an empty delta, a repeated finish, ``[DONE]``) and changes
nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

UNFINISHED = frozenset({"abort", "aborted", "error", "cancelled", "canceled", "timeout"})
"""Finish reasons (blanks stripped, lower-cased) of a request the engine gave up on (vLLM and
SGLang `abort`, TensorRT-LLM `cancelled` and `timeout`, their spellings): its partial text is no
sample."""
FINISHED = frozenset(
    {
        "stop", "length", "tool_calls", "function_call", "content_filter",  # OpenAI, vLLM, SGLang,
        # TensorRT-LLM, llama.cpp, transformers serve, Ollama
        "eos", "eos_token", "stop_sequence",  # llama.cpp's stop type, TGI
    }
)  # fmt: skip
"""Finish reasons (blanks stripped, lower-cased) of a request that ran to its end."""
_OUTPUT = ("text", "content", "reasoning_content", "tool_calls", "token_ids", "output_ids")
"""Fields of a stream choice (or its delta) that carry output."""


def normal(reason: str) -> str:
    """`reason` as compared: blanks stripped, lower-cased."""
    return reason.strip().lower()


def finishing(extra: Iterable[str] = ()) -> frozenset[str]:
    """`FINISHED` and the reasons in `extra` (`--finish-reason`, compared as `normal`); ValueError
    names one that is blank or gives a request up (`UNFINISHED`: its text is never whole)."""
    added = set()
    for reason in extra:
        if not normal(reason):
            raise ValueError("--finish-reason is blank: name the reason a server ends with")
        if normal(reason) in UNFINISHED:
            raise ValueError(
                f"--finish-reason {reason!r} gives a request up (one of "
                f"{', '.join(sorted(UNFINISHED))}): its partial text is no sample"
            )
        added.add(normal(reason))
    return FINISHED | added


def problem(
    reason: Any, finished: frozenset[str] | None = FINISHED, what: str = "the answer"
) -> str | None:
    """Why an answer (`what`: the answer, the stream) whose final finish reason is `reason` is
    no sample, None when `reason` is one of `finished` (`finishing`): it gave the request up,
    it has none (missing, null, blank), or it is one no server ends a finished request with.
    `finished` None fails only a gave-up reason (a body read to see whether it holds a
    completion at all, `k3diff.sample.unstreamed`)."""
    if isinstance(reason, str) and normal(reason) in UNFINISHED:
        return f"the server ended the request unfinished (finish_reason {reason!r})"
    if finished is None or (isinstance(reason, str) and normal(reason) in finished):
        return None
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        return f"{what} has no finish_reason: nothing says its text is whole"
    text = reason if isinstance(reason, str) else str(reason)
    shown = repr(reason) if len(text) <= 40 else repr(text[:39]) + "…"
    extra = "" if finished == FINISHED else " (--finish-reason)"
    return (
        f"{what} ended with an unknown finish_reason {shown}: nothing says its text is whole "
        f"(a request that ran to its end says one of {', '.join(sorted(finished))}{extra}; "
        "--finish-reason NAME adds a server's own)"
    )


def _has_output(choice: dict[str, Any], names: tuple[str, ...] = _OUTPUT) -> bool:
    delta = choice.get("delta")
    fields = (choice, delta) if isinstance(delta, dict) else (choice,)
    return any(bool(field.get(name)) for field in fields for name in names)


def carries_a_token(choice: dict[str, Any]) -> bool:
    """A stream choice with generated output in it, its logprobs included (an empty text or a
    role-only delta is not)."""
    return _has_output(choice, (*_OUTPUT, "logprobs"))


class Finishes:
    """The finish reasons a stream's chunks carried, choice by choice."""

    def __init__(self) -> None:
        self._ended: dict[int, str] = {}
        self.gave_up: str | None = None
        """The first `UNFINISHED` reason of the answer's choice (index 0): a later reason does
        not undo it."""
        self.changed: str | None = None
        """The answer's choice's first finish reason and a different later one (`'stop', then
        'length'`), None if it had one reason: a stream that ended twice, with different
        reasons, is malformed (which reason ended it is the server's guess, not the log's)."""

    def first(self, index: int = 0) -> str | None:
        """The first (non-blank, not gave-up) finish reason choice `index` carried, None if none:
        a later one does not undo it when no finished request ends with it (`problem`)."""
        return self._ended.get(index)

    def take(self, choice: dict[str, Any]) -> str | None:
        """Take one choice of a chunk (its index checked); what is wrong with it, None if
        nothing: output after its choice already finished."""
        index = choice.get("index", 0)
        ended = self._ended.get(index)
        if ended is not None and _has_output(choice):
            return (
                f"the stream went on after it finished (finish_reason {_shown(ended)}): a later chunk "
                "carried more output for the same choice"
            )
        reason = choice.get("finish_reason")
        if reason is not None and not isinstance(reason, str):
            # No server ends a choice so; ignored in a chunk before the last, whether the choice
            # ended there (and what came after it) went unchecked, where a whole answer's fails.
            return f"a stream chunk's finish_reason is {_json_shown(reason)}, not a reason's name"
        if reason is None or not reason.strip():
            return None
        if normal(reason) in UNFINISHED:
            if index == 0:
                self.gave_up = self.gave_up or reason
        elif ended is None:
            self._ended[index] = reason
        elif index == 0 and self.changed is None and normal(reason) != normal(ended):
            self.changed = f"{_shown(ended)}, then {_shown(reason)}"
        return None


def _json_shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _shown(reason: str) -> str:
    return repr(reason) if len(reason) <= 40 else repr(reason[:39]) + "…"
