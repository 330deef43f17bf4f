"""The finish reasons of a sampled answer: which end a request, which give it up, and output
that a stream sends after its choice finished.

A stream's text is whole only when a chunk says the request ran to its end with a reason a
server writes for that (`FINISHED`); one given up (`UNFINISHED`), one with no reason, a blank
or an unknown one (``"null"``, a zero-width space) and one that goes on after its finish (text
or token ids in a later chunk of the same choice) are malformed: counted, their text would look
like the base's own nondeterminism. What servers send after the finish carries no output (a
usage chunk, an empty delta, a repeated finish, ``[DONE]``) and changes nothing.
"""

from __future__ import annotations

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


def unknown(reason: Any) -> str | None:
    """Why a stream's final (non-blank) `reason` does not say its text is whole, None if it does
    (a gave-up reason is left to the caller's own message)."""
    if not isinstance(reason, str) or normal(reason) in FINISHED | UNFINISHED:
        return None
    shown = repr(reason) if len(reason) <= 40 else repr(reason[:39]) + "…"
    return (
        f"the stream ended with an unknown finish_reason {shown}: nothing says its text is whole "
        f"(a request that ran to its end says one of {', '.join(sorted(FINISHED))})"
    )


def _has_output(choice: dict[str, Any]) -> bool:
    delta = choice.get("delta")
    fields = (choice, delta) if isinstance(delta, dict) else (choice,)
    return any(bool(field.get(name)) for field in fields for name in _OUTPUT)


class Finishes:
    """The finish reasons a stream's chunks carried, choice by choice."""

    def __init__(self) -> None:
        self._ended: dict[int, str] = {}
        self.gave_up: str | None = None
        """The first `UNFINISHED` reason of the answer's choice (index 0): a later reason does
        not undo it."""

    def take(self, choice: dict[str, Any]) -> str | None:
        """Take one choice of a chunk (its index checked); what is wrong with it, None if
        nothing: output after its choice already finished."""
        index = choice.get("index", 0)
        ended = self._ended.get(index)
        if ended is not None and _has_output(choice):
            shown = repr(ended) if len(ended) <= 40 else repr(ended[:39]) + "…"
            return (
                f"the stream went on after it finished (finish_reason {shown}): a later chunk "
                "carried more output for the same choice"
            )
        reason = choice.get("finish_reason")
        if not isinstance(reason, str) or not reason.strip():
            return None
        if normal(reason) in UNFINISHED:
            if index == 0:
                self.gave_up = self.gave_up or reason
        elif ended is None:
            self._ended[index] = reason
        return None
